/**
 * The dialler's claim: one short transaction per campaign per tick that decides which contacts are dialled
 * now and records their calls, so that whatever happens next (the provider refuses, the process is
 * killed) the database already says who holds which contact.
 *
 * Lock order, the same everywhere (reserveCall, the ingest, the reaper, the pause paths): the
 * organisation's row, then the campaign's, then call rows, then contacts.
 *
 * 1. The organisation's row FOR UPDATE: the lock reserveCall (POST /call/) takes, so the wallet check and
 *    the call rows that hold its balance are one step for every caller, in every process.
 * 2. The campaign's row FOR UPDATE SKIP LOCKED: locked means another process is claiming for it (or a
 *    person is changing it): skip it this tick. Under the lock its row is read fresh (live edits apply).
 * 3. Status running; end_at not passed (else its queued contacts are cancelled and it completes once
 *    nothing is on); agent and caller number still there (else it pauses: agent_missing,
 *    number_missing).
 * 4. Free lines (one statement reads 4 to 6's figures): max_concurrency less its in_progress contacts, and the organisation's limit
 *    (ORG_CONCURRENT_CALLS) less the in_progress contacts of all its campaigns. Only campaign calls
 *    count towards that limit (a call placed by hand is limited by the wallet alone).
 * 5. The circuit breaker: of the last 10 settled calls since the campaign was last started or resumed,
 *    CIRCUIT_BREAKER_FAILED or more failed → it pauses (circuit_breaker).
 * 6. The wallet: how many more calls the balance covers (affordableCalls, as reserveCall counts one). None
 *    and the balance itself below MIN_BALANCE_USD → it pauses (wallet); none only because calls in
 *    progress hold it → it waits for them.
 * 7. Queued contacts whose ready_at has come, ORDER BY ready_at, position, FOR UPDATE SKIP LOCKED, each
 *    with whether the do-not-call list holds its number. Each is checked again: the list (→ dnc, no
 *    call), no zone (→ needs_timezone), its window (isInsideWindows; outside → ready_at = its next
 *    opening).
 *    Order follow-up campaigns (kind order_follow_up) also keep to the calling rule of at most
 *    MAX_CALLS_PER_NUMBER_PER_24H calls to one number in 24 hours (over → ready_at = when it may go;
 *    server/orders/dialling.ts).
 * 8. For the rest, in one statement: a call row each (queued, our id, campaign_id, campaign_contact_id)
 *    and the contact in_progress with attempts + 1, last_call_id, lease_until = now + the lease,
 *    leased_by = this dialler (and, for order follow-up, their orders `calling`). Commit. Placing the
 *    calls happens after (server/campaigns/dialler.ts).
 *
 * An order follow-up campaign never completes (completeIfDone skips it): new orders keep coming.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { and, asc, count, eq, inArray, isNull, lte, notInArray, sql } from "drizzle-orm";
import { contactZones, isInsideWindows } from "../../contract/campaign-schedule";
import type { AgentRow } from "../agents/repository";
import type { PhoneNumberRow } from "../calls/service";
import type { Db } from "../db/client";
import { agents, campaignContacts, campaigns, dncNumbers, phoneNumbers } from "../db/schema";
import { spendCapDetail, spendCapRoom } from "../billing/spend-caps";
import { microsToUsd } from "../wallet/money";
import { PLANS, type PlanId } from "../../contract/plans";
import { activeCalls, currentPlan } from "../billing/plan-limits";
import { affordableCalls, CALL_HOLD_WINDOW_MS, lockOrganisation, type WalletPolicy } from "../wallet/wallet";
import { autoPause, PAUSE_REASONS } from "./auto-pause";
import { recordCampaignEvent } from "./events";
import { nextReadyAt, type CampaignRow, type ContactRow } from "./settle";
import { applyNumberLimit, markOrdersCalling } from "../orders/dialling";
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

export type ClaimResult =
  | { kind: "skipped" }
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
    };

const usd = (micros: number) => `$${microsToUsd(micros).toFixed(2)}`;

/** What the claim decides on, read in one statement (see the file comment, 4 to 6). */
interface ClaimFacts {
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
  /** Whether some queued contact has no ready_at yet. */
  untimed: boolean;
}

/**
 * The claim's facts in one statement. The breaker reads the last settled calls by
 * calls_campaign_started_idx and keeps those placed since the last start or resume (created_at: a
 * provider's report corrects started_at). The holds are the calls not ended started within
 * CALL_HOLD_WINDOW_MS, as reserveCall counts them (walletStanding).
 */
