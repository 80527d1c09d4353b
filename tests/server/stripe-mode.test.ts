/**
 * Stripe mode end to end through the real app: buildTestApp with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET
 * and STRIPE_API_URL pointing at the local stand-in for Stripe (tests/server/fakes/stripe.ts), and events
 * shaped like Stripe's, signed with stripe.webhooks.generateTestHeaderString, POSTed to
 * /api/webhooks/stripe. The path a real Stripe account takes: a Checkout top-up credited exactly once
 * (webhook twice and the return path at once), a forged event refused, the card saved, auto-reload off
 * session (and authentication_required parked in needs_action), a plan bought through Checkout in
 * subscription mode and moved by subscription events, and the customer portal.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { and, eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { maybeAutoReload } from "../../server/billing/auto-reload";
import { reconcileTopUps } from "../../server/billing/reconcile";
import type { PaymentDeps } from "../../server/billing/top-ups";
import type { Database } from "../../server/db/client";
import { billingAccounts, stripeEvents, topUps } from "../../server/db/schema";
import { balanceOf, walletPolicy } from "../../server/wallet/wallet";
import { expectLedgerInvariant, ledgerRows } from "./billing-pay-fixtures";
import { newOrganisation, type TestOrg } from "./calls-fixtures";
import { startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

const WEBHOOK_SECRET = "whsec_stripe_mode_test_secret";
const STARTING = 10_000_000;

let fake: FakeStripe;
let database: Database;
let app: FastifyInstance;
let deps: PaymentDeps;
const signer = new Stripe("sk_test_signer_only");
/** The balance as the wallet reads it (the starting credit before the wallet row exists). */
const balanceMicros = (_db: unknown, orgId: string) => balanceOf(database.db, orgId, walletPolicy(deps.config));

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: "sk_test_stripe_mode_fake" });
  database = await migratedDatabase();
  const built = await buildTestApp(database, {
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: fake.url,
    DEFAULT_PLAN: "free",
  });
  app = built.app;
  deps = { db: database.db, config: built.config, payments: app.payments };
});
afterAll(async () => {
  await expectLedgerInvariant(database.db);
  await app?.close();
  await database?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const eventId = () => `evt_${randomBytes(12).toString("hex")}`;

/** An event as Stripe sends it (API version, request, pending_webhooks…) around `object`. */
function stripeEvent(type: string, object: Record<string, unknown>, id = eventId()) {
  return {
    id,
    object: "event",
    api_version: "2025-08-27.basil",
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** POSTs the event as Stripe does: the exact bytes, signed with the endpoint's whsec (or `secret`). */
function deliver(event: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  // Stripe's own request: pretty-printed JSON with its charset, and its user agent.
  const payload = JSON.stringify(event, null, 2);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  return app.inject({
    method: "POST",
    url: "/api/webhooks/stripe",
    headers: { "content-type": "application/json; charset=utf-8", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)", "stripe-signature": header },
    payload,
  });
}

const writesTo = (path: string) => fake.requests.filter((request) => request.method === "POST" && request.path === path);
const account = async (orgId: string) => (await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)))[0]!;
const reloads = (orgId: string) => database.db.select().from(topUps).where(and(eq(topUps.orgId, orgId), eq(topUps.kind, "auto_reload")));
const getBilling = (token: string) => app.inject({ method: "GET", url: "/api/billing/", headers: bearer(token) });

/** POST /billing/top-up: answers the stand-in's Checkout URL; the session Stripe made for it. */
async function startTopUp(org: TestOrg, amountUsd: number, saveCard = true) {
  const response = await app.inject({ method: "POST", url: "/api/billing/top-up", headers: bearer(org.token), payload: { amount_usd: amountUsd, save_card: saveCard } });
  expect(response.statusCode, response.body).toBe(201);
  const { top_up_id: topUpId, url } = response.json().data as { top_up_id: string; url: string };
  const sessionId = /^https:\/\/checkout\.stripe\.com\/c\/pay\/(cs_test_\w+)$/.exec(url)?.[1];
  expect(sessionId, url).toBeTruthy();
  return { topUpId, url, sessionId: sessionId! };
}

/** A top-up paid at Stripe and its checkout.session.completed delivered: the card is saved. */
async function paidTopUp(org: TestOrg, amountUsd: number) {
  const { topUpId, sessionId } = await startTopUp(org, amountUsd, true);
  fake.completeCheckout(sessionId);
  const delivered = await deliver(stripeEvent("checkout.session.completed", fake.checkoutSessions.get(sessionId)!));
  expect(delivered.statusCode, delivered.body).toBe(200);
  expect(delivered.json()).toMatchObject({ result: "applied" });
  return { topUpId, sessionId };
}

describe("Stripe mode through the app", () => {
  it("GET /api/health says payments stripe, and so does GET /billing/", async () => {
    const health = await app.inject({ method: "GET", url: "/api/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json().modes.payments).toBe("stripe");
    const org = await newOrganisation(app);
    const billing = await getBilling(org.token);
    expect(billing.statusCode, billing.body).toBe(200);
    expect(billing.json().data.payments).toBe("stripe");
  });

  it("a Checkout top-up: cents, quantity 1, key top-up-<id>; the webhook twice and the return path at once credit it exactly once", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(org, 25.5, true);

    const [customer] = writesTo("/v1/customers");
    expect(customer?.body.metadata).toEqual({ org_id: org.orgId });
    const [created] = writesTo("/v1/checkout/sessions");
    expect(created).toBeDefined();
    expect(created!.idempotencyKey).toBe(`top-up-${topUpId}`);
    expect(created!.body).toMatchObject({
      mode: "payment",
      client_reference_id: topUpId,
      customer: customer ? expect.stringMatching(/^cus_/) : expect.anything(),
      line_items: [{ price_data: { currency: "usd", unit_amount: "2550" }, quantity: "1" }],
      payment_intent_data: { setup_future_usage: "off_session", metadata: { top_up_id: topUpId, org_id: org.orgId } },
      metadata: { top_up_id: topUpId, org_id: org.orgId },
    });
    expect(String(created!.body.success_url)).toMatch(/^http:\/\/localhost:3000\//);

    // Not paid yet: the return path reads the session and leaves it pending.
    const pending = await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(org.token) });
    expect(pending.statusCode, pending.body).toBe(200);
    expect(pending.json().data.status).toBe("pending");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING);

    fake.completeCheckout(sessionId);
    const event = stripeEvent("checkout.session.completed", fake.checkoutSessions.get(sessionId)!);
    const [first, second, returned] = await Promise.all([
      deliver(event),
      deliver(event),
      app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(org.token) }),
    ]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.json().data.status).toBe("paid");
    // The return path asked Stripe for the session with its intent expanded.
    expect(fake.requests.some((request) => request.method === "GET" && request.path === `/v1/checkout/sessions/${sessionId}`)).toBe(true);

    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_500_000);
    const credits = (await ledgerRows(database.db, org.orgId)).filter((row) => row.topUpId === topUpId);
    expect(credits).toEqual([{ kind: "top-up", amount: 25_500_000, reference: `top-up:${topUpId}`, topUpId }]);
    expect(await database.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toHaveLength(1);

    // A third delivery later: a duplicate, nothing moves.
    const again = await deliver(event);
    expect(again.json()).toMatchObject({ duplicate: true, result: "duplicate" });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 25_500_000);

    // The card is saved: what the checkout's payment intent paid with.
    const billing = (await getBilling(org.token)).json().data;
    expect(billing.card).toMatchObject({ brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 });
    expect((await account(org.orgId)).paymentMethodId).toMatch(/^pm_/);
    const topUp = (await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(org.token) })).json().data;
    expect(topUp).toMatchObject({ status: "paid", amount_usd: 25.5 });
  });

  it("a forged event (wrong secret, altered body, no signature) answers 400 and changes nothing", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(org, 40, true);
    fake.completeCheckout(sessionId);
    const event = stripeEvent("checkout.session.completed", fake.checkoutSessions.get(sessionId)!);

    const wrongSecret = await deliver(event, "whsec_someone_else");
    expect(wrongSecret.statusCode).toBe(400);
    expect(wrongSecret.json()).toMatchObject({ code: expect.any(String), detail: expect.stringContaining("refused") });

    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const altered = await app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json", "stripe-signature": header },
      payload: payload.replace('"livemode":false', '"livemode":true'),
    });
    expect(altered.statusCode).toBe(400);
    const unsigned = await app.inject({ method: "POST", url: "/api/webhooks/stripe", headers: { "content-type": "application/json" }, payload });
    expect(unsigned.statusCode).toBe(400);

    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING);
    expect(await database.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toHaveLength(0);
    const [row] = await database.db.select().from(topUps).where(eq(topUps.id, topUpId));
    expect(row?.status).toBe("pending");
    expect((await account(org.orgId)).paymentMethodId).toBeNull();
  });

  it("auto-reload charges the saved card off-session (key reload-<id>); authentication_required parks it in needs_action, not retried", async () => {
    const org = await newOrganisation(app);
    await paidTopUp(org, 10);
    const paymentMethodId = (await account(org.orgId)).paymentMethodId!;
    const enable = await app.inject({ method: "PUT", url: "/api/billing/auto-reload", headers: bearer(org.token), payload: { enabled: true, amount_usd: 20, threshold_usd: 50 } });
    expect(enable.statusCode, enable.body).toBe(200);

    fake.reset();
    expect(await maybeAutoReload(deps, org.orgId)).toBe("succeeded");
    const [reload] = await reloads(org.orgId);
    expect(reload).toMatchObject({ status: "paid", amountMicros: 20_000_000, isSandbox: false });
    const [charge] = writesTo("/v1/payment_intents");
    expect(charge).toBeDefined();
    expect(charge!.idempotencyKey).toBe(`reload-${reload!.id}`);
    expect(charge!.body).toMatchObject({
      amount: "2000",
      currency: "usd",
      customer: (await account(org.orgId)).customerId,
      payment_method: paymentMethodId,
      off_session: "true",
      confirm: "true",
      metadata: { top_up_id: reload!.id, org_id: org.orgId },
    });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 10_000_000 + 20_000_000);

    // Stripe's payment_intent.succeeded for the same reload arrives after: still one credit.
    const intent = fake.paymentIntents.get(reload!.paymentIntentId!)!;
    const late = await deliver(stripeEvent("payment_intent.succeeded", intent));
    expect(late.statusCode, late.body).toBe(200);
    expect(late.json().result).toBe("ignored");
    expect((await ledgerRows(database.db, org.orgId)).filter((row) => row.kind === "auto-reload")).toHaveLength(1);

    // Still under the threshold (30 < 50): the next one meets a card that asks for authentication.
    fake.reset();
    fake.failPaymentIntents("authentication_required");
    expect(await maybeAutoReload(deps, org.orgId)).toBe("requires_action");
    expect(writesTo("/v1/payment_intents")).toHaveLength(1);
    const failed = (await reloads(org.orgId)).find((row) => row.status === "failed");
    expect(failed).toMatchObject({ failureCode: "authentication_required", paymentIntentId: expect.stringMatching(/^pi_/) });
    // Stripe's payment_intent.payment_failed for the same charge follows: recorded once already, nothing more.
    const failedEvent = await deliver(stripeEvent("payment_intent.payment_failed", fake.paymentIntents.get(failed!.paymentIntentId!)!));
    expect(failedEvent.statusCode, failedEvent.body).toBe(200);
    expect(failedEvent.json().result).toBe("ignored");
    const state = (await getBilling(org.token)).json().data.auto_reload;
    expect(state).toMatchObject({ enabled: true, status: "needs_action", failures: 0, last_error: expect.stringContaining("authentication") });

    // Not retried off-session, however often it is triggered.
    expect(await maybeAutoReload(deps, org.orgId)).toBe("not_needed");
    await getBilling(org.token);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writesTo("/v1/payment_intents")).toHaveLength(1);
    expect(await reloads(org.orgId)).toHaveLength(2);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 30_000_000);

    // An admin confirms on-session: a normal Checkout of the reload amount that saves the card again.
    fake.reset();
    const confirm = await app.inject({ method: "POST", url: "/api/billing/auto-reload/confirm", headers: bearer(org.token) });
    expect(confirm.statusCode, confirm.body).toBe(201);
    const { top_up_id: confirmId, url } = confirm.json().data as { top_up_id: string; url: string };
    const confirmSession = /^https:\/\/checkout\.stripe\.com\/c\/pay\/(cs_test_\w+)$/.exec(url)?.[1];
    expect(confirmSession, url).toBeTruthy();
    expect(writesTo("/v1/checkout/sessions")[0]!.body).toMatchObject({ line_items: [{ price_data: { unit_amount: "2000" }, quantity: "1" }], payment_intent_data: { setup_future_usage: "off_session" } });
    fake.completeCheckout(confirmSession!);
    expect((await deliver(stripeEvent("checkout.session.completed", fake.checkoutSessions.get(confirmSession!)!))).json().result).toBe("applied");
    expect((await getBilling(org.token)).json().data.auto_reload).toMatchObject({ status: "ok", last_error: null });
    expect((await account(org.orgId)).paymentMethodId).not.toBe(paymentMethodId);
    const [confirmed] = await database.db.select().from(topUps).where(eq(topUps.id, confirmId));
    expect(confirmed).toMatchObject({ status: "paid", kind: "checkout" });
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 50_000_000);
  });

  it("a refund goes to Stripe (key refund-<id>) and its charge.refunded is not counted twice; a refund made in Stripe's dashboard is debited once", async () => {
    const org = await newOrganisation(app);
    const { topUpId } = await paidTopUp(org, 30);
    const [row] = await database.db.select().from(topUps).where(eq(topUps.id, topUpId));
    const intent = fake.paymentIntents.get(row!.paymentIntentId!)!;
    fake.reset();
    const refund = await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload: { amount_usd: 10 } });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(refund.json().data).toMatchObject({ refunded_usd: 10, status: "paid" });
    const [sent] = writesTo("/v1/refunds");
    expect(sent!.body).toMatchObject({ payment_intent: intent.id, amount: "1000" });
    expect(sent!.idempotencyKey).toMatch(/^refund-[0-9a-f-]{36}$/);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 20_000_000);

    const charge = { id: intent.latest_charge, object: "charge", amount: 3000, amount_refunded: 1000, refunded: false, currency: "usd", customer: intent.customer, payment_intent: intent.id, status: "succeeded" };
    const ours = await deliver(stripeEvent("charge.refunded", charge));
    expect(ours.statusCode, ours.body).toBe(200);
    expect(ours.json().result).toBe("ignored");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 20_000_000);

    // Another 5 refunded in Stripe's dashboard: the charge says 15 refunded in all; delivered twice, debited once.
    const dashboard = stripeEvent("charge.refunded", { ...charge, amount_refunded: 1500 });
    expect((await deliver(dashboard)).json().result).toBe("applied");
    expect((await deliver(dashboard)).json().result).toBe("duplicate");
    expect((await deliver(stripeEvent("charge.refunded", { ...charge, amount_refunded: 1500 }))).json().result).toBe("ignored");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 15_000_000);
    const topUp = (await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(org.token) })).json().data;
    expect(topUp.refunded_usd).toBe(15);
  });

  it("a top-up paid at Stripe whose webhook never came (and whose payer never came back) is credited once by the reconciliation sweep", async () => {
    const org = await newOrganisation(app);
    const { topUpId, sessionId } = await startTopUp(org, 15, false);
    fake.completeCheckout(sessionId);
    const first = await reconcileTopUps(deps, { minAgeMs: 0 });
    expect(first.credited).toBeGreaterThanOrEqual(1);
    await reconcileTopUps(deps, { minAgeMs: 0 });
    const [row] = await database.db.select().from(topUps).where(eq(topUps.id, topUpId));
    expect(row).toMatchObject({ status: "paid" });
    expect(row!.receiptUrl).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 15_000_000);
    // save_card false: no card kept.
    expect((await account(org.orgId)).paymentMethodId).toBeNull();
    // The webhook arriving after all changes nothing.
    expect((await deliver(stripeEvent("checkout.session.completed", fake.checkoutSessions.get(sessionId)!))).json().result).toBe("ignored");
    expect(await balanceMicros(database.db, org.orgId)).toBe(STARTING + 15_000_000);
  });

  it("a plan change to Starter goes to Checkout in subscription mode; subscription events move the plan and end it", async () => {
    const org = await newOrganisation(app);
    const change = await app.inject({ method: "POST", url: "/api/subscription/change", headers: bearer(org.token), payload: { plan: "starter" } });
    expect(change.statusCode, change.body).toBe(200);
    const url = change.json().data.url as string;
    const sessionId = /^https:\/\/checkout\.stripe\.com\/c\/pay\/(cs_test_\w+)$/.exec(url)?.[1];
    expect(sessionId, url).toBeTruthy();
    expect(change.json().data.subscription.plan.id).toBe("free");
    const [created] = writesTo("/v1/checkout/sessions");
    expect(created!.body).toMatchObject({
      mode: "subscription",
      client_reference_id: org.orgId,
      line_items: [{ price_data: { currency: "usd", unit_amount: "4900", recurring: { interval: "month" } }, quantity: "1" }],
      metadata: { org_id: org.orgId, plan: "starter" },
      subscription_data: { metadata: { org_id: org.orgId, plan: "starter" } },
    });
    expect(created!.idempotencyKey).toMatch(new RegExp(`^subscribe-${org.orgId}-starter-`));

    fake.completeCheckout(sessionId!);
    const session = fake.checkoutSessions.get(sessionId!)!;
    const subscriptionId = session.subscription as string;
    const completed = await deliver(stripeEvent("checkout.session.completed", session));
    expect(completed.statusCode, completed.body).toBe(200);
    const subscription = fake.subscriptions.get(subscriptionId)!;
    const createdEvent = await deliver(stripeEvent("customer.subscription.created", subscription));
    expect(createdEvent.statusCode, createdEvent.body).toBe(200);

    const show = async () => {
      const response = await app.inject({ method: "GET", url: "/api/subscription/", headers: bearer(org.token) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data as { plan: { id: string }; status: string; payments: string; cancel_at_period_end: boolean };
    };
    expect(await show()).toMatchObject({ plan: { id: "starter" }, status: "active", payments: "stripe" });
    expect(await account(org.orgId)).toMatchObject({ subscriptionId, customerId: session.customer });

    // Moved to Pro (as the portal or POST /subscription/change would): the updated event carries it.
    const toPro = await app.inject({ method: "POST", url: "/api/subscription/change", headers: bearer(org.token), payload: { plan: "pro" } });
    expect(toPro.statusCode, toPro.body).toBe(200);
    expect(toPro.json().data.url).toBeNull();
    const update = writesTo(`/v1/subscriptions/${subscriptionId}`);
    expect(update).toHaveLength(1);
    expect(update[0]!.body).toMatchObject({ proration_behavior: "create_prorations", metadata: { plan: "pro" } });
    // Applied only when Stripe says so.
    expect((await show()).plan.id).toBe("starter");
    const updated = await deliver(stripeEvent("customer.subscription.updated", fake.subscriptions.get(subscriptionId)!));
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().result).toBe("applied");
    expect(await show()).toMatchObject({ plan: { id: "pro" }, status: "active" });

    // invoice.paid: one invoice document, however often delivered.
    const invoice = {
      id: `in_${randomBytes(8).toString("hex")}`,
      object: "invoice",
      customer: session.customer,
      amount_paid: 19900,
      total: 19900,
      number: "ABCD-0001",
      hosted_invoice_url: "https://invoice.stripe.com/i/acct_test/test_inv",
      status: "paid",
      lines: { object: "list", data: [{ description: "1 × Pro plan (at $199.00 / month)" }] },
      parent: { type: "subscription_details", subscription_details: { subscription: subscriptionId, metadata: { org_id: org.orgId, plan: "pro" } } },
    };
    const paidInvoice = stripeEvent("invoice.paid", invoice);
    expect((await deliver(paidInvoice)).json().result).toBe("applied");
    expect((await deliver(paidInvoice)).json().result).toBe("duplicate");
    expect((await deliver(stripeEvent("invoice.paid", invoice))).statusCode).toBe(200);
    const documents = (await app.inject({ method: "GET", url: "/api/billing/documents", headers: bearer(org.token) })).json().data as Record<string, unknown>[];
    const invoices = documents.filter((doc) => doc.kind === "invoice");
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ amount_usd: 199, url: invoice.hosted_invoice_url });

    // Down to Free: cancelled at the period's end at Stripe; Pro until the subscription ends.
    fake.reset();
    const toFree = await app.inject({ method: "POST", url: "/api/subscription/change", headers: bearer(org.token), payload: { plan: "free" } });
    expect(toFree.statusCode, toFree.body).toBe(200);
    const cancel = writesTo(`/v1/subscriptions/${subscriptionId}`);
    expect(cancel).toHaveLength(1);
    expect(cancel[0]!.body).toEqual({ cancel_at_period_end: "true" });
    expect(cancel[0]!.idempotencyKey).toMatch(new RegExp(`^cancel-${subscriptionId}-`));
    expect((await deliver(stripeEvent("customer.subscription.updated", fake.subscriptions.get(subscriptionId)!))).json().result).toBe("applied");
    expect(await show()).toMatchObject({ plan: { id: "pro" }, status: "active", cancel_at_period_end: true });

    // Stripe does not promise the order of events: the "updated" of the upgrade (active, Pro), delivered late.
    const lateUpgrade = stripeEvent("customer.subscription.updated", structuredClone(fake.subscriptions.get(subscriptionId)!));
    (lateUpgrade.data.object as Record<string, unknown>).cancel_at_period_end = false;

    // The period ends: Stripe deletes the subscription.
    const ended = fake.subscriptions.get(subscriptionId)!;
    Object.assign(ended, { status: "canceled", ended_at: Math.floor(Date.now() / 1000) });
    const deleted = await deliver(stripeEvent("customer.subscription.deleted", ended));
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await show()).toMatchObject({ plan: { id: "free" }, status: "canceled" });

    // The late event is applied with the subscription as Stripe has it now (canceled): no Pro for free.
    fake.reset();
    const late = await deliver(lateUpgrade);
    expect(late.statusCode, late.body).toBe(200);
    expect(fake.requests.some((request) => request.method === "GET" && request.path === `/v1/subscriptions/${subscriptionId}`)).toBe(true);
    expect(await show()).toMatchObject({ plan: { id: "free" }, status: "canceled" });
  });

  it("POST /billing/portal answers Stripe's portal URL for the organisation's customer", async () => {
    const org = await newOrganisation(app);
    const portal = await app.inject({ method: "POST", url: "/api/billing/portal", headers: bearer(org.token) });
    expect(portal.statusCode, portal.body).toBe(200);
    expect(portal.json().data.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/test_bps_/);
    const [request] = writesTo("/v1/billing_portal/sessions");
    expect(request!.body).toEqual({ customer: (await account(org.orgId)).customerId, return_url: "http://localhost:3000/billing" });
    expect(request!.idempotencyKey).toMatch(/^portal-cus_/);
  });
});

