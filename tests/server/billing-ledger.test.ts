/**
 * The ledger work of issue 15: usage rollups written with each call debit (and rebuilt on a time-zone
 * change), GET /billing/, the ledger and its CSV, usage, spend caps (and their enforcement, also under
 * concurrency: run with TEST_DATABASE_URL for PostgreSQL), and the ledger invariant under fuzzing.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingSummary, LedgerEntry, SpendCap, Usage } from "../../contract/billing";
import { spendCapDetail, assertUnderSpendCaps } from "../../server/billing/spend-caps";
import { ledgerCsvStream } from "../../server/billing/ledger";
import { rebuildUsage } from "../../server/billing/usage";
import type { Database, Db } from "../../server/db/client";
import { calls, organizations, usageDaily, walletLedger, wallets } from "../../server/db/schema";
import { seedDemo } from "../../server/seed/demo";
import { appendLedgerEntry, debitCallOnce, reserveCall, type WalletPolicy } from "../../server/wallet/wallet";
import { createAgent, newOrganisation } from "./calls-fixtures";
import { setTimeZone } from "./dashboard-fixtures";
import { addMember, bearer, buildTestApp, migratedDatabase, testConfig } from "./helpers";

let database: Database;
let app: FastifyInstance;
const policy: WalletPolicy = { startingCreditMicros: 10_000_000, minBalanceMicros: 500_000, callHoldMicros: 1_000_000 };

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { STARTING_CREDIT_USD: "10", MIN_BALANCE_USD: "0.5", CALL_HOLD_USD: "1" }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

type Breakdown = Record<string, unknown> | null;

/** An ended call (cost, duration, breakdown) debited through debitCallOnce, as the ingest does. */
async function endedCall(db: Db, orgId: string, agentId: string | null, costMicros: number, seconds: number, breakdown: Breakdown): Promise<string> {
  const id = randomUUID();
  await db.insert(calls).values({ id, orgId, type: "outbound", status: "ended", agentId, durationSeconds: seconds, costMicros, costBreakdown: breakdown as never, startedAt: new Date() });
  await db.transaction((tx) => debitCallOnce(tx, { orgId, callId: id, agentId, costMicros, description: "Call" }, policy));
  return id;
}

