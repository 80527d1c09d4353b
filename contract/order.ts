/**
 * Orders and store integrations: the API's schemas (issue 16's minimum contract, issue 18's orders
 * part). Names, states and limits are in contract/order-shared.ts (zod-free, the console's); the
 * calling rules in contract/calling-rules.ts.
 *
 * Money on the wire: `total`, item `price`, `recovered_amount` are numbers in the currency's major unit
 * (59.9 for $59.90); the server keeps integer minor units (currencyDigits: JPY 0, USD 2, KWD 3).
 */
import { z } from "zod";
import { E164_HINT, normalisePhoneNumber } from "./phone-number";
import { E164_PATTERN } from "./agent";
import { CALLING_HOURS_RULE, windowWithinCallingHours } from "./calling-rules";
import { campaignRetrySchema, campaignWindowSchema } from "./campaign";
import { CAMPAIGN_WINDOWS_MAX } from "./campaign-shared";
import { calendarDay } from "./day-range";
import { listResponseSchema, pagingQuerySchema } from "./list";
import {
  ATTRIBUTION_DAYS_MAX,
  FOLLOW_UP_DELAY_MAX_MINUTES,
  INTEGRATION_KINDS,
  INTEGRATION_NAME_MAX_LENGTH,
  ORDER_CALL_OUTCOMES,
  ORDER_ITEM_NAME_MAX_LENGTH,
  ORDER_ITEMS_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  ORDER_SOURCES,
  ORDER_STATUSES,
  ORDER_TEXT_MAX_LENGTH,
  ORDER_URL_MAX_LENGTH,
  majorToMinor,
} from "./order-shared";
import { timeZoneSchema } from "./time-zone";

export * from "./order-shared";
export * from "./calling-rules";

// --- Orders -------------------------------------------------------------------------------------

const currencySchema = z
  .string({ error: "currency must be a three-letter ISO 4217 code, e.g. USD" })
  .trim()
  .transform((value) => value.toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{3}$/, { error: "currency must be a three-letter ISO 4217 code, e.g. USD" }));

const amountSchema = (field: string) =>
  z.number({ error: `${field} must be a number in the currency's major unit, e.g. 59.9 for $59.90` }).min(0, { error: `${field} must be 0 or more` }).max(1e12, { error: `${field} is too large` });

const customerNumberSchema = z
  .string({ error: `customer_number: ${E164_HINT}` })
  .max(40, { error: `customer_number: ${E164_HINT}` })
  .transform(normalisePhoneNumber)
  .pipe(z.string().regex(E164_PATTERN, { error: `customer_number: ${E164_HINT}` }));

