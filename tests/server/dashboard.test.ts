/**
 * GET /api/dashboard/: who may read it, the query's validation, the default period in the organisation's
 * zone, the previous period, zero-filled days, agents (a deleted one, calls without one), the wallet and
 * the first-run facts, another organisation's calls and agents, and the figures moving when a late
 * webhook ends a call counted in progress or a call is deleted. The property test beside this file
 * (dashboard-property.test.ts) checks every figure against the call log over generated calls.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS, type Dashboard, type Wallet } from "../../contract";
import { addDays } from "../../server/dashboard/period";
import type { Database } from "../../server/db/client";
import { NO_AGENT_KEY, calls } from "../../server/db/schema";
import { WEBHOOK_SECRET, createAgent, endOfCallReport, newOrganisation, postWebhook, type TestOrg } from "./calls-fixtures";
import { dashboard, getDashboard, insertCalls, setTimeZone } from "./dashboard-fixtures";
import { addMember, bearer, buildTestApp, migratedDatabase, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;

/** Today in `zone`, as the organisation there counts it. */
const todayIn = (zone: string, at = new Date()) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
const noon = (day: string) => new Date(`${day}T12:00:00.000Z`);

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, STARTING_CREDIT_USD: "10", CALL_HOLD_USD: "1" }));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe("who may read it", () => {
  it("answers 401 {detail, code} without a valid token", async () => {
    for (const headers of [{}, bearer("made-up")]) {
      const response = await app.inject({ method: "GET", url: "/api/dashboard/", headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ detail: expect.any(String), code: "unauthorized" });
    }
  });

  it("answers 403 organization_required to someone with no organisation", async () => {
    const { token } = await signUp(app);
    const response = await getDashboard(app, token);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: "organization_required" });
  });

  it("answers members as well as admins, with and without the trailing slash", async () => {
    const admin = await newOrganisation(app, "Members Ltd");
    const member = await addMember(app, admin.token, admin.orgId);
    const forAdmin = await dashboard(app, admin.token);
    const forMember = await dashboard(app, member.token);
    expect(forMember).toEqual(forAdmin);
    expect((await app.inject({ method: "GET", url: "/api/dashboard", headers: bearer(member.token) })).statusCode).toBe(200);
  });
});

describe("the query", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await newOrganisation(app, "Validation Ltd");
  });

  it.each([
    ["startDate=2026-02-30&endDate=2026-03-01", "startDate"],
    ["startDate=2026-2-3&endDate=2026-03-01", "startDate"],
    ["startDate=2026-03-01&endDate=yesterday", "endDate"],
    ["startDate=2026-03-02&endDate=2026-03-01", "endDate"],
    [`startDate=2025-01-01&endDate=${addDays("2025-01-01", DASHBOARD_MAX_DAYS)}`, "endDate"],
    ["startDate=2000-01-01", "startDate"],
    ["agentId=not-a-uuid", "agentId"],
    ["timezone=Europe/Berlin", "timezone"],
    ["page=1", "page"],
  ])("%s answers 400 {detail, code} naming %s", async (query, field) => {
    const response = await getDashboard(app, org.token, query);
    expect(response.statusCode, response.body).toBe(400);
    const body = response.json() as { detail: string; code: string };
    expect(body).toEqual({ detail: expect.any(String), code: "validation_error" });
    expect(body.detail).toContain(field);
  });

  it(`takes a period of exactly ${DASHBOARD_MAX_DAYS} days, and a single day`, async () => {
    const long = await dashboard(app, org.token, `startDate=2025-01-01&endDate=${addDays("2025-01-01", DASHBOARD_MAX_DAYS - 1)}`);
    expect(long.period.days).toBe(DASHBOARD_MAX_DAYS);
    expect(long.series).toHaveLength(DASHBOARD_MAX_DAYS);
    const one = await dashboard(app, org.token, "startDate=2026-03-07&endDate=2026-03-07");
    expect(one.period).toMatchObject({ start_date: "2026-03-07", end_date: "2026-03-07", days: 1 });
    expect(one.previous_period).toEqual({ start_date: "2026-03-06", end_date: "2026-03-06" });
  });

  it("the first calendar day there is: the period before it is empty, not an error", async () => {
    const first = await dashboard(app, org.token, "startDate=0001-01-01&endDate=0001-01-10");
    expect(first.previous_period).toEqual({ start_date: "0000-12-22", end_date: "0000-12-31" });
    expect(first.previous.calls).toBe(0);
  });
});

