/**
 * GET /dashboard/ against the call log, over generated calls: random statuses and ended reasons (every
 * rule of contract/call-outcome.ts), durations, costs, success evaluations, agents (one of them deleted
 * afterwards, and calls without one), started over 120 days and around every 2026 daylight-saving change
 * of the zones below (calls exactly at, and a millisecond either side of, local midnight). In each zone
 * (set through PATCH /organization/settings, so the rollup is rebuilt each time), for random periods and
 * agent filters, every figure (totals, previous, outcomes, each series day, each agent row) equals what
 * GET /call/ (exact totals with outcome/success filters) and GET /call/export (durations, costs) give for
 * the same startDate, endDate, timezone and agentId. Another organisation's calls lie in the same days.
 *
 * Seeded: DASHBOARD_SEED=<n> runs a failing case again (the seed is in every assertion's message).
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallOutcome } from "../../contract";
import type { Database } from "../../server/db/client";
import { addDays, daysBetween, eachDay } from "../../server/dashboard/period";
import { createAgent, newOrganisation, type TestOrg } from "./calls-fixtures";
import {
  byAgentId,
  dashboard,
  expectedAgents,
  expectedDay,
  expectedPeriod,
  exportRows,
  insertCalls,
  listTotal,
  seededRandom,
  setTimeZone,
  type CallFilter,
  type NewCall,
  type Random,
} from "./dashboard-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

const SEED = Number(process.env.DASHBOARD_SEED ?? 20_261_124);
const ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "America/Santiago"];
const WINDOW_START = "2026-02-15";
const WINDOW_DAYS = 120;
/** 2026's daylight-saving changes: US, EU, Chile (autumn there), Chile (spring, midnight skipped), EU, US. */
const TRANSITIONS = ["2026-03-08", "2026-03-29", "2026-04-05", "2026-09-06", "2026-10-25", "2026-11-01"];

const STATUSES = ["ended", "ended", "ended", "ended", "ended", "in-progress", "queued", "ringing", "forwarding", "failed"];
const ENDED_REASONS = [
  "customer-ended-call",
  "assistant-ended-call",
  "silence-timed-out",
  "customer-busy",
  "customer-did-not-answer",
  "voicemail",
  "pipeline-error-openai-llm-failed",
  "twilio-failed-to-connect-call",
  "assistant-not-found",
  "worker-shutdown",
  null,
];
const EVALUATIONS = ["true", "false", "pass", "Failed", "80%", "45%", "9", "3", "Good", "Poor", "Strongly agree", "Neutral", "checklist text", null, null];

let database: Database;
let app: FastifyInstance;
let org: TestOrg;
let other: TestOrg;
let agentIds: string[];
let goneAgentId: string;
let otherAgentId: string;

function randomCall(random: Random, startedAt: Date, agents: (string | null)[]): NewCall {
  const status = random.pick(STATUSES);
  const over = status === "ended" || status === "failed";
  return {
    status,
    type: random.pick(["outbound", "inbound", "web"]),
    agentId: random.pick(agents),
    startedAt,
    endedReason: over ? random.pick(ENDED_REASONS) : null,
    durationSeconds: over && random.chance(0.85) ? random.int(0, 900) : null,
    // Odd micro-dollars, so a sum that went through floating point would show.
    costMicros: over && random.chance(0.9) ? random.int(0, 2_000_000) + 7 : null,
    successEvaluation: over ? random.pick(EVALUATIONS) : null,
    customerNumber: `+1415555${String(random.int(0, 9999)).padStart(4, "0")}`,
  };
}

/** Local midnight of `days` in every zone, as PostgreSQL reads them (the instants the list's bounds are). */
async function localMidnights(days: string[]): Promise<Date[]> {
  const result = (await database.db.execute(sql`
    select (d::timestamp at time zone z) as t
    from unnest(${`{${days.join(",")}}`}::date[]) d cross join unnest(${`{${ZONES.join(",")}}`}::text[]) z`)) as unknown as { rows: { t: Date | string }[] };
  return result.rows.map((row) => new Date(row.t));
}

beforeAll(async () => {
  database = await migratedDatabase();
  // Hundreds of requests from one address: the per-IP limit would answer 429.
  ({ app } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "1000000" }));
  org = await newOrganisation(app, "Property Ltd");
  other = await newOrganisation(app, "Elsewhere Ltd");
  agentIds = [];
  for (const name of ["Sales Sam", "Support Sue", "Billing Bob"]) agentIds.push((await createAgent(app, org.token, { agent_name: name })).id);
  goneAgentId = (await createAgent(app, org.token, { agent_name: "Gone Gary" })).id;
  otherAgentId = (await createAgent(app, other.token, { agent_name: "Other Olga" })).id;

  const random = seededRandom(SEED);
  const windowStart = Date.parse(`${WINDOW_START}T00:00:00Z`) - 14 * 3_600_000;
  const windowMs = (WINDOW_DAYS + 1) * 86_400_000;
  const ours = [...agentIds, goneAgentId, null];
  const rows: NewCall[] = [];
  for (let i = 0; i < 2500; i++) rows.push(randomCall(random, new Date(windowStart + Math.floor(random.next() * windowMs)), ours));
  const edgeDays = TRANSITIONS.flatMap((day) => [addDays(day, -1), day, addDays(day, 1)]);
  for (const midnight of await localMidnights(edgeDays)) {
    for (const offset of [-1, 0, 1]) if (random.chance(0.7)) rows.push(randomCall(random, new Date(midnight.getTime() + offset), ours));
  }
  // Calls spread around the transitions in autumn too (outside the 120 days).
  for (const day of TRANSITIONS.slice(3)) {
    for (let i = 0; i < 40; i++) rows.push(randomCall(random, new Date(Date.parse(`${day}T00:00:00Z`) + random.int(-3 * 86_400, 3 * 86_400) * 1000), ours));
  }
  await insertCalls(database.db, org.orgId, rows);
  await insertCalls(
    database.db,
    other.orgId,
    Array.from({ length: 150 }, () => randomCall(random, new Date(windowStart + Math.floor(random.next() * windowMs)), [otherAgentId, null])),
  );
  // The agent goes; its calls stay, without an agent.
  const deleted = await app.inject({ method: "DELETE", url: `/api/agent/${goneAgentId}`, headers: bearer(org.token) });
  expect(deleted.statusCode, deleted.body).toBeLessThan(300);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await database?.close();
});

