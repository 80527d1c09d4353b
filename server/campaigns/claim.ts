/**
 * The dialler's claim: one short transaction per campaign per tick that decides which contacts are dialled
 * now and records their calls, so that whatever happens next (the provider refuses, the process is
 * killed) the database already says who holds which contact.
 *
 * Lock order, the same everywhere (reserveCall, the ingest, the reaper, the pause paths): the
 * organisation's row, then the campaign's, then call rows, then contacts. The claim takes one lock before
 * them, which nothing else takes and which it never waits for (so it adds no cycle).
 *
 * 1. The campaign's claim lock (a transaction-scoped advisory lock, tried): held means another process is
 *    claiming for this campaign right now: skip it (the dialler tries again shortly), rather than queue at
 *    the organisation's row behind it. Then the organisation's row FOR NO KEY UPDATE, in the same
 *    statement: the lock every writer of its calls takes (the calls' triggers, migration 0006;
 *    lockOrganisationForCalls), and which conflicts with reserveCall's FOR UPDATE, so the wallet, the
 *    organisation's limit and the calls that use them are one step for every caller, in every process. Not
 *    FOR UPDATE: that would also stop every insert that merely refers to the organisation (its foreign-key
 *    checks take FOR KEY SHARE) for as long as the claim runs.
 * 2. The campaign's row FOR NO KEY UPDATE SKIP LOCKED (locked means a person is changing it: skip it this
 *    tick; their FOR UPDATE waits for a claim under way), read fresh under the lock (live edits apply),
 *    with its agent, caller number and every fact 4 to 6 need, in one prepared statement (claimFacts).
 * 3. Status running; end_at not passed (else its queued contacts are cancelled and it completes once
 *    nothing is on); agent and caller number still there (else it pauses: agent_missing,
 *    number_missing).
 * 4. Free lines: max_concurrency less its in_progress contacts, and the organisation's limit
 *    (ORG_CONCURRENT_CALLS) less the in_progress contacts of all its campaigns. Only campaign calls
 *    count towards that limit (a call placed by hand is limited by the wallet alone). Under DEFAULT_PLAN,
 *    a plan with a concurrent-call limit bounds it instead (calls of every kind count).
 * 5. The circuit breaker: of the last 10 settled calls since the campaign was last started or resumed,
 *    CIRCUIT_BREAKER_FAILED or more failed → it pauses (circuit_breaker).
 * 6. The wallet: how many more calls the balance covers (affordableCalls, as reserveCall counts one). None
 *    and the balance itself below MIN_BALANCE_USD → it pauses (wallet); none only because calls in
 *    progress hold it → it waits for them. Then the spend caps (read only when the organisation has any).
 * 7. Queued contacts whose ready_at has come, ORDER BY ready_at, position, FOR UPDATE SKIP LOCKED, each
 *    with whether the do-not-call list holds its number. Each is checked again: the list (→ dnc, no
 *    call), the retry policy as it stands (settle.ts retryWithdrawn: a contact whose attempts reached
 *    max_attempts, or whose last outcome retry.on no longer names, → final with that outcome, no call),
 *    no zone (→ needs_timezone), its window (isInsideWindows; outside → ready_at = its next opening).
 *    Order follow-up campaigns (kind order_follow_up) also keep to the calling rule of at most
 *    MAX_CALLS_PER_NUMBER_PER_24H calls to one number in 24 hours (over → ready_at = when it may go;
 *    server/orders/dialling.ts): each picked contact comes with its number's calls of the last 24 hours,
 *    read in the same statement, and the calls this claim places count too (across its rounds).
 * 8. For the rest, in one statement: a call row each (queued, our id, campaign_id, campaign_contact_id)
 *    and the contact in_progress with attempts + 1, last_call_id, lease_until = now + the lease,
 *    leased_by = this dialler (and, for order follow-up, their orders `calling`). Commit. Placing the
 *    calls happens after (server/campaigns/dialler.ts).
 *
 * An order follow-up campaign never completes (completeIfDone skips it): new orders keep coming.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { contactZones, isInsideWindows } from "../../contract/campaign-schedule";
import type { AgentRow } from "../agents/repository";
import type { PhoneNumberRow } from "../calls/service";
import type { Db } from "../db/client";
import { agents, campaignContacts, campaigns, dncNumbers, phoneNumbers } from "../db/schema";
import { spendCapDetail, spendCapRoom } from "../billing/spend-caps";
import { microsToUsd } from "../wallet/money";
import { PLANS, type PlanId } from "../../contract/plans";
import { effectivePlan } from "../billing/plan-limits";
import { CALLS_PER_NUMBER_WINDOW_MS } from "../../contract/calling-rules";
import { affordableCalls, CALL_HOLD_WINDOW_MS, type WalletPolicy } from "../wallet/wallet";
import { autoPause, PAUSE_REASONS } from "./auto-pause";
import { recordCampaignEvent } from "./events";
import { nextReadyAt, retryWithdrawn, type CampaignRow, type ContactRow } from "./settle";
import type { ContactStatus } from "../../contract/campaign-shared";
import { markOrdersCalling, splitByNumberLimit } from "../orders/dialling";
import { FOLLOW_UP_KIND } from "../orders/follow-up";

/** The circuit breaker: this many failed among the last CIRCUIT_BREAKER_WINDOW settled calls pauses the campaign. */
export const CIRCUIT_BREAKER_WINDOW = 10;
export const CIRCUIT_BREAKER_FAILED = 8;

