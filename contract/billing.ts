import { z } from "zod";
import { calendarDay, dayRangeQuerySchema } from "./day-range";
import {
  AUTO_RELOAD_MAX_AMOUNT_USD,
  AUTO_RELOAD_MAX_THRESHOLD_USD,
  AUTO_RELOAD_MIN_AMOUNT_USD,
  AUTO_RELOAD_STATUSES,
  BILLING_ALERT_CODES,
  BILLING_DOCUMENT_KINDS,
  LEDGER_MAX_PAGE_SIZE,
  LEDGER_PAGE_SIZE,
  PAYMENT_MODES,
  SPEND_CAP_MAX_USD,
  SPEND_CAP_PERIODS,
  SPEND_CAP_SCOPES,
  SPEND_CAPS_MAX,
  TOP_UP_KINDS,
  TOP_UP_MAX_USD,
  TOP_UP_MIN_USD,
  TOP_UP_STATUSES,
  USAGE_COMPONENTS,
  USAGE_MAX_DAYS,
} from "./billing-shared";
import { WALLET_LEDGER_KINDS } from "./wallet";

export * from "./billing-shared";

/**
 * Billing (issue 15): the wallet's ledger, top-ups, auto-reload, spend caps, usage and documents.
 * Members read everything; admins move money (top-ups, refunds, auto-reload, caps, the card).
 * Amounts are USD numbers on the wire (at most 6 decimals: the server's micro-dollars); request
 * amounts have at most 2 decimals (cents).
 */

const cents = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number of US dollars` })
    .min(min, { error: `${field} must be at least $${min}` })
    .max(max, { error: `${field} must be at most $${max.toLocaleString("en-US")}` })
    .refine((value) => Math.abs(Math.round(value * 100) - value * 100) < 1e-6, { error: `${field} may have at most 2 decimals (cents)` });

const day = calendarDay;

// ---------------------------------------------------------------------------------------------- top-ups

export const topUpRequestSchema = z.strictObject({
  amount_usd: cents("amount_usd", TOP_UP_MIN_USD, TOP_UP_MAX_USD),
  /** Save the card for auto-reload (Checkout's setup_future_usage off_session). Default true. */
  save_card: z.boolean().default(true),
});
export type TopUpRequest = z.input<typeof topUpRequestSchema>;

export const topUpCreatedSchema = z.object({
  data: z.object({
    top_up_id: z.uuid(),
    /** Stripe's Checkout URL, or the sandbox's checkout page in the console. */
    url: z.string(),
  }),
});

export const topUpSchema = z.object({
  id: z.uuid(),
  amount_usd: z.number(),
  status: z.enum(TOP_UP_STATUSES),
  created_at: z.string(),
  // Beside the minimum contract:
  kind: z.enum(TOP_UP_KINDS),
  paid_at: z.string().nullable(),
  /** Why it failed, for a person (declined, insufficient funds, needs authentication…). */
  failure_message: z.string().nullable(),
  failure_code: z.string().nullable(),
  refunded_usd: z.number(),
  receipt_url: z.string().nullable(),
  sandbox: z.boolean(),
});
export type TopUp = z.infer<typeof topUpSchema>;
export const topUpResponseSchema = z.object({ data: topUpSchema });

export const refundRequestSchema = z.strictObject({
  /** Default: what is left of the top-up; never more than the balance. */
  amount_usd: cents("amount_usd", 0.01, TOP_UP_MAX_USD).optional(),
});

// ---------------------------------------------------------------------------------------- auto-reload

export const autoReloadSchema = z.object({
  enabled: z.boolean(),
  amount_usd: z.number(),
  threshold_usd: z.number(),
  monthly_cap_usd: z.number().nullable(),
  status: z.enum(AUTO_RELOAD_STATUSES),
  failures: z.number().int(),
  last_error: z.string().nullable(),
  reloaded_this_month_usd: z.number(),
  in_flight: z.boolean(),
});
export type AutoReload = z.infer<typeof autoReloadSchema>;

export const autoReloadRequestSchema = z
  .strictObject({
    enabled: z.boolean(),
    amount_usd: cents("amount_usd", AUTO_RELOAD_MIN_AMOUNT_USD, AUTO_RELOAD_MAX_AMOUNT_USD),
    threshold_usd: cents("threshold_usd", 0, AUTO_RELOAD_MAX_THRESHOLD_USD),
    monthly_cap_usd: cents("monthly_cap_usd", AUTO_RELOAD_MIN_AMOUNT_USD, 1_000_000).nullable().default(null),
  })
  .refine((value) => value.monthly_cap_usd === null || value.monthly_cap_usd >= value.amount_usd, {
    path: ["monthly_cap_usd"],
    error: "monthly_cap_usd must be at least amount_usd (otherwise no reload could ever run)",
  });
export type AutoReloadRequest = z.input<typeof autoReloadRequestSchema>;

// ------------------------------------------------------------------------------------------ spend caps

export const spendCapInputSchema = z.discriminatedUnion("scope", [
  z.strictObject({ scope: z.literal("organization"), period: z.enum(SPEND_CAP_PERIODS), limit_usd: cents("limit_usd", 0.01, SPEND_CAP_MAX_USD) }),
  z.strictObject({
    scope: z.literal("agent"),
    agent_id: z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" }),
    period: z.enum(SPEND_CAP_PERIODS),
    limit_usd: cents("limit_usd", 0.01, SPEND_CAP_MAX_USD),
  }),
]);
export type SpendCapInput = z.infer<typeof spendCapInputSchema>;

export const spendCapsRequestSchema = z
  .strictObject({ caps: z.array(spendCapInputSchema).max(SPEND_CAPS_MAX, { error: `at most ${SPEND_CAPS_MAX} caps` }) })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.caps.forEach((cap, index) => {
      const key = `${cap.scope}:${cap.scope === "agent" ? cap.agent_id : ""}:${cap.period}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["caps", index], message: "each scope (and agent) may have one cap per period" });
      seen.add(key);
    });
  });