describe("Stripe mode with STRIPE_PRICE_STARTER / STRIPE_PRICE_PRO", () => {
  const PRICES = { starter: "price_stripe_mode_starter", pro: "price_stripe_mode_pro" };
  let priced: FastifyInstance;
  beforeAll(async () => {
    ({ app: priced } = await buildTestApp(database, {
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: fake.url,
      STRIPE_PRICE_STARTER: PRICES.starter,
      STRIPE_PRICE_PRO: PRICES.pro,
      DEFAULT_PLAN: "free",
    }));
  });
  afterAll(async () => {
    await priced?.close();
  });

  const deliverTo = (event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    return priced.inject({ method: "POST", url: "/api/webhooks/stripe", headers: { "content-type": "application/json", "stripe-signature": header }, payload });
  };
  const planOf = async (token: string) => {
    const response = await priced.inject({ method: "GET", url: "/api/subscription/", headers: bearer(token) });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { plan: { id: string } }).plan.id;
  };

  it("a plan changed in Stripe's portal (only the price moves; the metadata still says the old plan) follows the price", async () => {
    const org = await newOrganisation(priced);
    const change = await priced.inject({ method: "POST", url: "/api/subscription/change", headers: bearer(org.token), payload: { plan: "starter" } });
    expect(change.statusCode, change.body).toBe(200);
    const [created] = writesTo("/v1/checkout/sessions");
    expect(created!.body.line_items).toEqual([{ price: PRICES.starter, quantity: "1" }]);
    const sessionId = /(cs_test_\w+)$/.exec(change.json().data.url as string)![1]!;
    fake.completeCheckout(sessionId);
    const session = fake.checkoutSessions.get(sessionId)!;
    const subscription = fake.subscriptions.get(session.subscription as string)!;
    const item = (subscription.items as { data: { price: Record<string, unknown> }[] }).data[0]!;
    item.price = { ...item.price, id: PRICES.starter };
    expect((await deliverTo(stripeEvent("checkout.session.completed", session))).statusCode).toBe(200);
    expect((await deliverTo(stripeEvent("customer.subscription.created", subscription))).statusCode).toBe(200);
    expect(await planOf(org.token)).toBe("starter");
    expect(subscription.metadata).toMatchObject({ plan: "starter" });

    // The customer moves to Pro in Stripe's portal: the item's price changes, the metadata Checkout wrote stays.
    item.price = { ...item.price, id: PRICES.pro, unit_amount: 19900 };
    const upgraded = await deliverTo(stripeEvent("customer.subscription.updated", subscription));
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    expect(await planOf(org.token)).toBe("pro");

    // And back down to Starter there.
    item.price = { ...item.price, id: PRICES.starter, unit_amount: 4900 };
    expect((await deliverTo(stripeEvent("customer.subscription.updated", subscription))).statusCode).toBe(200);
    expect(await planOf(org.token)).toBe("starter");
  });
});
