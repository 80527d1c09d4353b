/**
 * WooCommerce (issue 16 §2): POST /webhooks/woocommerce/{integrationId}, webhooks made under
 * WooCommerce → Settings → Advanced → Webhooks with topics "Order created" and "Order updated", API
 * version WP REST API Integration v3, and this integration's secret.
 *
 * verify: `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the raw body with the secret (constant-time
 * compare); processed once per `X-WC-Webhook-Delivery-ID` and once per body (its SHA-256: the headers are not
 * signed); the topic is `X-WC-Webhook-Topic`. WooCommerce
 * sends no time header, so a delivery is stale when the signed body's own `date_modified_gmt` (the change it
 * reports) is older than STORE_DELIVERY_MAX_AGE_MS. When a webhook is saved WooCommerce first posts a ping,
 * `webhook_id=<n>` form-encoded with no topic or signature: isPing recognises it and the route answers 200
 * with no effect.
 *
 * toStoreEvent (a REST v3 order, topics order.created and order.updated; others are ignored):
 * - status pending, failed, on-hold: unpaid, abandoned — externalId `order:<id>`, reference `#number`,
 *   the checkout link its `payment_url` (the order's "pay for this order" page), abandonedAt date_created_gmt;
 * - processing, completed: paid (date_paid_gmt, `total`), naming `order:<id>` (an order never seen unpaid
 *   is an ordinary sale: the orders core ignores it, no order is made from it);
 * - cancelled: cancelled; refunded, trash, checkout-draft and any other status: ignored.
 * The customer's phone: billing.phone, else shipping.phone (a national number takes that address's country).
 * Consent to be called only from meta_data call_consent / call_consent_source / call_consent_at (a leading
 * "_", WordPress's mark for hidden meta, is also read).
 */
import { STORE_DELIVERY_MAX_AGE_MS, WOOCOMMERCE_TOPICS } from "../../../contract/order-shared";
import {
  attributesOf,
  base64HmacMatches,
  bodyDigestId,
  checkoutUrlOf,
  consentFrom,
  CONSENT_KEYS,
  currencyOf,
  dateOf,
  emailOf,
  firstPhone,
  fullName,
  header,
  isRecord,
  itemsOf,
  minorOf,
  NO_PHONE,
  recordAt,
  referenceOf,
  textOf,
} from "./common";
import type { AdapterResult, Headers, StoreOrderInput, Verification } from "./types";

export const WOOCOMMERCE_HEADERS = {
  signature: "x-wc-webhook-signature",
  topic: "x-wc-webhook-topic",
  deliveryId: "x-wc-webhook-delivery-id",
  source: "x-wc-webhook-source",
} as const;
export const WOOCOMMERCE_CONSENT_SOURCE = "WooCommerce checkout";

const UNPAID = new Set(["pending", "failed", "on-hold"]);
const PAID = new Set(["processing", "completed"]);

/** WooCommerce's ping when a webhook is saved: `webhook_id=<n>` and no topic. */
export function isPing(headers: Headers, rawBody: Buffer): boolean {
  return !header(headers, WOOCOMMERCE_HEADERS.topic) && /^webhook_id=\d{1,20}$/.test(rawBody.toString("utf8").trim());
}

export function verify(headers: Headers, rawBody: Buffer, secret: string, now: number): Verification {
  const signature = header(headers, WOOCOMMERCE_HEADERS.signature);
  if (!signature) return { ok: false, status: 401, reason: `The delivery carries no ${WOOCOMMERCE_HEADERS.signature} signature.` };
  if (!base64HmacMatches(rawBody, secret, signature)) return { ok: false, status: 401, reason: "The WooCommerce signature does not match this integration's secret." };
  const topic = header(headers, WOOCOMMERCE_HEADERS.topic);
  if (!topic) return { ok: false, status: 400, reason: `The delivery carries no ${WOOCOMMERCE_HEADERS.topic}.` };
  const deliveryId = header(headers, WOOCOMMERCE_HEADERS.deliveryId);
  if (!deliveryId) return { ok: false, status: 400, reason: `The delivery carries no ${WOOCOMMERCE_HEADERS.deliveryId}.` };
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return { ok: false, status: 400, reason: "The WooCommerce webhook body is not JSON." };
  }
  const modified = isRecord(payload) ? (dateOf(payload.date_modified_gmt) ?? dateOf(payload.date_created_gmt)) : null;
  if (modified && now - modified.getTime() > STORE_DELIVERY_MAX_AGE_MS) return { ok: false, status: 401, reason: "The delivery is stale: the change it reports is more than 48 hours old." };
  return { ok: true, deliveryIds: [...new Set([deliveryId.slice(0, 200), bodyDigestId(rawBody)])], topic: topic.slice(0, 100), payload };
}

