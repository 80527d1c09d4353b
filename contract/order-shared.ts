/**
 * Orders (issue 16; issue 18's orders part): the names and rules both sides read. No zod here (the
 * console imports this file); the API's schemas are in contract/order.ts, the calling rules in
 * contract/calling-rules.ts.
 *
 * An order is an abandoned checkout or an unpaid order of a shop, which the purchase-completion agent
 * follows up by phone. Orders come from store integrations (Shopify, WooCommerce, a generic signed JSON
 * endpoint), from a CSV import or from POST /order/.
 *
 * Status (ORDER_STATUSES):
 * - open: waiting for its first call (the follow-up's delay, the customer's calling window, a free line);
 * - calling: at least one call placed and the follow-up not over (a call on the line, a retry or a
 *   call-back waiting, or an answered call waiting for the purchase within the attribution window);
 * - recovered: the store's paid event arrived within the attribution window after a call that reached
 *   the customer (answered, or a voicemail left) — recovered_amount is what was paid;
 * - declined: the customer said no on the call, or agreed and did not buy within the attribution window;
 * - unreachable: every attempt ended busy, unanswered, in voicemail or failed;
 * - paid_without_call: paid before any call reached the customer (the pending follow-up is cancelled),
 *   or paid outside the attribution window;
 * - opted_out: the customer asked not to be called again (the number is on the do-not-call list);
 * - cancelled: a member stopped the follow-up, or the store cancelled the order;
 * - no_consent: no consent to be called: listed, never dialled automatically; "call now" asks the
 *   member to confirm consent first.
 * Paid states (recovered, paid_without_call) are final. "Call now" may reopen declined, unreachable,
 * cancelled and no_consent orders; opted_out and paid ones never.
 */

export const ORDER_STATUSES = [
  "open",
  "calling",
  "recovered",
  "declined",
  "unreachable",
  "paid_without_call",
  "opted_out",
  "cancelled",
  "no_consent",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAID_ORDER_STATUSES: readonly OrderStatus[] = ["recovered", "paid_without_call"];
/** Statuses in which the follow-up is over (nothing more is dialled automatically). */
export const FINAL_ORDER_STATUSES: readonly OrderStatus[] = ["recovered", "declined", "unreachable", "paid_without_call", "opted_out", "cancelled", "no_consent"];
/** Statuses from which "call now" may place a call (no_consent only with the member's confirmation). */
export const CALLABLE_ORDER_STATUSES: readonly OrderStatus[] = ["open", "declined", "unreachable", "cancelled", "no_consent"];
/** Statuses whose follow-up a member may stop. */
export const STOPPABLE_ORDER_STATUSES: readonly OrderStatus[] = ["open", "calling"];

/** How an order's status reads in the console. */
export const ORDER_STATUS_LABELS: Readonly<Record<OrderStatus, string>> = {
  open: "Open",
  calling: "Calling",
  recovered: "Recovered",
  declined: "Declined",
  unreachable: "Unreachable",
  paid_without_call: "Paid without a call",
  opted_out: "Opted out",
  cancelled: "Cancelled",
  no_consent: "No consent",
};

/**
 * What the customer said on a call, as the agent reports it (the `record_order_outcome` tool during the
 * call, or `order_outcome` in the call's structured data): completed (will complete the purchase, or
 * just did), declined, wants the checkout link by SMS or email, call back later (at `callback_at`),
 * do not call (also the do_not_call tool).
 */
export const ORDER_CALL_OUTCOMES = ["completed", "declined", "send_link_sms", "send_link_email", "call_back_later", "do_not_call"] as const;
export type OrderCallOutcome = (typeof ORDER_CALL_OUTCOMES)[number];

export const ORDER_CALL_OUTCOME_LABELS: Readonly<Record<OrderCallOutcome, string>> = {
  completed: "Will complete the purchase",
  declined: "Declined",
  send_link_sms: "Wants the link by SMS",
  send_link_email: "Wants the link by email",
  call_back_later: "Call back later",
  do_not_call: "Do not call",
};

/** Where an order came from. */
export const ORDER_SOURCES = ["shopify", "woocommerce", "generic", "csv", "manual"] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/** Store integrations (POST /integration/ `kind`). */
export const INTEGRATION_KINDS = ["shopify", "woocommerce", "generic"] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];
export const INTEGRATION_KIND_LABELS: Readonly<Record<IntegrationKind, string>> = { shopify: "Shopify", woocommerce: "WooCommerce", generic: "Other store (signed JSON)" };

/** The store topics each integration takes (Shopify's X-Shopify-Topic; WooCommerce's X-WC-Webhook-Topic; the generic body's `event`). */
export const SHOPIFY_TOPICS = ["checkouts/create", "checkouts/update", "orders/create", "orders/paid"] as const;
export const WOOCOMMERCE_TOPICS = ["order.created", "order.updated"] as const;
export const GENERIC_EVENTS = ["checkout.abandoned", "order.paid", "order.cancelled"] as const;
export type GenericEvent = (typeof GENERIC_EVENTS)[number];

/** A store delivery older than this (by its own timestamp header, where the store sends one) is stale. Shopify retries for up to 48 hours. */
export const STORE_DELIVERY_MAX_AGE_MS = 48 * 60 * 60 * 1000;
/** The generic endpoint is signed like our Vapi webhook: its timestamp must be within this window. */
export const GENERIC_SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

