/**
 * Store webhooks (issue 16 §2): the JSON body of the generic endpoint `POST /webhooks/store/{integrationId}`
 * that any store can send, and the answer all three store webhooks give. Shopify's and WooCommerce's
 * bodies are theirs (server/orders/stores/).
 *
 * The generic endpoint is signed like our Vapi webhook: `x-timestamp` (Unix seconds or milliseconds) and
 * `x-signature` = hex HMAC-SHA256 of `{x-timestamp}.{raw body}` with the integration's secret, at most
 * GENERIC_SIGNATURE_WINDOW_MS from our clock. Each event `id` is processed once.
 *
 * ```json
 * {
 *   "id": "evt_01J9Z3",
 *   "event": "checkout.abandoned",
 *   "created_at": "2026-12-01T10:00:00Z",
 *   "order": {
 *     "id": "chk_7731",
 *     "reference": "#1042",
 *     "customer": { "name": "Ada Lovelace", "phone": "+14155550100", "email": "ada@example.com" },
 *     "items": [{ "name": "Blue mug", "quantity": 2, "price": "12.50" }],
 *     "total": "25.00",
 *     "currency": "USD",
 *     "checkout_url": "https://shop.example/checkout/recover/chk_7731",
 *     "call_consent": { "given": true, "source": "Checkout checkbox", "at": "2026-12-01T09:58:00Z" }
 *   }
 * }
 * ```
 * `order.paid`: `{id, event, created_at, order: {id, checkout_id?, paid_amount?, paid_at?, currency?}}`
 * (paid_amount defaults to total, paid_at to created_at). `order.cancelled`: `{…, order: {id, checkout_id?, cancelled_at?}}`.
 */
import { z } from "zod";
import { GENERIC_EVENTS, ORDER_ITEM_NAME_MAX_LENGTH, ORDER_ITEMS_MAX, ORDER_REFERENCE_MAX_LENGTH, ORDER_TEXT_MAX_LENGTH, ORDER_URL_MAX_LENGTH, majorToMinor } from "./order-shared";
import { timeZoneSchema } from "./time-zone";

const instant = (field: string) => z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 time with its offset, e.g. 2026-12-01T09:00:00Z` });
const idSchema = (field: string) =>
  z.string({ error: `${field} is required (text)` }).trim().min(1, { error: `${field} is required` }).max(200, { error: `${field} must be at most 200 characters` });
/** A decimal amount in the currency's major unit: "25.00" or 25. */
const amountSchema = (field: string) =>
  z.union([z.string().trim().regex(/^\d{1,13}(\.\d+)?$/), z.number().min(0).max(1e12)], { error: `${field} must be an amount in the currency's major unit, e.g. "25.00" or 25` });
const text = (max = ORDER_TEXT_MAX_LENGTH) => z.string().trim().max(max).nullable().optional();

