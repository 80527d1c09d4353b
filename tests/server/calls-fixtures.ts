/**
 * What the calls, wallet, webhook and sandbox tests share: organisations with agents and phone numbers,
 * signed webhook deliveries, Vapi ServerMessage payloads (checked against Vapi's OpenAPI document),
 * row counts for "a refused request writes nothing", and waiting for a simulated call to end.
 */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { Agent, Call } from "../../contract";
import { orgScope } from "../../server/data/orgScope";
import type { Db } from "../../server/db/client";
import { NO_AGENT_KEY, calls, phoneNumbers, walletLedger, wallets, webhookEvents } from "../../server/db/schema";
import { signWebhook } from "../../server/webhooks/signature";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, createOrganisation, signUp } from "./helpers";

/** The webhook secret the tests' apps verify with (VAPI_WEBHOOK_SECRET). */
export const WEBHOOK_SECRET = "test-webhook-secret-0123456789abcdef";
export const WEBHOOK_URL = "/api/webhooks/vapi";

export interface TestOrg {
  token: string;
  userId: string;
  orgId: string;
}

export async function newOrganisation(app: FastifyInstance, name?: string): Promise<TestOrg> {
  const { token, userId } = await signUp(app);
  const orgId = await createOrganisation(app, token, name);
  return { token, userId, orgId };
}

export async function createAgent(app: FastifyInstance, token: string, body: Record<string, unknown> = {}): Promise<Agent> {
  const response = await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(token), payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Agent }).data;
}

/** A phone number row written straight through the organisation scope (the /phonenumber routes are another issue's). */
export async function addPhoneNumber(db: Db, orgId: string, options: { number?: string; providerNumberId?: string | null } = {}): Promise<string> {
  const id = randomUUID();
  const scope = orgScope(db, orgId);
  const isDefault = (await scope.count(phoneNumbers)) === 0;
  await scope.insert(phoneNumbers, {
    id,
    name: "Main line",
    number: options.number ?? `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`,
    provider: "vapi",
    isDefault,
    providerNumberId: options.providerNumberId ?? null,
  });
  return id;
}

/** Rows in every table a call touches (all organisations): equal before and after = nothing written. */
export async function rowCounts(db: Db): Promise<{ calls: number; wallets: number; walletLedger: number; webhookEvents: number }> {
  const countOf = async (table: typeof calls | typeof wallets | typeof walletLedger | typeof webhookEvents) =>
    (await db.select({ n: count() }).from(table))[0]?.n ?? 0;
  return { calls: await countOf(calls), wallets: await countOf(wallets), walletLedger: await countOf(walletLedger), webhookEvents: await countOf(webhookEvents) };
}

export function postWebhook(
  app: FastifyInstance,
  payload: unknown,
  options: { secret?: string; timestamp?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
  const headers = options.headers ?? { "x-timestamp": timestamp, "x-signature": signWebhook(options.secret ?? WEBHOOK_SECRET, timestamp, body) };
  return app.inject({ method: "POST", url: WEBHOOK_URL, headers: { "content-type": "application/json", ...headers }, payload: body });
}

/** A ServerMessage body; fails the test unless Vapi's schema accepts it with no unknown fields. */
export function serverMessage(message: Record<string, unknown>): { message: Record<string, unknown> } {
  const body = { message };
  expect(loadVapiOpenApi().problems("ServerMessage", body)).toEqual([]);
  return body;
}

export interface VapiCallFields {
  providerCallId: string;
  type?: "outboundPhoneCall" | "inboundPhoneCall" | "webCall";
  callId?: string;
  orgId?: string;
  assistantId?: string;
  phoneNumberId?: string;
  customerNumber?: string;
}

/** Vapi's Call object as its webhooks carry it (`call`). */
export function vapiCall(fields: VapiCallFields, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: fields.providerCallId,
    orgId: "vapi-org",
    createdAt: now,
    updatedAt: now,
    type: fields.type ?? "outboundPhoneCall",
    ...(fields.assistantId ? { assistantId: fields.assistantId } : {}),
    ...(fields.phoneNumberId ? { phoneNumberId: fields.phoneNumberId } : {}),
    ...(fields.customerNumber ? { customer: { number: fields.customerNumber } } : {}),
    ...(fields.callId ? { assistantOverrides: { metadata: { callId: fields.callId, orgId: fields.orgId } } } : {}),
    ...extra,
  };
}

export function statusUpdate(fields: VapiCallFields, status: string, extra: Record<string, unknown> = {}) {
  return serverMessage({ type: "status-update", status, timestamp: Date.now(), call: vapiCall(fields, { status }), ...extra });
}