describe("the period", () => {
  it(`defaults to the last ${DASHBOARD_DEFAULT_DAYS} days, today included, today being the organisation's`, async () => {
    const org = await newOrganisation(app, "Default Ltd");
    // Kiritimati is UTC+14, Pago Pago UTC-11: for most of the day their dates differ from UTC's.
    for (const zone of ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"]) {
      await setTimeZone(app, org.token, zone);
      const before = todayIn(zone);
      const answer = await dashboard(app, org.token);
      const today = [before, todayIn(zone)].includes(answer.period.end_date) ? answer.period.end_date : before;
      expect(answer.period).toEqual({ start_date: addDays(today, 1 - DASHBOARD_DEFAULT_DAYS), end_date: today, timezone: zone, days: DASHBOARD_DEFAULT_DAYS });
      expect(answer.previous_period).toEqual({ start_date: addDays(today, 1 - 2 * DASHBOARD_DEFAULT_DAYS), end_date: addDays(today, -DASHBOARD_DEFAULT_DAYS) });
      expect(answer.series.map((day) => day.date)).toEqual(Array.from({ length: DASHBOARD_DEFAULT_DAYS }, (_, i) => addDays(today, i + 1 - DASHBOARD_DEFAULT_DAYS)));

      const onlyEnd = await dashboard(app, org.token, "endDate=2026-03-31");
      expect(onlyEnd.period).toMatchObject({ start_date: "2026-03-02", end_date: "2026-03-31", days: DASHBOARD_DEFAULT_DAYS });
      const onlyStart = await dashboard(app, org.token, `startDate=${addDays(today, -6)}`);
      expect(onlyStart.period).toMatchObject({ start_date: addDays(today, -6), end_date: today, days: 7 });
      const future = addDays(today, 10);
      expect((await dashboard(app, org.token, `startDate=${future}`)).period).toMatchObject({ start_date: future, end_date: future, days: 1 });
    }
  });

  it("counts a call today in the default period, and compares it with the period before", async () => {
    const org = await newOrganisation(app, "Today Ltd");
    const now = Date.now();
    await insertCalls(database.db, org.orgId, [
      { status: "ended", startedAt: new Date(now - 60_000), durationSeconds: 60, costMicros: 100_000, endedReason: "customer-ended-call" },
      { status: "ended", startedAt: new Date(now - 40 * 86_400_000), durationSeconds: 30, costMicros: 50_000, endedReason: "voicemail" },
      { status: "ended", startedAt: new Date(now - 80 * 86_400_000), durationSeconds: 30, costMicros: 50_000 },
    ]);
    const answer = await dashboard(app, org.token);
    expect(answer.totals).toMatchObject({ calls: 1, minutes: 1, cost: 0.1, answer_rate: 1 });
    expect(answer.previous).toMatchObject({ calls: 1, minutes: 0.5, cost: 0.05, answer_rate: 0 });
    expect(answer.previous_outcomes.voicemail).toBe(1);
  });
});