export const genericStoreOrderSchema = z.strictObject({
  /** The checkout's or order's id in your store: one order per id (the same id again updates it). */
  id: idSchema("order.id"),
  /** order.paid / order.cancelled: the id of the checkout it came from, when the order has an id of its own. */
  checkout_id: idSchema("order.checkout_id").optional(),
  /** What people see (default: the id). */
  reference: z.string().trim().min(1).max(ORDER_REFERENCE_MAX_LENGTH).optional(),
  customer: z
    .strictObject({
      name: text(),
      /** E.164 ("+14155550100"); needed for checkout.abandoned. */
      phone: z.string().trim().max(40).nullable().optional(),
      email: z.email({ error: "order.customer.email must be an email address" }).max(ORDER_TEXT_MAX_LENGTH).nullable().optional(),
    })
    .optional(),
  items: z
    .array(
      z.strictObject({
        name: z.string({ error: "order.items[].name is required" }).trim().min(1).max(ORDER_ITEM_NAME_MAX_LENGTH),
        quantity: z.number({ error: "order.items[].quantity must be a whole number" }).int().min(1).max(1_000_000),
        /** The unit price. */
        price: amountSchema("order.items[].price"),
      }),
    )
    .max(ORDER_ITEMS_MAX)
    .optional(),
  total: amountSchema("order.total").optional(),
  /** ISO 4217; default USD. */
  currency: z.string().trim().regex(/^[A-Za-z]{3}$/, { error: "order.currency must be a three-letter ISO 4217 code, e.g. USD" }).optional(),
  /** Where the customer completes the purchase (sent to the agent as the checkout link). */
  checkout_url: z.url({ protocol: /^https?$/, error: "order.checkout_url must be an http(s) address" }).max(ORDER_URL_MAX_LENGTH).nullable().optional(),
  /** Default: the event's created_at. */
  abandoned_at: instant("order.abandoned_at").optional(),
  /** The customer's IANA zone, when the store knows it (else the number's zones are used). */
  timezone: timeZoneSchema("order.timezone").nullable().optional(),
  /** Consent to be called (a checkbox at checkout); email or SMS marketing consent is not this. Default: not given. */
  call_consent: z
    .strictObject({
      given: z.boolean({ error: "order.call_consent.given must be true or false" }),
      source: text(),
      at: instant("order.call_consent.at").nullable().optional(),
    })
    .optional(),
  /** order.paid: what was paid (default: total). */
  paid_amount: amountSchema("order.paid_amount").optional(),
  /** order.paid: when (default: the event's created_at). */
  paid_at: instant("order.paid_at").optional(),
  /** order.cancelled: when (default: the event's created_at). */
  cancelled_at: instant("order.cancelled_at").optional(),
});

export const genericStoreEventSchema = z
  .strictObject({
    /** Unique per event: an id seen before is answered `duplicate` and changes nothing. */
    id: idSchema("id"),
    event: z.enum(GENERIC_EVENTS, { error: `event must be one of ${GENERIC_EVENTS.join(", ")}` }),
    /** When it happened in the store. */
    created_at: instant("created_at"),
    order: genericStoreOrderSchema,
  })
  .superRefine((body, ctx) => {
    const currency = (body.order.currency ?? "USD").toUpperCase();
    const amounts: [string, string | number | undefined][] = [
      ["order.total", body.order.total],
      ["order.paid_amount", body.order.paid_amount],
      ...(body.order.items ?? []).map((item, index): [string, string | number] => [`order.items[${index}].price`, item.price]),
    ];
    for (const [field, value] of amounts) {
      if (value !== undefined && majorToMinor(value, currency) === null) ctx.addIssue({ code: "custom", path: field.split("."), message: `${field} has more decimals than ${currency} has` });
    }
    if (body.event === "checkout.abandoned") {
      if (!body.order.customer?.phone) ctx.addIssue({ code: "custom", path: ["order", "customer", "phone"], message: "order.customer.phone is required for checkout.abandoned (the number to call)" });
      if (body.order.total === undefined) ctx.addIssue({ code: "custom", path: ["order", "total"], message: "order.total is required for checkout.abandoned" });
    }
    if (body.event === "order.paid" && body.order.paid_amount === undefined && body.order.total === undefined) {
      ctx.addIssue({ code: "custom", path: ["order", "paid_amount"], message: "order.paid_amount (or order.total) is required for order.paid" });
    }
  });
export type GenericStoreEvent = z.infer<typeof genericStoreEventSchema>;

/** What every store webhook answers (200): applied, ignored (and why), or duplicate (a delivery id seen before: nothing changed). */
export const STORE_DELIVERY_RESULTS = ["applied", "ignored", "duplicate"] as const;
export const storeDeliveryResponseSchema = z.object({
  data: z.object({
    result: z.enum(STORE_DELIVERY_RESULTS),
    detail: z.string().nullable(),
    order_id: z.uuid().nullable(),
  }),
});
export type StoreDeliveryResponse = z.infer<typeof storeDeliveryResponseSchema>;