/** Follow-up defaults and bounds. */
export const DEFAULT_FOLLOW_UP_DELAY_MINUTES = 30;
export const FOLLOW_UP_DELAY_MAX_MINUTES = 7 * 24 * 60;
export const DEFAULT_ATTRIBUTION_DAYS = 7;
export const ATTRIBUTION_DAYS_MAX = 90;
/** Orders abandoned longer ago than this are not queued automatically when follow-up is switched on (call now still works). */
export const FOLLOW_UP_BACKFILL_HOURS = 24;

/** Limits on an order's fields. */
export const ORDER_REFERENCE_MAX_LENGTH = 120;
export const ORDER_ITEMS_MAX = 100;
export const ORDER_ITEM_NAME_MAX_LENGTH = 300;
export const ORDER_TEXT_MAX_LENGTH = 300;
export const ORDER_URL_MAX_LENGTH = 2000;
export const ORDER_IMPORT_MAX_BYTES = 20 * 1024 * 1024;
export const ORDER_IMPORT_MAX_ROWS = 50_000;
export const INTEGRATION_NAME_MAX_LENGTH = 120;
export const INTEGRATIONS_MAX = 20;

/** CSV columns of POST /order/import (matched like campaign contacts' columns: case, spaces and dashes ignored). */
export const ORDER_CSV_COLUMNS = {
  reference: ["reference", "order", "order_reference", "order_number", "order_id", "checkout_id"],
  customer_name: ["customer_name", "name", "customer"],
  customer_number: ["customer_number", "number", "phone", "phone_number", "mobile"],
  email: ["email", "customer_email"],
  items: ["items", "products", "line_items"],
  total: ["total", "amount", "order_total"],
  currency: ["currency"],
  checkout_url: ["checkout_url", "checkout_link", "recovery_url", "cart_url"],
  abandoned_at: ["abandoned_at", "created_at", "date"],
  call_consent: ["call_consent"],
  call_consent_source: ["call_consent_source"],
  call_consent_at: ["call_consent_at"],
  timezone: ["timezone", "time_zone", "tz"],
} as const;

/**
 * The variables a follow-up call gives the agent (assistantOverrides.variableValues), which the
 * purchase-completion template's prompt reads: name, cart_items, cart_total, checkout_link,
 * store_name, order_reference.
 */
export const ORDER_CALL_VARIABLES = ["name", "cart_items", "cart_total", "checkout_link", "store_name", "order_reference"] as const;

/** Amounts on the wire are numbers in the currency's major unit (59.9 for $59.90); inside, integer minor units. */
export function currencyDigits(currency: string): number {
  let digits = DIGITS.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    DIGITS.set(currency, digits);
  }
  return digits;
}
// Building an Intl.NumberFormat costs tens of microseconds: an import of 10,000 orders asks for a few currencies only.
const DIGITS = new Map<string, number>();
const FORMATS = new Map<string, Intl.NumberFormat>();
/** Minor units → the wire's number (exact for every amount below 2^53 minor units). */
export const minorToMajor = (minor: number, currency: string): number => {
  const digits = currencyDigits(currency);
  return digits === 0 ? minor : Number((minor / 10 ** digits).toFixed(digits));
};
/** The wire's number (or a store's decimal string) → minor units; null when it is not an amount in that currency (too many decimals, not a number). */
export function majorToMinor(value: number | string, currency: string): number | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  const digits = currencyDigits(currency);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.includes("e") ? Number(text).toFixed(digits) : text);
  if (!match) return null;
  const [, sign, whole, fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > digits) return null;
  const minor = Number(whole) * 10 ** digits + Number(trimmed.padEnd(digits, "0") || "0");
  if (!Number.isSafeInteger(minor)) return null;
  return sign === "-" ? -minor : minor;
}
/** An amount for people: "$59.90", "¥1,200". */
export function formatOrderAmount(minor: number, currency: string, locale = "en-US"): string {
  const key = `${locale}|${currency}`;
  let format = FORMATS.get(key);
  if (!format) FORMATS.set(key, (format = new Intl.NumberFormat(locale, { style: "currency", currency })));
  return format.format(minorToMajor(minor, currency));
}

/** Paths (under /api). */
export const ORDER_PATHS = {
  list: "/order/",
  one: (id: string) => `/order/${id}`,
  import: "/order/import",
  call: (id: string) => `/order/${id}/call`,
  stop: (id: string) => `/order/${id}/stop`,
  markPaid: (id: string) => `/order/${id}/paid`,
  timeline: (id: string) => `/order/${id}/timeline`,
  stats: "/order/stats",
  followUp: "/order/follow-up",
  integrations: "/integration/",
  integration: (id: string) => `/integration/${id}`,
  rotateSecret: (id: string) => `/integration/${id}/rotate-secret`,
  /** Store webhooks (public, verified by signature). */
  shopifyWebhook: (integrationId: string) => `/webhooks/shopify/${integrationId}`,
  woocommerceWebhook: (integrationId: string) => `/webhooks/woocommerce/${integrationId}`,
  genericWebhook: (integrationId: string) => `/webhooks/store/${integrationId}`,
} as const;