describe("the figures", () => {
  let org: TestOrg;
  let sales: string;
  let support: string;
  let gone: string;
  let answer: Dashboard;

  beforeAll(async () => {
    org = await newOrganisation(app, "Figures Ltd");
    sales = (await createAgent(app, org.token, { agent_name: "Sales Sam" })).id;
    support = (await createAgent(app, org.token, { agent_name: "Support Sue" })).id;
    gone = (await createAgent(app, org.token, { agent_name: "Gone Gary" })).id;
    // Period 2026-03-04 … 2026-03-10 (7 days); the previous one 2026-02-25 … 2026-03-03.
    await insertCalls(database.db, org.orgId, [
      // 03-05: two answered calls of Sales, one passed, one failed its evaluation.
      { status: "ended", agentId: sales, startedAt: noon("2026-03-05"), durationSeconds: 125, costMicros: 210_001, endedReason: "customer-ended-call", successEvaluation: "true" },
      { status: "ended", agentId: sales, startedAt: noon("2026-03-05"), durationSeconds: 61, costMicros: 99_999, endedReason: "assistant-ended-call", successEvaluation: "2" },
      // 03-08: Support: busy, no answer, voicemail, a failure, one still in progress; Gone: answered, evaluation not counted.
      { status: "ended", agentId: support, startedAt: noon("2026-03-08"), durationSeconds: 0, costMicros: 1_000, endedReason: "customer-busy" },
      { status: "ended", agentId: support, startedAt: noon("2026-03-08"), durationSeconds: null, costMicros: null, endedReason: "customer-did-not-answer" },
      { status: "ended", agentId: support, startedAt: noon("2026-03-08"), durationSeconds: 20, costMicros: 30_000, endedReason: "voicemail" },
      { status: "failed", agentId: support, startedAt: noon("2026-03-08"), endedReason: "twilio-failed-to-connect-call" },
      { status: "in-progress", agentId: support, startedAt: noon("2026-03-08") },
      { status: "ended", agentId: gone, startedAt: noon("2026-03-08"), durationSeconds: 300, costMicros: 400_000, endedReason: "customer-ended-call", successEvaluation: "a checklist" },
      // No agent at all.
      { status: "ended", agentId: null, startedAt: noon("2026-03-10"), durationSeconds: 14, costMicros: 5_000, endedReason: "customer-ended-call", successEvaluation: "Excellent" },
      // The previous period: one answered call on its first day and one on its last.
      { status: "ended", agentId: sales, startedAt: new Date("2026-02-25T00:00:00.000Z"), durationSeconds: 600, costMicros: 900_000, endedReason: "customer-ended-call", successEvaluation: "false" },
      { status: "ended", agentId: sales, startedAt: new Date("2026-03-03T23:59:59.999Z"), durationSeconds: 60, costMicros: 100_000, endedReason: "customer-ended-call" },
      // Outside both periods.
      { status: "ended", agentId: sales, startedAt: new Date("2026-02-24T23:59:59.999Z"), durationSeconds: 60, costMicros: 100_000 },
      { status: "ended", agentId: sales, startedAt: new Date("2026-03-11T00:00:00.000Z"), durationSeconds: 60, costMicros: 100_000 },
    ]);
    const deleted = await app.inject({ method: "DELETE", url: `/api/agent/${gone}`, headers: bearer(org.token) });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    answer = await dashboard(app, org.token, "startDate=2026-03-04&endDate=2026-03-10");
  });

  it("totals: calls, minutes to 0.1, exact cost, average duration, answer and success rates, cost per minute", () => {
    const seconds = 125 + 61 + 0 + 20 + 300 + 14;
    const micros = 210_001 + 99_999 + 1_000 + 30_000 + 400_000 + 5_000;
    expect(answer.totals).toEqual({
      calls: 9,
      minutes: 8.7,
      cost: 0.746,
      avg_duration_seconds: Math.round((seconds / 6) * 10) / 10,
      // answered: the two of Sales, Gone's, the agentless one; ended: all but the one in progress.
      answer_rate: 4 / 8,
      success_rate: 2 / 3,
      cost_per_minute: micros / 1_000_000 / (seconds / 60),
      ended: 8,
      answered: 4,
      evaluated: 3,
      successful: 2,
      duration_seconds: seconds,
    });
    expect(answer.outcomes).toEqual({ answered: 4, busy: 1, no_answer: 1, voicemail: 1, failed: 1, in_progress: 1 });
  });

  it("the previous period: the same number of days just before, its edges included", () => {
    expect(answer.period).toEqual({ start_date: "2026-03-04", end_date: "2026-03-10", timezone: "UTC", days: 7 });
    expect(answer.previous_period).toEqual({ start_date: "2026-02-25", end_date: "2026-03-03" });
    expect(answer.previous).toMatchObject({ calls: 2, minutes: 11, cost: 1, answer_rate: 1, success_rate: 0, avg_duration_seconds: 330, cost_per_minute: 1 / 11 });
    expect(answer.previous_outcomes).toEqual({ answered: 2, busy: 0, no_answer: 0, voicemail: 0, failed: 0, in_progress: 0 });
  });

  it("the series: every day of the period, oldest first, days without calls as zeros", () => {
    expect(answer.series).toEqual([
      { date: "2026-03-04", calls: 0, minutes: 0, cost: 0, answered: 0, successful: 0 },
      { date: "2026-03-05", calls: 2, minutes: 3.1, cost: 0.31, answered: 2, successful: 1 },
      { date: "2026-03-06", calls: 0, minutes: 0, cost: 0, answered: 0, successful: 0 },
      { date: "2026-03-07", calls: 0, minutes: 0, cost: 0, answered: 0, successful: 0 },
      { date: "2026-03-08", calls: 6, minutes: 5.3, cost: 0.431, answered: 1, successful: 0 },
      { date: "2026-03-09", calls: 0, minutes: 0, cost: 0, answered: 0, successful: 0 },
      { date: "2026-03-10", calls: 1, minutes: 0.2, cost: 0.005, answered: 1, successful: 1 },
    ]);
  });

  it("agents: most calls first; the deleted agent's calls and the agentless ones are one row without an id or a name", () => {
    expect(answer.agents).toEqual([
      { agent_id: support, agent_name: "Support Sue", calls: 5, minutes: 0.3, cost: 0.031, success_rate: null, answer_rate: 0 },
      { agent_id: sales, agent_name: "Sales Sam", calls: 2, minutes: 3.1, cost: 0.31, success_rate: 0.5, answer_rate: 1 },
      { agent_id: null, agent_name: null, calls: 2, minutes: 5.2, cost: 0.405, success_rate: 1, answer_rate: 1 },
    ]);
  });

  it("agentId: that agent's calls alone, in both periods", async () => {
    const onlySales = await dashboard(app, org.token, `startDate=2026-03-04&endDate=2026-03-10&agentId=${sales}`);
    expect(onlySales.totals.calls).toBe(2);
    expect(onlySales.previous.calls).toBe(2);
    expect(onlySales.agents.map((agent) => agent.agent_id)).toEqual([sales]);
    expect(onlySales.series.map((day) => day.calls)).toEqual([0, 2, 0, 0, 0, 0, 0]);
  });

  it("a deleted agent's id, NO_AGENT_KEY or an unknown id have no calls (as GET /call/ lists none)", async () => {
    for (const agentId of [gone, NO_AGENT_KEY, randomUUID()]) {
      const none = await dashboard(app, org.token, `startDate=2026-03-04&endDate=2026-03-10&agentId=${agentId}`);
      expect(none.totals.calls + none.previous.calls).toBe(0);
      expect(none.agents).toEqual([]);
      const list = await app.inject({ method: "GET", url: `/api/call/?startDate=2026-03-04&endDate=2026-03-10&agentId=${agentId}`, headers: bearer(org.token) });
      expect((list.json() as { total: number }).total).toBe(0);
    }
  });

  it("rates are null, not 0, when there is nothing to divide by", async () => {
    const empty = await dashboard(app, org.token, "startDate=2020-01-01&endDate=2020-01-31");
    expect(empty.totals).toEqual({
      calls: 0,
      minutes: 0,
      cost: 0,
      avg_duration_seconds: null,
      answer_rate: null,
      success_rate: null,
      cost_per_minute: null,
      ended: 0,
      answered: 0,
      evaluated: 0,
      successful: 0,
      duration_seconds: 0,
    });
  });

  it("setup: the organisation's agents and whether it ever had a call", async () => {
    expect(answer.setup).toEqual({ agents: 2, calls_ever: true });
    const fresh = await newOrganisation(app, "Fresh Ltd");
    expect((await dashboard(app, fresh.token)).setup).toEqual({ agents: 0, calls_ever: false });
    await createAgent(app, fresh.token, { agent_name: "First" });
    expect((await dashboard(app, fresh.token)).setup).toEqual({ agents: 1, calls_ever: false });
  });
});

