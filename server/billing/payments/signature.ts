/**
 * Stripe's webhook signature scheme (https://docs.stripe.com/webhooks#verify-manually), shared by the
 * sandbox (which signs its events) and both providers' verifyWebhook:
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]`. Verification is
 * constant-time, accepts any of several v1 signatures (secret rolling), and refuses a missing header,
 * a forged or changed body, and a timestamp more than the tolerance (300 s) away from now.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { PaymentEvent } from "./types";

export const SIGNATURE_TOLERANCE_SECONDS = 300;

// One class for both providers (Stripe's verifyWebhook throws it too), so the webhook route answers 400 for either.
export { WebhookSignatureError } from "./webhook-error";
import { WebhookSignatureError } from "./webhook-error";

function hmac(secret: string, timestamp: number, body: Buffer | string): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
}

/** The Stripe-Signature header for `body` signed at `timestamp` (unix seconds, default now). */
export function signPayload(secret: string, body: Buffer | string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmac(secret, timestamp, body)}`;
}

/** Checks the header against the raw body; throws WebhookSignatureError when it does not match. */
export function verifySignature(secret: string, rawBody: Buffer | string, header: string | undefined, options: { toleranceSeconds?: number; now?: number } = {}): void {
  if (!header || header.trim() === "") throw new WebhookSignatureError("The Stripe-Signature header is missing.");
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const key = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === null) throw new WebhookSignatureError("The Stripe-Signature header has no timestamp (t=…).");
  if (signatures.length === 0) throw new WebhookSignatureError("The Stripe-Signature header has no v1 signature.");
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookSignatureError(`The Stripe-Signature timestamp is more than ${tolerance} seconds away from now.`);
  const expected = Buffer.from(hmac(secret, timestamp, rawBody), "hex");
  let matched = false;
  for (const signature of signatures) {
    const given = Buffer.from(signature, "hex");
    // Every candidate is compared (no early exit): the time taken does not say which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookSignatureError("The Stripe-Signature does not match the body.");
}

/** Verifies, then parses the event; throws WebhookSignatureError for a bad signature or a body that is not an event. */
export function verifyEvent(secret: string, rawBody: Buffer, header: string | undefined, options?: { toleranceSeconds?: number; now?: number }): PaymentEvent {
  verifySignature(secret, rawBody, header, options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw new WebhookSignatureError("The webhook body is not JSON.");
  }
  const event = parsed as Partial<PaymentEvent> | null;
  if (!event || typeof event !== "object" || typeof event.id !== "string" || typeof event.type !== "string" || !event.data || typeof event.data.object !== "object") {
    throw new WebhookSignatureError("The webhook body is not a Stripe event ({id, type, data: {object}}).");
  }
  return event as PaymentEvent;
}