const get = async <T>(token: string, url: string, status = 200): Promise<T> => {
  const response = await app.inject({ method: "GET", url, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(status);
  return (response.json() as { data: T }).data;
};

const putCaps = (token: string, caps: unknown[]) => app.inject({ method: "PUT", url: "/api/billing/spend-caps", headers: bearer(token), payload: { caps } });

const zoneDay = (at: Date, zone: string) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
const micros = (value: unknown) => (typeof value === "number" ? Math.round(value * 1_000_000) : 0);

/** usage_daily as the rule says it should be, from the ledger's call debits and their calls (computed here, not by the server's SQL). */
async function expectedUsage(db: Db, orgId: string, zone: string) {
  const debits = await db
    .select({ amount: walletLedger.amountMicros, createdAt: walletLedger.createdAt, agentId: calls.agentId, seconds: calls.durationSeconds, breakdown: calls.costBreakdown })
    .from(walletLedger)
    .leftJoin(calls, eq(calls.id, walletLedger.callId))
    .where(sql`${walletLedger.orgId} = ${orgId} and ${walletLedger.kind} = 'call'`);
  const rows = new Map<string, Record<string, number | string>>();
  for (const debit of debits) {
    const cost = -debit.amount;
    const b = (debit.breakdown ?? {}) as Record<string, unknown>;
    const parts = [micros(b.transport), micros(b.stt), micros(b.llm), micros(b.tts), micros(b.vapi)];
    const fits = parts.every((p) => p >= 0) && parts.reduce((a, p) => a + p, 0) <= cost;
    const [transport, stt, llm, tts, platform] = fits ? parts : [0, 0, 0, 0, 0];
    const key = `${zoneDay(debit.createdAt, zone)}|${debit.agentId ?? ""}`;
    const row = rows.get(key) ?? { day: key.split("|")[0]!, agentKey: debit.agentId ?? "", calls: 0, seconds: 0, costMicros: 0, transportMicros: 0, speechToTextMicros: 0, llmMicros: 0, textToSpeechMicros: 0, platformMicros: 0, otherMicros: 0 };
    const add = (field: string, value: number) => (row[field] = (row[field] as number) + value);
    add("calls", 1);
    add("seconds", debit.seconds ?? 0);
    add("costMicros", cost);
    add("transportMicros", transport!);
    add("speechToTextMicros", stt!);
    add("llmMicros", llm!);
    add("textToSpeechMicros", tts!);
    add("platformMicros", platform!);
    add("otherMicros", cost - transport! - stt! - llm! - tts! - platform!);
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => `${a.day}${a.agentKey}`.localeCompare(`${b.day}${b.agentKey}`));
}

async function storedUsage(db: Db, orgId: string) {
  const rows = await db.select().from(usageDaily).where(eq(usageDaily.orgId, orgId));
  return rows.map(({ orgId: _org, ...row }) => row).sort((a, b) => `${a.day}${a.agentKey}`.localeCompare(`${b.day}${b.agentKey}`));
}

describe("usage rollups", () => {
  it("each debit adds its call to usage_daily exactly: components add up, parts that do not fit go to other", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Rollup desk" });
    const db = database.db;
    await endedCall(db, org.orgId, agent.id, 70_000, 42, { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.01, vapi: 0.02, total: 0.07 });
    await endedCall(db, org.orgId, agent.id, 100_001, 10, { transport: 0.0000004, stt: 0.0333335, llm: 0.01, tts: 0, vapi: 0.05 });
    // Parts above the debit, and a negative part: the whole debit is other.
    await endedCall(db, org.orgId, agent.id, 50_000, 5, { transport: 0.04, stt: 0.04 });
    await endedCall(db, org.orgId, null, 30_000, 7, { transport: -0.01, llm: 0.01 });
    await endedCall(db, org.orgId, null, 20_000, 3, null);
    const stored = await storedUsage(db, org.orgId);
    expect(stored).toEqual(await expectedUsage(db, org.orgId, "UTC"));
    const withAgent = stored.find((row) => row.agentKey === agent.id)!;
    expect(withAgent).toMatchObject({ calls: 3, seconds: 57, costMicros: 220_001, transportMicros: 10_000, speechToTextMicros: 10_000 + 33_334, llmMicros: 30_000 });
    expect(withAgent.otherMicros).toBe(220_001 - 10_000 - 43_334 - 30_000 - 10_000 - 70_000);
    const noAgent = stored.find((row) => row.agentKey === "")!;
    expect(noAgent).toMatchObject({ calls: 2, costMicros: 50_000, otherMicros: 50_000, transportMicros: 0, llmMicros: 0 });
    // A second debit of the same call is no debit and adds nothing.
    const [again] = await db.select({ id: walletLedger.callId }).from(walletLedger).where(sql`${walletLedger.orgId} = ${org.orgId} and ${walletLedger.kind} = 'call'`).limit(1);
    expect(await db.transaction((tx) => debitCallOnce(tx, { orgId: org.orgId, callId: again!.id!, costMicros: 5, description: "again" }, policy))).toBe(false);
    expect(await storedUsage(db, org.orgId)).toEqual(stored);
  });

  it("a time-zone change cuts the rollups again in the new zone, and later debits land in it", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Zone desk" });
    const db = database.db;
    for (let i = 0; i < 3; i++) await endedCall(db, org.orgId, i % 2 ? agent.id : null, 10_000 * (i + 1), 10, { llm: 0.001 });
    // +14 and -11: 25 hours apart, so every debit's day differs.
    await setTimeZone(app, org.token, "Pacific/Kiritimati");
    const east = await storedUsage(db, org.orgId);
    expect(east).toEqual(await expectedUsage(db, org.orgId, "Pacific/Kiritimati"));
    await setTimeZone(app, org.token, "Pacific/Pago_Pago");
    const west = await storedUsage(db, org.orgId);
    expect(west).toEqual(await expectedUsage(db, org.orgId, "Pacific/Pago_Pago"));
    expect(west.map((row) => row.day)).not.toEqual(east.map((row) => row.day));
    await endedCall(db, org.orgId, agent.id, 12_345, 4, { tts: 0.002 });
    expect(await storedUsage(db, org.orgId)).toEqual(await expectedUsage(db, org.orgId, "Pacific/Pago_Pago"));
    // The rebuild is what the incremental writes made.
    await db.transaction((tx) => rebuildUsage(tx, org.orgId));
    expect(await storedUsage(db, org.orgId)).toEqual(await expectedUsage(db, org.orgId, "Pacific/Pago_Pago"));
  });
});

