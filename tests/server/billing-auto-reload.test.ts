/**
 * Auto-reload: PUT /billing/auto-reload needs a saved card; under the threshold the saved card is
 * charged off-session once (single flight, however many triggers at once), within the monthly cap; a
 * card that asks for authentication puts it in needs_action (never retried off-session) until an
 * admin confirms on-session; three failed charges switch it off. Also run on PostgreSQL (TEST_DATABASE_URL).
 */
import type { FastifyInstance } from "fastify";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTO_RELOAD_MAX_FAILURES } from "../../contract/billing";
import { maybeAutoReload, readAutoReload, reloadedThisMonth } from "../../server/billing/auto-reload";
import type { PaymentDeps } from "../../server/billing/top-ups";
import type { AppConfig } from "../../server/config";
import type { Database } from "../../server/db/client";
import { billingAccounts, organizations, topUps } from "../../server/db/schema";
import { randomUUID } from "node:crypto";
import { orgScope } from "../../server/data/orgScope";
import { calls } from "../../server/db/schema";
import { endOfCallReport, newOrganisation, postWebhook, waitFor, WEBHOOK_SECRET } from "./calls-fixtures";
import { addMember, bearer, buildTestApp, migratedDatabase } from "./helpers";
import { balanceMicros, CARDS, expectLedgerInvariant, ledgerRows, payCheckout, readTopUp, startTopUp } from "./billing-pay-fixtures";

let database: Database;
let app: FastifyInstance;
let config: AppConfig;
let deps: PaymentDeps;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app, config } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET }));
  deps = { db: database.db, config, payments: app.payments };
});
afterAll(async () => {
  await expectLedgerInvariant(database.db);
  await app.close();
  await database.close();
});

const STARTING = 10_000_000;

/** An organisation whose card is saved by a first top-up (balance: starting credit + amount). */
async function withCard(amountUsd = 25, card: string = CARDS.ok) {
  const org = await newOrganisation(app);
  const { sessionId, topUpId } = await startTopUp(app, org.token, amountUsd, true);
  if (card === CARDS.auth) {
    const asked = await payCheckout(app, org.token, sessionId, card, false);
    expect(asked.json().data.status).toBe("requires_action");
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("pending");
  }
  const paid = await payCheckout(app, org.token, sessionId, card, true);
  expect(paid.json().data.status, paid.body).toBe("complete");
  return org;
}

const putAutoReload = (token: string, payload: Record<string, unknown>) => app.inject({ method: "PUT", url: "/api/billing/auto-reload", headers: bearer(token), payload });
const reloads = (orgId: string) => database.db.select().from(topUps).where(and(eq(topUps.orgId, orgId), eq(topUps.kind, "auto_reload")));

describe("PUT /billing/auto-reload", () => {
  it("enabling needs a card on file (409 with a clear detail); members may not change it; bad values are 400", async () => {
    const org = await newOrganisation(app);
    const refused = await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 5 });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "conflict", detail: expect.stringContaining("card") });
    const off = await putAutoReload(org.token, { enabled: false, amount_usd: 20, threshold_usd: 5 });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toMatchObject({ enabled: false, amount_usd: 20, threshold_usd: 5, monthly_cap_usd: null, status: "ok", failures: 0, in_flight: false });
    expect((await putAutoReload(org.token, { enabled: false, amount_usd: 5, threshold_usd: 5 })).statusCode).toBe(400);
    const member = await addMember(app, org.token, org.orgId);
    expect((await putAutoReload(member.token, { enabled: false, amount_usd: 20, threshold_usd: 5 })).statusCode).toBe(403);
  });

  it("DELETE /billing/card removes the card and switches auto-reload off", async () => {
    const org = await withCard();
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 5 })).statusCode).toBe(200);
    const removed = await app.inject({ method: "DELETE", url: "/api/billing/card", headers: bearer(org.token) });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data).toMatchObject({ removed: true, auto_reload: { enabled: false } });
    const [account] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId));
    expect(account).toMatchObject({ paymentMethodId: null, cardLast4: null, autoReloadEnabled: false });
  });
});

