/**
 * Shopify (issue 16 §2): POST /webhooks/shopify/{integrationId}, JSON webhooks from the shop's admin
 * (Settings → Notifications → Webhooks) or an app's subscription.
 *
 * verify: `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body with the integration's secret
 * (the shop's signing key, or the app's client secret), compared in constant time; processed once per
 * `X-Shopify-Webhook-Id` (Shopify's idempotency key; without one, `X-Shopify-Event-Id`) and once per body
 * (its SHA-256: the headers are not signed, so a replay under a new id is still the same bytes); stale when
 * `X-Shopify-Triggered-At` is older than STORE_DELIVERY_MAX_AGE_MS (Shopify retries for 48 hours) or more
 * than five minutes ahead of our clock, or when the body's latest time (updated_at, processed_at, …) is older
 * than that (the signed part); the topic is `X-Shopify-Topic`.
 *
 * toStoreEvent, by topic (SHOPIFY_TOPICS; any other topic is ignored, a shop may subscribe to more):
 * - checkouts/create, checkouts/update: a checkout not completed is abandoned — externalId its `token`,
 *   reference its `name` (else `#id`), abandonedAt its `updated_at`, the checkout link
 *   `abandoned_checkout_url`, amounts in `presentment_currency` (what the customer saw). A completed
 *   checkout (`completed_at`) means the customer bought: paid, with its total, so nobody is called about it.
 * - orders/create with financial_status pending, authorized or partially_paid: an unpaid order, abandoned
 *   (externalId its checkout_token, else `order:<id>`, which its later orders/paid also names; reference
 *   its `name` "#1001"; the checkout link its order_status_url).
 * - orders/create already paid, and orders/paid: paid, naming both [checkout_token, `order:<id>`], with
 *   the amount in the presentment currency (total_price_set.presentment_money, else total_price/currency).
 *   No order is made from a paid event: a sale never seen abandoned or unpaid is ignored by the orders core
 *   ("no order with that id"), so the shop's ordinary purchases do not fill the orders list.
 * - orders/create cancelled (cancelled_at) or voided: cancelled. Refunded or expired orders: ignored.
 * The customer's phone: customer.phone, else the checkout's or order's phone, else the billing, else the
 * shipping address's (a national number takes that address's country code). Consent to be called comes
 * only from note_attributes call_consent / call_consent_source / call_consent_at; accepts_marketing,
 * email_marketing_consent, sms_marketing_consent and buyer_accepts_* are never read.
 */
import { SHOPIFY_TOPICS, STORE_DELIVERY_MAX_AGE_MS } from "../../../contract/order-shared";
import {
  attributesOf,
  base64HmacMatches,
  bodyDigestId,
  checkoutUrlOf,
  consentFrom,
  currencyOf,
  dateOf,
  distinct,
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

export const SHOPIFY_HEADERS = {
  hmac: "x-shopify-hmac-sha256",
  topic: "x-shopify-topic",
  webhookId: "x-shopify-webhook-id",
  eventId: "x-shopify-event-id",
  triggeredAt: "x-shopify-triggered-at",
} as const;
export const SHOPIFY_CONSENT_SOURCE = "Shopify checkout";
/** How far ahead of our clock a delivery's trigger time may be (clocks differ a little). */
const FUTURE_SKEW_MS = 5 * 60 * 1000;

const UNPAID = new Set(["pending", "authorized", "partially_paid"]);

export function verify(headers: Headers, rawBody: Buffer, secret: string, now: number): Verification {
  const signature = header(headers, SHOPIFY_HEADERS.hmac);
  if (!signature) return { ok: false, status: 401, reason: `The delivery carries no ${SHOPIFY_HEADERS.hmac} signature.` };
  if (!base64HmacMatches(rawBody, secret, signature)) return { ok: false, status: 401, reason: "The Shopify signature does not match this integration's secret." };
  const triggered = header(headers, SHOPIFY_HEADERS.triggeredAt);
  if (triggered) {
    const at = Date.parse(triggered);
    if (Number.isNaN(at)) return { ok: false, status: 401, reason: `${SHOPIFY_HEADERS.triggeredAt} is not a time.` };
    if (now - at > STORE_DELIVERY_MAX_AGE_MS) return { ok: false, status: 401, reason: "The delivery is stale: it was triggered more than 48 hours ago." };
    if (at - now > FUTURE_SKEW_MS) return { ok: false, status: 401, reason: `${SHOPIFY_HEADERS.triggeredAt} is more than 5 minutes ahead of the server's clock.` };
  }
  const topic = header(headers, SHOPIFY_HEADERS.topic);
  if (!topic) return { ok: false, status: 400, reason: `The delivery carries no ${SHOPIFY_HEADERS.topic}.` };
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return { ok: false, status: 400, reason: "The Shopify webhook body is not JSON (choose the JSON format for the webhook)." };
  }
  // The headers are not signed: the body's own latest time (the change it reports) is judged too.
  if (isRecord(payload)) {
    const times = ["updated_at", "processed_at", "completed_at", "cancelled_at", "created_at"].map((field) => dateOf(payload[field])?.getTime() ?? Number.NEGATIVE_INFINITY);
    const latest = Math.max(...times);
    if (Number.isFinite(latest) && now - latest > STORE_DELIVERY_MAX_AGE_MS) return { ok: false, status: 401, reason: "The delivery is stale: the change it reports is more than 48 hours old." };
  }
  const digest = bodyDigestId(rawBody);
  const deliveryId = header(headers, SHOPIFY_HEADERS.webhookId) ?? header(headers, SHOPIFY_HEADERS.eventId) ?? digest;
  return { ok: true, deliveryIds: [...new Set([deliveryId.slice(0, 200), digest])], topic: topic.slice(0, 100), payload };
}