interface Case {
  startDate: string;
  endDate: string;
  agentId?: string | undefined;
}

function randomCase(random: Random, kind: number): Case {
  const agentId = random.pick([undefined, undefined, undefined, undefined, ...agentIds, goneAgentId, otherAgentId]);
  if (kind === 0) {
    const startDate = addDays(random.pick(TRANSITIONS), -random.int(0, 3));
    return { startDate, endDate: addDays(startDate, random.int(0, 8)), agentId };
  }
  const length = kind === 1 ? random.int(1, 35) : random.int(60, 130);
  const startDate = addDays(WINDOW_START, random.int(-10, WINDOW_DAYS - Math.min(length, WINDOW_DAYS)));
  return { startDate, endDate: addDays(startDate, length - 1), agentId };
}

/** Days whose series entry is checked against that day's export: all of a short period, a sample and the transitions of a long one. */
function daysToCheck(random: Random, days: string[]): string[] {
  if (days.length <= 40) return days;
  const sample = new Set(days.filter((day) => TRANSITIONS.includes(day) || TRANSITIONS.includes(addDays(day, -1))));
  while (sample.size < 16) sample.add(random.pick(days));
  return [...sample];
}

describe(`GET /dashboard/ equals the call log (seed ${SEED})`, () => {
  it.each(ZONES)("in %s", async (zone) => {
    await setTimeZone(app, org.token, zone);
    const random = seededRandom(SEED + ZONES.indexOf(zone) + 1);
    let counted = 0;
    for (const kind of [0, 1, 2, 0, 1, 2, 0, 1, 2]) {
      const chosen = randomCase(random, kind);
      const label = `seed ${SEED}, ${zone}, ${JSON.stringify(chosen)}`;
      const query = new URLSearchParams({ startDate: chosen.startDate, endDate: chosen.endDate, ...(chosen.agentId ? { agentId: chosen.agentId } : {}) }).toString();
      const answer = await dashboard(app, org.token, query);
      const days = daysBetween(chosen.startDate, chosen.endDate);
      const filter: CallFilter = { startDate: chosen.startDate, endDate: chosen.endDate, timezone: zone, agentId: chosen.agentId };
      const previousFilter: CallFilter = { ...filter, startDate: addDays(chosen.startDate, -days), endDate: addDays(chosen.startDate, -1) };

      expect(answer.period, label).toEqual({ start_date: chosen.startDate, end_date: chosen.endDate, timezone: zone, days });
      expect(answer.previous_period, label).toEqual({ start_date: previousFilter.startDate, end_date: previousFilter.endDate });

      const current = await expectedPeriod(app, org.token, filter);
      expect(answer.totals, label).toEqual(current.totals);
      expect(answer.outcomes, label).toEqual(current.outcomes satisfies Record<CallOutcome, number>);
      const previous = await expectedPeriod(app, org.token, previousFilter);
      expect(answer.previous, label).toEqual(previous.totals);
      expect(answer.previous_outcomes, label).toEqual(previous.outcomes);

      // Every day present, oldest first; the days add up to the period.
      expect(answer.series.map((entry) => entry.date), label).toEqual(eachDay(chosen.startDate, chosen.endDate));
      expect(answer.series.reduce((sum, entry) => sum + entry.calls, 0), label).toBe(current.totals.calls);
      expect(answer.series.reduce((sum, entry) => sum + entry.answered, 0), label).toBe(current.totals.answered);
      for (const date of daysToCheck(random, eachDay(chosen.startDate, chosen.endDate))) {
        const rows = await exportRows(app, org.token, { ...filter, startDate: date, endDate: date });
        expect(answer.series.find((entry) => entry.date === date), `${label}, day ${date}`).toEqual(expectedDay(date, rows));
      }

      // Agents: the period's export grouped by agent, most calls first; each agent's count is the list's.
      expect([...answer.agents].sort(byAgentId), label).toEqual(expectedAgents(current.rows));
      expect(answer.agents.map((agent) => agent.calls), label).toEqual(answer.agents.map((agent) => agent.calls).sort((a, b) => b - a));
      for (const agent of answer.agents.filter((row) => row.agent_id)) {
        expect(await listTotal(app, org.token, { ...filter, agentId: agent.agent_id! }), `${label}, agent ${agent.agent_name}`).toBe(agent.calls);
      }
      counted += answer.totals.calls;
      if (chosen.agentId === goneAgentId || chosen.agentId === otherAgentId) expect(answer.totals.calls + answer.previous.calls, label).toBe(0);
    }
    // The cases were about calls, not only empty days.
    expect(counted).toBeGreaterThan(500);
  });
});
