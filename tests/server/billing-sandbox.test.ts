/**
 * The sandbox payment provider and POST /api/webhooks/stripe: its events are shaped like Stripe's own
 * examples (../shared/vendor/stripe/fixtures3.json), signed with the Stripe-Signature scheme, and the
 * route processes each event id once; forged, stale or changed deliveries are refused (400) and change
 * nothing. Subscription-mode checkout, plan changes and cancellation deliver the subscription events.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signPayload, verifySignature, WebhookSignatureError } from "../../server/billing/payments/signature";
import type { PaymentEvent, PaymentProvider } from "../../server/billing/payments/types";
import type { Database } from "../../server/db/client";
import { newOrganisation } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase, testConfig } from "./helpers";
import { buildApp } from "../../server/app";
import { balanceMicros, expectLedgerInvariant, payCheckout, sandboxOf, startTopUp } from "./billing-pay-fixtures";

const FIXTURES = fileURLToPath(new URL("../../../shared/vendor/stripe/fixtures3.json", import.meta.url));

function fixtures(): Record<string, Record<string, unknown>> {
  if (!existsSync(FIXTURES)) throw new Error(`Stripe's fixtures3.json is expected at ${FIXTURES} (../shared/vendor/stripe/fixtures3.json, see its README)`);
  return (JSON.parse(readFileSync(FIXTURES, "utf8")) as { resources: Record<string, Record<string, unknown>> }).resources;
}

const kind = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Every top-level key of Stripe's example is present in ours, with the same JSON type where both have a value (Stripe's nullable fields may be null). */
function expectShapedLike(ours: Record<string, unknown>, example: Record<string, unknown>, label: string) {
  const missing = Object.keys(example).filter((key) => !(key in ours));
  expect(missing, `${label}: keys Stripe's ${String(example.object)} has`).toEqual([]);
  for (const [key, value] of Object.entries(example)) {
    const mine = ours[key];
    if (value === null || mine === null) continue;
    expect(kind(mine), `${label}.${key}`).toBe(kind(value));
  }
  expect(ours.object).toBe(example.object);
}

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
});
afterAll(async () => {
  await expectLedgerInvariant(database.db);
  await app.close();
  await database.close();
});

describe("Stripe-Signature", () => {
  const secret = "whsec_test_secret";
  const body = JSON.stringify({ id: "evt_1", type: "x", data: { object: {} } });

  it("accepts its own signature, and any one of several v1 signatures", () => {
    expect(() => verifySignature(secret, body, signPayload(secret, body))).not.toThrow();
    const t = Math.floor(Date.now() / 1000);
    const good = signPayload(secret, body, t).split(",")[1]!;
    expect(() => verifySignature(secret, body, `t=${t},v1=${"0".repeat(64)},${good}`)).not.toThrow();
  });

  it("refuses a missing header, another secret, a changed body, a stale or future timestamp, and a header without v1", () => {
    const t = Math.floor(Date.now() / 1000);
    const cases: [string | undefined, string][] = [
      [undefined, body],
      ["", body],
      [signPayload("whsec_other", body), body],
      [signPayload(secret, body), body.replace("evt_1", "evt_2")],
      [signPayload(secret, body, t - 301), body],
      [signPayload(secret, body, t + 301), body],
      [`t=${t}`, body],
      [`v1=${"a".repeat(64)}`, body],
    ];
    for (const [header, payload] of cases) expect(() => verifySignature(secret, payload, header), String(header)).toThrow(WebhookSignatureError);
    expect(() => verifySignature(secret, body, signPayload(secret, body, t - 299))).not.toThrow();
  });
});