/** A Shopify id as text: the admin GraphQL id's digits when present (JSON numbers past 2^53 lose theirs), else `id`. */
function shopifyId(payload: Record<string, unknown>): string | null {
  const gid = typeof payload.admin_graphql_api_id === "string" ? /\/(\d+)$/.exec(payload.admin_graphql_api_id)?.[1] : undefined;
  return gid ?? textOf(payload.id, 100);
}

function phoneOf(payload: Record<string, unknown>): string | null {
  const customer = recordAt(payload, "customer");
  const billing = recordAt(payload, "billing_address");
  const shipping = recordAt(payload, "shipping_address");
  const country = billing.country_code ?? shipping.country_code;
  return firstPhone([
    { number: customer.phone, country },
    { number: payload.phone, country },
    { number: billing.phone, country: billing.country_code ?? country },
    { number: shipping.phone, country: shipping.country_code ?? country },
  ]);
}

function nameOf(payload: Record<string, unknown>): string | null {
  const customer = recordAt(payload, "customer");
  const billing = recordAt(payload, "billing_address");
  const shipping = recordAt(payload, "shipping_address");
  return fullName(customer.first_name, customer.last_name) ?? textOf(billing.name) ?? fullName(billing.first_name, billing.last_name) ?? fullName(shipping.first_name, shipping.last_name);
}

/** The amount the customer saw: the presentment money of a `*_set`, else the shop's amount and currency. */
function moneyOf(payload: Record<string, unknown>, field: "total_price"): { minor: number; currency: string } | null {
  const presentment = recordAt(recordAt(payload, `${field}_set`), "presentment_money");
  const setCurrency = currencyOf(presentment.currency_code);
  if (setCurrency) {
    const minor = minorOf(presentment.amount, setCurrency);
    if (minor !== null) return { minor, currency: setCurrency };
  }
  const currency = currencyOf(payload.presentment_currency) ?? currencyOf(payload.currency);
  if (!currency) return null;
  const minor = minorOf(payload[field], currency);
  return minor === null ? null : { minor, currency };
}

/** The order (or checkout) as a StoreOrderInput; null with the reason when it cannot be one. */
function orderInput(payload: Record<string, unknown>, externalId: string, reference: string, checkoutUrl: unknown, abandonedAt: Date): StoreOrderInput | string {
  const customerNumber = phoneOf(payload);
  if (!customerNumber) return NO_PHONE;
  const money = moneyOf(payload, "total_price");
  if (!money) return "the total_price or the currency is missing or not an amount";
  const customer = recordAt(payload, "customer");
  return {
    externalId,
    reference,
    customerName: nameOf(payload),
    customerNumber,
    customerEmail: emailOf(payload.email) ?? emailOf(payload.contact_email) ?? emailOf(customer.email),
    items: itemsOf(payload.line_items, (item) => ({
      name: item.title ?? item.name ?? item.presentment_title,
      quantity: item.quantity,
      priceMinor: minorOf(recordAt(recordAt(item, "price_set"), "presentment_money").amount, money.currency) ?? minorOf(item.price, money.currency),
    })),
    totalMinor: money.minor,
    currency: money.currency,
    checkoutUrl: checkoutUrlOf(checkoutUrl),
    abandonedAt,
    timezone: null,
    consent: consentFrom(attributesOf(payload.note_attributes, "name"), SHOPIFY_CONSENT_SOURCE, abandonedAt),
  };
}

