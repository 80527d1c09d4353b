/**
 * The plans (issue 15), zod-free so the console can import them. Prices are for display; the Stripe
 * price ids come from configuration (STRIPE_PRICE_STARTER, STRIPE_PRICE_PRO). A limit of null is no limit.
 *
 * - A new organisation starts on DEFAULT_PLAN (default `free`; a self-hosted install sets `enterprise`,
 *   which has no limits).
 * - Limits are checked on the server where each thing is made, in the same transaction as the insert,
 *   under the organisation's row lock: two requests at once cannot both pass the last free place.
 *   Refusals are 403 `plan_limit_reached` with planLimitDetail's sentence.
 * - concurrent_calls: calls not ended at once (phone, web, public, campaign); the dialler only fills free places.
 * - seats: members plus pending invitations.
 * - campaign_contacts: contacts in one campaign.
 * - retention_days: calls older than this lose their transcript, messages and recordings (the ledger
 *   and usage stay: they are financial records).
 * - A downgrade keeps the agents, numbers, seats and contacts that exist; only new things over the new limit are
 *   refused. Call history is not kept: the retention sweep then removes the transcripts and recordings of calls past
 *   the new plan's retention_days, and the preview counts them first (server/billing/sweeps.ts retentionDue).
 * - A past-due subscription keeps its plan for SUBSCRIPTION_GRACE_DAYS, then falls back to Free.
 */

export const PLAN_IDS = ["free", "starter", "pro", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const PLAN_LIMIT_KEYS = ["concurrent_calls", "agents", "phone_numbers", "campaign_contacts", "seats", "retention_days"] as const;
export type PlanLimitKey = (typeof PLAN_LIMIT_KEYS)[number];
export type PlanLimits = Record<PlanLimitKey, number | null>;

export interface Plan {
  id: PlanId;
  name: string;
  /** USD a month, for display; null: custom (Enterprise). */
  price_usd_monthly: number | null;
  tagline: string;
  limits: PlanLimits;
  /** Bought through sales, not the console (Enterprise). */
  contact_sales: boolean;
}

export const PLANS: Record<PlanId, Plan> = {
  free: {
    id: "free",
    name: "Free",
    price_usd_monthly: 0,
    tagline: "Try every feature with one line.",
    limits: { concurrent_calls: 1, agents: 2, phone_numbers: 1, campaign_contacts: 50, seats: 2, retention_days: 14 },
    contact_sales: false,
  },
  starter: {
    id: "starter",
    name: "Starter",
    price_usd_monthly: 49,
    tagline: "For a team putting its first agents in front of customers.",
    limits: { concurrent_calls: 5, agents: 10, phone_numbers: 5, campaign_contacts: 5_000, seats: 5, retention_days: 90 },
    contact_sales: false,
  },
  pro: {
    id: "pro",
    name: "Pro",
    price_usd_monthly: 199,
    tagline: "For agents that run the phones all day.",
    limits: { concurrent_calls: 20, agents: 50, phone_numbers: 25, campaign_contacts: 100_000, seats: 25, retention_days: 365 },
    contact_sales: false,
  },
  enterprise: {
    id: "enterprise",
    name: "Enterprise",
    price_usd_monthly: null,
    tagline: "No limits, custom terms, and a person to call.",
    limits: { concurrent_calls: null, agents: null, phone_numbers: null, campaign_contacts: null, seats: null, retention_days: null },
    contact_sales: true,
  },
};

/** Cheapest first. */
export const PLAN_ORDER: readonly PlanId[] = PLAN_IDS;

/** Plans bought in the console (Checkout in subscription mode, or the sandbox's dialog). */
export const SELF_SERVE_PLANS = ["starter", "pro"] as const satisfies readonly PlanId[];
export type SelfServePlanId = (typeof SELF_SERVE_PLANS)[number];

export const SUBSCRIPTION_STATUSES = ["active", "trialing", "past_due", "canceled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Days a past-due subscription keeps its plan before the organisation falls back to Free. */
export const SUBSCRIPTION_GRACE_DAYS = 7;

/** Where the console sends Enterprise enquiries. */
export const SALES_EMAIL = "sales@example.com";

/** A limit's name in a sentence ("1 concurrent call", "50 campaign contacts"). */
export const PLAN_LIMIT_NOUNS: Record<PlanLimitKey, [singular: string, plural: string]> = {
  concurrent_calls: ["concurrent call", "concurrent calls"],
  agents: ["agent", "agents"],
  phone_numbers: ["phone number", "phone numbers"],
  campaign_contacts: ["contact per campaign", "contacts per campaign"],
  seats: ["seat (members and pending invitations)", "seats (members and pending invitations)"],
  retention_days: ["day of call history", "days of call history"],
};

/** Column headings for the limits. */
export const PLAN_LIMIT_LABELS: Record<PlanLimitKey, string> = {
  concurrent_calls: "Concurrent calls",
  agents: "Agents",
  phone_numbers: "Phone numbers",
  campaign_contacts: "Contacts per campaign",
  seats: "Seats",
  retention_days: "Call history (days)",
};

export function countOf(key: PlanLimitKey, n: number): string {
  const [one, many] = PLAN_LIMIT_NOUNS[key];
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** The cheapest plan above `plan` whose limit for `key` is higher (or none), or null when none is. */
export function planLifting(key: PlanLimitKey, plan: PlanId): Plan | null {
  const current = PLANS[plan].limits[key];
  if (current === null) return null;
  for (const id of PLAN_ORDER.slice(PLAN_ORDER.indexOf(plan) + 1)) {
    const limit = PLANS[id].limits[key];
    if (limit === null || limit > current) return PLANS[id];
  }
  return null;
}

/**
 * The detail of a 403 plan_limit_reached: which limit, and the plan that lifts it, e.g.
 * "Your Free plan allows 2 agents. Upgrade to Starter for 10 agents."
 */
export function planLimitDetail(key: PlanLimitKey, plan: PlanId): string {
  const limit = PLANS[plan].limits[key];
  const head = `Your ${PLANS[plan].name} plan allows ${limit === null ? "unlimited" : countOf(key, limit)}.`;
  const next = planLifting(key, plan);
  if (!next) return head;
  const nextLimit = next.limits[key];
  return `${head} ${next.contact_sales ? `Contact sales about ${next.name} for more.` : `Upgrade to ${next.name} for ${nextLimit === null ? "no limit" : countOf(key, nextLimit)}.`}`;
}