describe("GET /billing/usage", () => {
  it("every day of the range, zeros included; totals, agents and components add up exactly", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Usage desk" });
    await endedCall(database.db, org.orgId, agent.id, 70_000, 60, { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.01, vapi: 0.02 });
    await endedCall(database.db, org.orgId, null, 33_333, 30, { llm: 0.011111 });
    const today = zoneDay(new Date(), "UTC");
    const usage = await get<Usage>(org.token, "/api/billing/usage");
    expect(usage.days).toHaveLength(30);
    expect(usage.end_date).toBe(today);
    expect(usage.days.filter((day) => day.calls > 0).map((day) => day.date)).toEqual([today]);
    expect(usage.totals).toMatchObject({ calls: 2, seconds: 90, minutes: 1.5, cost_usd: 0.103333 });
    expect(usage.totals.components).toEqual({ transport: 0.01, speech_to_text: 0.01, llm: 0.031111, text_to_speech: 0.01, platform: 0.02, other: 0.022222 });
    const partsMicros = Object.values(usage.totals.components).reduce((sum, value) => sum + Math.round(value * 1e6), 0);
    expect(partsMicros).toBe(103_333);
    expect(usage.agents).toEqual([
      expect.objectContaining({ agent_id: agent.id, agent_name: "Usage desk", calls: 1, cost_usd: 0.07 }),
      expect.objectContaining({ agent_id: null, agent_name: null, calls: 1, cost_usd: 0.033333 }),
    ]);
    // A range with no usage at all: every day, all zeros.
    const empty = await get<Usage>(org.token, "/api/billing/usage?startDate=2020-02-27&endDate=2020-03-02");
    expect(empty.days.map((day) => day.date)).toEqual(["2020-02-27", "2020-02-28", "2020-02-29", "2020-03-01", "2020-03-02"]);
    expect(empty.days.every((day) => day.calls === 0 && day.cost_usd === 0 && day.avg_cost_per_minute_usd === null)).toBe(true);
    expect(empty.totals).toMatchObject({ calls: 0, cost_usd: 0, components: { transport: 0, speech_to_text: 0, llm: 0, text_to_speech: 0, platform: 0, other: 0 } });
    expect(empty.agents).toEqual([]);
    // agentId filters; a bad range is a 400.
    expect((await get<Usage>(org.token, `/api/billing/usage?agentId=${agent.id}`)).totals.calls).toBe(1);
    await get(org.token, "/api/billing/usage?startDate=2020-01-01&endDate=2022-01-01", 400);
  });
});