function checkoutEvent(payload: Record<string, unknown>): AdapterResult {
  const token = textOf(payload.token, 200);
  if (!token) return { ignored: "the checkout has no token" };
  const id = shopifyId(payload);
  const seenAt = dateOf(payload.updated_at) ?? dateOf(payload.created_at);
  if (!seenAt) return { ignored: "the checkout has no updated_at or created_at time" };
  const completedAt = dateOf(payload.completed_at);
  if (completedAt) {
    const money = moneyOf(payload, "total_price");
    if (!money) return { ignored: "the checkout was completed (nothing to call about)" };
    return { event: { kind: "paid", externalIds: [token], paidMinor: money.minor, currency: money.currency, paidAt: completedAt } };
  }
  const order = orderInput(payload, token, referenceOf(payload.name, id ? `#${id}` : null, token)!, payload.abandoned_checkout_url, seenAt);
  return typeof order === "string" ? { ignored: order } : { event: { kind: "abandoned", order } };
}

function orderEvent(topic: "orders/create" | "orders/paid", payload: Record<string, unknown>): AdapterResult {
  const id = shopifyId(payload);
  if (!id) return { ignored: "the order has no id" };
  const orderKey = `order:${id}`;
  const checkoutToken = textOf(payload.checkout_token, 200);
  const reference = referenceOf(payload.name, `#${textOf(payload.order_number) ?? id}`)!;
  const createdAt = dateOf(payload.created_at) ?? dateOf(payload.processed_at) ?? dateOf(payload.updated_at);
  const status = textOf(payload.financial_status)?.toLowerCase() ?? null;
  const cancelledAt = dateOf(payload.cancelled_at);

  if (topic === "orders/create" && (cancelledAt || status === "voided")) {
    const at = cancelledAt ?? dateOf(payload.updated_at) ?? createdAt;
    if (!at) return { ignored: "the cancelled order has no time" };
    return { event: { kind: "cancelled", externalIds: distinct(checkoutToken, orderKey), at } };
  }
  if (topic === "orders/paid" || status === "paid") {
    const money = moneyOf(payload, "total_price");
    if (!money) return { ignored: "the paid order's total_price or currency is missing or not an amount" };
    const paidAt = dateOf(payload.processed_at) ?? dateOf(payload.updated_at) ?? createdAt;
    if (!paidAt) return { ignored: "the paid order has no time" };
    // No `order`: a sale we never saw abandoned is none of our orders (the shop's every purchase would be listed).
    return { event: { kind: "paid", externalIds: distinct(checkoutToken, orderKey), paidMinor: money.minor, currency: money.currency, paidAt } };
  }
  if (status && UNPAID.has(status)) {
    if (!createdAt) return { ignored: "the order has no created_at time" };
    const order = orderInput(payload, checkoutToken ?? orderKey, reference, payload.order_status_url, createdAt);
    return typeof order === "string" ? { ignored: order } : { event: { kind: "abandoned", order } };
  }
  return { ignored: `an order with financial_status ${status ?? "missing"} is neither unpaid nor paid: nothing to do` };
}

export function toStoreEvent(topic: string, payload: unknown): AdapterResult {
  if (!(SHOPIFY_TOPICS as readonly string[]).includes(topic)) return { ignored: `topic ${topic} is not one this integration uses (${SHOPIFY_TOPICS.join(", ")})` };
  if (!isRecord(payload)) return { ignored: "the body is not a JSON object" };
  if (topic === "checkouts/create" || topic === "checkouts/update") return checkoutEvent(payload);
  return orderEvent(topic as "orders/create" | "orders/paid", payload);
}
