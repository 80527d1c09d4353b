/**
 * What the Stripe payment provider (server/billing/payments/stripe.ts) sends, driven against a local
 * stand-in for Stripe (tests/server/fakes/stripe.ts) through STRIPE_API_URL, and checked against Stripe's
 * own request document (../shared/vendor/stripe/openapi-requests.json) with every object schema closed:
 * every POST/DELETE is an operation of the document, its decoded form body validates with no unknown
 * parameter at any depth, and it carries an Idempotency-Key derived from our own ids (the same call twice,
 * the same key). Declines of off-session charges answer (requires_action / failed), they do not throw.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStripePayments, planOfStripeSubscription, stripeHostOptions } from "../../server/billing/payments/stripe";
import type { PaymentProvider } from "../../server/billing/payments/types";
import type { StripeConfig } from "../../server/config";
import { decodeStripeForm, readStripeVendorFile, startFakeStripe, STRIPE_VENDOR_DIR, type FakeStripe, type StripeRecordedRequest } from "./fakes/stripe";
import { closeSchema, loadStripeContract } from "./fakes/stripe-openapi";

let fake: FakeStripe;
let payments: PaymentProvider;
const config = (fakeStripe: FakeStripe, prices: StripeConfig["prices"] = { starter: null, pro: null }): StripeConfig => ({
  secretKey: fakeStripe.secretKey,
  webhookSecret: "whsec_contract",
  apiUrl: fakeStripe.url,
  prices,
});

const ORG = randomUUID();
const TOP_UP = randomUUID();
const RELOAD = randomUUID();
const REFUND = randomUUID();
const URLS = { successUrl: "https://voice.example.com/billing?top_up=done", cancelUrl: "https://voice.example.com/billing?top_up=cancelled" };

/** Every request the provider made while running `run`. */
async function captured(run: () => Promise<unknown>): Promise<StripeRecordedRequest[]> {
  const before = fake.requests.length;
  await run();
  return fake.requests.slice(before);
}
const only = (requests: StripeRecordedRequest[]) => {
  expect(requests).toHaveLength(1);
  return requests[0]!;
};
const writes = () => fake.requests.filter((request) => request.method === "POST" || request.method === "DELETE");

beforeAll(async () => {
  fake = await startFakeStripe();
  payments = createStripePayments(config(fake));
});
afterAll(async () => {
  await fake?.close();
});

describe("the Stripe document", () => {
  it("is read from ../shared, and a missing one fails saying where it is expected", () => {
    expect(() => readStripeVendorFile("openapi-requests.json")).not.toThrow();
    // The message a run without ../shared gets (the same function, a name that is not there).
    expect(() => readStripeVendorFile("missing.json" as "fixtures3.json")).toThrow(
      new RegExp(`expected at ${STRIPE_VENDOR_DIR.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*shared/vendor/stripe/missing\\.json beside the project folder`),
    );
  });

  it("closes every object schema, so an unknown parameter at any depth fails validation", () => {
    const contract = loadStripeContract();
    const good = {
      mode: "payment",
      line_items: [{ price_data: { currency: "usd", unit_amount: "2500", product_data: { name: "Wallet top-up" } }, quantity: "1" }],
      success_url: "https://x.example/s",
    };
    expect(contract.validate("POST", "/v1/checkout/sessions", good)).toEqual([]);
    expect(contract.validate("POST", "/v1/checkout/sessions", { ...good, top_up_amount: "2500" })).toEqual([
      expect.stringContaining("must NOT have additional properties (top_up_amount)"),
    ]);
    const deep = structuredClone(good);
    (deep.line_items[0]!.price_data.product_data as Record<string, string>).colour = "blue";
    expect(contract.validate("POST", "/v1/checkout/sessions", deep).join("\n")).toContain("(colour)");
    expect(contract.validate("POST", "/v1/checkout/sessions", { ...good, mode: "donation" }).join("\n")).toContain("must be equal to one of the allowed values");
    // metadata keeps the document's own rule for extra keys (string values).
    expect(contract.validate("POST", "/v1/customers", { metadata: { org_id: "x" } })).toEqual([]);
    expect(contract.validate("POST", "/v1/charges", {})).toEqual(["POST /v1/charges is not an operation of openapi-requests.json"]);
    expect((closeSchema({ type: "object", properties: { a: { type: "object", properties: {} } } }) as { properties: { a: { additionalProperties: unknown } } }).properties.a.additionalProperties).toBe(false);
  });

  it("decodes form bodies to nested objects and arrays", () => {
    expect(decodeStripeForm("a[b][0]=c&a[b][1]=d&metadata[org_id]=o&x=1")).toEqual({ a: { b: ["c", "d"] }, metadata: { org_id: "o" }, x: "1" });
  });
});