describe("GET /billing/ledger and its CSV", () => {
  it("newest first with balance_after and agent names; filters by kind, agent, amount, text and day; the CSV has every row", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Ledger desk" });
    const first = await endedCall(database.db, org.orgId, agent.id, 1_500_000, 60, null);
    await database.db.transaction((tx) =>
      appendLedgerEntry(tx, { orgId: org.orgId, amountMicros: 25_000_000, kind: "top-up", description: "=HYPERLINK(\"x\") top-up", reference: `t:${randomUUID()}` }, policy),
    );
    await endedCall(database.db, org.orgId, null, 250_000, 10, null);
    const member = await addMember(app, org.token, org.orgId);
    const page = await app.inject({ method: "GET", url: "/api/billing/ledger", headers: bearer(member.token) });
    expect(page.statusCode, page.body).toBe(200);
    const body = page.json() as { data: LedgerEntry[]; total: number; page: number; limit: number };
    expect(body).toMatchObject({ total: 4, page: 1, limit: 50 });
    expect(body.data.map((entry) => [entry.kind, entry.amount_usd, entry.balance_after_usd])).toEqual([
      ["call", -0.25, 33.25],
      ["top-up", 25, 33.5],
      ["call", -1.5, 8.5],
      ["starting-credit", 10, 10],
    ]);
    expect(body.data[2]).toMatchObject({ call_id: first, agent_id: agent.id, agent_name: "Ledger desk" });
    const list = async (query: string) => (await get<LedgerEntry[]>(org.token, `/api/billing/ledger?${query}`)).map((entry) => entry.amount_usd);
    expect(await list("kind=call")).toEqual([-0.25, -1.5]);
    expect(await list("kind=top-up,starting-credit")).toEqual([25, 10]);
    expect(await list(`agentId=${agent.id}`)).toEqual([-1.5]);
    expect(await list("minAmount=1&maxAmount=20")).toEqual([-1.5, 10]);
    expect(await list("q=hyperlink")).toEqual([25]);
    expect(await list(`q=${first}`)).toEqual([-1.5]);
    expect(await list("startDate=2020-01-01&endDate=2020-01-31")).toEqual([]);
    expect(await list("limit=1&page=2")).toEqual([25]);
    await get(org.token, "/api/billing/ledger?kind=nope", 400);

    const csv = await app.inject({ method: "GET", url: "/api/billing/ledger/export?kind=top-up,call", headers: bearer(org.token) });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toContain("text/csv");
    const lines = csv.body.trim().split("\r\n");
    expect(lines[0]).toBe("id,created_at,kind,description,amount_usd,balance_after_usd,call_id,agent_id,agent_name,top_up_id");
    expect(lines).toHaveLength(4);
    // Formula injection: the description starting with = is quoted as text.
    expect(lines[2]).toContain(`"'=HYPERLINK(""x"") top-up"`);
    expect(lines[3]).toContain(",-1.5,8.5,");

    // Every page of the export (batches of one, each starting after the last: keyset) is the list's order, all of it.
    const all = await app.inject({ method: "GET", url: "/api/billing/ledger/export", headers: bearer(org.token) });
    let streamed = "";
    for await (const chunk of ledgerCsvStream(database.db, org.orgId, {}, 1)) streamed += String(chunk);
    expect(streamed).toBe(all.body);
    expect(all.body.trim().split("\r\n").slice(1).map((line) => line.split(",")[0])).toEqual(body.data.map((entry) => entry.id));
  });
});