/** Queued contacts without a ready_at (none computed yet) given one per claim, at most. */
const UNTIMED_BATCH = 200;
/** Rounds of picking contacts in one claim (contacts found outside their window make room for others). */
const PICK_ROUNDS = 3;

export interface ClaimSettings {
  diallerId: string;
  leaseMs: number;
  /** The install's capacity (ORG_CONCURRENT_CALLS): the bound for a plan without a concurrent-call limit (Enterprise). */
  orgConcurrentCalls: number;
  /** DEFAULT_PLAN: when given, the organisation's plan's concurrent calls bound the claim instead (calls of every kind count). */
  defaultPlan?: PlanId;
  wallet: WalletPolicy;
  isSandbox: boolean;
}

export interface ClaimedCall {
  callId: string;
  contact: ContactRow;
  /** The contact's call before this one (given back to last_call_id if this one never reaches the provider). */
  previousCallId: string | null;
  /** attempts after the claim: this call is attempt number `attempt`. */
  attempt: number;
}

/** performance.now() at the claim's steps (bench:campaign's breakdown of a dial's overhead; 0: not reached). */
export interface ClaimMarks {
  /** The transaction began (a pooled connection and BEGIN before it). */
  beganAt: number;
  /** Step 1 done: the organisation's row is ours (the wait before it is the other writers'). */
  lockedAt: number;
  /** Steps 2 to 6 done: the campaign and its facts read and checked. */
  readAt: number;
  /** Step 7 done: the contacts picked and checked. */
  pickedAt: number;
  /** Step 8 done: the calls and contacts written (then COMMIT). */
  writtenAt: number;
}

export type ClaimResult =
  /** busy: another process is claiming for the campaign right now (try again shortly). */
  | { kind: "skipped"; busy?: true }
  | { kind: "paused"; reason: string }
  | { kind: "completed"; detail: string }
  | {
      kind: "claimed";
      campaign: CampaignRow;
      agent: AgentRow;
      phoneNumber: PhoneNumberRow;
      calls: ClaimedCall[];
      leaseUntil: Date;
      /** performance.now() when the organisation's row was ours (the wait before it is the other writers'). */
      lockedAt: number;
      marks: ClaimMarks;
    };

const usd = (micros: number) => `$${microsToUsd(micros).toFixed(2)}`;

/** The namespace (first key) of the claims' advisory locks; the second is the campaign id's hashtext. */
const CLAIM_LOCK_SPACE = 130_013;

/**
 * Step 1 in one statement: the campaign's claim lock, tried, then (only when it was free) the
 * organisation's row FOR NO KEY UPDATE. Answers "busy" (another process is claiming for the campaign),
 * "missing" (no such organisation) or "locked".
 */
async function lockForClaim(tx: Db, campaignRef: { id: string; orgId: string }): Promise<"busy" | "missing" | "locked"> {
  const result = (await tx.execute(sql`
    select case when pg_try_advisory_xact_lock(${CLAIM_LOCK_SPACE}::int, hashtext(${campaignRef.id}::text))
      then (select count(*)::int from (select 1 from organizations where id = ${campaignRef.orgId} for no key update) o)
      else -1 end as org`)) as unknown as { rows: { org: number | string }[] };
  const org = Number(result.rows[0]?.org ?? 0);
  return org < 0 ? "busy" : org === 0 ? "missing" : "locked";
}

