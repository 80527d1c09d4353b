/**
 * verifyWebhook of the Stripe payment provider: a delivery is accepted only with a Stripe-Signature made
 * with STRIPE_WEBHOOK_SECRET over exactly this body, within 300 seconds; anything else throws
 * WebhookSignatureError (the route answers 400 and processes nothing).
 */
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { createStripePayments, STRIPE_WEBHOOK_TOLERANCE_SECONDS } from "../../server/billing/payments/stripe";
import { WebhookSignatureError } from "../../server/billing/payments/webhook-error";
import { readStripeVendorFile } from "./fakes/stripe";

const SECRET = "whsec_verify_test_secret";
const payments = createStripePayments({ secretKey: "sk_test_unused", webhookSecret: SECRET, apiUrl: "http://127.0.0.1:9", prices: { starter: null, pro: null } });
const stripe = new Stripe("sk_test_unused");

function eventBody(): string {
  const { resources } = readStripeVendorFile("fixtures3.json") as { resources: Record<string, Record<string, unknown>> };
  const event = {
    ...resources.event,
    id: "evt_verify_1",
    type: "checkout.session.completed",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { ...resources["checkout.session"], status: "complete", payment_status: "paid", metadata: { top_up_id: "t1", org_id: "o1" } } },
  };
  return JSON.stringify(event);
}

const sign = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? SECRET, ...(options.timestamp ? { timestamp: options.timestamp } : {}) });

describe("Stripe verifyWebhook", () => {
  it("accepts a delivery signed with the webhook secret and answers the event", () => {
    const body = eventBody();
    const event = payments.verifyWebhook(Buffer.from(body), sign(body));
    expect(event.id).toBe("evt_verify_1");
    expect(event.type).toBe("checkout.session.completed");
    expect(event.data.object).toMatchObject({ object: "checkout.session", payment_status: "paid", metadata: { top_up_id: "t1", org_id: "o1" } });
  });

  it("refuses a forged signature (another secret, or made-up hex)", () => {
    const body = eventBody();
    expect(() => payments.verifyWebhook(Buffer.from(body), sign(body, { secret: "whsec_someone_else" }))).toThrow(WebhookSignatureError);
    const t = Math.floor(Date.now() / 1000);
    expect(() => payments.verifyWebhook(Buffer.from(body), `t=${t},v1=${"ab".repeat(32)}`)).toThrow(WebhookSignatureError);
    expect(() => payments.verifyWebhook(Buffer.from(body), "garbage")).toThrow(WebhookSignatureError);
    expect(() => payments.verifyWebhook(Buffer.from(body), undefined)).toThrow(WebhookSignatureError);
  });

  it("refuses a stale timestamp (older than 300 seconds), accepts one just inside", () => {
    const body = eventBody();
    const now = Math.floor(Date.now() / 1000);
    expect(() => payments.verifyWebhook(Buffer.from(body), sign(body, { timestamp: now - STRIPE_WEBHOOK_TOLERANCE_SECONDS - 5 }))).toThrow(WebhookSignatureError);
    expect(() => payments.verifyWebhook(Buffer.from(body), sign(body, { timestamp: now - STRIPE_WEBHOOK_TOLERANCE_SECONDS + 30 }))).not.toThrow();
  });

  it("refuses a body changed after signing", () => {
    const body = eventBody();
    const header = sign(body);
    const changed = body.replace('"org_id":"o1"', '"org_id":"o2"');
    expect(changed).not.toBe(body);
    expect(() => payments.verifyWebhook(Buffer.from(changed), header)).toThrow(WebhookSignatureError);
    // The error says why, for the log line (never the secret).
    try {
      payments.verifyWebhook(Buffer.from(changed), header);
    } catch (error) {
      expect((error as Error).message).toMatch(/signature/i);
      expect((error as Error).message).not.toContain(SECRET);
    }
  });
});
