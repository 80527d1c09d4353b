/**
 * Plan limits (issue 15; contract/plans.ts).
 *
 * - The organisation's plan is its billing_accounts row's (account.ts), or DEFAULT_PLAN without one. A
 *   past_due subscription keeps its plan for SUBSCRIPTION_GRACE_DAYS from past_due_since; after that it
 *   counts as Free at once (the grace sweep then writes it down: sweeps.ts).
 * - Each assert runs in the transaction that makes the thing, first taking the organisation's row lock
 *   (lockOrganisation, FOR UPDATE: the lock reserveCall takes; the dialler's claim takes it FOR NO KEY
 *   UPDATE, which waits for it as well), so requests at once take turns and exactly the limit passes. A refusal throws ApiError 403 plan_limit_reached with
 *   planLimitDetail's sentence, which rolls the transaction back: nothing is written.
 * - A downgrade keeps what exists (only new things over the limit are refused), except call history past the new
 *   plan's retention_days, which the retention sweep redacts (sweeps.ts; the preview counts it first).
 * - Seats are members plus pending (unexpired) invitations kept by this server. With Clerk, Clerk keeps
 *   its pending invitations: only members count there (the invite holds the lock while Clerk is asked,
 *   so invitations at once still take turns).
 */
import { and, count, eq, gt, isNull, max, ne, sql } from "drizzle-orm";
import { ERROR_CODES } from "../../contract/errors";
import { PLAN_LIMIT_KEYS, PLANS, SUBSCRIPTION_GRACE_DAYS, planLimitDetail, type PlanId, type PlanLimitKey, type PlanLimits } from "../../contract/plans";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { agents, billingAccounts, calls, campaignContacts, invitations, memberships, phoneNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { CALL_HOLD_WINDOW_MS, lockOrganisation } from "../wallet/wallet";
import type { BillingAccountRow } from "./account";

export interface PlanSettings {
  /** DEFAULT_PLAN */
  defaultPlan: PlanId;
  /** Enterprise has no plan limit on concurrent calls; the install's capacity (ORG_CONCURRENT_CALLS) still bounds the dialler. */
  installConcurrentCalls: number;
  /** STRIPE_PRICE_STARTER / STRIPE_PRICE_PRO: a subscription event without plan metadata is read by its price. */
  prices?: { starter: string | null; pro: string | null };
  /** The payments mode (documents of the sandbox are labelled so). */
  payments?: "stripe" | "sandbox";
}

export function planSettings(config: AppConfig): PlanSettings {
  return {
    defaultPlan: config.billing.defaultPlan,
    installConcurrentCalls: config.campaigns.orgConcurrentCalls,
    prices: config.billing.stripe?.prices ?? { starter: null, pro: null },
    payments: config.modes.payments,
  };
}

export const GRACE_MS = SUBSCRIPTION_GRACE_DAYS * 24 * 60 * 60 * 1000;

type AccountFacts = Pick<BillingAccountRow, "plan" | "subscriptionStatus" | "pastDueSince">;

/** When a past-due subscription's grace ends (null when it is not past due). */
export function graceEndsAt(account: Pick<BillingAccountRow, "subscriptionStatus" | "pastDueSince">): Date | null {
  if (account.subscriptionStatus !== "past_due" || !account.pastDueSince) return null;
  return new Date(account.pastDueSince.getTime() + GRACE_MS);
}

/** The plan that applies now: the account's, or Free once a past-due subscription's grace has run out. */
export function effectivePlan(account: AccountFacts | null, settings: PlanSettings, now = Date.now()): PlanId {
  if (!account) return settings.defaultPlan;
  const ends = graceEndsAt(account);
  if (ends && ends.getTime() <= now) return "free";
  return account.plan as PlanId;
}

/** The organisation's billing row, without writing anything (null: none yet, DEFAULT_PLAN applies). */
export async function billingAccountOf(db: Db, orgId: string): Promise<BillingAccountRow | null> {
  const [row] = await db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  return row ?? null;
}

/** The plan that applies to the organisation now, without writing anything. */
export async function currentPlan(db: Db, orgId: string, settings: PlanSettings): Promise<PlanId> {
  return effectivePlan(await billingAccountOf(db, orgId), settings);
}

export function limitsOf(plan: PlanId): PlanLimits {
  return PLANS[plan].limits;
}

/** The concurrent calls the organisation may have: the plan's, or the install's capacity for a plan without a limit (Enterprise). */
export function concurrentCallCapacity(plan: PlanId, settings: PlanSettings): number {
  return PLANS[plan].limits.concurrent_calls ?? settings.installConcurrentCalls;
}

export function planLimitError(key: PlanLimitKey, plan: PlanId): ApiError {
  return new ApiError(403, ERROR_CODES.planLimitReached, planLimitDetail(key, plan));
}

// ---- usage ----

/** Calls of the organisation not ended, started within CALL_HOLD_WINDOW_MS (one whose end is never reported stops counting). */
export async function activeCalls(db: Db, orgId: string): Promise<number> {
  const since = new Date(Date.now() - CALL_HOLD_WINDOW_MS);
  const [row] = await db
    .select({ n: count() })
    .from(calls)
    .where(and(eq(calls.orgId, orgId), ne(calls.status, "ended"), gt(calls.startedAt, since)));
  return row?.n ?? 0;
}

export async function agentCount(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(agents).where(eq(agents.orgId, orgId));
  return row?.n ?? 0;
}

export async function phoneNumberCount(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(phoneNumbers).where(eq(phoneNumbers.orgId, orgId));
  return row?.n ?? 0;
}

/**
 * A campaign's contacts, as the plan's campaign_contacts limit counts them. Order follow-up contacts
 * (campaign_contacts.order_id, issue 16) never count: the limit is about lists a person uploads, and an
 * order's follow-up is not refused for it (its calls still count against concurrent calls and spend caps).
 */
export async function contactCount(db: Db, orgId: string, campaignId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, orgId), eq(campaignContacts.campaignId, campaignId), isNull(campaignContacts.orderId)));
  return row?.n ?? 0;
}