describe("another organisation", () => {
  it("never counts its calls, never shows its agents, and its agent's id has no calls", async () => {
    const ours = await newOrganisation(app, "Ours Ltd");
    const theirs = await newOrganisation(app, "Theirs Ltd");
    const theirAgent = await createAgent(app, theirs.token, { agent_name: "Their secret agent" });
    await insertCalls(database.db, theirs.orgId, [
      { status: "ended", agentId: theirAgent.id, startedAt: noon("2026-03-05"), durationSeconds: 60, costMicros: 1_000_000, endedReason: "customer-ended-call", successEvaluation: "true" },
      { status: "in-progress", agentId: theirAgent.id, startedAt: new Date() },
    ]);
    for (const query of ["startDate=2026-03-01&endDate=2026-03-31", `startDate=2026-03-01&endDate=2026-03-31&agentId=${theirAgent.id}`, ""]) {
      const response = await getDashboard(app, ours.token, query);
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(theirAgent.id);
      expect(response.body).not.toContain("Their secret agent");
      const answer = (response.json() as { data: Dashboard }).data;
      expect(answer.totals.calls + answer.previous.calls).toBe(0);
      expect(answer.agents).toEqual([]);
      expect(answer.wallet.held).toBe(0);
      expect(answer.setup).toEqual({ agents: 0, calls_ever: false });
    }
    expect((await dashboard(app, theirs.token, "startDate=2026-03-01&endDate=2026-03-31")).totals.calls).toBe(1);
  });
});