describe("the sandbox's events", () => {
  it("are Stripe events (fixtures3.json's event) with Stripe-shaped resources inside, labelled Sandbox", async () => {
    const resources = fixtures();
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const from = sandbox.events.length;
    const { sessionId } = await startTopUp(app, org.token, 10);
    await payCheckout(app, org.token, sessionId);
    const made = sandbox.events.slice(from);
    expect(made.map((event) => event.type)).toEqual(["checkout.session.completed"]);
    const event = made[0]!;
    expectShapedLike(event as unknown as Record<string, unknown>, resources.event!, "event");
    expect(event.id).toMatch(/^evt_sbx_/);
    const session = event.data.object;
    expectShapedLike(session, resources["checkout.session"]!, "checkout.session");
    expect(session).toMatchObject({ id: sessionId, mode: "payment", status: "complete", payment_status: "paid", amount_total: 1000, currency: "usd" });
    expect(session.metadata).toMatchObject({ org_id: org.orgId, sandbox: "Sandbox" });
    expect(String(session.payment_intent)).toMatch(/^pi_sbx_/);

    for (const [object, example] of [["payment_intent", "payment_intent"], ["charge", "charge"], ["customer", "customer"], ["payment_method", "payment_method"]] as const) {
      const rows = await sandbox.objectsOf(org.orgId, object);
      expect(rows.length, object).toBeGreaterThan(0);
      for (const row of rows) expectShapedLike(row, resources[example]!, object);
    }
  });

  it("subscription checkout delivers checkout.session.completed (mode subscription, metadata org_id and plan), customer.subscription.created and invoice.paid; updates and cancels deliver theirs", async () => {
    const resources = fixtures();
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const customer = await sandbox.createCustomer({ orgId: org.orgId, name: "Org", email: null });
    const { sessionId, url } = await sandbox.createSubscriptionCheckout({ orgId: org.orgId, customerId: customer.customerId, plan: "starter", nonce: "n1", successUrl: "/s", cancelUrl: "/c" });
    expect(url).toBe(`/billing?checkout=${sessionId}`);
    const page = await app.inject({ method: "GET", url: `/api/billing/sandbox/checkout/${sessionId}`, headers: bearer(org.token) });
    expect(page.json().data).toMatchObject({ mode: "subscription", plan: "starter", amount_usd: 49 });
    const from = sandbox.events.length;
    const paid = await payCheckout(app, org.token, sessionId);
    expect(paid.json().data.status).toBe("complete");
    const made = sandbox.events.slice(from);
    expect(made.map((event) => event.type)).toEqual(["checkout.session.completed", "customer.subscription.created", "invoice.paid"]);
    expect(made[0]!.data.object).toMatchObject({ mode: "subscription", metadata: { org_id: org.orgId, plan: "starter" } });
    const subscription = made[1]!.data.object;
    expectShapedLike(subscription, resources.subscription!, "subscription");
    expectShapedLike(made[2]!.data.object, resources.invoice!, "invoice");
    expect(subscription).toMatchObject({ status: "active", customer: customer.customerId, metadata: { org_id: org.orgId, plan: "starter" }, cancel_at_period_end: false });
    const state = await sandbox.getCheckoutSession(sessionId);
    expect(state.subscriptionId).toBe(subscription.id);

    // The invoice became a document.
    const documents = await app.inject({ method: "GET", url: "/api/billing/documents", headers: bearer(org.token) });
    expect(documents.json().data).toEqual([expect.objectContaining({ kind: "invoice", amount_usd: 49, sandbox: true })]);

    await sandbox.updateSubscription({ subscriptionId: String(subscription.id), plan: "pro", nonce: "n2" });
    await sandbox.cancelSubscription({ subscriptionId: String(subscription.id), atPeriodEnd: true, nonce: "n3" });
    await sandbox.cancelSubscription({ subscriptionId: String(subscription.id), atPeriodEnd: false, nonce: "n4" });
    const later = sandbox.events.slice(from + 3);
    expect(later.map((event) => event.type)).toEqual(["customer.subscription.updated", "customer.subscription.updated", "customer.subscription.deleted"]);
    expect(later[0]!.data.object).toMatchObject({ metadata: { plan: "pro" } });
    expect(later[1]!.data.object).toMatchObject({ cancel_at_period_end: true });
    expect(later[2]!.data.object).toMatchObject({ status: "canceled" });
    expect((await sandbox.createPortalSession({ customerId: customer.customerId, returnUrl: "/" })).url).toBe("/subscriptions?portal=sandbox");
  });
});

