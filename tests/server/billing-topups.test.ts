/**
 * Top-ups through the sandbox payment provider: Checkout, the webhook, the return and the sweep each
 * may find a top-up paid, and the wallet is credited exactly once whichever comes first, however often
 * and however concurrently. Refunds never go below zero nor past what was paid. Runs on PGlite, and
 * on PostgreSQL with TEST_DATABASE_URL (the concurrent deliveries).
 */
import type { FastifyInstance } from "fastify";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingDocument } from "../../contract/billing";
import { creditTopUpOnce } from "../../server/billing/top-ups";
import { reconcileTopUps } from "../../server/billing/reconcile";
import type { Database } from "../../server/db/client";
import { billingAccounts, topUps } from "../../server/db/schema";
import { walletPolicy } from "../../server/wallet/wallet";
import { newOrganisation } from "./calls-fixtures";
import { addMember, bearer, buildTestApp, migratedDatabase } from "./helpers";
import { balanceMicros, CARDS, expectLedgerInvariant, ledgerRows, payCheckout, readTopUp, sandboxOf, startTopUp } from "./billing-pay-fixtures";

let database: Database;
let app: FastifyInstance;
let config: Awaited<ReturnType<typeof buildTestApp>>["config"];

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app, config } = await buildTestApp(database));
});
afterAll(async () => {
  await expectLedgerInvariant(database.db);
  await app.close();
  await database.close();
});

const STARTING = 10_000_000;

describe("POST /billing/top-up and the sandbox checkout", () => {
  it("starts a pending top-up whose URL is the console's sandbox checkout; paying it credits the wallet once, saves the card, and writes a receipt", async () => {
    const org = await newOrganisation(app);
    const { topUpId, url, sessionId } = await startTopUp(app, org.token, 25);
    expect(url).toBe(`/billing?checkout=${sessionId}`);
    const before = await readTopUp(app, org.token, topUpId);
    expect(before).toMatchObject({ id: topUpId, amount_usd: 25, status: "pending", kind: "checkout", sandbox: true, paid_at: null });

    const checkout = await app.inject({ method: "GET", url: `/api/billing/sandbox/checkout/${sessionId}`, headers: bearer(org.token) });
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(checkout.json().data).toMatchObject({ id: sessionId, mode: "payment", amount_usd: 25, status: "open", save_card: true, sandbox: true, plan: null });

    const paid = await payCheckout(app, org.token, sessionId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toMatchObject({ status: "complete", redirect_url: expect.stringContaining(`top_up=${topUpId}`) });

    const after = await readTopUp(app, org.token, topUpId);
    expect(after).toMatchObject({ status: "paid", paid_at: expect.any(String) });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000);
    const ledger = await ledgerRows(database.db, org.orgId);
    expect(ledger.filter((row) => row.kind === "top-up")).toEqual([{ kind: "top-up", amount: 25_000_000, reference: `top-up:${topUpId}`, topUpId }]);

    const [account] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId));
    expect(account).toMatchObject({ cardBrand: "visa", cardLast4: "4242", cardExpMonth: 12, cardExpYear: 2034, customerId: expect.stringMatching(/^cus_sbx_/) });
    expect(account!.paymentMethodId).toMatch(/^pm_sbx_/);

    const documents = await app.inject({ method: "GET", url: "/api/billing/documents", headers: bearer(org.token) });
    expect(documents.statusCode, documents.body).toBe(200);
    const list = documents.json() as { data: BillingDocument[]; total: number };
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({ kind: "receipt", amount_usd: 25, top_up_id: topUpId, sandbox: true });
    expect(list.data[0]!.number).toMatch(/^R-\d{8}-[0-9A-F]{4}$/);
    expect(list.data[0]!.url).toBe(`/billing/documents/${list.data[0]!.id}`);
    const one = await app.inject({ method: "GET", url: `/api/billing/documents/${list.data[0]!.id}`, headers: bearer(org.token) });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data).toMatchObject({ number: list.data[0]!.number, organization_name: expect.any(String), lines: [{ amount_usd: 25 }] });

    // Paying again changes nothing.
    expect((await payCheckout(app, org.token, sessionId)).json().data.status).toBe("complete");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000);
  });

  it("one customer per organisation, however many top-ups", async () => {
    const org = await newOrganisation(app);
    await Promise.all([startTopUp(app, org.token, 10), startTopUp(app, org.token, 10), startTopUp(app, org.token, 10)]);
    expect(await sandboxOf(app).objectsOf(org.orgId, "customer")).toHaveLength(1);
  });

  it("declined cards and insufficient funds answer declined and credit nothing; the top-up stays pending", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 10);
    const declined = await payCheckout(app, org.token, sessionId, CARDS.declined);
    expect(declined.json().data).toMatchObject({ status: "declined", redirect_url: null, detail: expect.stringContaining("declined") });
    const poor = await payCheckout(app, org.token, sessionId, CARDS.insufficient);
    expect(poor.json().data).toMatchObject({ status: "declined", detail: expect.stringContaining("insufficient") });
    const unknown = await payCheckout(app, org.token, sessionId, "5555555555554444");
    expect(unknown.json().data.status).toBe("declined");
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("pending");
    expect(await balanceMicros(database.db, org.orgId)).toBe(0); // no wallet yet: nothing was credited
  });

  it("refuses bad amounts (400), members (403), and another organisation's top-up and checkout (404)", async () => {
    const org = await newOrganisation(app);
    for (const amount of [1, 5000.01, 10.005]) {
      const response = await app.inject({ method: "POST", url: "/api/billing/top-up", headers: bearer(org.token), payload: { amount_usd: amount } });
      expect(response.statusCode, String(amount)).toBe(400);
    }
    const member = await addMember(app, org.token, org.orgId);
    const refused = await app.inject({ method: "POST", url: "/api/billing/top-up", headers: bearer(member.token), payload: { amount_usd: 10 } });
    expect(refused.statusCode).toBe(403);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 10);
    expect((await readTopUp(app, member.token, topUpId)).status).toBe("pending");
    const memberPays = await payCheckout(app, member.token, sessionId);
    expect(memberPays.statusCode).toBe(403);

    const other = await newOrganisation(app);
    expect((await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: `/api/billing/sandbox/checkout/${sessionId}`, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await payCheckout(app, other.token, sessionId)).statusCode).toBe(404);
    expect((await app.inject({ method: "POST", url: `/api/billing/sandbox/checkout/${sessionId}/cancel`, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("pending");
  });

  it("cancelling the checkout expires the top-up (checkout.session.expired)", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 10);
    const cancelled = await app.inject({ method: "POST", url: `/api/billing/sandbox/checkout/${sessionId}/cancel`, headers: bearer(org.token) });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data.status).toBe("expired");
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("expired");
    expect((await payCheckout(app, org.token, sessionId)).json().data.status).toBe("declined");
  });
});