describe("the wallet", () => {
  it("shows GET /wallet/'s balance and what calls not ended yet hold of it, writing nothing", async () => {
    const org = await newOrganisation(app, "Wallet Ltd");
    await insertCalls(database.db, org.orgId, [
      { status: "in-progress", startedAt: new Date(Date.now() - 60_000) },
      { status: "queued", startedAt: new Date(Date.now() - 5_000) },
      // Not ended but older than the hold window: it holds nothing any more.
      { status: "ringing", startedAt: new Date(Date.now() - 3 * 3_600_000) },
      { status: "ended", startedAt: new Date(Date.now() - 60_000), costMicros: 250_000, durationSeconds: 10 },
    ]);
    const first = await dashboard(app, org.token);
    expect(first.wallet).toEqual({ balance: 10, held: 2, available: 8, month_to_date: 0, auto_reload_enabled: false, low_balance: false });
    const wallet = await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(org.token) });
    expect((wallet.json() as { data: Wallet }).data.balance).toBe(first.wallet.balance);
  });
});

describe("the figures follow the calls", () => {
  it("a late end-of-call report moves a call counted in progress to its outcome, minutes, cost and evaluation", async () => {
    const org = await newOrganisation(app, "Late Ltd");
    const agent = await createAgent(app, org.token, { agent_name: "Late Larry" });
    const providerCallId = `vapi-${randomUUID()}`;
    const startedAt = new Date(Date.now() - 5 * 60_000);
    const [callId] = await insertCalls(database.db, org.orgId, [{ status: "in-progress", agentId: agent.id, startedAt, providerCallId, customerNumber: "+14155550100" }]);
    const before = await dashboard(app, org.token);
    expect(before.totals).toMatchObject({ calls: 1, ended: 0, minutes: 0, cost: 0, answer_rate: null, success_rate: null });
    expect(before.outcomes.in_progress).toBe(1);
    expect(before.wallet.held).toBe(1);

    const report = endOfCallReport({ providerCallId, callId, orgId: org.orgId }, { cost: 0.07, startedAt: startedAt.toISOString(), endedAt: new Date(startedAt.getTime() + 42_000).toISOString() });
    const delivered = await postWebhook(app, report);
    expect(delivered.statusCode, delivered.body).toBe(200);

    const after = await dashboard(app, org.token);
    expect(after.outcomes).toMatchObject({ in_progress: 0, answered: 1 });
    expect(after.totals).toMatchObject({ calls: 1, ended: 1, answer_rate: 1, duration_seconds: 42, minutes: 0.7, cost: 0.07, success_rate: 1 });
    expect(after.agents).toEqual([expect.objectContaining({ agent_id: agent.id, calls: 1, cost: 0.07 })]);
    expect(after.wallet.held).toBe(0);
    expect(after.wallet.balance).toBeCloseTo(9.93, 6);

    // A call deleted (e.g. by an organisation's data clean-up) leaves the figures.
    await database.db.delete(calls).where(eq(calls.id, callId!));
    expect((await dashboard(app, org.token)).totals.calls).toBe(0);
  });
});