/** meta_data as key → value, "_call_consent" read as "call_consent". */
function metaOf(payload: Record<string, unknown>): Map<string, unknown> {
  const meta = attributesOf(payload.meta_data, "key");
  for (const key of Object.values(CONSENT_KEYS)) if (!meta.has(key) && meta.has(`_${key}`)) meta.set(key, meta.get(`_${key}`));
  return meta;
}

function orderInput(payload: Record<string, unknown>, externalId: string, currency: string, totalMinor: number, abandonedAt: Date): StoreOrderInput | string {
  const billing = recordAt(payload, "billing");
  const shipping = recordAt(payload, "shipping");
  const customerNumber = firstPhone([
    { number: billing.phone, country: billing.country ?? shipping.country },
    { number: shipping.phone, country: shipping.country ?? billing.country },
  ]);
  if (!customerNumber) return NO_PHONE;
  const id = textOf(payload.id)!;
  return {
    externalId,
    reference: referenceOf(textOf(payload.number) ? `#${textOf(payload.number)}` : null, `#${id}`)!,
    customerName: fullName(billing.first_name, billing.last_name) ?? fullName(shipping.first_name, shipping.last_name),
    customerNumber,
    customerEmail: emailOf(billing.email),
    items: itemsOf(payload.line_items, (item) => {
      const quantity = typeof item.quantity === "number" ? item.quantity : Number(item.quantity);
      // `price` is a JSON number that may carry more decimals than the currency (taxes included); else the line's subtotal ÷ quantity.
      const subtotal = minorOf(item.subtotal, currency);
      return { name: item.name, quantity, priceMinor: minorOf(item.price, currency) ?? (subtotal !== null && quantity > 0 ? Math.round(subtotal / quantity) : null) };
    }),
    totalMinor,
    currency,
    checkoutUrl: checkoutUrlOf(payload.payment_url),
    abandonedAt,
    timezone: null,
    consent: consentFrom(metaOf(payload), WOOCOMMERCE_CONSENT_SOURCE, abandonedAt),
  };
}

export function toStoreEvent(topic: string, payload: unknown): AdapterResult {
  if (!(WOOCOMMERCE_TOPICS as readonly string[]).includes(topic)) return { ignored: `topic ${topic} is not one this integration uses (${WOOCOMMERCE_TOPICS.join(", ")})` };
  if (!isRecord(payload)) return { ignored: "the body is not a JSON object" };
  const id = textOf(payload.id, 100);
  if (!id) return { ignored: "the order has no id" };
  const externalId = `order:${id}`;
  const status = textOf(payload.status)?.toLowerCase() ?? "";
  // The *_gmt fields are UTC; date_created (the site's local time, no offset) only when a very old store sends no *_gmt.
  const createdAt = dateOf(payload.date_created_gmt) ?? dateOf(payload.date_created);
  const modifiedAt = dateOf(payload.date_modified_gmt) ?? createdAt;
  if (status === "cancelled") {
    if (!modifiedAt) return { ignored: "the cancelled order has no time" };
    return { event: { kind: "cancelled", externalIds: [externalId], at: modifiedAt } };
  }
  if (!UNPAID.has(status) && !PAID.has(status)) return { ignored: `an order with status ${status || "missing"} is neither unpaid nor paid: nothing to do` };
  const currency = currencyOf(payload.currency);
  const totalMinor = currency ? minorOf(payload.total, currency) : null;
  if (!currency || totalMinor === null) return { ignored: "the order's total or currency is missing or not an amount" };
  if (!createdAt) return { ignored: "the order has no date_created_gmt" };
  if (PAID.has(status)) {
    // No `order`: an order paid at once (never pending) is an ordinary sale, none of our orders.
    const paidAt = dateOf(payload.date_paid_gmt) ?? modifiedAt ?? createdAt;
    return { event: { kind: "paid", externalIds: [externalId], paidMinor: totalMinor, currency, paidAt } };
  }
  const order = orderInput(payload, externalId, currency, totalMinor, createdAt);
  return typeof order === "string" ? { ignored: order } : { event: { kind: "abandoned", order } };
}
