/**
 * The billing sweeps (issue 15): retention redacts calls older than the plan's retention_days once (two
 * sweeps at once: one runs), keeps calls inside it, and never touches the ledger or usage_daily; grace
 * moves a past-due account beyond SUBSCRIPTION_GRACE_DAYS to Free.
 */
import { randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planSettings } from "../../server/billing/plan-limits";
import { runBillingSweeps, sweepGrace, sweepRetention } from "../../server/billing/sweeps";
import type { Database } from "../../server/db/client";
import { billingAccounts, calls, usageDaily, walletLedger, wallets } from "../../server/db/schema";
import { debitCallOnce, walletPolicy } from "../../server/wallet/wallet";
import { newOrganisation } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase, testConfig } from "./helpers";

const DAY = 86_400_000;
let database: Database;
let app: FastifyInstance;
const config = testConfig({ DEFAULT_PLAN: "free" });
const settings = planSettings(config);

beforeAll(async () => {
  database = await migratedDatabase();
  app = (await buildTestApp(database, { DEFAULT_PLAN: "free" })).app;
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function endedCall(orgId: string, ageDays: number): Promise<string> {
  const id = randomUUID();
  const startedAt = new Date(Date.now() - ageDays * DAY);
  await database.db.insert(calls).values({
    id,
    orgId,
    type: "outbound",
    status: "ended",
    startedAt,
    endedAt: new Date(startedAt.getTime() + 60_000),
    durationSeconds: 60,
    endedReason: "customer-ended-call",
    costMicros: 120_000,
    transcript: "AI: Hello\nUser: Hi",
    messages: [{ role: "bot", message: "Hello" }],
    recordingUrl: "https://recordings.example/a.wav",
    stereoRecordingUrl: "https://recordings.example/a-stereo.wav",
    summary: "A short hello.",
    customerNumber: "+14155550100",
  });
  await database.db.transaction((tx) => debitCallOnce(tx, { orgId, callId: id, costMicros: 120_000, description: "Call" }, walletPolicy(config)));
  return id;
}

describe("retention sweep", () => {
  it("redacts calls older than the plan's retention once, keeps newer ones, and leaves the ledger and usage_daily alone", async () => {
    const free = await newOrganisation(app);
    const starter = await newOrganisation(app);
    const enterprise = await newOrganisation(app);
    await database.db.insert(billingAccounts).values([
      { orgId: starter.orgId, plan: "starter" },
      { orgId: enterprise.orgId, plan: "enterprise" },
    ]);
    const oldFree = await endedCall(free.orgId, 20); // Free keeps 14 days
    const newFree = await endedCall(free.orgId, 3);
    const starterCall = await endedCall(starter.orgId, 20); // Starter keeps 90 days
    const starterOld = await endedCall(starter.orgId, 100);
    const enterpriseCall = await endedCall(enterprise.orgId, 1000);
    const orgs = [free.orgId, starter.orgId, enterprise.orgId];
    await database.db.insert(usageDaily).values({ orgId: free.orgId, day: "2026-01-01", agentKey: "none", calls: 2, seconds: 120, costMicros: 240_000 });

    const ledgerBefore = await database.db.select().from(walletLedger).where(inArray(walletLedger.orgId, orgs));
    const walletsBefore = await database.db.select().from(wallets).where(inArray(wallets.orgId, orgs));
    const usageBefore = await database.db.select().from(usageDaily).where(inArray(usageDaily.orgId, orgs));

    // Two sweeps at once: one claims the job and redacts; the other does not run.
    const [a, b] = await Promise.all([runBillingSweeps(database.db, settings, 60_000), runBillingSweeps(database.db, settings, 60_000)]);
    const ran = [a.retention, b.retention].filter((n) => n !== null);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toBeGreaterThanOrEqual(2);
    // Within the interval nothing runs again; a forced run finds nothing left.
    expect((await runBillingSweeps(database.db, settings, 60_000)).retention).toBeNull();
    expect(await sweepRetention(database.db, settings)).toBe(0);

    const rows = new Map((await database.db.select().from(calls).where(inArray(calls.orgId, orgs))).map((row) => [row.id, row]));
    for (const id of [oldFree, starterOld]) {
      expect(rows.get(id)).toMatchObject({ transcript: null, messages: null, recordingUrl: null, stereoRecordingUrl: null, summary: "A short hello.", costMicros: 120_000, status: "ended" });
      expect(rows.get(id)!.redactedAt).toBeInstanceOf(Date);
    }
    for (const id of [newFree, starterCall, enterpriseCall]) {
      expect(rows.get(id)).toMatchObject({ transcript: "AI: Hello\nUser: Hi", recordingUrl: "https://recordings.example/a.wav", redactedAt: null });
    }

    // What the API shows for a redacted call.
    const shown = await app.inject({ method: "GET", url: `/api/call/${oldFree}`, headers: bearer(free.token) });
    expect(shown.statusCode).toBe(200);
    expect(JSON.stringify(shown.json())).not.toContain("recordings.example");

    expect(await database.db.select().from(walletLedger).where(inArray(walletLedger.orgId, orgs))).toEqual(ledgerBefore);
    expect(await database.db.select().from(wallets).where(inArray(wallets.orgId, orgs))).toEqual(walletsBefore);
    expect(await database.db.select().from(usageDaily).where(inArray(usageDaily.orgId, orgs))).toEqual(usageBefore);
  });

  it("works in batches", async () => {
    const org = await newOrganisation(app);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await endedCall(org.orgId, 30));
    expect(await sweepRetention(database.db, settings, new Date(), 2)).toBeGreaterThanOrEqual(5);
    const rows = await database.db.select().from(calls).where(inArray(calls.id, ids));
    expect(rows.every((row) => row.redactedAt !== null && row.transcript === null)).toBe(true);
  });
});

describe("grace sweep", () => {
  it("moves a past-due account beyond the grace days to Free (canceled), and leaves one inside them", async () => {
    const late = await newOrganisation(app);
    const recent = await newOrganisation(app);
    await database.db.insert(billingAccounts).values([
      { orgId: late.orgId, plan: "pro", subscriptionStatus: "past_due", pastDueSince: new Date(Date.now() - 8 * DAY), subscriptionId: "sub_late" },
      { orgId: recent.orgId, plan: "pro", subscriptionStatus: "past_due", pastDueSince: new Date(Date.now() - 2 * DAY), subscriptionId: "sub_recent" },
    ]);
    expect(await sweepGrace(database.db)).toBeGreaterThanOrEqual(1);
    const [lateRow] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, late.orgId));
    const [recentRow] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, recent.orgId));
    expect(lateRow).toMatchObject({ plan: "free", subscriptionStatus: "canceled" });
    expect(recentRow).toMatchObject({ plan: "pro", subscriptionStatus: "past_due" });
    const shown = (await app.inject({ method: "GET", url: "/api/subscription/", headers: bearer(recent.token) })).json().data;
    expect(shown).toMatchObject({ plan: { id: "pro" }, status: "past_due" });
  });
});
