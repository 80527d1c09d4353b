/**
 * The generic store endpoint (issue 16 §2): POST /webhooks/store/{integrationId}, for any store that can
 * send signed JSON (contract/store-webhook.ts has the body). The embedded demo store sends here too.
 *
 * verify: signed like our Vapi webhook (server/webhooks/signature.ts): `x-signature` = hex HMAC-SHA256 of
 * `{x-timestamp}.{raw body}`, the timestamp within GENERIC_SIGNATURE_WINDOW_MS of our clock. Only the
 * signature is accepted (no bearer: a bearer has no time, so a captured one could be replayed with a new id).
 * Processed once per the body's `id`, which the signature covers.
 *
 * toStoreEvent: checkout.abandoned → abandoned (externalId order.id); order.paid → paid naming order.id and
 * order.checkout_id; order.cancelled → cancelled, the same. A body that breaks the format is invalid (400).
 */
import { GENERIC_SIGNATURE_WINDOW_MS, majorToMinor } from "../../../contract/order-shared";
import { genericStoreEventSchema } from "../../../contract/store-webhook";
import { MAX_CLOCK_SKEW_MS, SIGNATURE_HEADER, verifyWebhook } from "../../webhooks/signature";
import { distinct, e164From, header, isRecord, textOf } from "./common";
import type { AdapterResult, Headers, Verification } from "./types";

// verifyWebhook's window is the generic endpoint's (both five minutes): the day they differ, this stops the build's tests.
export const GENERIC_WINDOW_MATCHES_VAPI = GENERIC_SIGNATURE_WINDOW_MS === MAX_CLOCK_SKEW_MS;

export function verify(headers: Headers, rawBody: Buffer, secret: string, now: number): Verification {
  if (!header(headers, SIGNATURE_HEADER)) return { ok: false, status: 401, reason: `The delivery carries no ${SIGNATURE_HEADER} signature (hex HMAC-SHA256 of "{x-timestamp}.{body}").` };
  const verified = verifyWebhook({ secret, headers, rawBody: rawBody.toString("utf8"), now });
  if (!verified.ok) return { ok: false, status: 401, reason: verified.reason };
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return { ok: false, status: 400, reason: "The body is not JSON." };
  }
  const id = isRecord(payload) ? textOf(payload.id, 201) : null;
  if (!id || id.length > 200) return { ok: false, status: 400, reason: "id: required, the event's own id (text, at most 200 characters), unique per event." };
  const event = isRecord(payload) && typeof payload.event === "string" ? payload.event.slice(0, 100) : "";
  return { ok: true, deliveryIds: [id], topic: event, payload };
}

/** "order.items.0.price: …" from zod's issues, one clause per field. */
function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return [...new Set(issues.map((issue) => {
    const field = issue.path.map(String).join(".") || "body";
    return issue.message.startsWith(field) || issue.message.startsWith("order.") ? issue.message : `${field}: ${issue.message}`;
  }))].join("; ");
}

export function toStoreEvent(_topic: string, payload: unknown): AdapterResult {
  const parsed = genericStoreEventSchema.safeParse(payload);
  if (!parsed.success) return { invalid: describeIssues(parsed.error.issues) };
  const { event, order } = parsed.data;
  const createdAt = new Date(parsed.data.created_at);
  const currency = (order.currency ?? "USD").toUpperCase();
  const minor = (value: string | number) => majorToMinorChecked(value, currency);
  const externalIds = distinct(order.checkout_id, order.id);

  if (event === "order.cancelled") return { event: { kind: "cancelled", externalIds, at: order.cancelled_at ? new Date(order.cancelled_at) : createdAt } };
  if (event === "order.paid") {
    return {
      event: { kind: "paid", externalIds, paidMinor: minor((order.paid_amount ?? order.total)!), currency, paidAt: order.paid_at ? new Date(order.paid_at) : createdAt },
    };
  }
  const customerNumber = e164From(order.customer?.phone, null);
  if (!customerNumber) return { invalid: "order.customer.phone must be in E.164 form, e.g. +14155550123" };
  const abandonedAt = order.abandoned_at ? new Date(order.abandoned_at) : createdAt;
  const consent = order.call_consent;
  return {
    event: {
      kind: "abandoned",
      order: {
        externalId: order.id,
        reference: order.reference ?? order.id.slice(0, 120),
        customerName: order.customer?.name || null,
        customerNumber,
        customerEmail: order.customer?.email ?? null,
        items: (order.items ?? []).map((item) => ({ name: item.name, quantity: item.quantity, priceMinor: minor(item.price) })),
        totalMinor: minor(order.total!),
        currency,
        checkoutUrl: order.checkout_url ?? null,
        abandonedAt,
        timezone: order.timezone ?? null,
        consent: consent?.given
          ? { given: true, source: consent.source || "Store checkout", at: consent.at ? new Date(consent.at) : abandonedAt }
          : { given: false, source: null, at: null },
      },
    },
  };
}

/** The schema checked every amount against the currency, so this never throws on a parsed body. */
function majorToMinorChecked(value: string | number, currency: string): number {
  const minor = majorToMinor(value, currency);
  if (minor === null) throw new Error(`unchecked amount ${String(value)} ${currency}`);
  return minor;
}
