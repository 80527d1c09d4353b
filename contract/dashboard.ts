import { z } from "zod";
import { dayRangeQuerySchema } from "./day-range";
import { CALL_OUTCOMES } from "./call-outcome";
import { campaignCountsSchema } from "./campaign";
import { PAUSE_CODES } from "./campaign-shared";
import { DASHBOARD_MAX_DAYS } from "./dashboard-paths";
import { timeZoneSchema } from "./time-zone";
import { PLAN_IDS, PLAN_LIMIT_KEYS, SUBSCRIPTION_STATUSES } from "./plans";

export * from "./dashboard-paths";

/**
 * GET /dashboard/ (spec §7; members and admins of the active organisation): how the organisation's
 * calls went over a period of days, beside the period of the same length just before it.
 *
 * - Days are calendar days in the organisation's time zone (GET/PATCH /organization/settings,
 *   default UTC); `endDate` is included whole. Default: the last DASHBOARD_DEFAULT_DAYS days, today
 *   (in that zone) included. At most DASHBOARD_MAX_DAYS days.
 * - A call counts on the day it started (`started_at`), as the call list's date range does: the
 *   dashboard's figures for a filter equal what GET /call/ gives for the same startDate, endDate,
 *   timezone and agentId.
 * - calls: every call; minutes: the sum of durations ÷ 60, rounded to 0.1; cost: USD (exact sum of
 *   the calls' costs; a call in progress has none yet); avg_duration_seconds: over calls with a
 *   duration; answer_rate: answered ÷ ended (contract/call-outcome.ts); success_rate: pass ÷ (pass +
 *   fail) (contract/success-outcome.ts); cost_per_minute: cost ÷ minutes (exact seconds). A rate whose
 *   denominator is 0 is null, not 0.
 * - series: one entry per day of the period, oldest first, days without calls as zeros.
 * - agents: per agent with calls in the period, most calls first; calls whose agent was deleted are
 *   one row with agent_id null.
 * - wallet: the balance now (USD) and what calls not ended yet hold of it.
 * - campaigns: what is dialling now, whatever the period and agent: how many campaigns are running, and
 *   the running, scheduled and paused ones (at most DASHBOARD_CAMPAIGNS_MAX: running first, then
 *   scheduled, then paused, most recently changed first) with their contact counts, progress (finished
 *   contacts ÷ all, 0..1), next_window_at, and a paused one's pause_code and pause_reason (as GET /campaign/{id}).
 */


export const dashboardQuerySchema = dayRangeQuerySchema(DASHBOARD_MAX_DAYS);
export type DashboardQuery = z.input<typeof dashboardQuerySchema>;

const rate = z.number().min(0).max(1).nullable();

export const dashboardTotalsSchema = z.object({
  calls: z.number().int(),
  /** Sum of durations ÷ 60, rounded to 0.1. */
  minutes: z.number(),
  /** USD. */
  cost: z.number(),
  avg_duration_seconds: z.number().nullable(),
  answer_rate: rate,
  success_rate: rate,
  /** USD per minute. */
  cost_per_minute: z.number().nullable(),
  // Beside the minimum contract: the counts the rates are made of.
  ended: z.number().int(),
  answered: z.number().int(),
  evaluated: z.number().int(),
  successful: z.number().int(),
  duration_seconds: z.number().int(),
});
export type DashboardTotals = z.infer<typeof dashboardTotalsSchema>;

export const dashboardOutcomesSchema = z.object(Object.fromEntries(CALL_OUTCOMES.map((outcome) => [outcome, z.number().int()])) as Record<(typeof CALL_OUTCOMES)[number], z.ZodNumber>);
export type DashboardOutcomes = z.infer<typeof dashboardOutcomesSchema>;

export const dashboardDaySchema = z.object({
  /** YYYY-MM-DD in the organisation's time zone. */
  date: z.string(),
  calls: z.number().int(),
  minutes: z.number(),
  cost: z.number(),
  answered: z.number().int(),
  successful: z.number().int(),
});
export type DashboardDay = z.infer<typeof dashboardDaySchema>;

export const dashboardAgentSchema = z.object({
  /** null: calls whose agent was deleted. */
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  calls: z.number().int(),
  minutes: z.number(),
  cost: z.number(),
  success_rate: rate,
  answer_rate: rate,
});
export type DashboardAgent = z.infer<typeof dashboardAgentSchema>;