/** What the claim decides on, read with the campaign's row in one statement (see the file comment, 2 and 4 to 6). */
interface ClaimFacts {
  campaign: CampaignRow;
  agent: AgentRow | null;
  phoneNumber: PhoneNumberRow | null;
  /** in_progress contacts of the campaign, and of all the organisation's campaigns. */
  campaignLines: number;
  organisationLines: number;
  /** The circuit breaker's figures: the last settled calls since the campaign was last started or resumed. */
  settled: number;
  failed: number;
  lastReason: string | null;
  /** The wallet's balance (null: no wallet row yet, the starting credit) and the calls holding part of it. */
  balanceMicros: number | null;
  holding: number;
  /** The organisation's calls not ended, as activeCalls counts them (the plan's concurrent calls). */
  activeCalls: number;
  /** The organisation's billing row's plan facts (null: none yet, DEFAULT_PLAN applies), as currentPlan reads them. */
  account: { plan: string; subscriptionStatus: string; pastDueSince: Date | null } | null;
  /** Whether the organisation has any spend cap (none: spendCapRoom has nothing to say). */
  hasSpendCaps: boolean;
  /** Whether some queued contact has no ready_at yet. */
  untimed: boolean;
}

/**
 * The campaign's row (FOR NO KEY UPDATE SKIP LOCKED) with its agent, its caller number and the claim's
 * facts, in one named prepared statement (planned once per connection). The breaker reads the last
 * settled calls by calls_campaign_started_idx and keeps those placed since the last start or resume
 * (created_at: a provider's report corrects started_at). The holds are the calls not ended started within
 * CALL_HOLD_WINDOW_MS, as reserveCall counts them (walletStanding); activeCalls counts the same from the
 * wall clock, as the plan's limit does; both read calls_org_open_started_idx (the calls not ended only).
 */
function claimFactsQuery(tx: Db) {
  const open = (since: string) =>
    sql<number>`(select count(*)::int from calls k where k.org_id = ${campaigns.orgId} and k.status <> 'ended' and k.started_at > ${sql.placeholder(since)}::timestamptz)`;
  return tx
    .select({
      campaign: campaigns,
      agent: agents,
      phoneNumber: phoneNumbers,
      campaignLines: sql<number>`(select count(*)::int from campaign_contacts cc where cc.campaign_id = ${campaigns.id} and cc.status = 'in_progress')`,
      organisationLines: sql<number>`(select count(*)::int from campaign_contacts cc where cc.status = 'in_progress'
        and cc.campaign_id in (select oc.id from campaigns oc where oc.org_id = ${campaigns.orgId}))`,
      breaker: sql<{ settled: number; failed: number; last_reason: string | null }>`(
        select json_build_object('settled', count(*), 'failed', count(*) filter (where recent.outcome = 'failed'),
          'last_reason', (array_agg(recent.ended_reason order by recent.started_at desc))[1])
        from (
          select k.outcome, k.ended_reason, k.started_at, k.created_at from calls k
          where k.campaign_id = ${campaigns.id} and k.outcome <> 'in_progress'
          order by k.started_at desc
          limit ${sql.raw(String(CIRCUIT_BREAKER_WINDOW))}
        ) recent
        where recent.created_at >= coalesce(
          (select max(e.created_at) from campaign_events e where e.campaign_id = ${campaigns.id} and e.kind in ('started', 'resumed')), '-infinity'::timestamptz))`,
      balanceMicros: sql<string | number | null>`(select w.balance_micros from wallets w where w.org_id = ${campaigns.orgId})`,
      holding: open("holdsSince"),
      activeCalls: open("activeSince"),
      account: sql<{ plan: string; subscription_status: string; past_due_since: string | null } | null>`(
        select json_build_object('plan', b.plan, 'subscription_status', b.subscription_status, 'past_due_since', b.past_due_since)
        from billing_accounts b where b.org_id = ${campaigns.orgId})`,
      hasSpendCaps: sql<boolean>`exists (select 1 from spend_caps s where s.org_id = ${campaigns.orgId})`,
      untimed: sql<boolean>`exists (select 1 from campaign_contacts cc where cc.campaign_id = ${campaigns.id} and cc.status = 'queued' and cc.ready_at is null)`,
    })
    .from(campaigns)
    .leftJoin(agents, and(eq(agents.id, campaigns.agentId), eq(agents.orgId, campaigns.orgId)))
    .leftJoin(phoneNumbers, and(eq(phoneNumbers.id, campaigns.phoneNumberId), eq(phoneNumbers.orgId, campaigns.orgId)))
    .where(and(eq(campaigns.id, sql.placeholder("campaignId")), eq(campaigns.orgId, sql.placeholder("orgId"))))
    .for("no key update", { of: campaigns, skipLocked: true })
    .prepare("campaign_claim_facts");
}