export type SpendCapsRequest = z.input<typeof spendCapsRequestSchema>;

export const spendCapSchema = z.object({
  id: z.uuid(),
  scope: z.enum(SPEND_CAP_SCOPES),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  period: z.enum(SPEND_CAP_PERIODS),
  limit_usd: z.number(),
  /** Spent in the current day or month (the organisation's time zone). */
  spent_usd: z.number(),
  remaining_usd: z.number(),
  /** spent ÷ limit, 0..1+. */
  progress: z.number(),
  reached: z.boolean(),
  /** When the period starts again (ISO instant). */
  resets_at: z.string(),
});
export type SpendCap = z.infer<typeof spendCapSchema>;
export const spendCapsResponseSchema = z.object({ data: z.array(spendCapSchema) });

// ----------------------------------------------------------------------------------------------- card

export const cardSchema = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  sandbox: z.boolean(),
});
export type Card = z.infer<typeof cardSchema>;

// ------------------------------------------------------------------------------------------ GET /billing/

export const billingAlertSchema = z.object({ code: z.enum(BILLING_ALERT_CODES), detail: z.string() });
export type BillingAlert = z.infer<typeof billingAlertSchema>;

export const billingSummarySchema = z.object({
  balance_usd: z.number(),
  /** The balance less what calls not ended yet hold of it. */
  available_usd: z.number(),
  month_to_date_usd: z.number(),
  auto_reload: autoReloadSchema,
  spend_caps: z.array(spendCapSchema),
  card: cardSchema.nullable(),
  // Beside the minimum contract:
  held_usd: z.number(),
  currency: z.literal("USD"),
  time_zone: z.string(),
  payments: z.enum(PAYMENT_MODES),
  alerts: z.array(billingAlertSchema),
  /** A top-up whose checkout has not finished (the console polls it after the return). */
  pending_top_up_id: z.uuid().nullable(),
});
export type BillingSummary = z.infer<typeof billingSummarySchema>;
export const billingSummaryResponseSchema = z.object({ data: billingSummarySchema });

// ----------------------------------------------------------------------------------------------- ledger

export const ledgerQuerySchema = z
  .strictObject({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(LEDGER_MAX_PAGE_SIZE).default(LEDGER_PAGE_SIZE),
    /** Days in the organisation's time zone, endDate included. */
    startDate: day("startDate").optional(),
    endDate: day("endDate").optional(),
    /** One kind or several, comma-separated. */
    kind: z
      .string()
      .refine((value) => value.split(",").every((part) => (WALLET_LEDGER_KINDS as readonly string[]).includes(part.trim())), {
        error: `kind must be one or more of ${WALLET_LEDGER_KINDS.join(", ")}, comma-separated`,
      })
      .optional(),
    agentId: z.uuid({ error: "agentId must be the id (a UUID) of one of the organisation's agents" }).optional(),
    /** Matches the description, or a call or top-up id. */
    q: z.string().trim().max(200).optional(),
    /** On the amount's size (USD, debits and credits alike). */
    minAmount: z.coerce.number().min(0).optional(),
    maxAmount: z.coerce.number().min(0).optional(),
  })
  .refine((value) => !value.startDate || !value.endDate || value.endDate >= value.startDate, { path: ["endDate"], error: "endDate must be the same day as startDate or later" })
  .refine((value) => value.minAmount === undefined || value.maxAmount === undefined || value.maxAmount >= value.minAmount, {
    path: ["maxAmount"],
    error: "maxAmount must be at least minAmount",
  });