describe("credited exactly once", () => {
  it("paid while no webhook arrives: the return to /billing (GET /billing/top-up/{id}) credits it, once; the late webhook then changes nothing", async () => {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 50);
    sandbox.holdEvents();
    let held = 0;
    try {
      expect((await payCheckout(app, org.token, sessionId)).json().data.status).toBe("complete");
    } finally {
      held = sandbox.dropHeldEvents();
    }
    expect(held).toBe(1);
    expect(await balanceMicros(database.db, org.orgId)).toBe(0);
    const [first, second] = await Promise.all([readTopUp(app, org.token, topUpId), readTopUp(app, org.token, topUpId)]);
    expect([first.status, second.status]).toEqual(["paid", "paid"]);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 50_000_000);
    // The webhook arriving late (a replay of the stored event) is a new event id only once; it credits nothing more.
    const event = sandbox.events.find((candidate) => candidate.type === "checkout.session.completed" && (candidate.data.object as { id: string }).id === sessionId)!;
    const late = await sandbox.deliver(JSON.stringify(event));
    expect(late.statusCode).toBe(200);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 50_000_000);
    // The card was saved through the return too.
    const [account] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId));
    expect(account!.cardLast4).toBe("4242");
  });

  it("paid while no webhook arrives and nobody returns: the reconciliation sweep credits it, once", async () => {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 20);
    sandbox.holdEvents();
    await payCheckout(app, org.token, sessionId);
    sandbox.dropHeldEvents();
    const deps = { db: database.db, config, payments: app.payments };
    // Younger than a minute: not asked yet.
    const early = await reconcileTopUps(deps);
    expect(await balanceMicros(database.db, org.orgId)).toBe(0);
    expect(early.credited).toBe(0);
    const later = new Date(Date.now() + 2 * 60_000);
    const [a, b] = await Promise.all([reconcileTopUps(deps, { now: later }), reconcileTopUps(deps, { now: later })]);
    expect(a.credited + b.credited).toBe(1);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 20_000_000);
    expect((await reconcileTopUps(deps, { now: later })).credited).toBe(0);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 20_000_000);
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("paid");
  });

  it("the sweep expires checkouts older than 24 hours (and those the provider reports expired)", async () => {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 15);
    await sandbox.ageCheckout(sessionId, 25 * 3600);
    await database.db.update(topUps).set({ createdAt: new Date(Date.now() - 25 * 3600_000) }).where(eq(topUps.id, topUpId));
    const result = await reconcileTopUps({ db: database.db, config, payments: app.payments });
    expect(result.expired).toBeGreaterThanOrEqual(1);
    expect((await readTopUp(app, org.token, topUpId)).status).toBe("expired");
  });

  it("webhook, return, sweep and direct credits racing (many at once, replayed) credit once", async () => {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 30);
    sandbox.holdEvents();
    await payCheckout(app, org.token, sessionId);
    const bodies = await (async () => {
      const held = [...((sandbox as unknown as { held: string[] }).held ?? [])];
      sandbox.dropHeldEvents();
      return held;
    })();
    expect(bodies).toHaveLength(1);
    const policy = walletPolicy(config);
    const later = new Date(Date.now() + 2 * 60_000);
    const deps = { db: database.db, config, payments: app.payments };
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => sandbox.deliver(bodies[0]!)),
      ...Array.from({ length: 3 }, () => readTopUp(app, org.token, topUpId)),
      reconcileTopUps(deps, { now: later }),
      ...Array.from({ length: 3 }, () => database.db.transaction((tx) => creditTopUpOnce(tx, topUpId, policy))),
    ]);
    expect(results.slice(0, 6).every((answer) => (answer as { statusCode: number }).statusCode === 200)).toBe(true);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 30_000_000);
    const credits = (await ledgerRows(database.db, org.orgId)).filter((row) => row.topUpId === topUpId);
    expect(credits).toHaveLength(1);
    const count = (await database.db.execute(sql`select count(*)::int as n from stripe_events where id = ${JSON.parse(bodies[0]!).id}`)) as unknown as { rows: { n: number }[] };
    expect(Number(count.rows[0]!.n)).toBe(1);
  });
});