describe("createStripePayments against the stand-in", () => {
  it("points the client at STRIPE_API_URL", () => {
    expect(stripeHostOptions("http://127.0.0.1:12111")).toEqual({ host: "127.0.0.1", port: 12111, protocol: "http" });
    expect(stripeHostOptions("https://api.stripe.com")).toEqual({ host: "api.stripe.com", port: 443, protocol: "https" });
  });

  it("makes a customer once per organisation (key customer-<orgId>)", async () => {
    const first = await captured(() => payments.createCustomer({ orgId: ORG, name: "Northwind", email: "owner@northwind.example" }));
    const request = only(first);
    expect(request).toMatchObject({ method: "POST", path: "/v1/customers", idempotencyKey: `customer-${ORG}` });
    expect(request.body).toEqual({ name: "Northwind", email: "owner@northwind.example", metadata: { org_id: ORG } });
    expect(request.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(request.headers["stripe-version"]).toBe("2026-10-28.endive");
    const again = only(await captured(() => payments.createCustomer({ orgId: ORG, name: "Northwind", email: "owner@northwind.example" })));
    expect(again.idempotencyKey).toBe(request.idempotencyKey);
    // Stripe answers a repeated key with the first answer: one customer.
    expect(fake.customers.size).toBe(1);
  });

  it("top-up checkout: cents, quantity 1, metadata, saved card, Stripe's checkout url (key top-up-<topUpId>)", async () => {
    const customerId = [...fake.customers.keys()][0]!;
    const input = { topUpId: TOP_UP, orgId: ORG, customerId, amountCents: 2500, saveCard: true, ...URLS };
    let answer: { sessionId: string; url: string } | undefined;
    const request = only(await captured(async () => (answer = await payments.createTopUpCheckout(input))));
    expect(answer!.sessionId).toMatch(/^cs_test_/);
    expect(answer!.url).toBe(`https://checkout.stripe.com/c/pay/${answer!.sessionId}`);
    expect(request).toMatchObject({ method: "POST", path: "/v1/checkout/sessions", idempotencyKey: `top-up-${TOP_UP}` });
    expect(request.body).toEqual({
      mode: "payment",
      customer: customerId,
      client_reference_id: TOP_UP,
      line_items: [{ price_data: { currency: "usd", unit_amount: "2500", product_data: { name: "Wallet top-up" } }, quantity: "1" }],
      payment_intent_data: { setup_future_usage: "off_session", metadata: { top_up_id: TOP_UP, org_id: ORG } },
      metadata: { top_up_id: TOP_UP, org_id: ORG },
      success_url: URLS.successUrl,
      cancel_url: URLS.cancelUrl,
    });
    const again = only(await captured(() => payments.createTopUpCheckout(input)));
    expect(again.idempotencyKey).toBe(request.idempotencyKey);
    expect(again.rawBody).toBe(request.rawBody);

    // Without saving the card: no setup_future_usage.
    const other = randomUUID();
    const unsaved = only(await captured(() => payments.createTopUpCheckout({ ...input, topUpId: other, amountCents: 1000, saveCard: false })));
    expect(unsaved.idempotencyKey).toBe(`top-up-${other}`);
    expect(unsaved.body.payment_intent_data).toEqual({ metadata: { top_up_id: other, org_id: ORG } });

    await expect(payments.createTopUpCheckout({ ...input, amountCents: 25.5 })).rejects.toThrow(/whole cents/);
  });

  it("reads a checkout session back: open, then paid with the saved card and the receipt", async () => {
    const customerId = [...fake.customers.keys()][0]!;
    const { sessionId } = await payments.createTopUpCheckout({ topUpId: randomUUID(), orgId: ORG, customerId, amountCents: 5000, saveCard: true, ...URLS });
    const open = await payments.getCheckoutSession(sessionId);
    expect(open).toMatchObject({ id: sessionId, status: "open", paymentStatus: "unpaid", paymentIntentId: null, card: null, receiptUrl: null, customerId });
    fake.completeCheckout(sessionId);
    let state: Awaited<ReturnType<PaymentProvider["getCheckoutSession"]>> | undefined;
    const request = only(await captured(async () => (state = await payments.getCheckoutSession(sessionId))));
    expect(request.method).toBe("GET");
    expect(request.path).toBe(`/v1/checkout/sessions/${sessionId}`);
    expect(request.query.expand).toEqual(["payment_intent.payment_method", "payment_intent.latest_charge"]);
    expect(state).toMatchObject({
      status: "complete",
      paymentStatus: "paid",
      paymentIntentId: expect.stringMatching(/^pi_/),
      card: { paymentMethodId: expect.stringMatching(/^pm_/), brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 },
      receiptUrl: expect.stringMatching(/^https:\/\/pay\.stripe\.com\/receipts\//),
    });
    expect(state!.metadata).toMatchObject({ org_id: ORG });
    await expect(payments.getCheckoutSession("cs_test_missing")).rejects.toThrow(/No such checkout.session/);
  });

  it("charges off-session: succeeded with the receipt (key reload-<topUpId>), the same key twice", async () => {
    const input = { topUpId: RELOAD, orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_card", amountCents: 2000 };
    let result: Awaited<ReturnType<PaymentProvider["chargeOffSession"]>> | undefined;
    const request = only(await captured(async () => (result = await payments.chargeOffSession(input))));
    expect(result).toEqual({ status: "succeeded", paymentIntentId: expect.stringMatching(/^pi_/), receiptUrl: expect.stringMatching(/^https:\/\/pay\.stripe\.com\/receipts\//) });
    expect(request).toMatchObject({ method: "POST", path: "/v1/payment_intents", idempotencyKey: `reload-${RELOAD}` });
    expect(request.body).toEqual({
      amount: "2000",
      currency: "usd",
      customer: "cus_x",
      payment_method: "pm_card",
      off_session: "true",
      confirm: "true",
      metadata: { top_up_id: RELOAD, org_id: ORG },
      expand: ["latest_charge"],
    });
    const again = only(await captured(() => payments.chargeOffSession(input)));
    expect(again.idempotencyKey).toBe(request.idempotencyKey);
  });

  it("an off-session charge the card wants authenticated answers requires_action; a decline answers failed with a sentence", async () => {
    fake.failPaymentIntents("authentication_required");
    const needsAction = await payments.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_3ds", amountCents: 2000 });
    expect(needsAction).toMatchObject({ status: "requires_action", code: "authentication_required", paymentIntentId: expect.stringMatching(/^pi_/) });
    expect((needsAction as { message: string }).message).toMatch(/authentication/);

    fake.failPaymentIntents("card_declined");
    const declined = await payments.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_bad", amountCents: 2000 });
    expect(declined).toEqual({ status: "failed", paymentIntentId: expect.stringMatching(/^pi_/), code: "generic_decline", message: "Your card was declined." });

    fake.failPaymentIntents("insufficient_funds");
    const poor = await payments.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_poor", amountCents: 2000 });
    expect(poor).toMatchObject({ status: "failed", code: "insufficient_funds", message: "Your card has insufficient funds." });

    // A PaymentIntent answered (not thrown) in requires_action is the same as authentication_required.
    fake.nextPaymentIntentStatus("requires_action");
    const pending = await payments.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_3ds", amountCents: 2000 });
    expect(pending).toMatchObject({ status: "requires_action", code: "authentication_required", paymentIntentId: expect.stringMatching(/^pi_/) });
  });

  it("other errors throw (a wrong key is not a decline)", async () => {
    const wrong = createStripePayments({ ...config(fake), secretKey: "sk_test_wrong" });
    await expect(wrong.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_card", amountCents: 2000 })).rejects.toThrow(/Invalid API Key/);
  });

  it("refunds (key refund-<refundId>)", async () => {
    const { paymentIntentId } = (await payments.chargeOffSession({ topUpId: randomUUID(), orgId: ORG, customerId: "cus_x", paymentMethodId: "pm_card", amountCents: 3000 })) as { paymentIntentId: string };
    let answer: { refundId: string } | undefined;
    const request = only(await captured(async () => (answer = await payments.refund({ refundId: REFUND, paymentIntentId, amountCents: 1200 }))));
    expect(answer!.refundId).toMatch(/^re_/);
    expect(request).toMatchObject({ method: "POST", path: "/v1/refunds", idempotencyKey: `refund-${REFUND}` });
    expect(request.body).toEqual({ payment_intent: paymentIntentId, amount: "1200", metadata: { refund_id: REFUND } });
  });

  it("subscription checkout: price_data monthly when no price id is configured, the price id when it is", async () => {
    const nonce = randomUUID();
    const request = only(await captured(() => payments.createSubscriptionCheckout({ orgId: ORG, customerId: "cus_x", plan: "starter", nonce, ...URLS })));
    expect(request).toMatchObject({ method: "POST", path: "/v1/checkout/sessions", idempotencyKey: `subscribe-${ORG}-starter-${nonce}` });
    expect(request.body).toEqual({
      mode: "subscription",
      customer: "cus_x",
      client_reference_id: ORG,
      line_items: [{ price_data: { currency: "usd", unit_amount: "4900", recurring: { interval: "month" }, product_data: { name: "Starter plan" } }, quantity: "1" }],
      metadata: { org_id: ORG, plan: "starter" },
      subscription_data: { metadata: { org_id: ORG, plan: "starter" } },
      success_url: URLS.successUrl,
      cancel_url: URLS.cancelUrl,
    });

    const priced = createStripePayments(config(fake, { starter: "price_starter", pro: "price_pro" }));
    const withPrice = only(await captured(() => priced.createSubscriptionCheckout({ orgId: ORG, customerId: "cus_x", plan: "pro", nonce, ...URLS })));
    expect(withPrice.idempotencyKey).toBe(`subscribe-${ORG}-pro-${nonce}`);
    expect(withPrice.body.line_items).toEqual([{ price: "price_pro", quantity: "1" }]);
    expect(withPrice.body.metadata).toEqual({ org_id: ORG, plan: "pro" });
  });

  it("moves a subscription to another plan on its one item with proration", async () => {
    const subscription = fake.addSubscription({ customerId: "cus_x", productId: "prod_platform" });
    const itemId = (subscription.items as { data: { id: string }[] }).data[0]!.id;
    const nonce = randomUUID();
    const requests = await captured(() => payments.updateSubscription({ subscriptionId: subscription.id as string, plan: "pro", nonce }));
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v1/subscriptions/${subscription.id}`, `POST /v1/subscriptions/${subscription.id}`]);
    const update = requests[1]!;
    expect(update.idempotencyKey).toBe(`plan-${subscription.id}-pro-${nonce}`);
    expect(update.body).toEqual({
      items: [{ id: itemId, price_data: { currency: "usd", product: "prod_platform", unit_amount: "19900", recurring: { interval: "month" } } }],
      proration_behavior: "create_prorations",
      metadata: { plan: "pro" },
    });

    const priced = createStripePayments(config(fake, { starter: "price_starter", pro: "price_pro" }));
    const withPrice = await captured(() => priced.updateSubscription({ subscriptionId: subscription.id as string, plan: "starter", nonce }));
    expect(withPrice[1]!.body.items).toEqual([{ id: itemId, price: "price_starter" }]);
  });

  it("reads the plan of a subscription: configured price id, else metadata.plan, else the monthly amount", async () => {
    const prices = { starter: "price_starter", pro: "price_pro" };
    const subscription = fake.addSubscription({ customerId: "cus_x", priceId: "price_pro" });
    expect(planOfStripeSubscription({ prices }, subscription)).toBe("pro");
    // Changed in the portal to the Starter price, metadata still says pro: the price wins.
    const moved = structuredClone(subscription);
    (moved.items as { data: { price: { id: string } }[] }).data[0]!.price.id = "price_starter";
    moved.metadata = { plan: "pro" };
    expect(planOfStripeSubscription({ prices }, moved)).toBe("starter");
    // Without configured prices: what updateSubscription wrote, then the amount.
    await payments.updateSubscription({ subscriptionId: subscription.id as string, plan: "starter", nonce: randomUUID() });
    const updated = fake.subscriptions.get(subscription.id as string)!;
    expect(planOfStripeSubscription({ prices: { starter: null, pro: null } }, updated)).toBe("starter");
    const bare = structuredClone(updated);
    bare.metadata = {};
    expect(planOfStripeSubscription({ prices: { starter: null, pro: null } }, bare)).toBe("starter");
    (bare.items as { data: { price: { unit_amount: number } }[] }).data[0]!.price.unit_amount = 1234;
    expect(planOfStripeSubscription({ prices: { starter: null, pro: null } }, bare)).toBeNull();
  });

  it("cancels at period end (POST) or at once (DELETE)", async () => {
    const subscription = fake.addSubscription({ customerId: "cus_x" });
    const id = subscription.id as string;
    const nonce = randomUUID();
    const atEnd = only(await captured(() => payments.cancelSubscription({ subscriptionId: id, atPeriodEnd: true, nonce })));
    expect(atEnd).toMatchObject({ method: "POST", path: `/v1/subscriptions/${id}`, idempotencyKey: `cancel-${id}-${nonce}`, body: { cancel_at_period_end: "true" } });
    expect(fake.subscriptions.get(id)!.cancel_at_period_end).toBe(true);
    const now = only(await captured(() => payments.cancelSubscription({ subscriptionId: id, atPeriodEnd: false, nonce })));
    expect(now).toMatchObject({ method: "DELETE", path: `/v1/subscriptions/${id}`, idempotencyKey: `cancel-now-${id}-${nonce}` });
    expect(fake.subscriptions.get(id)!.status).toBe("canceled");
  });

  it("opens the customer portal", async () => {
    let answer: { url: string } | undefined;
    const request = only(await captured(async () => (answer = await payments.createPortalSession({ customerId: "cus_x", returnUrl: "https://voice.example.com/billing" }))));
    expect(answer!.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    expect(request).toMatchObject({ method: "POST", path: "/v1/billing_portal/sessions", idempotencyKey: expect.stringMatching(/^portal-cus_x-\d+-[0-9a-f]{12}$/) });
    expect(request.body).toEqual({ customer: "cus_x", return_url: "https://voice.example.com/billing" });
    // Another return address (the plan page's portal) within the same minute is another key, not Stripe's idempotency error.
    const other = only(await captured(() => payments.createPortalSession({ customerId: "cus_x", returnUrl: "https://voice.example.com/subscription" })));
    expect(other.idempotencyKey).not.toBe(request.idempotencyKey);
  });

  it("every POST/DELETE made above is an operation of Stripe's document, valid with no unknown parameter, and keyed by our ids", () => {
    const contract = loadStripeContract();
    const all = writes();
    // Every method that writes ran above.
    expect(new Set(all.map((request) => `${request.method} ${contract.operation(request.method, request.path)?.template}`))).toEqual(
      new Set([
        "POST /v1/customers",
        "POST /v1/checkout/sessions",
        "POST /v1/payment_intents",
        "POST /v1/refunds",
        "POST /v1/subscriptions/{subscription_exposed_id}",
        "DELETE /v1/subscriptions/{subscription_exposed_id}",
        "POST /v1/billing_portal/sessions",
      ]),
    );
    for (const request of all) {
      const body = request.method === "DELETE" ? { ...request.query, ...request.body } : request.body;
      expect(contract.validate(request.method, request.path, body), `${request.method} ${request.path} ${request.rawBody}`).toEqual([]);
      expect(request.idempotencyKey, `${request.method} ${request.path}`).toMatch(/^(customer|top-up|reload|refund|subscribe|plan|cancel|cancel-now|portal)-[A-Za-z0-9_-]+$/);
    }
    // Top-ups: unit_amount in cents and quantity 1, always.
    for (const request of all.filter((r) => r.path === "/v1/checkout/sessions" && r.body.mode === "payment")) {
      const item = (request.body.line_items as Record<string, Record<string, string>>[])[0]!;
      expect(Number.isInteger(Number(item.price_data!.unit_amount))).toBe(true);
      expect(item.quantity).toBe("1");
    }
    // And GETs are reads the brief allows: the checkout session (in the document) and the subscription.
    for (const request of fake.requests.filter((r) => r.method === "GET")) {
      expect(request.path).toMatch(/^\/v1\/(checkout\/sessions|subscriptions)\/[^/]+$/);
    }
  });
});