export type LedgerQuery = z.input<typeof ledgerQuerySchema>;

export const ledgerEntrySchema = z.object({
  id: z.uuid(),
  amount_usd: z.number(),
  balance_after_usd: z.number(),
  kind: z.enum(WALLET_LEDGER_KINDS),
  call_id: z.uuid().nullable(),
  created_at: z.string(),
  // Beside the minimum contract:
  description: z.string(),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  top_up_id: z.uuid().nullable(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;
export const ledgerListSchema = z.object({ data: z.array(ledgerEntrySchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });

// ------------------------------------------------------------------------------------------------ usage

export const usageQuerySchema = dayRangeQuerySchema(USAGE_MAX_DAYS);
export type UsageQuery = z.input<typeof usageQuerySchema>;

export const usageComponentsSchema = z.object(Object.fromEntries(USAGE_COMPONENTS.map((component) => [component, z.number()])) as Record<(typeof USAGE_COMPONENTS)[number], z.ZodNumber>);
export type UsageComponents = z.infer<typeof usageComponentsSchema>;

const usageFigures = {
  cost_usd: z.number(),
  calls: z.number().int(),
  seconds: z.number().int(),
  /** seconds ÷ 60, rounded to 0.1. */
  minutes: z.number(),
  /** cost ÷ minutes (exact seconds); null without minutes. */
  avg_cost_per_minute_usd: z.number().nullable(),
  /** The parts add up exactly to cost_usd. */
  components: usageComponentsSchema,
};

export const usageSchema = z.object({
  time_zone: z.string(),
  start_date: z.string(),
  end_date: z.string(),
  totals: z.object(usageFigures),
  /** Every day of the range, oldest first, days without usage as zeros. */
  days: z.array(z.object({ date: z.string(), ...usageFigures })),
  /** Per agent with usage in the range, most cost first; agent_id null for calls without an agent (or a deleted one: agent_name null). */
  agents: z.array(z.object({ agent_id: z.string().nullable(), agent_name: z.string().nullable(), ...usageFigures })),
});
export type Usage = z.infer<typeof usageSchema>;
export const usageResponseSchema = z.object({ data: usageSchema });

// -------------------------------------------------------------------------------------------- documents

export const billingDocumentSchema = z.object({
  id: z.uuid(),
  kind: z.enum(BILLING_DOCUMENT_KINDS),
  number: z.string(),
  amount_usd: z.number(),
  description: z.string(),
  created_at: z.string(),
  /** Stripe's hosted receipt or invoice; for the sandbox's, the console's printable page (/billing/documents/{id}). */
  url: z.string(),
  top_up_id: z.uuid().nullable(),
  sandbox: z.boolean(),
});
export type BillingDocument = z.infer<typeof billingDocumentSchema>;
export const billingDocumentListSchema = z.object({ data: z.array(billingDocumentSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export const billingDocumentResponseSchema = z.object({
  data: billingDocumentSchema.extend({ organization_name: z.string(), lines: z.array(z.object({ description: z.string(), amount_usd: z.number() })) }),
});

// --------------------------------------------------------------------------------------- sandbox checkout

export const sandboxCheckoutSchema = z.object({
  id: z.string(),
  mode: z.enum(["payment", "subscription"]),
  amount_usd: z.number(),
  description: z.string(),
  /** For subscription mode: the plan bought. */
  plan: z.string().nullable(),
  status: z.enum(["open", "complete", "expired"]),
  save_card: z.boolean(),
  success_url: z.string(),
  cancel_url: z.string(),
  sandbox: z.literal(true),
});
export type SandboxCheckout = z.infer<typeof sandboxCheckoutSchema>;
export const sandboxCheckoutResponseSchema = z.object({ data: sandboxCheckoutSchema });

export const sandboxPayRequestSchema = z.strictObject({
  card_number: z
    .string()
    .transform((value) => value.replace(/[\s-]/g, ""))
    .pipe(z.string().regex(/^\d{12,19}$/, { error: "card_number must be 12 to 19 digits" })),
  exp_month: z.number().int().min(1).max(12).default(12),
  exp_year: z.number().int().min(2000).max(2100).default(2034),
  /** For a card that asks for authentication: the person confirmed in the dialog. */
  authenticated: z.boolean().default(false),
});
export const sandboxPayResultSchema = z.object({
  data: z.object({
    status: z.enum(["complete", "declined", "requires_action"]),
    /** For a person: why it was declined, or what to do. */
    detail: z.string(),
    /** Where to go next (the success URL once complete). */
    redirect_url: z.string().nullable(),
  }),
});

/** Answers that are a place to send the browser (portal, checkout). */
export const billingUrlResponseSchema = z.object({ data: z.object({ url: z.string() }) });