async function claimFacts(tx: Db, campaignRef: { id: string; orgId: string }, nowMs: number, holds: boolean): Promise<ClaimFacts | null> {
  const [row] = await claimFactsQuery(tx).execute({
    campaignId: campaignRef.id,
    orgId: campaignRef.orgId,
    holdsSince: new Date(nowMs - CALL_HOLD_WINDOW_MS).toISOString(),
    activeSince: new Date(Date.now() - CALL_HOLD_WINDOW_MS).toISOString(),
  });
  if (!row) return null;
  const breaker = typeof row.breaker === "string" ? (JSON.parse(row.breaker) as typeof row.breaker) : row.breaker;
  const account = typeof row.account === "string" ? (JSON.parse(row.account) as typeof row.account) : row.account;
  return {
    campaign: row.campaign,
    agent: row.agent,
    phoneNumber: row.phoneNumber,
    campaignLines: Number(row.campaignLines ?? 0),
    organisationLines: Number(row.organisationLines ?? 0),
    settled: Number(breaker?.settled ?? 0),
    failed: Number(breaker?.failed ?? 0),
    lastReason: typeof breaker?.last_reason === "string" ? breaker.last_reason : null,
    balanceMicros: row.balanceMicros === null || row.balanceMicros === undefined ? null : Number(row.balanceMicros),
    holding: holds ? Number(row.holding ?? 0) : 0,
    activeCalls: Number(row.activeCalls ?? 0),
    account: account ? { plan: account.plan, subscriptionStatus: account.subscription_status, pastDueSince: account.past_due_since ? new Date(account.past_due_since) : null } : null,
    hasSpendCaps: row.hasSpendCaps === true,
    untimed: row.untimed === true,
  };
}

/**
 * Completes the campaign when no contact is queued or in progress (needs_timezone contacts do not hold it open).
 * An order follow-up campaign (kind order_follow_up) never completes: new orders keep coming.
 */
async function completeIfDone(tx: Db, campaign: CampaignRow, now: Date, why: string): Promise<ClaimResult | null> {
  if (campaign.kind === FOLLOW_UP_KIND) return null;
  const [open] = await tx
    .select({ n: count() })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), inArray(campaignContacts.status, ["queued", "in_progress"])));
  if ((open?.n ?? 0) > 0) return null;
  const tally = await tx
    .select({ status: campaignContacts.status, n: count() })
    .from(campaignContacts)
    .where(eq(campaignContacts.campaignId, campaign.id))
    .groupBy(campaignContacts.status);
  const counted = tally
    .filter((row) => row.n > 0)
    .sort((a, b) => b.n - a.n)
    .map((row) => `${row.n} ${row.status.replace("_", " ")}`)
    .join(", ");
  const detail = `${why}${counted ? ` Contacts: ${counted}.` : ""}`;
  await tx.update(campaigns).set({ status: "completed", completedAt: now, pauseCode: null, pauseReason: null, updatedAt: now }).where(eq(campaigns.id, campaign.id));
  await recordCampaignEvent(tx, { orgId: campaign.orgId, campaignId: campaign.id, kind: "completed", detail, at: now });
  return { kind: "completed", detail };
}

/** A contact the claim looked at and did not dial: its new status, and its new ready_at (null: ready_at stays as it is; a final status clears it). */
interface ContactChange {
  id: string;
  status: ContactStatus;
  readyAt: Date | null;
  /** Final now (its retry withdrawn): nothing ready any more. */
  final?: true;
}

