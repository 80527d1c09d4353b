/**
 * The organisation's subscription as GET /subscription/ answers it, and what a change of plan would do
 * (GET /subscription/preview). Reading writes nothing: an organisation without a billing row is on
 * DEFAULT_PLAN, active.
 */
import type { PaymentMode } from "../../contract/billing-shared";
import { PLAN_LIMIT_KEYS, PLAN_ORDER, PLANS, type PlanId, type SubscriptionStatus } from "../../contract/plans";
import type { Dashboard } from "../../contract/dashboard";
import type { PlanPreview, Subscription } from "../../contract/subscription";
import type { Db } from "../db/client";
import type { BillingAccountRow } from "./account";
import { billingAccountOf, effectivePlan, graceEndsAt, overLimits, planUsage, type PlanSettings } from "./plan-limits";
import { nextRetentionSweep, retentionDue } from "./sweeps";

export async function readSubscription(db: Db, orgId: string, settings: PlanSettings, payments: PaymentMode): Promise<Subscription> {
  const [account, usage] = await Promise.all([billingAccountOf(db, orgId), planUsage(db, orgId)]);
  const plan = effectivePlan(account, settings);
  const grace = account ? graceEndsAt(account) : null;
  return {
    plan: PLANS[plan],
    status: ((account?.subscriptionStatus ?? "active") as SubscriptionStatus),
    limits: PLANS[plan].limits,
    usage,
    current_period_end: account?.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: account?.cancelAtPeriodEnd ?? false,
    past_due_since: account?.pastDueSince?.toISOString() ?? null,
    grace_ends_at: grace?.toISOString() ?? null,
    payments,
    over_limits: overLimits(plan, usage),
  };
}

/** A subscription the provider still bills (a change to Free cancels it at the period's end instead of at once). */
export function hasLiveSubscription(account: Pick<BillingAccountRow, "subscriptionId" | "subscriptionStatus"> | null): boolean {
  return account !== null && account.subscriptionId !== null && account.subscriptionStatus !== "canceled";
}

/**
 * What a change to `to` does: the price and limits that change, what is over the new limits (kept, nothing new),
 * and the call history the retention sweep will then redact under the new plan's days (sweeps.ts retentionDue, the
 * sweep's own rule), counted when the new plan applies: at once, or at the period's end when a cancellation waits for it.
 */
export async function previewPlanChange(db: Db, orgId: string, to: PlanId, settings: PlanSettings, sweepEveryMs: number, now = new Date()): Promise<PlanPreview> {
  const [account, usage] = await Promise.all([billingAccountOf(db, orgId), planUsage(db, orgId)]);
  const from = effectivePlan(account, settings);
  const order = PLAN_ORDER.indexOf(to) - PLAN_ORDER.indexOf(from);
  const fromPrice = PLANS[from].price_usd_monthly;
  const toPrice = PLANS[to].price_usd_monthly;
  return {
    from,
    to,
    direction: order > 0 ? "upgrade" : order < 0 ? "downgrade" : "same",
    price_change_usd: fromPrice === null || toPrice === null ? null : toPrice - fromPrice,
    changes: PLAN_LIMIT_KEYS.filter((key) => PLANS[from].limits[key] !== PLANS[to].limits[key]).map((key) => ({
      limit: key,
      from: PLANS[from].limits[key],
      to: PLANS[to].limits[key],
    })),
    over_limits: overLimits(to, usage),
    retention: await retentionPreview(db, orgId, account, to, sweepEveryMs, now),
    contact_sales: PLANS[to].contact_sales,
  };
}

async function retentionPreview(db: Db, orgId: string, account: BillingAccountRow | null, to: PlanId, sweepEveryMs: number, now: Date): Promise<PlanPreview["retention"]> {
  const days = PLANS[to].limits.retention_days;
  if (days === null) return null;
  // POST /subscription/change cancels a live subscription at the period's end for Free: the plan, and the sweep's
  // new days, apply then.
  const atPeriodEnd = to === "free" && hasLiveSubscription(account);
  const periodEnd = atPeriodEnd ? (account?.currentPeriodEnd ?? null) : null;
  const at = periodEnd && periodEnd > now ? periodEnd : now;
  const [due, nextSweep] = await Promise.all([retentionDue(db, orgId, days, at), atPeriodEnd ? null : nextRetentionSweep(db, sweepEveryMs, now)]);
  return {
    days,
    calls: due.calls,
    cutoff: due.cutoff.toISOString(),
    at_period_end: atPeriodEnd,
    applies_at: periodEnd?.toISOString() ?? null,
    next_sweep_at: nextSweep?.toISOString() ?? null,
    sweep_every_seconds: Math.round(sweepEveryMs / 1000),
  };
}

/** GET /dashboard/'s plan card: the plan, its status and the usage against each limit (retention_days: nothing is used). */
export async function dashboardPlan(db: Db, orgId: string, settings: PlanSettings): Promise<NonNullable<Dashboard["plan"]>> {
  const [account, usage] = await Promise.all([billingAccountOf(db, orgId), planUsage(db, orgId)]);
  const plan = effectivePlan(account, settings);
  return {
    id: plan,
    name: PLANS[plan].name,
    status: (account?.subscriptionStatus ?? "active") as SubscriptionStatus,
    usage: PLAN_LIMIT_KEYS.filter((key) => key !== "retention_days").map((key) => ({
      limit: key,
      used: usage[key as keyof typeof usage],
      allowed: PLANS[plan].limits[key],
    })),
  };
}