/** The largest campaign's contacts (order follow-up contacts not counted: see contactCount). */
export async function largestCampaignContacts(db: Db, orgId: string): Promise<number> {
  const perCampaign = db
    .select({ n: count().as("n") })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, orgId), isNull(campaignContacts.orderId)))
    .groupBy(campaignContacts.campaignId)
    .as("per_campaign");
  const [row] = await db.select({ most: max(perCampaign.n) }).from(perCampaign);
  return Number(row?.most ?? 0);
}

/** Members plus pending, unexpired invitations (other than `exceptEmail`'s, which an invitation refreshes). */
export async function seatCount(db: Db, orgId: string, exceptEmail?: string): Promise<number> {
  const [members] = await db.select({ n: count() }).from(memberships).where(eq(memberships.orgId, orgId));
  const pending = and(
    eq(invitations.orgId, orgId),
    eq(invitations.status, "pending"),
    gt(invitations.expiresAt, new Date()),
    exceptEmail === undefined ? undefined : sql`lower(${invitations.email}) <> lower(${exceptEmail})`,
  );
  const [invited] = await db.select({ n: count() }).from(invitations).where(pending);
  return (members?.n ?? 0) + (invited?.n ?? 0);
}

export type PlanUsageCounts = Record<Exclude<PlanLimitKey, "retention_days">, number>;

export async function planUsage(db: Db, orgId: string): Promise<PlanUsageCounts> {
  const [concurrent_calls, agentsUsed, phone_numbers, campaign_contacts, seats] = await Promise.all([
    activeCalls(db, orgId),
    agentCount(db, orgId),
    phoneNumberCount(db, orgId),
    largestCampaignContacts(db, orgId),
    seatCount(db, orgId),
  ]);
  return { concurrent_calls, agents: agentsUsed, phone_numbers, campaign_contacts, seats };
}

/** The limits `usage` is over under `plan` (usage > allowed: what a downgrade leaves; new things are refused). */
export function overLimits(plan: PlanId, usage: PlanUsageCounts): { limit: PlanLimitKey; usage: number; allowed: number }[] {
  const over: { limit: PlanLimitKey; usage: number; allowed: number }[] = [];
  for (const key of PLAN_LIMIT_KEYS) {
    if (key === "retention_days") continue;
    const allowed = PLANS[plan].limits[key];
    if (allowed !== null && usage[key] > allowed) over.push({ limit: key, usage: usage[key], allowed });
  }
  return over;
}

// ---- asserts: each takes the organisation's row lock first, in the caller's transaction ----

/** Locks the organisation's row and answers its plan now. */
export async function lockedPlan(tx: Db, orgId: string, settings: PlanSettings): Promise<PlanId> {
  await lockOrganisation(tx, orgId);
  return currentPlan(tx, orgId, settings);
}

async function assertBelow(tx: Db, orgId: string, settings: PlanSettings, key: PlanLimitKey, used: () => Promise<number>, adding = 1): Promise<void> {
  const plan = await lockedPlan(tx, orgId, settings);
  const limit = PLANS[plan].limits[key];
  if (limit === null) return;
  if ((await used()) + adding > limit) throw planLimitError(key, plan);
}

/** One more agent (POST /agent/, templates, clones into the organisation). */
export function assertAgentAvailable(tx: Db, orgId: string, settings: PlanSettings): Promise<void> {
  return assertBelow(tx, orgId, settings, "agents", () => agentCount(tx, orgId));
}

/** One more phone number. */
export function assertPhoneNumberAvailable(tx: Db, orgId: string, settings: PlanSettings): Promise<void> {
  return assertBelow(tx, orgId, settings, "phone_numbers", () => phoneNumberCount(tx, orgId));
}

/** One more seat for `email` (an invitation refreshing that email's pending one takes no new seat). */
export function assertSeatAvailable(tx: Db, orgId: string, settings: PlanSettings, email: string): Promise<void> {
  return assertBelow(tx, orgId, settings, "seats", () => seatCount(tx, orgId, email));
}

/**
 * How many more contacts campaign `campaignId` may take under the plan (null: no limit), under the
 * organisation's row lock, plus the plan (for the refusal's sentence).
 */
export async function campaignContactRoom(tx: Db, orgId: string, campaignId: string, settings: PlanSettings): Promise<{ plan: PlanId; room: number | null }> {
  const plan = await lockedPlan(tx, orgId, settings);
  const limit = PLANS[plan].limits.campaign_contacts;
  if (limit === null) return { plan, room: null };
  return { plan, room: Math.max(0, limit - (await contactCount(tx, orgId, campaignId))) };
}

/**
 * One more call (POST /call/, POST /call/public, web calls): calls not ended within CALL_HOLD_WINDOW_MS
 * count. Enterprise (no plan limit) is not refused here; the dialler still keeps to the install's capacity.
 */
export async function assertConcurrentCallAvailable(tx: Db, orgId: string, settings: PlanSettings): Promise<void> {
  return assertBelow(tx, orgId, settings, "concurrent_calls", () => activeCalls(tx, orgId));
}