describe("spend caps", () => {
  it("PUT replaces the list (admins), GET shows progress (members), another organisation's agent is a 404", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Capped desk" });
    const other = await newOrganisation(app);
    const foreign = await createAgent(app, other.token, { agent_name: "Foreign" });
    const member = await addMember(app, org.token, org.orgId);
    await endedCall(database.db, org.orgId, agent.id, 2_000_000, 60, null);

    const put = await putCaps(org.token, [
      { scope: "organization", period: "day", limit_usd: 5 },
      { scope: "agent", agent_id: agent.id, period: "month", limit_usd: 4 },
    ]);
    expect(put.statusCode, put.body).toBe(200);
    const caps = (put.json() as { data: SpendCap[] }).data;
    expect(caps.map((cap) => [cap.scope, cap.period, cap.limit_usd, cap.spent_usd, cap.remaining_usd, cap.progress, cap.reached, cap.agent_name])).toEqual([
      ["organization", "day", 5, 2, 3, 0.4, false, null],
      ["agent", "month", 4, 2, 2, 0.5, false, "Capped desk"],
    ]);
    expect(await get<SpendCap[]>(member.token, "/api/billing/spend-caps")).toEqual(caps);
    expect((await putCaps(member.token, [])).statusCode).toBe(403);
    const refused = await putCaps(org.token, [{ scope: "agent", agent_id: foreign.id, period: "day", limit_usd: 1 }]);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ code: "not_found", detail: expect.stringContaining(foreign.id) });
    expect(await get<SpendCap[]>(org.token, "/api/billing/spend-caps")).toHaveLength(2);
    expect((await putCaps(org.token, [{ scope: "organization", period: "day", limit_usd: 5 }, { scope: "organization", period: "day", limit_usd: 6 }])).statusCode).toBe(400);
    expect((await putCaps(org.token, [])).statusCode).toBe(200);
    expect(await get<SpendCap[]>(org.token, "/api/billing/spend-caps")).toEqual([]);
  });

  it("the refusal's detail names the cap and when it resets", () => {
    const now = new Date("2026-11-25T19:48:00Z");
    expect(
      spendCapDetail(
        { scope: "organization", agentName: null, agentId: null, period: "day", limitMicros: 5_000_000, spentMicros: 4_600_000, timeZone: "Europe/Berlin", resetsAt: new Date("2026-11-25T23:00:00Z") },
        now,
      ),
    ).toBe("This call would pass the organisation's daily spend cap of $5.00 ($4.60 spent today). It resets at midnight (Europe/Berlin), in 3 h 12 min.");
    expect(
      spendCapDetail(
        { scope: "agent", agentName: "Sales", agentId: randomUUID(), period: "month", limitMicros: 100_000_000, spentMicros: 99_500_000, timeZone: "Europe/Berlin", resetsAt: new Date("2026-11-30T23:00:00Z") },
        now,
      ),
    ).toBe("This call would pass the agent Sales's monthly spend cap of $100.00 ($99.50 spent this month). It resets on 1 December (Europe/Berlin), in 5 d 3 h.");
  });

  it("a call that would pass a cap is refused with 403 spend_cap_reached; the agent's cap covers only its calls", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Busy desk" });
    await setTimeZone(app, org.token, "Europe/Berlin");
    await endedCall(database.db, org.orgId, agent.id, 4_600_000, 60, null);
    expect((await putCaps(org.token, [{ scope: "agent", agent_id: agent.id, period: "day", limit_usd: 5 }])).statusCode).toBe(200);
    const error = await database.db.transaction((tx) => assertUnderSpendCaps(tx, org.orgId, agent.id, policy)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ statusCode: 403, code: "spend_cap_reached" });
    expect((error as Error).message).toMatch(/^This call would pass the agent Busy desk's daily spend cap of \$5\.00 \(\$4\.60 spent today\)\. It resets at midnight \(Europe\/Berlin\), in (\d+ h( \d+ min)?|\d+ min)\.$/);
    // A call without that agent passes.
    await database.db.transaction((tx) => assertUnderSpendCaps(tx, org.orgId, null, policy));
    const summary = await get<BillingSummary>(org.token, "/api/billing/");
    expect(summary.spend_caps[0]).toMatchObject({ spent_usd: 4.6, reached: false });
  });

  it("N requests at once against a cap with room for K calls: exactly K pass", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Race desk" });
    // $1 held per call: a $3.50 daily cap has room for three.
    expect((await putCaps(org.token, [{ scope: "organization", period: "day", limit_usd: 3.5 }])).statusCode).toBe(200);
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        reserveCall(
          database.db,
          org.orgId,
          policy,
          (tx) => tx.insert(calls).values({ id: randomUUID(), orgId: org.orgId, type: "outbound", status: "queued", agentId: agent.id, startedAt: new Date() }),
          undefined,
          (tx) => assertUnderSpendCaps(tx, org.orgId, agent.id, policy),
        ),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === "fulfilled" && attempt.value === true)).toHaveLength(3);
    const refused = attempts.filter((attempt) => attempt.status === "rejected");
    expect(refused).toHaveLength(5);
    expect(refused.every((attempt) => (attempt as PromiseRejectedResult).reason.code === "spend_cap_reached")).toBe(true);
    const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(calls).where(eq(calls.orgId, org.orgId));
    expect(row!.n).toBe(3);
  });
});

describe("GET /billing/", () => {
  it("the summary: balance, available, month to date, defaults, alerts; reading writes nothing", async () => {
    const org = await newOrganisation(app);
    const member = await addMember(app, org.token, org.orgId);
    const fresh = await get<BillingSummary>(member.token, "/api/billing/");
    expect(fresh).toMatchObject({
      balance_usd: 10,
      available_usd: 10,
      held_usd: 0,
      month_to_date_usd: 0,
      currency: "USD",
      time_zone: "UTC",
      payments: "sandbox",
      card: null,
      spend_caps: [],
      pending_top_up_id: null,
      auto_reload: { enabled: false, status: "ok", reloaded_this_month_usd: 0, in_flight: false, monthly_cap_usd: null },
      alerts: [],
    });
    const [walletRow] = await database.db.select().from(wallets).where(eq(wallets.orgId, org.orgId));
    expect(walletRow).toBeUndefined();
    await endedCall(database.db, org.orgId, null, 6_000_000, 60, null);
    await database.db.insert(calls).values({ id: randomUUID(), orgId: org.orgId, type: "outbound", status: "in-progress", startedAt: new Date() });
    const low = await get<BillingSummary>(org.token, "/api/billing/");
    expect(low).toMatchObject({ balance_usd: 4, held_usd: 1, available_usd: 3, month_to_date_usd: 6 });
    expect(low.alerts.map((alert) => alert.code)).toEqual(["low_balance"]);
    const board = await get<{ wallet: Record<string, unknown> }>(org.token, "/api/dashboard/");
    expect(board.wallet).toEqual({ balance: 4, held: 1, available: 3, month_to_date: 6, auto_reload_enabled: false, low_balance: true });
  });
});

