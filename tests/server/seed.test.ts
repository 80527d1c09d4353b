import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { agents, calls, organizations, phoneNumbers, walletLedger, wallets } from "../../server/db/schema";
import { seedDemo } from "../../server/seed/demo";
import { DEMO_CALL_COUNT, UNANSWERED_REASONS, generateDemoData, type DemoDataSummary } from "../../server/seed/demo-calls";
import { successOutcome } from "../../contract/success-outcome";
import { storedConfig } from "../../server/agents/repository";
import { expectRollupMatchesCalls } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase, signIn, testConfig } from "./helpers";

const NOW = new Date("2026-06-15T18:00:00.000Z");
const DAY = 86_400_000;

describe("demo data", () => {
  let database: Database;
  let orgId: string;
  let summary: DemoDataSummary | null = null;
  const printed: string[] = [];

  beforeAll(async () => {
    database = await migratedDatabase();
    const config = testConfig({ SEED_DEMO: "true" });
    const seeded = await seedDemo(database.db, config, { now: NOW, print: (line) => printed.push(line), onDemoData: (value) => (summary = value) });
    expect(seeded).not.toBeNull();
    const [org] = await database.db.select().from(organizations);
    orgId = org!.id;
  }, 60_000);

  afterAll(async () => {
    await database?.close();
  });

  it("gives the demo organisation 3 agents, 3 numbers (one default, each answered) and 2,000 calls over 90 days", async () => {
    const db = database.db;
    const agentRows = await db.select().from(agents).where(eq(agents.orgId, orgId));
    expect(agentRows.map((row) => row.name).sort()).toEqual(["Appointment Setter", "Customer Support Agent", "Purchase Completion Agent"]);
    expect(agentRows.every((row) => row.providerAssistantId === null)).toBe(true);

    const numbers = await db.select().from(phoneNumbers).where(eq(phoneNumbers.orgId, orgId));
    expect(numbers).toHaveLength(3);
    expect(numbers.filter((row) => row.isDefault)).toHaveLength(1);
    expect(numbers.every((row) => row.agentId !== null && row.providerNumberId === null)).toBe(true);

    const callRows = await db.select().from(calls).where(eq(calls.orgId, orgId));
    expect(callRows).toHaveLength(DEMO_CALL_COUNT);
    expect(callRows.every((row) => row.isSandbox)).toBe(true);
    expect(callRows.every((row) => row.startedAt.getTime() >= NOW.getTime() - 90 * DAY && row.startedAt.getTime() <= NOW.getTime())).toBe(true);
    expect(new Set(callRows.map((row) => row.type))).toEqual(new Set(["outbound", "inbound", "web"]));
    const inProgress = callRows.filter((row) => row.status === "in-progress");
    expect(inProgress.length).toBeGreaterThan(0);
    expect(inProgress.every((row) => row.endedAt === null && row.costMicros === null && NOW.getTime() - row.startedAt.getTime() < DAY)).toBe(true);
    const reasons = new Set(callRows.map((row) => row.endedReason));
    for (const reason of ["customer-ended-call", "assistant-ended-call", "customer-did-not-answer", "customer-busy", "voicemail", "silence-timed-out", "exceeded-max-duration"]) {
      expect(reasons).toContain(reason);
    }
    expect([...reasons].some((reason) => reason?.startsWith("pipeline-error-"))).toBe(true);

    expect(summary).toMatchObject({ agents: 3, numbers: 3, calls: DEMO_CALL_COUNT });
    expect(printed).toEqual([expect.stringMatching(/^demo data: 3 agents, 3 numbers, 2,000 calls/)]);
  });

  it("keeps calls consistent: unanswered calls cost nothing and have no transcript; answered ones have all parts", async () => {
    const callRows = await database.db.select().from(calls).where(eq(calls.orgId, orgId));
    for (const row of callRows.filter((call) => call.status === "ended")) {
      if ((UNANSWERED_REASONS as readonly string[]).includes(row.endedReason ?? "")) {
        expect(row).toMatchObject({ costMicros: 0, transcript: null, summary: null, messages: [] });
        expect(row.type).toBe("outbound");
      } else {
        expect(row.costMicros).toBeGreaterThan(0);
        expect(row.transcript).toBeTruthy();
        expect(row.summary).toBeTruthy();
        expect(row.successEvaluation).toBeTruthy();
        expect((row.messages ?? []).length).toBeGreaterThan(0);
        expect((row.costBreakdown as { total: number }).total).toBeCloseTo((row.costMicros ?? 0) / 1_000_000, 6);
        expect(row.durationSeconds).toBeGreaterThan(0);
        expect(row.endedAt!.getTime()).toBeGreaterThan(row.startedAt.getTime());
      }
      if (row.type === "web") expect(row.customerNumber).toBeNull();
      else expect(row.customerNumber).toMatch(/^\+[1-9]\d{7,14}$/);
    }
  });

  it("counts each evaluation as pass or fail under its agent's rubric, and keeps call_daily_stats equal to the calls", async () => {
    const db = database.db;
    const rubrics = new Map((await db.select().from(agents).where(eq(agents.orgId, orgId))).map((row) => [row.id, storedConfig(row).analysis_plan.success_evaluation_rubric]));
    const callRows = await db.select().from(calls).where(eq(calls.orgId, orgId));
    for (const row of callRows) expect(row.successOutcome).toBe(successOutcome(row.successEvaluation, rubrics.get(row.agentId ?? "") ?? null));
    const counted = callRows.map((row) => row.successOutcome);
    expect(counted).toContain("pass");
    expect(counted).toContain("fail");
    const rollup = await expectRollupMatchesCalls(db, orgId);
    expect(rollup.length).toBeGreaterThan(90);
  });

  it("debits every paid call once; the balance is the ledger's sum and stays positive", async () => {
    const db = database.db;
    const ledger = await db.select().from(walletLedger).where(eq(walletLedger.orgId, orgId)).orderBy(asc(walletLedger.createdAt));
    const [wallet] = await db.select().from(wallets).where(eq(wallets.orgId, orgId));
    const sum = ledger.reduce((total, entry) => total + entry.amountMicros, 0);
    expect(wallet!.balanceMicros).toBe(sum);
    expect(sum).toBeGreaterThan(0);
    let running = 0;
    for (const entry of ledger) {
      running += entry.amountMicros;
      expect(running).toBeGreaterThanOrEqual(0);
    }
    const [paid] = await db.select({ n: sql<number>`count(*)::int`, total: sql<number>`coalesce(sum(${calls.costMicros}), 0)::bigint` }).from(calls).where(sql`${calls.orgId} = ${orgId} and ${calls.costMicros} > 0`);
    const debits = ledger.filter((entry) => entry.kind === "call");
    expect(debits).toHaveLength(paid!.n);
    expect(-debits.reduce((total, entry) => total + entry.amountMicros, 0)).toBe(Number(paid!.total));
  });

  it("is reproducible: the same seed and clock give the same rows, ids included", async () => {
    const input = { orgId, createdBy: "user", now: NOW, startingCreditMicros: 10_000_000 };
    const first = generateDemoData(input);
    const second = generateDemoData(input);
    expect(second).toEqual(first);
    const stored = await database.db.select({ id: calls.id }).from(calls).where(eq(calls.orgId, orgId)).orderBy(asc(calls.id));
    expect(stored.map((row) => row.id)).toEqual(first.calls.map((row) => row.id).sort());
    expect(generateDemoData({ ...input, seed: 7 }).calls[0]!.id).not.toBe(first.calls[0]!.id);
  });

  it("leaves the planner fresh statistics, so the call list plans for 2,000 calls, not a guess", async () => {
    const result = (await database.db.execute("select reltuples::int as n from pg_class where relname = 'calls'")) as unknown as { rows: { n: number }[] };
    expect(result.rows[0]?.n).toBe(2000);
  });

  it("runs once: a second start-up seeds nothing", async () => {
    expect(await seedDemo(database.db, testConfig({ SEED_DEMO: "true" }))).toBeNull();
    const [count] = await database.db.select({ n: sql<number>`count(*)::int` }).from(calls);
    expect(count!.n).toBe(DEMO_CALL_COUNT);
  });

  it("answers the seeded numbers and calls through the API", async () => {
    const { app } = await buildTestApp(database, { SEED_DEMO: "true" });
    try {
      const token = await signIn(app, "demo@example.com", "demo-password");
      const numbers = await app.inject({ method: "GET", url: "/api/phonenumber/", headers: bearer(token) });
      expect(numbers.statusCode).toBe(200);
      const body = numbers.json() as { data: Array<{ isDefault: boolean; is_sandbox: boolean; agent_id: string | null }>; total: number };
      expect(body.total).toBe(3);
      expect(body.data[0]).toMatchObject({ isDefault: true, is_sandbox: true });
      const list = await app.inject({ method: "GET", url: "/api/call/?page=1&limit=5", headers: bearer(token) });
      expect(list.statusCode).toBe(200);
      expect((list.json() as { total: number }).total).toBe(DEMO_CALL_COUNT);
    } finally {
      await app.close();
    }
  });
});