describe("POST /api/webhooks/stripe", () => {
  async function paidWithHeldEvent() {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 12);
    sandbox.holdEvents();
    await payCheckout(app, org.token, sessionId);
    const body = (sandbox as unknown as { held: string[] }).held[0]!;
    sandbox.dropHeldEvents();
    return { org, topUpId, body, sandbox };
  }
  const post = (body: string, signature: string | undefined) =>
    app.inject({ method: "POST", url: "/api/webhooks/stripe", headers: { "content-type": "application/json", ...(signature === undefined ? {} : { "stripe-signature": signature }) }, payload: body });
  const eventCount = async () => Number(((await database.db.execute(sql`select count(*)::int as n from stripe_events`)) as unknown as { rows: { n: number }[] }).rows[0]!.n);

  it("a forged signature, a stale timestamp, a changed body and a missing header are refused with 400 {detail, code}, changing nothing", async () => {
    const { org, body, sandbox } = await paidWithHeldEvent();
    const events = await eventCount();
    const secret = sandbox.webhookSecret;
    const changed = body.replace('"amount_total":1200', '"amount_total":120000');
    expect(changed).not.toBe(body);
    for (const [payload, header] of [
      [body, signPayload("whsec_forged", body)],
      [body, signPayload(secret, body, Math.floor(Date.now() / 1000) - 600)],
      [changed, signPayload(secret, body)],
      [body, undefined],
    ] as const) {
      const response = await post(payload, header);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: "bad_request", detail: expect.stringContaining("Stripe") });
    }
    expect(await eventCount()).toBe(events);
    expect(await balanceMicros(database.db, org.orgId)).toBe(0);
  });

  it("a replayed event is processed once: the repeat answers 200 duplicate and credits nothing more", async () => {
    const { org, topUpId, body, sandbox } = await paidWithHeldEvent();
    const first = await post(body, signPayload(sandbox.webhookSecret, body));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ received: true, duplicate: false, result: "applied" });
    const again = await Promise.all([1, 2, 3].map(() => post(body, signPayload(sandbox.webhookSecret, body))));
    expect(again.map((response) => response.json())).toEqual(Array(3).fill({ received: true, duplicate: true, result: "duplicate" }));
    expect(await balanceMicros(database.db, org.orgId)).toBe(22_000_000);
    const credits = ((await database.db.execute(sql`select count(*)::int as n from wallet_ledger where top_up_id = ${topUpId}`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    expect(Number(credits)).toBe(1);
  });

  it("charge.refunded for a refund made at the provider (not through our API) debits the difference once; our own refunds are not counted twice", async () => {
    const org = await newOrganisation(app);
    const sandbox = sandboxOf(app);
    const { topUpId, sessionId } = await startTopUp(app, org.token, 20);
    await payCheckout(app, org.token, sessionId);
    const ours = await app.inject({ method: "POST", url: `/api/billing/top-up/${topUpId}/refund`, headers: bearer(org.token), payload: { amount_usd: 5 } });
    expect(ours.statusCode, ours.body).toBe(200);
    expect(await balanceMicros(database.db, org.orgId)).toBe(25_000_000);
    const found = (await database.db.execute(sql`select payment_intent_id from top_ups where id = ${topUpId}`)) as unknown as { rows: { payment_intent_id: string }[] };
    const paymentIntentId = found.rows[0]!.payment_intent_id;
    const from = sandbox.events.length;
    await sandbox.refund({ refundId: "dashboard-1", paymentIntentId, amountCents: 300 });
    expect(sandbox.events.slice(from).map((event) => event.type)).toEqual(["charge.refunded"]);
    expect(await balanceMicros(database.db, org.orgId)).toBe(22_000_000);
    const topUp = await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(org.token) });
    expect(topUp.json().data.refunded_usd).toBe(8);
    // Delivered again: nothing more.
    await sandbox.deliver(JSON.stringify(sandbox.events[from]));
    expect(await balanceMicros(database.db, org.orgId)).toBe(22_000_000);
  });

  it("unknown event types are recorded and ignored (200)", async () => {
    const sandbox = sandboxOf(app);
    const body = JSON.stringify({ id: "evt_unknown_1", object: "event", type: "plan.created", created: 1, livemode: false, data: { object: { id: "plan_1", object: "plan" } } });
    const response = await post(body, signPayload(sandbox.webhookSecret, body));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true, duplicate: false, result: "ignored" });
    expect(Number(((await database.db.execute(sql`select count(*)::int as n from stripe_events where id = 'evt_unknown_1'`)) as unknown as { rows: { n: number }[] }).rows[0]!.n)).toBe(1);
  });
});

describe("with Stripe as the provider", () => {
  it("the sandbox checkout routes answer 404", async () => {
    const stripeLike: PaymentProvider = {
      mode: "stripe",
      createCustomer: async () => ({ customerId: "cus_1" }),
      createTopUpCheckout: async () => ({ sessionId: "cs_1", url: "https://checkout.stripe.com/c/pay/cs_1" }),
      getCheckoutSession: async () => {
        throw new Error("unused");
      },
      chargeOffSession: async () => ({ status: "failed", paymentIntentId: null, code: "x", message: "x" }),
      refund: async () => ({ refundId: "re_1" }),
      createSubscriptionCheckout: async () => ({ sessionId: "cs_2", url: "https://checkout.stripe.com" }),
      updateSubscription: async () => undefined,
      cancelSubscription: async () => undefined,
      createPortalSession: async () => ({ url: "https://billing.stripe.com/p/session/x" }),
      verifyWebhook: (): PaymentEvent => {
        throw new WebhookSignatureError("no");
      },
    };
    const other = await buildApp({ config: testConfig(), database, logger: false, paymentProvider: stripeLike });
    try {
      const org = await newOrganisation(other);
      const top = await other.inject({ method: "POST", url: "/api/billing/top-up", headers: bearer(org.token), payload: { amount_usd: 10 } });
      expect(top.statusCode, top.body).toBe(201);
      expect(top.json().data.url).toBe("https://checkout.stripe.com/c/pay/cs_1");
      for (const [method, url] of [["GET", "/api/billing/sandbox/checkout/cs_1"], ["POST", "/api/billing/sandbox/checkout/cs_1/pay"], ["POST", "/api/billing/sandbox/checkout/cs_1/cancel"]] as const) {
        const response = await other.inject({ method, url, headers: bearer(org.token), ...(method === "POST" ? { payload: url.endsWith("pay") ? { card_number: "4242424242424242" } : {} } : {}) });
        expect(response.statusCode, url).toBe(404);
      }
      const portal = await other.inject({ method: "POST", url: "/api/billing/portal", headers: bearer(org.token) });
      expect(portal.json().data.url).toBe("https://billing.stripe.com/p/session/x");
    } finally {
      await other.close();
    }
  });
});
