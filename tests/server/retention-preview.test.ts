/**
 * The downgrade preview's call history (issue 31, item 9): GET /subscription/preview says how many calls' transcripts
 * and recordings the retention sweep deletes under the new plan, counted by the sweep's own rule for the caller's
 * organisation only, and that is what the sweep then deletes after the change. A cancellation to Free counts as of the
 * period's end, when the plan changes.
 */
import { randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planSettings } from "../../server/billing/plan-limits";
import { runBillingSweeps, sweepRetention } from "../../server/billing/sweeps";
import type { Database } from "../../server/db/client";
import { billingAccounts, calls } from "../../server/db/schema";
import { newOrganisation } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

const DAY = 86_400_000;
let database: Database;
let app: FastifyInstance;
let settings: ReturnType<typeof planSettings>;

beforeAll(async () => {
  database = await migratedDatabase();
  const built = await buildTestApp(database, { DEFAULT_PLAN: "free", BILLING_SWEEP_SECONDS: "60" });
  app = built.app;
  settings = planSettings(built.config);
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** An ended call placed `ageMs` before `from`, with a transcript, messages and recordings. */
async function callAged(orgId: string, ageMs: number, from = Date.now()): Promise<string> {
  const id = randomUUID();
  const startedAt = new Date(from - ageMs);
  await database.db.insert(calls).values({
    id,
    orgId,
    type: "outbound",
    status: "ended",
    startedAt,
    endedAt: new Date(startedAt.getTime() + 60_000),
    durationSeconds: 60,
    endedReason: "customer-ended-call",
    transcript: "AI: Hello\nUser: Hi",
    messages: [{ role: "bot", message: "Hello" }],
    recordingUrl: "https://recordings.example/a.wav",
    stereoRecordingUrl: "https://recordings.example/a-stereo.wav",
    summary: "A short hello.",
    customerNumber: "+14155550100",
  });
  return id;
}

const preview = async (token: string, plan: string) => {
  const response = await app.inject({ method: "GET", url: `/api/subscription/preview?plan=${plan}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};

const redactedOf = async (ids: string[]) =>
  (await database.db.select({ id: calls.id, redactedAt: calls.redactedAt, transcript: calls.transcript }).from(calls).where(inArray(calls.id, ids)))
    .filter((row) => row.redactedAt !== null && row.transcript === null)
    .map((row) => row.id)
    .sort();

describe("GET /subscription/preview: call history the retention sweep deletes", () => {
  it("counts the organisation's calls past the new plan's days, and the sweep after the downgrade deletes exactly those", async () => {
    const org = await newOrganisation(app);
    const other = await newOrganisation(app);
    await database.db.insert(billingAccounts).values([
      { orgId: org.orgId, plan: "pro" },
      { orgId: other.orgId, plan: "pro" },
    ]);
    // Pro keeps 365 days, Starter 90, Free 14. Either side of Free's cut-off by an hour.
    const kept = [await callAged(org.orgId, 3 * DAY), await callAged(org.orgId, 14 * DAY - 3_600_000)];
    const pastFree = [await callAged(org.orgId, 14 * DAY + 3_600_000), await callAged(org.orgId, 40 * DAY)];
    const pastStarter = [await callAged(org.orgId, 100 * DAY), await callAged(org.orgId, 200 * DAY)];
    const pastPro = await callAged(org.orgId, 400 * DAY);
    // Another organisation's old calls: neither counted for this one nor deleted by its downgrade.
    const others = [await callAged(other.orgId, 30 * DAY), await callAged(other.orgId, 200 * DAY)];

    // Pro's own sweep has already taken the 400-day-old call: it is not counted again.
    await sweepRetention(database.db, settings);
    expect(await redactedOf([pastPro])).toEqual([pastPro]);

    const toStarter = await preview(org.token, "starter");
    expect(toStarter.retention).toMatchObject({ days: 90, calls: 2, at_period_end: false, applies_at: null });
    const toFree = await preview(org.token, "free");
    expect(toFree.direction).toBe("downgrade");
    expect(toFree.retention).toMatchObject({ days: 14, calls: 4, at_period_end: false, applies_at: null, sweep_every_seconds: 60 });
    expect(Date.parse(toFree.retention.cutoff)).toBeGreaterThan(Date.now() - 14 * DAY - 60_000);
    expect(Date.parse(toFree.retention.cutoff)).toBeLessThanOrEqual(Date.now() - 14 * DAY);
    // Enterprise keeps call history without limit.
    expect((await preview(org.token, "enterprise")).retention).toBeNull();
    // The other organisation, on the same plan with old calls of its own, sees only its own.
    expect((await preview(other.token, "free")).retention.calls).toBe(2);

    // The downgrade (no subscription at the provider: it applies at once), then the sweep.
    const change = await app.inject({ method: "POST", url: "/api/subscription/change", headers: bearer(org.token), payload: { plan: "free" } });
    expect(change.statusCode, change.body).toBe(200);
    expect(change.json().data.subscription.plan.id).toBe("free");
    const deleted = await sweepRetention(database.db, settings);

    expect(deleted).toBe(toFree.retention.calls);
    expect(await redactedOf([...pastFree, ...pastStarter])).toEqual([...pastFree, ...pastStarter].sort());
    expect(await redactedOf(kept)).toEqual([]);
    expect(await redactedOf(others)).toEqual([]);
    // Nothing is left to delete: the preview of the plan it is on says so.
    expect((await preview(org.token, "free")).retention.calls).toBe(0);
  });

  it("a cancellation to Free waiting for the period's end counts the calls past Free's days then, which the sweep then deletes", async () => {
    const org = await newOrganisation(app);
    const periodEnd = new Date(Date.now() + 10 * DAY);
    await database.db.insert(billingAccounts).values({ orgId: org.orgId, plan: "starter", subscriptionId: `sub_${randomUUID()}`, subscriptionStatus: "active", currentPeriodEnd: periodEnd });
    // At the period's end these are 13, 16 and 30 days old.
    const young = await callAged(org.orgId, 3 * DAY, periodEnd.getTime() - 10 * DAY);
    const due = [await callAged(org.orgId, 16 * DAY, periodEnd.getTime()), await callAged(org.orgId, 30 * DAY, periodEnd.getTime())];

    const toFree = (await preview(org.token, "free")).retention;
    expect(toFree).toMatchObject({ days: 14, calls: 2, at_period_end: true, applies_at: periodEnd.toISOString(), next_sweep_at: null });
    // 14 days before the period's end (calendar days in the database's time zone: within an hour of 14 × 24 hours).
    expect(Math.abs(Date.parse(toFree.cutoff) - (periodEnd.getTime() - 14 * DAY))).toBeLessThanOrEqual(3_600_000);
    // Today, on Starter, the sweep deletes none of them.
    await sweepRetention(database.db, settings);
    expect(await redactedOf([young, ...due])).toEqual([]);

    // The period ends: the subscription is deleted and the organisation is on Free; the sweep runs.
    await database.db.update(billingAccounts).set({ plan: "free", subscriptionStatus: "canceled" }).where(eq(billingAccounts.orgId, org.orgId));
    const deleted = await sweepRetention(database.db, settings, new Date(periodEnd.getTime() + 1_000));
    // (The sweep also takes other organisations' calls that are past their days by then.)
    expect(deleted).toBeGreaterThanOrEqual(toFree.calls);
    expect(await redactedOf([young, ...due])).toEqual([...due].sort());
    expect(due).toHaveLength(toFree.calls);
  });

  it("says when the sweep runs next once it has run", async () => {
    const org = await newOrganisation(app);
    await database.db.insert(billingAccounts).values({ orgId: org.orgId, plan: "starter" });
    await runBillingSweeps(database.db, settings, 60_000);
    const next = (await preview(org.token, "free")).retention.next_sweep_at;
    expect(next).not.toBeNull();
    const inMs = Date.parse(next) - Date.now();
    expect(inMs).toBeGreaterThan(0);
    expect(inMs).toBeLessThanOrEqual(60_000);
  });
});