describe("the ledger invariant (fast-check)", () => {
  it("random interleavings of debits, credits, duplicates and concurrency keep balance = sum(ledger) and balance_after = running sum", async () => {
    const orgs = [await newOrganisation(app), await newOrganisation(app)];
    const callPool: { orgId: string; callId: string }[] = [];
    for (const org of orgs) {
      for (let i = 0; i < 6; i++) {
        const callId = randomUUID();
        await database.db.insert(calls).values({ id: callId, orgId: org.orgId, type: "outbound", status: "ended", durationSeconds: i, startedAt: new Date() });
        callPool.push({ orgId: org.orgId, callId });
      }
    }
    const op = fc.oneof(
      fc.record({ kind: fc.constant("debit" as const), call: fc.integer({ min: 0, max: callPool.length - 1 }), micros: fc.integer({ min: 1, max: 3_000_000 }) }),
      fc.record({ kind: fc.constant("credit" as const), org: fc.integer({ min: 0, max: 1 }), micros: fc.integer({ min: -2_000_000, max: 5_000_000 }).filter((v) => v !== 0), ref: fc.integer({ min: 0, max: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), fc.integer(), async (batches, salt) => {
        for (const batch of batches) {
          // Each batch runs at once: its operations race for the wallets.
          await Promise.all(
            batch.map((step) =>
              database.db.transaction(async (tx) => {
                if (step.kind === "debit") {
                  const { orgId, callId } = callPool[step.call]!;
                  await debitCallOnce(tx, { orgId, callId, costMicros: step.micros, description: "Fuzz call" }, policy);
                } else {
                  await appendLedgerEntry(tx, { orgId: orgs[step.org]!.orgId, amountMicros: step.micros, kind: "adjustment", description: "Fuzz", reference: `fuzz:${salt}:${step.ref}` }, policy);
                }
              }),
            ),
          );
        }
        for (const org of orgs) await expectLedgerConsistent(database.db, org.orgId);
      }),
      { numRuns: 15 },
    );
    // And the rollups equal the debits exactly, whatever the interleaving.
    for (const org of orgs) expect(await storedUsage(database.db, org.orgId)).toEqual(await expectedUsage(database.db, org.orgId, "UTC"));
  });
});

/** wallets.balance = sum(ledger), and the entries chain: each one's balance_after = the one before's + its amount, in time order. */
async function expectLedgerConsistent(db: Db, orgId: string): Promise<void> {
  const entries = await db.select().from(walletLedger).where(eq(walletLedger.orgId, orgId));
  const [wallet] = await db.select().from(wallets).where(eq(wallets.orgId, orgId));
  if (!wallet) {
    // No money moved yet: no wallet, no entries.
    expect(entries).toEqual([]);
    return;
  }
  expect(wallet.balanceMicros).toBe(entries.reduce((sum, entry) => sum + entry.amountMicros, 0));
  // Entries of one millisecond may come in any order from the database: follow the chain within it.
  const left = [...entries].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  let balance = 0;
  while (left.length > 0) {
    const first = left[0]!.createdAt.getTime();
    const index = left.findIndex((entry) => entry.createdAt.getTime() === first && entry.balanceAfterMicros - entry.amountMicros === balance);
    expect(index, `an entry following balance ${balance}`).toBeGreaterThanOrEqual(0);
    const [next] = left.splice(index, 1);
    balance = next!.balanceAfterMicros;
  }
  expect(balance).toBe(wallet.balanceMicros);
}

describe("the demo seed", () => {
  it("writes the usage rollups of its ledger", async () => {
    const demo = await migratedDatabase();
    try {
      expect(await seedDemo(demo.db, testConfig({ SEED_DEMO: "true" }), { now: new Date("2026-06-15T18:00:00.000Z"), print: () => {} })).not.toBeNull();
      const [org] = await demo.db.select().from(organizations);
      const stored = await storedUsage(demo.db, org!.id);
      expect(stored.length).toBeGreaterThan(90);
      expect(stored).toEqual(await expectedUsage(demo.db, org!.id, org!.timezone));
    } finally {
      await demo.close();
    }
  }, 60_000);
});