describe("receipts", () => {
  it("a receipt link learnt after the credit (the webhook does not carry Stripe's) is kept on the top-up and its receipt, crediting nothing more", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 10);
    await payCheckout(app, org.token, sessionId);
    expect((await readTopUp(app, org.token, topUpId)).receipt_url).toBeNull();
    const link = "https://pay.stripe.com/receipts/payment/abc";
    expect(await database.db.transaction((tx) => creditTopUpOnce(tx, topUpId, walletPolicy(config), { receiptUrl: link }))).toBe(false);
    expect((await readTopUp(app, org.token, topUpId)).receipt_url).toBe(link);
    const documents = await app.inject({ method: "GET", url: "/api/billing/documents", headers: bearer(org.token) });
    expect(documents.json().data).toEqual([expect.objectContaining({ top_up_id: topUpId, url: link })]);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 10_000_000);
  });
});

describe("POST /billing/top-up/{id}/refund", () => {
  it("refunds what is left by default, never more than paid less refunded nor than the balance; the ledger says refund", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 40);
    await payCheckout(app, org.token, sessionId);
    const refund = (payload: Record<string, unknown>) => app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload });

    const part = await refund({ amount_usd: 15 });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json().data).toMatchObject({ refunded_usd: 15, status: "paid" });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_000_000);

    const tooMuch = await refund({ amount_usd: 30 });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toMatchObject({ code: "conflict", detail: expect.stringContaining("$25.00") });

    const member = await addMember(app, org.token, org.orgId);
    expect((await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(member.token), payload: {} })).statusCode).toBe(403);

    const rest = await refund({});
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json().data.refunded_usd).toBe(40);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING);
    expect((await refund({})).statusCode).toBe(409);
    const refunds = (await ledgerRows(database.db, org.orgId)).filter((row) => row.kind === "refund");
    expect(refunds.map((row) => row.amount)).toEqual([-15_000_000, -25_000_000]);
    expect(refunds.every((row) => row.reference?.startsWith("refund:"))).toBe(true);
    const charges = await sandboxOf(app).objectsOf(org.orgId, "refund");
    expect(charges.map((row) => row.amount)).toEqual([1500, 2500]);
  });

  it("never refunds more than the balance (money spent on calls stays spent)", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 10);
    await payCheckout(app, org.token, sessionId);
    // Spend most of it.
    const { appendLedgerEntry } = await import("../../server/wallet/wallet");
    await database.db.transaction((tx) => appendLedgerEntry(tx, { orgId: org.orgId, amountMicros: -17_000_000, kind: "adjustment", description: "spent" }, walletPolicy(config)));
    const response = await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload: {} });
    expect(response.statusCode).toBe(409);
    expect(response.json().detail).toContain("balance");
    expect(await balanceMicros(database.db, org.orgId)).toBe(3_000_000);
    const ok = await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload: { amount_usd: 3 } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await balanceMicros(database.db, org.orgId)).toBe(0);
  });

  it("a pending top-up cannot be refunded; another organisation's is 404", async () => {
    const org = await newOrganisation(app);
    const { topUpId } = await startTopUp(app, org.token, 10);
    expect((await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload: {} })).statusCode).toBe(409);
    const other = await newOrganisation(app);
    expect((await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(other.token), payload: {} })).statusCode).toBe(404);
  });
});