describe("maybeAutoReload", () => {
  it("does nothing above the threshold; below it charges the card once and credits kind auto-reload, with a receipt", async () => {
    const org = await withCard(25);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 30 })).statusCode).toBe(200);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    expect(await reloads(org.orgId)).toHaveLength(0);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 40 })).statusCode).toBe(200);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("succeeded");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000 + 20_000_000);
    const rows = await reloads(org.orgId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "paid", amountMicros: 20_000_000, isSandbox: true });
    expect((await ledgerRows(database.db, org.orgId)).filter((row) => row.kind === "auto-reload")).toEqual([
      { kind: "auto-reload", amount: 20_000_000, reference: `top-up:${rows[0]!.id}`, topUpId: rows[0]!.id },
    ]);
    const state = await readAutoReload(deps, org.orgId);
    expect(state).toMatchObject({ reloaded_this_month_usd: 20, in_flight: false, status: "ok", failures: 0 });
    const documents = await app.inject({ method: "GET", url: "/api/billing/documents", headers: bearer(org.token) });
    expect((documents.json().data as { top_up_id: string }[]).some((doc) => doc.top_up_id === rows[0]!.id)).toBe(true);
  });

  it("single flight: many triggers at once make one reload", async () => {
    const org = await withCard(25);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 30, threshold_usd: 50 })).statusCode).toBe(200);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => maybeAutoReload(deps, org.orgId)));
    expect(outcomes.filter((outcome) => outcome === "succeeded")).toHaveLength(1);
    expect(await reloads(org.orgId)).toHaveLength(1);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000 + 30_000_000);
  });

  it("the monthly cap stops further reloads", async () => {
    const org = await withCard(10);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 10, threshold_usd: 100, monthly_cap_usd: 15 })).statusCode).toBe(200);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("succeeded");
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    expect(await reloads(org.orgId)).toHaveLength(1);
  });

  it("the monthly cap counts the month in the organisation's time zone (around a month boundary)", async () => {
    const org = await withCard(10);
    await database.db.update(organizations).set({ timezone: "America/Los_Angeles" }).where(eq(organizations.id, org.orgId));
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 10, threshold_usd: 100, monthly_cap_usd: 15 })).statusCode).toBe(200);
    // A reload paid on 30 November, 20:00 in Los Angeles (1 December, 04:00 UTC).
    await database.db.insert(topUps).values({
      id: randomUUID(),
      orgId: org.orgId,
      kind: "auto_reload",
      amountMicros: 10_000_000,
      status: "paid",
      saveCard: false,
      isSandbox: true,
      createdAt: new Date("2026-12-01T04:00:00Z"),
    });
    // 1 December 05:00 UTC is still 30 November (21:00) in Los Angeles: November's 10 count, another 10 would pass the 15.
    const lateNovember = new Date("2026-12-01T05:00:00Z");
    expect(await reloadedThisMonth(database.db, org.orgId, lateNovember)).toBe(10_000_000);
    expect(await maybeAutoReload(deps, org.orgId, { at: lateNovember })).toBe("not_needed");
    expect(await reloads(org.orgId)).toHaveLength(1);
    // 1 December 08:00 UTC is midnight there: December starts afresh.
    const decemberThere = new Date("2026-12-01T08:00:00Z");
    expect(await reloadedThisMonth(database.db, org.orgId, new Date("2026-12-01T07:59:59Z"))).toBe(10_000_000);
    expect(await reloadedThisMonth(database.db, org.orgId, decemberThere)).toBe(0);
    expect(await maybeAutoReload(deps, org.orgId, { at: decemberThere })).toBe("succeeded");
    expect(await reloads(org.orgId)).toHaveLength(2);

    // East of UTC the month starts earlier: 30 November 16:00 UTC is already 1 December in Tokyo.
    const tokyo = await newOrganisation(app);
    await database.db.update(organizations).set({ timezone: "Asia/Tokyo" }).where(eq(organizations.id, tokyo.orgId));
    await database.db.insert(topUps).values({
      id: randomUUID(),
      orgId: tokyo.orgId,
      kind: "auto_reload",
      amountMicros: 20_000_000,
      status: "paid",
      saveCard: false,
      isSandbox: true,
      createdAt: new Date("2026-11-30T15:30:00Z"),
    });
    // In Tokyo's December (UTC's December began after it: counted in UTC it would be November's).
    expect(await reloadedThisMonth(database.db, tokyo.orgId, new Date("2026-12-01T10:00:00Z"))).toBe(20_000_000);
    expect(await reloadedThisMonth(database.db, tokyo.orgId, new Date("2026-12-31T14:59:59Z"))).toBe(20_000_000);
    // 31 December 15:00 UTC is 1 January there.
    expect(await reloadedThisMonth(database.db, tokyo.orgId, new Date("2026-12-31T15:00:00Z"))).toBe(0);
  });

  it("a card that asks for authentication: the reload fails, status needs_action, never retried off-session, until an admin confirms on-session", async () => {
    const org = await withCard(10, CARDS.auth);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 50 })).statusCode).toBe(200);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("requires_action");
    const [failed] = await reloads(org.orgId);
    expect(failed).toMatchObject({ status: "failed", failureCode: "authentication_required" });
    expect(await readAutoReload(deps, org.orgId)).toMatchObject({ status: "needs_action", enabled: true, failures: 0, last_error: expect.stringContaining("authentication") });
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    expect(await reloads(org.orgId)).toHaveLength(1);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 10_000_000);

    const confirm = await app.inject({ method: "POST", url: "/api/billing/auto-reload/confirm", headers: bearer(org.token) });
    expect(confirm.statusCode, confirm.body).toBe(201);
    const sessionId = new URL(confirm.json().data.url, "http://x").searchParams.get("checkout")!;
    expect((await payCheckout(app, org.token, sessionId, CARDS.ok)).json().data.status).toBe("complete");
    expect(await readAutoReload(deps, org.orgId)).toMatchObject({ status: "ok", last_error: null });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 30_000_000);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("succeeded");
  });

  it(`${AUTO_RELOAD_MAX_FAILURES} failed charges in a row switch it off (status disabled); switching it on again starts afresh`, async () => {
    const org = await withCard(10);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 50 })).statusCode).toBe(200);
    // The saved card is gone at the provider: every off-session charge is declined.
    await database.db.update(billingAccounts).set({ paymentMethodId: "pm_sbx_gone" }).where(eq(billingAccounts.orgId, org.orgId));
    for (let attempt = 1; attempt <= AUTO_RELOAD_MAX_FAILURES; attempt += 1) {
      expect(await maybeAutoReload(deps, org.orgId)).toBe("failed");
      const state = await readAutoReload(deps, org.orgId);
      expect(state.failures).toBe(attempt);
      expect(state.status).toBe(attempt < AUTO_RELOAD_MAX_FAILURES ? "ok" : "disabled");
      expect(state.enabled).toBe(attempt < AUTO_RELOAD_MAX_FAILURES);
    }
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    expect(await reloads(org.orgId)).toHaveLength(AUTO_RELOAD_MAX_FAILURES);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 10_000_000);
    const again = await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 50 });
    expect(again.json().data).toMatchObject({ enabled: true, status: "ok", failures: 0 });
  });

  it("opening billing (GET /billing/) reloads a balance already under the threshold, without the answer waiting for the charge", async () => {
    const org = await withCard(25);
    // Switched on with the balance (35) already under the threshold (50): nothing has triggered it yet.
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 50 })).statusCode).toBe(200);
    expect(await reloads(org.orgId)).toHaveLength(0);

    // The provider's charge is held until released: the page must answer all the same.
    const payments = app.payments;
    const charge = payments.chargeOffSession.bind(payments);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let charging = false;
    payments.chargeOffSession = async (input) => {
      charging = true;
      await held;
      return charge(input);
    };
    try {
      const member = await addMember(app, org.token, org.orgId);
      const opened = await app.inject({ method: "GET", url: "/api/billing/", headers: bearer(member.token) });
      expect(opened.statusCode, opened.body).toBe(200);
      // The answer is the state it found: 35 and no reload yet.
      expect(opened.json().data).toMatchObject({ balance_usd: 35 });
      await waitFor(async () => charging, 5_000, "the off-session charge to start");
      const [inFlight] = await reloads(org.orgId);
      expect(inFlight).toMatchObject({ status: "pending", amountMicros: 20_000_000 });
      // A second visit while it is in flight starts no other.
      expect((await app.inject({ method: "GET", url: "/api/billing/", headers: bearer(org.token) })).json().data.auto_reload.in_flight).toBe(true);
    } finally {
      release();
    }
    const [reload] = await waitFor(async () => {
      const rows = (await reloads(org.orgId)).filter((row) => row.status === "paid");
      return rows.length > 0 ? rows : null;
    }, 10_000, "the reload started by GET /billing/");
    payments.chargeOffSession = charge;
    expect(reload).toMatchObject({ amountMicros: 20_000_000 });
    expect(await reloads(org.orgId)).toHaveLength(1);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000 + 20_000_000);
    const after = await app.inject({ method: "GET", url: "/api/billing/", headers: bearer(org.token) });
    expect(after.json().data).toMatchObject({ balance_usd: 55, auto_reload: { reloaded_this_month_usd: 20, in_flight: false } });
  });

  it("runs after a call's debit commits (the end-of-call report's ingest), without holding up the webhook's answer", async () => {
    const org = await withCard(10);
    expect((await putAutoReload(org.token, { enabled: true, amount_usd: 20, threshold_usd: 19.99 })).statusCode).toBe(200);
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    const providerCallId = `vapi-${randomUUID()}`;
    const callId = randomUUID();
    await orgScope(database.db, org.orgId).insert(calls, { id: callId, type: "outbound", status: "in-progress", customerNumber: "+14155550100", providerCallId });
    const report = await postWebhook(app, endOfCallReport({ providerCallId, callId, orgId: org.orgId }, { cost: 0.5 }));
    expect(report.statusCode, report.body).toBe(200);
    const [reload] = await waitFor(async () => {
      const rows = (await reloads(org.orgId)).filter((row) => row.status === "paid");
      return rows.length > 0 ? rows : null;
    }, 10_000, "the auto-reload after the debit");
    expect(reload).toMatchObject({ amountMicros: 20_000_000 });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 10_000_000 - 500_000 + 20_000_000);
  });
});