export function endOfCallReport(fields: VapiCallFields, options: { cost?: number; startedAt?: string; endedAt?: string } = {}) {
  const endedAt = options.endedAt ?? new Date().toISOString();
  const startedAt = options.startedAt ?? new Date(Date.parse(endedAt) - 42_000).toISOString();
  const cost = options.cost ?? 0.07;
  const t0 = Date.parse(startedAt);
  return serverMessage({
    type: "end-of-call-report",
    timestamp: Date.now(),
    endedReason: "customer-ended-call",
    cost,
    startedAt,
    endedAt,
    artifact: {
      transcript: "AI: Hello! How are you doing today?\nUser: Fine, thanks.",
      messages: [
        { role: "system", message: "You are a helpful assistant.", time: t0, secondsFromStart: 0 },
        { role: "bot", message: "Hello! How are you doing today?", time: t0 + 500, endTime: t0 + 2500, secondsFromStart: 0.5 },
        { role: "user", message: "Fine, thanks.", time: t0 + 3000, endTime: t0 + 4000, secondsFromStart: 3 },
      ],
      recording: { stereoUrl: "https://storage.vapi.ai/stereo.wav", mono: { combinedUrl: "https://storage.vapi.ai/mono.wav" } },
    },
    analysis: { summary: "The customer was fine.", structuredData: { mood: "fine" }, successEvaluation: "true" },
    call: vapiCall(fields, { status: "ended", costBreakdown: { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.01, vapi: 0.02, total: cost } }),
  });
}

export async function getCall(app: FastifyInstance, token: string, id: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url: `/api/call/${id}`, headers: bearer(token) });
}

/** Polls until `check` answers something truthy (or fails after `timeoutMs`). */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, what = "the condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits for the call's end-of-call report to be ingested (status ended and the report's fields in). */
export function waitForEndedCall(app: FastifyInstance, token: string, id: string, timeoutMs = 10_000): Promise<Call> {
  return waitFor(
    async () => {
      const response = await getCall(app, token, id);
      const call = (response.json() as { data?: Call }).data;
      return call && call.status === "ended" && call.ended_reason && call.ended_at && call.duration_seconds !== null && call.cost !== null ? call : null;
    },
    timeoutMs,
    `call ${id} to end`,
  );
}

export async function ledgerOf(db: Db, orgId: string) {
  return orgScope(db, orgId).select(walletLedger);
}

export async function walletRow(db: Db, orgId: string) {
  return orgScope(db, orgId).first(wallets);
}

export async function callRow(db: Db, id: string) {
  return (await db.select().from(calls).where(eq(calls.id, id)))[0];
}

/**
 * call_daily_stats as it should be: a fresh GROUP BY of the calls, written here independently of the
 * migration's functions (day in the organisation's zone, agent or NO_AGENT_KEY, outcomes from the
 * generated column, durations, costs, pass and fail).
 */
const FRESH_ROLLUP = `
  select c.org_id, (c.started_at at time zone o.timezone)::date::text as day, coalesce(c.agent_id, '${NO_AGENT_KEY}')::text as agent_key,
    count(*)::int as calls,
    count(*) filter (where c.outcome <> 'in_progress')::int as ended,
    count(*) filter (where c.outcome = 'answered')::int as answered,
    count(*) filter (where c.outcome = 'busy')::int as busy,
    count(*) filter (where c.outcome = 'no_answer')::int as no_answer,
    count(*) filter (where c.outcome = 'voicemail')::int as voicemail,
    count(*) filter (where c.outcome = 'failed')::int as failed,
    count(*) filter (where c.outcome = 'in_progress')::int as in_progress,
    count(c.duration_seconds)::int as with_duration,
    coalesce(sum(c.duration_seconds), 0)::text as duration_seconds,
    coalesce(sum(c.cost_micros), 0)::text as cost_micros,
    count(*) filter (where c.success_outcome = 'pass')::int as success_pass,
    count(*) filter (where c.success_outcome = 'fail')::int as success_fail
  from calls c join organizations o on o.id = c.org_id
  where $1::text is null or c.org_id = $1
  group by 1, 2, 3 order by 1, 2, 3`;

const STORED_ROLLUP = `
  select org_id, day::text as day, agent_key::text as agent_key, calls, ended, answered, busy, no_answer, voicemail, failed, in_progress,
    with_duration, duration_seconds::text as duration_seconds, cost_micros::text as cost_micros, success_pass, success_fail
  from call_daily_stats where $1::text is null or org_id = $1 order by 1, 2, 3`;

/** Raw SQL with values on either driver (both answer query(text, values) with {rows}). */
export async function sqlRows<T = Record<string, unknown>>(db: Db, text: string, values: unknown[] = []): Promise<T[]> {
  const client = (db as unknown as { $client: { query: (text: string, values: unknown[]) => Promise<{ rows: T[] }> } }).$client;
  return (await client.query(text, values)).rows;
}

/** The rollup's rows and the fresh GROUP BY's (one organisation's, or every one's). */
export async function rollupAndCalls(db: Db, orgId: string | null = null): Promise<{ stored: unknown[]; fresh: unknown[] }> {
  const [stored, fresh] = [await sqlRows(db, STORED_ROLLUP, [orgId]), await sqlRows(db, FRESH_ROLLUP, [orgId])];
  return { stored, fresh };
}

/** Asserts call_daily_stats equals a fresh GROUP BY of the calls; answers the rows. */
export async function expectRollupMatchesCalls(db: Db, orgId: string | null = null): Promise<unknown[]> {
  const { stored, fresh } = await rollupAndCalls(db, orgId);
  expect(stored).toEqual(fresh);
  return stored;
}