async function claimFacts(tx: Db, campaign: CampaignRow, holdsSince: Date | null): Promise<ClaimFacts> {
  const result = (await tx.execute(sql`
    select
      (select count(*) from campaign_contacts where campaign_id = ${campaign.id} and status = 'in_progress') as campaign_lines,
      (select count(*) from campaign_contacts where status = 'in_progress'
         and campaign_id in (select id from campaigns where org_id = ${campaign.orgId})) as organisation_lines,
      breaker.settled, breaker.failed, breaker.last_reason,
      (select balance_micros from wallets where org_id = ${campaign.orgId}) as balance_micros,
      ${
        holdsSince
          ? sql`(select count(*) from calls where org_id = ${campaign.orgId} and status <> 'ended' and started_at > ${holdsSince.toISOString()}::timestamptz)`
          : sql`0`
      } as holding,
      exists (select 1 from campaign_contacts where campaign_id = ${campaign.id} and status = 'queued' and ready_at is null) as untimed
    from (
      select count(*) as settled, count(*) filter (where recent.outcome = 'failed') as failed,
        (array_agg(recent.ended_reason order by recent.started_at desc))[1] as last_reason
      from (
        select outcome, ended_reason, started_at, created_at from calls
        where campaign_id = ${campaign.id} and outcome <> 'in_progress'
        order by started_at desc
        limit ${CIRCUIT_BREAKER_WINDOW}
      ) recent
      where recent.created_at >= coalesce(
        (select max(created_at) from campaign_events where campaign_id = ${campaign.id} and kind in ('started', 'resumed')), '-infinity'::timestamptz)
    ) breaker`)) as unknown as { rows: Record<string, unknown>[] };
  const row = result.rows[0] ?? {};
  return {
    campaignLines: Number(row.campaign_lines ?? 0),
    organisationLines: Number(row.organisation_lines ?? 0),
    settled: Number(row.settled ?? 0),
    failed: Number(row.failed ?? 0),
    lastReason: typeof row.last_reason === "string" ? row.last_reason : null,
    balanceMicros: row.balance_micros === null || row.balance_micros === undefined ? null : Number(row.balance_micros),
    holding: Number(row.holding ?? 0),
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

/** A contact the claim looked at and did not dial: its new status, and its new ready_at (null: ready_at stays as it is). */
interface ContactChange {
  id: string;
  status: "queued" | "needs_timezone" | "dnc";
  readyAt: Date | null;
}

/** Writes `changes` with one UPDATE … FROM (VALUES …) (the rows are already locked by this transaction). */
async function writeContactChanges(tx: Db, changes: readonly ContactChange[], now: Date): Promise<void> {
  if (changes.length === 0) return;
  const values = sql.join(
    changes.map((change) => sql`(${change.id}::uuid, ${change.status}::text, ${change.readyAt ? change.readyAt.toISOString() : null}::timestamptz)`),
    sql`, `,
  );
  await tx.execute(sql`
    update ${campaignContacts} as c
    set status = v.status, ready_at = coalesce(v.ready_at, c.ready_at), updated_at = ${now.toISOString()}::timestamptz
    from (values ${values}) as v(id, status, ready_at)
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
 * capacity (ORG_CONCURRENT_CALLS) less the campaign lines on it.
 */
async function organisationRoom(tx: Db, orgId: string, settings: ClaimSettings, organisationLines: number): Promise<number> {
  if (!settings.defaultPlan) return settings.orgConcurrentCalls - organisationLines;
  const plan = await currentPlan(tx, orgId, { defaultPlan: settings.defaultPlan, installConcurrentCalls: settings.orgConcurrentCalls });
  const limit = PLANS[plan].limits.concurrent_calls;
  if (limit === null) return settings.orgConcurrentCalls - organisationLines;
  return limit - Math.max(organisationLines, await activeCalls(tx, orgId));
}

/** Runs the claim for one campaign (see the file comment). */
export async function claimCampaign(db: Db, campaignRef: { id: string; orgId: string }, settings: ClaimSettings, nowMs: number): Promise<ClaimResult> {
  return db.transaction(async (tx): Promise<ClaimResult> => {
    const now = new Date(nowMs);
    if (!(await lockOrganisation(tx, campaignRef.orgId))) return { kind: "skipped" };
    const lockedAt = performance.now();
    const [found] = await tx
      .select({ campaign: campaigns, agent: agents, phoneNumber: phoneNumbers })
      .from(campaigns)
      .leftJoin(agents, and(eq(agents.id, campaigns.agentId), eq(agents.orgId, campaigns.orgId)))
      .leftJoin(phoneNumbers, and(eq(phoneNumbers.id, campaigns.phoneNumberId), eq(phoneNumbers.orgId, campaigns.orgId)))
      .where(and(eq(campaigns.id, campaignRef.id), eq(campaigns.orgId, campaignRef.orgId)))
      .for("update", { of: campaigns, skipLocked: true });
    if (!found || found.campaign.status !== "running") return { kind: "skipped" };
    const { campaign, agent, phoneNumber } = found;

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
    const result = (): ClaimResult => ({ kind: "claimed", campaign, agent, phoneNumber, calls: claimed, leaseUntil, lockedAt });
    const facts = await claimFacts(tx, campaign, settings.wallet.callHoldMicros > 0 ? new Date(nowMs - CALL_HOLD_WINDOW_MS) : null);
    let free = Math.min(campaign.maxConcurrency - facts.campaignLines, await organisationRoom(tx, campaign.orgId, settings, facts.organisationLines));
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
    const caps = await spendCapRoom(tx, campaign.orgId, agent.id, settings.wallet, now);
    if (caps.calls === 0 && caps.tightest) {
      if (caps.tightest.spentMicros + settings.wallet.callHoldMicros <= caps.tightest.limitMicros && caps.tightest.holding > 0) return result();
      const reason = PAUSE_REASONS.spendCap(spendCapDetail(caps.tightest, now, "the next call"));
      await autoPause(tx, campaign, "spend_cap", reason, now);
      return { kind: "paused", reason };
    }
    free = Math.min(free, caps.calls);

    if (facts.untimed) await timeUntimed(tx, campaign, nowMs);
    const toDial: ContactRow[] = [];
    // Rows this transaction already holds are not skipped by SKIP LOCKED: later rounds leave them out.
    const seen: string[] = [];
    for (let round = 0; round < PICK_ROUNDS && toDial.length < free; round++) {
      const wanted = free - toDial.length;
      const picked = await tx
        .select({ contact: campaignContacts, listed: sql<boolean>`${dncNumbers.id} is not null` })
        .from(campaignContacts)
        .leftJoin(dncNumbers, and(eq(dncNumbers.orgId, campaignContacts.orgId), eq(dncNumbers.number, campaignContacts.number)))
        .where(
          and(
            eq(campaignContacts.campaignId, campaign.id),
            eq(campaignContacts.status, "queued"),
            lte(campaignContacts.readyAt, now),
            seen.length > 0 ? notInArray(campaignContacts.id, seen) : undefined,
          ),
        )
        .orderBy(asc(campaignContacts.readyAt), asc(campaignContacts.position))
        .limit(wanted)
        .for("update", { of: campaignContacts, skipLocked: true });
      seen.push(...picked.map(({ contact }) => contact.id));
      const changes: ContactChange[] = [];
      let ready: ContactRow[] = [];
      for (const { contact, listed } of picked) {
        const zones = contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, campaign.schedule.fallback_timezone);
        if (listed) {
          changes.push({ id: contact.id, status: "dnc", readyAt: null });
        } else if (zones.length === 0) {
          changes.push({ id: contact.id, status: "needs_timezone", readyAt: null });
        } else if (!isInsideWindows(campaign.schedule.windows, zones, nowMs)) {
          changes.push({ id: contact.id, status: "queued", readyAt: nextReadyAt(campaign, contact, nowMs) });
        } else {
          ready.push(contact);
        }
      }
      // Order follow-up: at most MAX_CALLS_PER_NUMBER_PER_24H calls to a number in 24 hours (server/orders/dialling.ts).
      if (campaign.kind === FOLLOW_UP_KIND && ready.length > 0) {
        const limited = await applyNumberLimit(tx, campaign.orgId, ready, nowMs);
        ready = limited.dial;
        for (const { contact, until } of limited.wait) changes.push({ id: contact.id, status: "queued", readyAt: nextReadyAt(campaign, contact, until) ?? new Date(until) });
      }
      toDial.push(...ready);
      await writeContactChanges(tx, changes, now);
      // Fewer than asked for: none other is ready.
      if (picked.length < wanted) break;
    }
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
    if (campaign.kind === FOLLOW_UP_KIND) await markOrdersCalling(tx, campaign.orgId, claimed.map((one) => ({ callId: one.callId, contactId: one.contact.id, attempt: one.attempt })), now);
    return result();
  });
}
