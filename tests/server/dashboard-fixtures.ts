/**
 * What the dashboard tests share: calls written straight into the database (many per statement, with
 * success_outcome as the server stores it), the organisation's time zone set through the API, a seeded
 * random generator, and the oracle: a dashboard's figures worked out from GET /call/ (its exact `total`
 * with the outcome and success filters) and GET /call/export (durations, costs, agents), never from the
 * rollup, so each dashboard figure is checked against the call log a person would open from it.
 */
import { parseCsvRecords } from "./csv";
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { CALL_OUTCOMES, successOutcome, type CallListResponse, type CallOutcome, type Dashboard, type DashboardTotals } from "../../contract";
import type { Db } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { bearer } from "./helpers";

/** mulberry32: a small seeded generator, so a failing case runs again with the same seed. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seededRandom>;

export type NewCall = Omit<typeof calls.$inferInsert, "id" | "orgId" | "successOutcome" | "type"> & { id?: string; type?: string };

/** Writes calls into `orgId`, 500 per statement; success_outcome from the evaluation as the server counts it (no rubric). */
export async function insertCalls(db: Db, orgId: string, rows: NewCall[]): Promise<string[]> {
  const values = rows.map((row) => ({
    ...row,
    id: row.id ?? randomUUID(),
    type: row.type ?? "outbound",
    orgId,
    successOutcome: successOutcome(row.successEvaluation ?? null),
  }));
  for (let i = 0; i < values.length; i += 500) await db.insert(calls).values(values.slice(i, i + 500));
  return values.map((value) => value.id);
}

export async function setTimeZone(app: FastifyInstance, adminToken: string, timezone: string): Promise<void> {
  const response = await app.inject({ method: "PATCH", url: "/api/organization/settings", headers: bearer(adminToken), payload: { timezone } });
  expect(response.statusCode, response.body).toBe(200);
}

export function getDashboard(app: FastifyInstance, token: string, query = ""): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url: `/api/dashboard/${query ? `?${query}` : ""}`, headers: bearer(token) });
}

export async function dashboard(app: FastifyInstance, token: string, query = ""): Promise<Dashboard> {
  const response = await getDashboard(app, token, query);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Dashboard }).data;
}

export interface CallFilter {
  startDate: string;
  endDate: string;
  timezone: string;
  agentId?: string | undefined;
}

const filterQuery = (filter: CallFilter, extra: Record<string, string> = {}) =>
  new URLSearchParams({ startDate: filter.startDate, endDate: filter.endDate, timezone: filter.timezone, ...(filter.agentId ? { agentId: filter.agentId } : {}), ...extra }).toString();

/** GET /call/'s exact total for the filter (and `extra` list filters). */
export async function listTotal(app: FastifyInstance, token: string, filter: CallFilter, extra: Record<string, string> = {}): Promise<number> {
  const response = await app.inject({ method: "GET", url: `/api/call/?${filterQuery(filter, { page: "1", limit: "1", ...extra })}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as CallListResponse;
  expect(body.total_is_estimate).toBe(false);
  return body.total;
}

/** GET /call/export's rows for the filter. */
export async function exportRows(app: FastifyInstance, token: string, filter: CallFilter): Promise<Record<string, string>[]> {
  const response = await app.inject({ method: "GET", url: `/api/call/export?${filterQuery(filter)}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  const rows = parseCsvRecords(response.body);
  expect(rows.length).toBe(Number(response.headers["x-total-count"]));
  return rows;
}

// ---- The figures as a person would work them out from the call log ----

const usdToMicros = (usd: string) => (usd === "" ? 0 : Math.round(Number(usd) * 1_000_000));
const minutes = (seconds: number) => Math.round(seconds / 6) / 10;
const rate = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/** What export rows add up to. */
export function rowSums(rows: Record<string, string>[]) {
  let durationSeconds = 0;
  let withDuration = 0;
  let costMicros = 0;
  for (const row of rows) {
    if (row.duration_seconds !== "") {
      durationSeconds += Number(row.duration_seconds);
      withDuration++;
    }
    costMicros += usdToMicros(row.cost_usd!);
  }
  const count = (column: string, value: string) => rows.filter((row) => row[column] === value).length;
  return {
    calls: rows.length,
    durationSeconds,
    withDuration,
    costMicros,
    answered: count("outcome", "answered"),
    ended: rows.length - count("outcome", "in_progress"),
    pass: count("success", "pass"),
    fail: count("success", "fail"),
  };
}

/** A period's totals and outcomes from the list's totals (counts) and the export's rows (durations, cost). */
export async function expectedPeriod(app: FastifyInstance, token: string, filter: CallFilter) {
  const rows = await exportRows(app, token, filter);
  const sums = rowSums(rows);
  const outcomes = {} as Record<CallOutcome, number>;
  for (const outcome of CALL_OUTCOMES) outcomes[outcome] = await listTotal(app, token, filter, { outcome });
  const calls = await listTotal(app, token, filter);
  const pass = await listTotal(app, token, filter, { success: "pass" });
  const fail = await listTotal(app, token, filter, { success: "fail" });
  const ended = calls - outcomes.in_progress;
  // The export and the list agree on the calls and what became of them.
  expect({ calls: sums.calls, answered: sums.answered, ended: sums.ended, pass: sums.pass, fail: sums.fail }).toEqual({ calls, answered: outcomes.answered, ended, pass, fail });
  const totals: DashboardTotals = {
    calls,
    minutes: minutes(sums.durationSeconds),
    cost: sums.costMicros / 1_000_000,
    avg_duration_seconds: sums.withDuration === 0 ? null : Math.round((sums.durationSeconds / sums.withDuration) * 10) / 10,
    answer_rate: rate(outcomes.answered, ended),
    success_rate: rate(pass, pass + fail),
    cost_per_minute: sums.durationSeconds === 0 ? null : sums.costMicros / 1_000_000 / (sums.durationSeconds / 60),
    ended,
    answered: outcomes.answered,
    evaluated: pass + fail,
    successful: pass,
    duration_seconds: sums.durationSeconds,
  };
  return { rows, totals, outcomes };
}

/** Per agent (agent_id, "" for none), from export rows, by agent_id (the dashboard's order is checked on its own). */
export function expectedAgents(rows: Record<string, string>[]) {
  const groups = new Map<string, Record<string, string>[]>();
  for (const row of rows) groups.set(row.agent_id!, [...(groups.get(row.agent_id!) ?? []), row]);
  return [...groups.entries()]
    .map(([agentId, agentRows]) => {
      const sums = rowSums(agentRows);
      return {
        agent_id: agentId || null,
        agent_name: agentId ? agentRows[0]!.agent_name! : null,
        calls: sums.calls,
        minutes: minutes(sums.durationSeconds),
        cost: sums.costMicros / 1_000_000,
        success_rate: rate(sums.pass, sums.pass + sums.fail),
        answer_rate: rate(sums.answered, sums.ended),
      };
    })
    .sort(byAgentId);
}

/** A series day from the export rows of that day alone. */
export function expectedDay(date: string, rows: Record<string, string>[]) {
  const sums = rowSums(rows);
  return { date, calls: sums.calls, minutes: minutes(sums.durationSeconds), cost: sums.costMicros / 1_000_000, answered: sums.answered, successful: sums.pass };
}

export const byAgentId = (a: { agent_id: string | null }, b: { agent_id: string | null }) => (a.agent_id ?? "").localeCompare(b.agent_id ?? "");