export const DASHBOARD_CAMPAIGNS_MAX = 5;

export const dashboardCampaignSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(["running", "scheduled", "paused"]),
  counts: campaignCountsSchema,
  /** Finished contacts ÷ all contacts, 0..1 (0 without contacts). */
  progress: z.number().min(0).max(1),
  next_window_at: z.string().nullable(),
  /** A paused campaign's cause and the sentence a person reads (as GET /campaign/{id}); null otherwise. */
  pause_code: z.enum(PAUSE_CODES).nullable(),
  pause_reason: z.string().nullable(),
});
export type DashboardCampaign = z.infer<typeof dashboardCampaignSchema>;

const periodSchema = z.object({ start_date: z.string(), end_date: z.string() });

/** The dashboard's upcoming appointments card shows at most this many. */
export const DASHBOARD_APPOINTMENTS_MAX = 5;

export const dashboardAppointmentSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  customer_name: z.string().nullable(),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  source: z.string(),
  call_id: z.uuid().nullable(),
});

export const dashboardSchema = z.object({
  period: periodSchema.extend({ timezone: z.string(), days: z.number().int() }),
  previous_period: periodSchema,
  totals: dashboardTotalsSchema,
  previous: dashboardTotalsSchema,
  outcomes: dashboardOutcomesSchema,
  previous_outcomes: dashboardOutcomesSchema,
  series: z.array(dashboardDaySchema),
  agents: z.array(dashboardAgentSchema),
  wallet: z.object({
    /** USD. */
    balance: z.number(),
    /** USD held by calls not ended yet. */
    held: z.number(),
    /** balance − held. */
    available: z.number(),
    // Issue 15 (the wallet card): spend this month in the organisation's zone, auto-reload, and whether the balance is low.
    month_to_date: z.number().optional(),
    auto_reload_enabled: z.boolean().optional(),
    low_balance: z.boolean().optional(),
  }),
  /** Issue 15 (the plan-usage card): the plan, its status and the usage against each limit (null limit: none). */
  plan: z
    .object({
      id: z.enum(PLAN_IDS),
      name: z.string(),
      status: z.enum(SUBSCRIPTION_STATUSES),
      usage: z.array(z.object({ limit: z.enum(PLAN_LIMIT_KEYS), used: z.number().int(), allowed: z.number().int().nullable() })),
    })
    .optional(),
  /** Whether the organisation has any agent and any call at all (the first-run state). */
  setup: z.object({ agents: z.number().int(), calls_ever: z.boolean() }),
  campaigns: z.object({ running: z.number().int(), items: z.array(dashboardCampaignSchema) }),
  /**
   * The calendar (issue 14), whatever the period and agent: booked appointments starting today and in the
   * next 7 days (in the organisation's zone; next_7_days counts from now), and the next few, soonest first.
   */
  appointments: z.object({
    today: z.number().int(),
    next_7_days: z.number().int(),
    upcoming: z.array(dashboardAppointmentSchema),
  }),
  /**
   * Orders (issue 16; the recovered-revenue card), for the period's days in the organisation's zone, not
   * tied to the agent filter: recovered = orders recovered with paid_at in the period (recovered_revenue
   * their amounts, per currency, in its major unit); called = orders with a follow-up call placed in the
   * period; recovery_rate = of the orders called in the period, the share recovered by now, 0 to 1 (null when
   * none was called; not recovered ÷ called: an order called before the period and paid in it is in the first
   * and not the second).
   */
  orders: z
    .object({
      recovered: z.number().int(),
      called: z.number().int(),
      recovery_rate: z.number().min(0).max(1).nullable(),
      recovered_revenue: z.array(z.object({ currency: z.string(), amount: z.number() })),
    })
    .optional(),
});
export type Dashboard = z.infer<typeof dashboardSchema>;

export const dashboardResponseSchema = z.object({ data: dashboardSchema });


export const organizationSettingsSchema = z.object({ timezone: z.string() });
export type OrganizationSettings = z.infer<typeof organizationSettingsSchema>;
export const organizationSettingsResponseSchema = z.object({ data: organizationSettingsSchema });
export const organizationSettingsPatchSchema = z.strictObject({ timezone: timeZoneSchema("timezone") });
export type OrganizationSettingsPatch = z.input<typeof organizationSettingsPatchSchema>;