/** Writes `changes` with one UPDATE … FROM (VALUES …) (the rows are already locked by this transaction). */
async function writeContactChanges(tx: Db, changes: readonly ContactChange[], now: Date): Promise<void> {
  if (changes.length === 0) return;
  const values = sql.join(
    changes.map((change) => sql`(${change.id}::uuid, ${change.status}::text, ${change.readyAt ? change.readyAt.toISOString() : null}::timestamptz, ${change.final === true}::boolean)`),
    sql`, `,
  );
  await tx.execute(sql`
    update ${campaignContacts} as c
    set status = v.status, ready_at = case when v.final then null else coalesce(v.ready_at, c.ready_at) end, updated_at = ${now.toISOString()}::timestamptz
    from (values ${values}) as v(id, status, ready_at, final)
    where c.id = v.id`);
}

/** Gives queued contacts that have no ready_at yet their next opening (imports and starts normally set it). */
async function timeUntimed(tx: Db, campaign: CampaignRow, now: number): Promise<void> {
  const untimed = await tx
    .select()
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, "queued"), isNull(campaignContacts.readyAt)))
    .limit(UNTIMED_BATCH)
    .for("update", { skipLocked: true });
  const changes = untimed.map((contact): ContactChange => {
    const ready = nextReadyAt(campaign, contact, Math.max(now, contact.notBefore?.getTime() ?? now));
    return ready ? { id: contact.id, status: "queued", readyAt: ready } : { id: contact.id, status: "needs_timezone", readyAt: null };
  });
  await writeContactChanges(tx, changes, new Date(now));
}

/**
 * The organisation's free places: its plan's concurrent calls less its calls not ended (phone, web,
 * public and campaign alike; activeCalls), or for a plan without a limit (Enterprise) the install's
 * capacity (ORG_CONCURRENT_CALLS) less the campaign lines on it. From the facts (currentPlan's rule on
 * the billing row read with them).
 */
function organisationRoom(settings: ClaimSettings, facts: ClaimFacts): number {
  if (!settings.defaultPlan) return settings.orgConcurrentCalls - facts.organisationLines;
  const plan = effectivePlan(facts.account, { defaultPlan: settings.defaultPlan, installConcurrentCalls: settings.orgConcurrentCalls });
  const limit = PLANS[plan].limits.concurrent_calls;
  if (limit === null) return settings.orgConcurrentCalls - facts.organisationLines;
  return limit - Math.max(facts.organisationLines, facts.activeCalls);
}

/** The queued contacts a round of the claim picks (see the file comment, 7), one named prepared statement per kind. */
function pickQuery(tx: Db, followUp: boolean) {
  return tx
    .select({
      contact: campaignContacts,
      listed: sql<boolean>`${dncNumbers.id} is not null`,
      // Order follow-up: the start times (epoch ms, oldest first) of the organisation's calls to the number within the last 24 hours.
      recent: followUp
        ? sql<(number | string)[] | null>`(select array_agg((extract(epoch from k.started_at) * 1000)::float8 order by k.started_at) from calls k
            where k.org_id = ${campaignContacts.orgId} and k.customer_number = ${campaignContacts.number} and k.started_at > ${sql.placeholder("numberSince")}::timestamptz)`
        : sql<null>`null`,
    })
    .from(campaignContacts)
    .leftJoin(dncNumbers, and(eq(dncNumbers.orgId, campaignContacts.orgId), eq(dncNumbers.number, campaignContacts.number)))
    .where(
      and(
        eq(campaignContacts.campaignId, sql.placeholder("campaignId")),
        eq(campaignContacts.status, "queued"),
        sql`${campaignContacts.readyAt} <= ${sql.placeholder("now")}::timestamptz`,
        // Rows this transaction already holds are not skipped by SKIP LOCKED: later rounds leave them out.
        sql`${campaignContacts.id} <> all(${sql.placeholder("seen")}::uuid[])`,
      ),
    )
    .orderBy(asc(campaignContacts.readyAt), asc(campaignContacts.position))
    .limit(sql.placeholder("limit"))
    .for("update", { of: campaignContacts, skipLocked: true })
    .prepare(followUp ? "campaign_claim_pick_follow_up" : "campaign_claim_pick");
}