const instant = (field: string) => z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 time with its offset, e.g. 2026-12-01T09:00:00Z` });

export const orderItemInputSchema = z.strictObject({
  name: z.string({ error: "items[].name is required" }).trim().min(1, { error: "items[].name is required" }).max(ORDER_ITEM_NAME_MAX_LENGTH),
  quantity: z.number({ error: "items[].quantity must be a whole number" }).int({ error: "items[].quantity must be a whole number" }).min(1).max(1_000_000),
  /** The unit price, in the order's currency's major unit. */
  price: amountSchema("items[].price"),
});

/** Consent to be called: given or not, where it came from (a checkout checkbox, a form, a CSV) and when. */
export const callConsentInputSchema = z.strictObject({
  given: z.boolean({ error: "call_consent.given must be true or false" }),
  source: z.string().trim().max(ORDER_TEXT_MAX_LENGTH).nullable().optional(),
  at: instant("call_consent.at").nullable().optional(),
});

const orderFields = {
  reference: z.string({ error: "reference is required (the store's order or checkout reference)" }).trim().min(1, { error: "reference is required" }).max(ORDER_REFERENCE_MAX_LENGTH),
  customer_name: z.string().trim().max(ORDER_TEXT_MAX_LENGTH).nullable().optional(),
  customer_number: customerNumberSchema,
  customer_email: z.email({ error: "customer_email must be an email address" }).max(ORDER_TEXT_MAX_LENGTH).nullable().optional(),
  items: z.array(orderItemInputSchema).max(ORDER_ITEMS_MAX, { error: `an order may hold at most ${ORDER_ITEMS_MAX} items` }).optional(),
  total: amountSchema("total"),
  currency: currencySchema.default("USD"),
  checkout_url: z.url({ protocol: /^https?$/, error: "checkout_url must be an http(s) address" }).max(ORDER_URL_MAX_LENGTH).nullable().optional(),
  abandoned_at: instant("abandoned_at").optional(),
  /** The customer's IANA zone when known (else the number's zones, else the follow-up's fallback). */
  timezone: timeZoneSchema("timezone").nullable().optional(),
  store_name: z.string().trim().max(ORDER_TEXT_MAX_LENGTH).nullable().optional(),
  call_consent: callConsentInputSchema.optional(),
};

const amountsFitCurrency = (order: { total?: number; currency?: string; items?: { price: number }[] }, ctx: z.RefinementCtx) => {
  const currency = order.currency ?? "USD";
  if (order.total !== undefined && majorToMinor(order.total, currency) === null) ctx.addIssue({ code: "custom", path: ["total"], message: `total has more decimals than ${currency} has` });
  order.items?.forEach((item, index) => {
    if (majorToMinor(item.price, currency) === null) ctx.addIssue({ code: "custom", path: ["items", index, "price"], message: `items[${index}].price has more decimals than ${currency} has` });
  });
};

/** POST /order/ */
export const orderCreateSchema = z.strictObject(orderFields).superRefine(amountsFitCurrency);
export type OrderCreate = z.input<typeof orderCreateSchema>;

/** PUT /order/{id}: any of the fields (the status moves only through actions and events). */
export const orderUpdateSchema = z
  .strictObject({
    reference: orderFields.reference.optional(),
    customer_name: orderFields.customer_name,
    customer_number: customerNumberSchema.optional(),
    customer_email: orderFields.customer_email,
    items: orderFields.items,
    total: amountSchema("total").optional(),
    currency: currencySchema.optional(),
    checkout_url: orderFields.checkout_url,
    abandoned_at: orderFields.abandoned_at,
    timezone: orderFields.timezone,
    store_name: orderFields.store_name,
    call_consent: orderFields.call_consent,
  })
  .superRefine(amountsFitCurrency);
export type OrderUpdate = z.input<typeof orderUpdateSchema>;

export const callConsentSchema = z.object({ given: z.boolean(), source: z.string().nullable(), at: z.string().nullable() });

export const orderItemSchema = z.object({ name: z.string(), quantity: z.number().int(), price: z.number() });

export const orderSchema = z.object({
  id: z.uuid(),
  reference: z.string(),
  source: z.enum(ORDER_SOURCES),
  integration_id: z.uuid().nullable(),
  integration_name: z.string().nullable(),
  store_name: z.string().nullable(),
  customer_name: z.string().nullable(),
  customer_number: z.string(),
  customer_email: z.string().nullable(),
  timezone: z.string().nullable(),
  /** The zones the calling window is computed in (campaign rules): timezone, else the number's zones, else the follow-up's fallback; empty when none is known. */
  timezones: z.array(z.string()),
  items: z.array(orderItemSchema),
  total: z.number(),
  currency: z.string(),
  checkout_url: z.string().nullable(),
  abandoned_at: z.string(),
  status: z.enum(ORDER_STATUSES),
  /** Why it is in that status, in a sentence (e.g. "Waiting for 09:00 in America/Chicago", "No purchase within 7 days of the call"). */
  status_detail: z.string().nullable(),
  call_consent: callConsentSchema,
  attempts: z.number().int(),
  last_call_id: z.uuid().nullable(),
  last_call_at: z.string().nullable(),
  /** When the next call may be placed (open or calling orders waiting for their window, a retry or a call-back). */
  next_call_at: z.string().nullable(),
  /** What the customer said on the last answered call, as the agent reported it. */
  call_outcome: z.enum(ORDER_CALL_OUTCOMES).nullable(),
  callback_at: z.string().nullable(),
  paid_at: z.string().nullable(),
  /** What was paid when the order was recovered (0 otherwise), in the currency's major unit. */
  recovered_amount: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Order = z.infer<typeof orderSchema>;
export const orderResponseSchema = z.object({ data: orderSchema });
export const orderListResponseSchema = listResponseSchema(orderSchema);

/** GET /order/: status (one or several, comma-separated), startDate/endDate (days of abandoned_at in the organisation's zone, endDate included), search (customer name, number, email or reference), integrationId. */
export const orderListQuerySchema = pagingQuerySchema().extend({
  status: z
    .string()
    .trim()
    .max(300)
    .transform((value) => value.split(",").map((one) => one.trim()).filter(Boolean))
    .pipe(z.array(z.enum(ORDER_STATUSES, { error: `status must be one or more of ${ORDER_STATUSES.join(", ")}, comma-separated` })))
    .optional(),
  startDate: calendarDay("startDate").optional(),
  endDate: calendarDay("endDate").optional(),
  search: z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional(),
  integrationId: z.uuid({ error: "integrationId must be the id (a UUID) of one of the organisation's store integrations" }).optional(),
  /** true: only the orders called at least once (GET /order/stats' `called`); false: only those never called. */
  called: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
});

export const orderIdParamsSchema = z.object({ id: z.uuid({ error: "the order id must be a UUID" }) });

/** POST /order/{id}/call: `confirm_consent` records the member's confirmation that the customer agreed to be called (asked for when the order has none). */
export const orderCallSchema = z.strictObject({ confirm_consent: z.boolean().optional() });
/** POST /order/{id}/paid: marks the order paid by hand (the amount defaults to its total). */
export const orderMarkPaidSchema = z.strictObject({ amount: amountSchema("amount").optional(), paid_at: instant("paid_at").optional() });

/** What happened to an order, oldest first. */
export const ORDER_EVENT_KINDS = ["abandoned", "imported", "queued", "call", "outcome", "paid", "stopped", "cancelled", "consent", "opted_out", "declined", "unreachable", "reopened"] as const;
export const orderTimelineEntrySchema = z.object({
  at: z.string(),
  kind: z.enum(ORDER_EVENT_KINDS),
  detail: z.string(),
  call_id: z.uuid().nullable(),
});
export const orderTimelineResponseSchema = z.object({ data: z.array(orderTimelineEntrySchema) });

/** POST /order/import (JSON; multipart takes a CSV in the field `file`, columns ORDER_CSV_COLUMNS). */
export const orderImportJsonSchema = z.strictObject({
  orders: z.array(z.record(z.string(), z.unknown())).min(1, { error: "orders must hold at least one order" }).max(10_000, { error: "at most 10,000 orders in one JSON import: upload a CSV for more" }),
});
export const orderImportReportSchema = z.object({
  /** New orders. */
  accepted: z.number().int(),
  /** Orders already known (same reference): updated, not duplicated. */
  updated: z.number().int(),
  /** Rows repeating a reference earlier in the same file. */
  duplicates: z.number().int(),
  /** Accepted orders without consent to be called (listed as no_consent, never dialled automatically). */
  no_consent: z.number().int(),
  invalid: z.array(z.object({ row: z.number().int(), reason: z.string() })),
  invalid_count: z.number().int(),
});
export const orderImportResponseSchema = z.object({ data: orderImportReportSchema });

/** GET /order/stats: the KPI cards, for the same filters as the list's dates (abandoned_at days) — recovery rate = recovered ÷ orders called. */
export const orderStatsSchema = z.object({
  orders: z.number().int(),
  called: z.number().int(),
  recovered: z.number().int(),
  recovery_rate: z.number().nullable(),
  recovered_revenue: z.array(z.object({ currency: z.string(), amount: z.number() })),
  /** Mean time from abandonment to payment of recovered orders, in seconds; null when none. */
  average_time_to_recovery_seconds: z.number().nullable(),
  by_status: z.record(z.enum(ORDER_STATUSES), z.number().int()),
});
export const orderStatsResponseSchema = z.object({ data: orderStatsSchema });
export const orderStatsQuerySchema = z.strictObject({ startDate: calendarDay("startDate").optional(), endDate: calendarDay("endDate").optional() });

// --- Follow-up settings -------------------------------------------------------------------------

/** A follow-up's schedule: a campaign's shape (windows, fallback zone); its windows must stay inside the calling hours (contract/calling-rules.ts). */
export const followUpScheduleSchema = z
  .strictObject({
    windows: z
      .array(campaignWindowSchema)
      .min(1, { error: "schedule.windows needs at least one calling window" })
      .max(CAMPAIGN_WINDOWS_MAX)
      .refine((windows) => windows.every(windowWithinCallingHours), { error: `schedule.windows: ${CALLING_HOURS_RULE}` }),
    fallback_timezone: timeZoneSchema("schedule.fallback_timezone").nullable().optional(),
    /** A follow-up runs continuously: start_at and end_at are accepted only as null. */
    start_at: z.null().optional(),
    end_at: z.null().optional(),
  });

export const followUpSettingsInputSchema = z.strictObject({
  enabled: z.boolean({ error: "enabled must be true or false" }),
  agent_id: z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" }).nullable().optional(),
  phone_number_id: z.uuid({ error: "phone_number_id must be the id (a UUID) of one of the organisation's phone numbers" }).nullable().optional(),
  delay_minutes: z.number({ error: "delay_minutes must be a number" }).int().min(0).max(FOLLOW_UP_DELAY_MAX_MINUTES, { error: `delay_minutes may be at most ${FOLLOW_UP_DELAY_MAX_MINUTES} (a week)` }).optional(),
  schedule: followUpScheduleSchema.optional(),
  retry: campaignRetrySchema.optional(),
  attribution_days: z.number({ error: "attribution_days must be a number" }).int().min(1).max(ATTRIBUTION_DAYS_MAX, { error: `attribution_days may be at most ${ATTRIBUTION_DAYS_MAX}` }).optional(),
  max_concurrency: z.number().int().min(1).max(1000).optional(),
});
export type FollowUpSettingsInput = z.input<typeof followUpSettingsInputSchema>;

export const followUpSettingsSchema = z.object({
  enabled: z.boolean(),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  phone_number_id: z.uuid().nullable(),
  phone_number: z.string().nullable(),
  delay_minutes: z.number().int(),
  schedule: z.object({
    windows: z.array(z.object({ days: z.array(z.string()), start: z.string(), end: z.string() })),
    fallback_timezone: z.string().nullable(),
    start_at: z.null(),
    end_at: z.null(),
  }),
  retry: z.object({ max_attempts: z.number().int(), delay_minutes: z.number().int(), on: z.array(z.string()) }),
  attribution_days: z.number().int(),
  max_concurrency: z.number().int(),
  /** The dialling state behind it: running, or paused with the reason (wallet, spend cap, provider…) until resumed by saving with enabled true. */
  state: z.enum(["off", "running", "paused"]),
  pause_reason: z.string().nullable(),
  /** The campaign that dials it (its calls carry this campaign_id in Call Logs). */
  campaign_id: z.uuid().nullable(),
});
export type FollowUpSettings = z.infer<typeof followUpSettingsSchema>;
export const followUpSettingsResponseSchema = z.object({ data: followUpSettingsSchema });

// --- Integrations -------------------------------------------------------------------------------

/**
 * A store's own signing key, used instead of a generated secret: Shopify signs the webhooks made in a
 * shop's admin with a key it shows there (and an app's with its client secret), and cannot be given ours.
 */
export const storeSecretSchema = z
  .string({ error: "secret must be text" })
  .trim()
  .min(16, { error: "secret must be at least 16 characters (paste the store's whole signing key)" })
  .max(256, { error: "secret must be at most 256 characters" })
  .regex(/^[\x21-\x7e]+$/, { error: "secret must be printable ASCII without spaces" });

export const integrationCreateSchema = z.strictObject({
  kind: z.enum(INTEGRATION_KINDS, { error: `kind must be one of ${INTEGRATION_KINDS.join(", ")}` }),
  name: z.string({ error: "name is required" }).trim().min(1, { error: "name is required" }).max(INTEGRATION_NAME_MAX_LENGTH),
  /** The store's signing key (Shopify's), when the store makes the secret; else one is generated. */
  secret: storeSecretSchema.optional(),
});
/** POST /integration/{id}/rotate-secret: a new generated secret, or the store's signing key given here. */
export const integrationRotateSecretSchema = z.strictObject({ secret: storeSecretSchema.optional() });
/** PUT /integration/{id}: the name, and follow-up settings of its own (null: the organisation's). */
export const integrationUpdateSchema = z.strictObject({
  name: integrationCreateSchema.shape.name.optional(),
  follow_up: followUpSettingsInputSchema.nullable().optional(),
});

export const integrationSchema = z.object({
  id: z.uuid(),
  kind: z.enum(INTEGRATION_KINDS),
  name: z.string(),
  /** Where the store posts its webhooks (PUBLIC_URL + the kind's path). */
  webhook_url: z.string(),
  /** The secret's last four characters (the whole secret is shown once, at creation or rotation). */
  secret_hint: z.string(),
  /** The embedded demo store (sandbox only): it sends its own paid events. */
  is_demo: z.boolean(),
  follow_up: followUpSettingsSchema.nullable(),
  orders: z.number().int(),
  last_delivery_at: z.string().nullable(),
  secret_rotated_at: z.string().nullable(),
  created_at: z.string(),
});
export type Integration = z.infer<typeof integrationSchema>;
export const integrationListResponseSchema = listResponseSchema(integrationSchema);
export const integrationResponseSchema = z.object({ data: integrationSchema });
/** POST /integration/ (201) and POST /integration/{id}/rotate-secret: the only answers that carry the secret. */
export const integrationWithSecretResponseSchema = z.object({ data: integrationSchema.extend({ secret: z.string() }) });
export const integrationIdParamsSchema = z.object({ id: z.uuid({ error: "the integration id must be a UUID" }) });
