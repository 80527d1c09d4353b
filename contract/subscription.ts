import { z } from "zod";
import { PAYMENT_MODES } from "./billing-shared";
import { PLAN_IDS, PLAN_LIMIT_KEYS, SUBSCRIPTION_STATUSES, type PlanLimitKey } from "./plans";

export * from "./plans";

/**
 * Subscriptions (issue 15): GET /subscription/plans (the catalogue, contract/plans.ts), GET /subscription/
 * (plan, status, limits, usage against them), GET /subscription/preview?plan= (what a change does),
 * POST /subscription/change {plan} (admins: Checkout in subscription mode for a first paid plan, else
 * the subscription is updated; to free cancels at period end) and POST /subscription/portal (Stripe's
 * customer portal, or the sandbox's page).
 */

const limitsShape = Object.fromEntries(PLAN_LIMIT_KEYS.map((key) => [key, z.number().int().nullable()])) as Record<PlanLimitKey, z.ZodNullable<z.ZodNumber>>;
export const planLimitsSchema = z.object(limitsShape);

export const planSchema = z.object({
  id: z.enum(PLAN_IDS),
  name: z.string(),
  price_usd_monthly: z.number().nullable(),
  tagline: z.string(),
  limits: planLimitsSchema,
  contact_sales: z.boolean(),
});
export const plansResponseSchema = z.object({ data: z.array(planSchema) });

/** What the organisation uses of each limit now (retention_days: the plan's own figure, nothing is "used"). */
export const planUsageSchema = z.object({
  concurrent_calls: z.number().int(),
  agents: z.number().int(),
  phone_numbers: z.number().int(),
  /** The largest campaign's contacts. */
  campaign_contacts: z.number().int(),
  seats: z.number().int(),
});
export type PlanUsage = z.infer<typeof planUsageSchema>;

export const subscriptionSchema = z.object({
  plan: planSchema,
  status: z.enum(SUBSCRIPTION_STATUSES),
  limits: planLimitsSchema,
  usage: planUsageSchema,
  // Beside the minimum contract:
  current_period_end: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  past_due_since: z.string().nullable(),
  /** When a past-due subscription falls back to Free. */
  grace_ends_at: z.string().nullable(),
  payments: z.enum(PAYMENT_MODES),
  /** Limits the organisation is over now (after a downgrade): new things of that kind are refused. */
  over_limits: z.array(z.object({ limit: z.enum(PLAN_LIMIT_KEYS), usage: z.number().int(), allowed: z.number().int() })),
});
export type Subscription = z.infer<typeof subscriptionSchema>;
export const subscriptionResponseSchema = z.object({ data: subscriptionSchema });

export const planChangeRequestSchema = z.strictObject({ plan: z.enum(PLAN_IDS, { error: `plan must be one of ${PLAN_IDS.join(", ")}` }) });
export const planPreviewQuerySchema = planChangeRequestSchema;

export const planPreviewSchema = z.object({
  from: z.enum(PLAN_IDS),
  to: z.enum(PLAN_IDS),
  direction: z.enum(["upgrade", "downgrade", "same"]),
  /** Monthly price difference (USD); null when either is custom. */
  price_change_usd: z.number().nullable(),
  changes: z.array(z.object({ limit: z.enum(PLAN_LIMIT_KEYS), from: z.number().int().nullable(), to: z.number().int().nullable() })),
  /** What is over the new plan's limits (kept, but nothing new of that kind until under). */
  over_limits: z.array(z.object({ limit: z.enum(PLAN_LIMIT_KEYS), usage: z.number().int(), allowed: z.number().int() })),
  /**
   * The call history the retention sweep deletes under the new plan (transcripts, messages and recordings; summaries,
   * outcomes and costs stay), by the sweep's own rule; null when the new plan keeps it without limit.
   */
  retention: z
    .object({
      /** The new plan's retention_days. */
      days: z.number().int(),
      /** Calls placed before `cutoff` that still have their transcript and recordings: what the sweep deletes. */
      calls: z.number().int(),
      cutoff: z.string(),
      /** The new plan applies at the end of the period (a cancellation to Free): counted as of then; else at once. */
      at_period_end: z.boolean(),
      /** That end of the period, when known. */
      applies_at: z.string().nullable(),
      /** When the sweep next runs, for a change that applies at once (null: not known). */
      next_sweep_at: z.string().nullable(),
      /** How often the sweep runs (BILLING_SWEEP_SECONDS). */
      sweep_every_seconds: z.number().int(),
    })
    .nullable(),
  /** Enterprise: contact sales instead. */
  contact_sales: z.boolean(),
});
export type PlanPreview = z.infer<typeof planPreviewSchema>;
export const planPreviewResponseSchema = z.object({ data: planPreviewSchema });

export const planChangeResultSchema = z.object({
  data: z.object({
    /** Checkout (subscription mode) or the sandbox's dialog, when the change needs the card; null when applied at once. */
    url: z.string().nullable(),
    subscription: subscriptionSchema,
  }),
});