/** Runs the claim for one campaign (see the file comment). */
export async function claimCampaign(db: Db, campaignRef: { id: string; orgId: string }, settings: ClaimSettings, nowMs: number): Promise<ClaimResult> {
  return db.transaction(async (tx): Promise<ClaimResult> => {
    const now = new Date(nowMs);
    const marks: ClaimMarks = { beganAt: performance.now(), lockedAt: 0, readAt: 0, pickedAt: 0, writtenAt: 0 };
    const lock = await lockForClaim(tx, campaignRef);
    if (lock === "busy") return { kind: "skipped", busy: true };
    if (lock === "missing") return { kind: "skipped" };
    marks.lockedAt = performance.now();
    const facts = await claimFacts(tx, campaignRef, nowMs, settings.wallet.callHoldMicros > 0);
    if (!facts || facts.campaign.status !== "running") return { kind: "skipped" };
    const { campaign, agent, phoneNumber } = facts;

    if (campaign.endAt && campaign.endAt.getTime() <= nowMs) {
      // The contacts not reached by then are cancelled; the calls on the line finish (then it completes).
      await tx
        .update(campaignContacts)
        .set({ status: "cancelled", updatedAt: now })
        .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, "queued")));
      const why = `Completed: its end time (${campaign.endAt.toISOString()}) passed; the contacts not reached by then were cancelled.`;
      return (await completeIfDone(tx, campaign, now, why)) ?? { kind: "skipped" };
    }
    if (!agent) {
      const reason = PAUSE_REASONS.agentMissing();
      await autoPause(tx, campaign, "agent_missing", reason, now);
      return { kind: "paused", reason };
    }
    if (!phoneNumber) {
      const reason = PAUSE_REASONS.numberMissing();
      await autoPause(tx, campaign, "number_missing", reason, now);
      return { kind: "paused", reason };
    }

    const claimed: ClaimedCall[] = [];
    const leaseUntil = new Date(nowMs + settings.leaseMs);
    const result = (): ClaimResult => ({ kind: "claimed", campaign, agent, phoneNumber, calls: claimed, leaseUntil, lockedAt: marks.lockedAt, marks });
    let free = Math.min(campaign.maxConcurrency - facts.campaignLines, organisationRoom(settings, facts));
    if (free <= 0) return result();

    if (facts.failed >= CIRCUIT_BREAKER_FAILED) {
      const reason = PAUSE_REASONS.circuitBreaker(facts.failed, facts.settled, facts.lastReason);
      await autoPause(tx, campaign, "circuit_breaker", reason, now);
      return { kind: "paused", reason };
    }

    const standing = { balanceMicros: facts.balanceMicros ?? settings.wallet.startingCreditMicros, heldMicros: facts.holding * settings.wallet.callHoldMicros };
    const affordable = affordableCalls(standing, settings.wallet);
    if (affordable === 0) {
      if (standing.balanceMicros >= settings.wallet.minBalanceMicros) return result();
      const reason = PAUSE_REASONS.wallet(usd(standing.balanceMicros), usd(settings.wallet.minBalanceMicros));
      await autoPause(tx, campaign, "wallet", reason, now);
      return { kind: "paused", reason };
    }
    free = Math.min(free, affordable);
    // Spend caps (server/billing/spend-caps.ts): a cap the next call would pass pauses the campaign, unless only calls in flight hold the rest.
    if (facts.hasSpendCaps) {
      const caps = await spendCapRoom(tx, campaign.orgId, agent.id, settings.wallet, now);
      if (caps.calls === 0 && caps.tightest) {
        if (caps.tightest.spentMicros + settings.wallet.callHoldMicros <= caps.tightest.limitMicros && caps.tightest.holding > 0) return result();
        const reason = PAUSE_REASONS.spendCap(spendCapDetail(caps.tightest, now, "the next call"));
        await autoPause(tx, campaign, "spend_cap", reason, now);
        return { kind: "paused", reason };
      }
      free = Math.min(free, caps.calls);
    }

    if (facts.untimed) await timeUntimed(tx, campaign, nowMs);
    marks.readAt = performance.now();
    const followUp = campaign.kind === FOLLOW_UP_KIND;
    const pick = pickQuery(tx, followUp);
    const toDial: ContactRow[] = [];
    const seen: string[] = [];
    // Order follow-up: each number's calls of the last 24 hours, with the ones this claim places added as it goes.
    const recent = new Map<string, number[]>();
    for (let round = 0; round < PICK_ROUNDS && toDial.length < free; round++) {
      const wanted = free - toDial.length;
      const picked = await pick.execute({
        campaignId: campaign.id,
        now: now.toISOString(),
        seen: `{${seen.join(",")}}`,
        limit: wanted,
        ...(followUp ? { numberSince: new Date(nowMs - CALLS_PER_NUMBER_WINDOW_MS).toISOString() } : {}),
      });
      seen.push(...picked.map(({ contact }) => contact.id));
      const changes: ContactChange[] = [];
      let ready: ContactRow[] = [];
      for (const { contact, listed, recent: starts } of picked) {
        if (followUp && !recent.has(contact.number)) recent.set(contact.number, (starts ?? []).map(Number));
        const zones = contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, campaign.schedule.fallback_timezone);
        const withdrawn = retryWithdrawn(campaign, contact);
        if (listed) {
          changes.push({ id: contact.id, status: "dnc", readyAt: null });
        } else if (withdrawn) {
          // The retry policy as it stands (a live edit): no call past calls per contact, nor for an outcome it no longer retries.
          changes.push({ id: contact.id, status: withdrawn, readyAt: null, final: true });
        } else if (zones.length === 0) {
          changes.push({ id: contact.id, status: "needs_timezone", readyAt: null });
        } else if (!isInsideWindows(campaign.schedule.windows, zones, nowMs)) {
          changes.push({ id: contact.id, status: "queued", readyAt: nextReadyAt(campaign, contact, nowMs) });
        } else {
          ready.push(contact);
        }
      }
      // Order follow-up: at most MAX_CALLS_PER_NUMBER_PER_24H calls to a number in 24 hours (server/orders/dialling.ts).
      if (followUp && ready.length > 0) {
        const limited = splitByNumberLimit(ready, recent, nowMs);
        ready = limited.dial;
        for (const { contact, until } of limited.wait) changes.push({ id: contact.id, status: "queued", readyAt: nextReadyAt(campaign, contact, until) ?? new Date(until) });
      }
      toDial.push(...ready);
      await writeContactChanges(tx, changes, now);
      // Fewer than asked for: none other is ready.
      if (picked.length < wanted) break;
    }
    marks.pickedAt = performance.now();
    if (toDial.length === 0) {
      if (facts.campaignLines === 0) return (await completeIfDone(tx, campaign, now, "Completed: every contact has been called.")) ?? result();
      return result();
    }

    // The calls (queued, our ids) and their contacts in_progress, in one statement.
    for (const contact of toDial) claimed.push({ callId: randomUUID(), contact, previousCallId: contact.lastCallId, attempt: contact.attempts + 1 });
    const pairs = sql.join(
      claimed.map(({ callId, contact }) => sql`(${contact.id}::uuid, ${callId}::uuid)`),
      sql`, `,
    );
    await tx.execute(sql`
      with placed as (
        insert into calls (id, org_id, type, status, agent_id, phone_number_id, customer_number, customer_name, campaign_id, campaign_contact_id, is_sandbox, started_at)
        select v.call_id, ${campaign.orgId}, 'outbound', 'queued', ${agent.id}::uuid, ${phoneNumber.id}::uuid, c.number, c.name, ${campaign.id}::uuid, c.id,
          ${settings.isSandbox}, ${now.toISOString()}::timestamptz
        from (values ${pairs}) as v(contact_id, call_id) join campaign_contacts c on c.id = v.contact_id
        returning id, campaign_contact_id
      )
      update campaign_contacts as c
      set status = 'in_progress', attempts = c.attempts + 1, last_call_id = placed.id, lease_until = ${leaseUntil.toISOString()}::timestamptz,
          leased_by = ${settings.diallerId}, updated_at = ${now.toISOString()}::timestamptz
      from placed
      where c.id = placed.campaign_contact_id`);
    if (followUp) await markOrdersCalling(tx, campaign.orgId, claimed.map((one) => ({ callId: one.callId, contactId: one.contact.id, attempt: one.attempt })), now);
    marks.writtenAt = performance.now();
    return result();
  });
}
