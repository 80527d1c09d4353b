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
import { billingAccountOf, effectivePlan, graceEndsAt, overLimits, planUsage, type PlanSettings } from "./plan-limits";

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

export async function previewPlanChange(db: Db, orgId: string, to: PlanId, settings: PlanSettings): Promise<PlanPreview> {
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
    contact_sales: PLANS[to].contact_sales,
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
