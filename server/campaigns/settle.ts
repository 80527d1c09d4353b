/**
 * Settling a campaign call: when the call a contact is in_progress for has ended, what becomes of the
 * contact. Runs in the transaction that records the call's end (the webhook ingest's onCallEnded hook;
 * the dialler's own for a placing failure, a reaped call or a missed hook), so the call's end and the
 * contact's next state are written together, once.
 *
 * - Only the contact's current call settles it: the contact row is locked and must still be
 *   in_progress with last_call_id = this call (a second delivery, a late event or a call given back
 *   changes nothing).
 * - The outcome is contract/call-outcome.ts's callOutcome, never a mapping of our own.
 * - A number on the organisation's do-not-call list (listed before or during the call: the opt-out
 *   tool) ends as dnc.
 * - A retry is due when the campaign may still dial (running, paused, scheduled), retry.on holds the
 *   outcome (RETRY_OUTCOME_OF_CALL), attempts < max_attempts and the retry would come before end_at:
 *   queued again with not_before = the call's end + delay_minutes and ready_at = the next opening of
 *   the contact's windows from then (nextOpening). Otherwise the contact's final state is the outcome.
 * - The retry policy is the campaign's as it stands (issue 31): read when a call ends (here), again at
 *   every dial (retryWithdrawn, in the claim), and an edit of it settles the contacts waiting for a
 *   retry at once (reviewWaitingRetries), so a retry scheduled under the old policy is never dialled past
 *   the new one.
 *
 * - A contact that follows an order (order_id; issue 16) also moves its order (server/orders/outcome.ts
 *   settleOrderContact: opted out, declined, call back later, waiting for the purchase, unreachable),
 *   which may change the contact's next state (a call-back is queued; a paid or stopped order gets no retry).
 *
 * Never locks the campaign row (the dialler's claim holds it while it inserts calls): the campaign is
 * read as it stands. The order's row is locked after the contact's.
 */
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { callOutcome, type CallOutcome } from "../../contract/call-outcome";
import { contactZones, NEXT_OPENING_HORIZON_MS, nextOpening } from "../../contract/campaign-schedule";
import { RETRY_OUTCOME_OF_CALL, type ContactStatus } from "../../contract/campaign-shared";
import type { CallRow } from "../calls/repository";
import type { Db } from "../db/client";
import { calls, campaignContacts, campaigns, dncNumbers } from "../db/schema";
import { FOLLOW_UP_KIND } from "../orders/follow-up";
import { orderReportArrived, settleOrderContact } from "../orders/outcome";

export type ContactRow = typeof campaignContacts.$inferSelect;
export type CampaignRow = typeof campaigns.$inferSelect;

/** What settling needs of the call (a call row, or what the provider said of a call whose row is gone); its structured data when known (an order's outcome). */
export type EndedCall = Pick<CallRow, "id" | "orgId" | "campaignContactId" | "status" | "endedReason" | "endedAt"> & Partial<Pick<CallRow, "structuredData" | "customerNumber">>;

/** A contact's final state for a call outcome. */
const FINAL_STATUS: Readonly<Record<Exclude<CallOutcome, "in_progress">, ContactStatus>> = {
  answered: "answered",
  busy: "busy",
  no_answer: "no_answer",
  voicemail: "voicemail",
  failed: "failed",
};

/** Campaign states in which a retry may still be scheduled (it is dialled once the campaign runs). */
const RETRYING_CAMPAIGN_STATUSES = new Set(["running", "paused", "scheduled"]);

export interface Settled {
  campaignId: string;
  contactId: string;
  status: ContactStatus;
  outcome: CallOutcome;
}

/**
 * When the contact may be dialled next, from `from` (epoch ms): the next opening of its windows in its
 * zones; null when it has no zone (it needs one). No opening within the look-ahead (windows that never
 * meet in all its zones): ready at the end of the look-ahead, when the claim looks again.
 */
export function nextReadyAt(campaign: Pick<CampaignRow, "schedule">, contact: Pick<ContactRow, "timezone" | "numberZones">, from: number): Date | null {
  const zones = contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, campaign.schedule.fallback_timezone);
  if (zones.length === 0) return null;
  return new Date(nextOpening(campaign.schedule.windows, zones, from) ?? from + NEXT_OPENING_HORIZON_MS);
}

/**
 * Settles the contact of an ended campaign call (see the file comment); answers what it became, or null
 * when there was nothing to settle. `force`: settle even without an ended reason (the end-of-call report
 * is the last word; a bare status-update waits for it). Call it inside a transaction that took the
 * organisation's row first (lockOrganisationForCalls or the claim's lock).
 */
export async function settleCampaignCall(tx: Db, call: EndedCall, options: { force: boolean; now?: number }): Promise<Settled | null> {
  if (!call.campaignContactId) return null;
  const outcome = callOutcome(call.status, call.endedReason);
  if (outcome === "in_progress") return null;
  if (!options.force && call.endedReason === null && call.status !== "failed") return null;

  // The contact (locked), its campaign (read, not locked) and whether its number is listed, at once.
  const [found] = await tx
    .select({ contact: campaignContacts, campaign: campaigns, listed: sql<boolean>`${dncNumbers.id} is not null` })
    .from(campaignContacts)
    .innerJoin(campaigns, eq(campaigns.id, campaignContacts.campaignId))
    .leftJoin(dncNumbers, and(eq(dncNumbers.orgId, campaignContacts.orgId), eq(dncNumbers.number, campaignContacts.number)))
    .where(and(eq(campaignContacts.id, call.campaignContactId), eq(campaignContacts.orgId, call.orgId)))
    .for("update", { of: campaignContacts });
  if (!found || found.contact.status !== "in_progress" || found.contact.lastCallId !== call.id) return null;
  const { contact, campaign, listed } = found;
  const now = options.now ?? Date.now();

  let status: ContactStatus = FINAL_STATUS[outcome];
  let notBefore = contact.notBefore;
  let readyAt = contact.readyAt;
  const retry = listed ? null : retryAfter(campaign, contact, outcome, call.endedAt?.getTime() ?? now, now);
  if (listed) {
    status = "dnc";
  } else if (retry) {
    ({ status, notBefore, readyAt } = retry);
  }

  // A contact that follows an order (issue 16): the order moves with it, and may change what the contact does next.
  if (contact.orderId) ({ status, notBefore, readyAt } = await settleOrderContact(tx, { call, contact, campaign, outcome, listed, next: { status, notBefore, readyAt }, now }));

  await tx
    .update(campaignContacts)
    .set({
      status,
      outcome,
      lastEndedReason: call.endedReason,
      notBefore,
      readyAt,
      leaseUntil: null,
      leasedBy: null,
      updatedAt: new Date(now),
    })
    .where(eq(campaignContacts.id, contact.id));
  return { campaignId: contact.campaignId, contactId: contact.id, status, outcome };
}

function retryDue(campaign: CampaignRow, contact: Pick<ContactRow, "attempts">, outcome: CallOutcome, now: number): boolean {
  if (!RETRYING_CAMPAIGN_STATUSES.has(campaign.status)) return false;
  if (campaign.endAt && campaign.endAt.getTime() <= now) return false;
  const retryOutcome = RETRY_OUTCOME_OF_CALL[outcome];
  return retryOutcome !== undefined && campaign.retry.on.includes(retryOutcome) && contact.attempts < campaign.retry.max_attempts;
}

/** A retry: queued (or needs_timezone while the contact has no zone) from not_before, ready at its next opening. */
interface Retry {
  status: "queued" | "needs_timezone";
  notBefore: Date;
  readyAt: Date | null;
}

/**
 * The retry rule, under the campaign's retry policy as it stands: after the contact's `attempts`-th call
 * ended with `outcome` at `endedAt` (epoch ms), the retry it gets (delay_minutes after that end, at the
 * next opening of its windows, never before `earliest`), or null when it gets none (its final state is the
 * outcome). A retry that could only come after the campaign's end is no retry.
 */
function retryAfter(campaign: CampaignRow, contact: Pick<ContactRow, "attempts" | "timezone" | "numberZones">, outcome: CallOutcome, endedAt: number, now: number, earliest = endedAt): Retry | null {
  if (!retryDue(campaign, contact, outcome, now)) return null;
  const retryAt = endedAt + campaign.retry.delay_minutes * 60_000;
  const ready = nextReadyAt(campaign, contact, Math.max(retryAt, earliest));
  if (campaign.endAt && (ready === null || ready >= campaign.endAt)) return null;
  return { status: ready === null ? "needs_timezone" : "queued", notBefore: new Date(retryAt), readyAt: ready };
}

/**
 * Read at every dial (the claim, server/campaigns/claim.ts) and at every edit of the retry policy
 * (reviewWaitingRetries): whether a contact that waits for a retry (attempts > 0) may still be called
 * under the campaign's retry policy as it stands. Null: it may; else its final state, the one its last
 * call's outcome gives (FINAL_STATUS; cancelled when no call of it was settled). No more calls once
 * attempts reached max_attempts, nor when its last outcome is no longer one retry.on names.
 *
 * Order follow-up campaigns keep their own rules (a call-back, "Call now" past max_attempts:
 * server/orders/outcome.ts and service.ts): never withdrawn here.
 */
export function retryWithdrawn(campaign: Pick<CampaignRow, "kind" | "retry">, contact: Pick<ContactRow, "attempts" | "outcome">): ContactStatus | null {
  if (campaign.kind === FOLLOW_UP_KIND || contact.attempts === 0) return null;
  const outcome = contact.outcome as CallOutcome | null;
  const final: ContactStatus = outcome && outcome !== "in_progress" ? FINAL_STATUS[outcome] : "cancelled";
  if (contact.attempts >= campaign.retry.max_attempts) return final;
  if (!outcome || outcome === "in_progress") return null;
  const retryOutcome = RETRY_OUTCOME_OF_CALL[outcome];
  return retryOutcome !== undefined && campaign.retry.on.includes(retryOutcome) ? null : final;
}

/** What an edit of the retry policy did to the contacts waiting for a retry. */
export interface RetryReview {
  /** Made final: their calls are used up, or their last outcome no longer retries (or, with a new delay, their retry would come after the end). */
  finished: number;
  /** Retries moved to the new delay after their last call's end. */
  moved: number;
}

const REVIEW_CHUNK = 2000;

/**
 * After an edit of the campaign's retry policy (PUT /campaign/{id}, server/campaigns/service.ts), in the
 * edit's transaction, which holds the campaign's row FOR UPDATE (the lock the dialler's claim needs:
 * no claim runs for the campaign until it commits, and the next one reads the new policy). Each
 * contact waiting for a retry (queued or needs_timezone, attempts > 0) is locked and:
 *
 * - made final when the policy no longer calls it (retryWithdrawn: calls per contact lowered to or below
 *   its attempts, its last outcome taken out of retry.on): its status the one its last outcome gives
 *   (dnc when its number is listed now), its outcome kept, nothing ready;
 * - otherwise, when delay_minutes changed, its retry moves to the new delay after its last call's end (not
 *   before now), at the next opening of its windows; one that could then only come after end_at is final.
 *
 * Contacts already final stay final (raising calls per contact or adding an outcome does not call again
 * those it had finished), and a call on the line is settled by the policy as it stands when it ends.
 */
export async function reviewWaitingRetries(tx: Db, campaign: CampaignRow, previous: CampaignRow["retry"], now: number): Promise<RetryReview> {
  const review: RetryReview = { finished: 0, moved: 0 };
  if (campaign.kind === FOLLOW_UP_KIND || !RETRYING_CAMPAIGN_STATUSES.has(campaign.status)) return review;
  const waiting = await tx
    .select({ contact: campaignContacts, endedAt: calls.endedAt, listed: sql<boolean>`${dncNumbers.id} is not null` })
    .from(campaignContacts)
    .leftJoin(calls, and(eq(calls.id, campaignContacts.lastCallId), eq(calls.orgId, campaignContacts.orgId)))
    .leftJoin(dncNumbers, and(eq(dncNumbers.orgId, campaignContacts.orgId), eq(dncNumbers.number, campaignContacts.number)))
    .where(
      and(
        eq(campaignContacts.orgId, campaign.orgId),
        eq(campaignContacts.campaignId, campaign.id),
        inArray(campaignContacts.status, ["queued", "needs_timezone"]),
        gt(campaignContacts.attempts, 0),
      ),
    )
    .for("update", { of: campaignContacts });
  const delayChanged = previous.delay_minutes !== campaign.retry.delay_minutes;
  const changes: { id: string; status: ContactStatus; notBefore: Date | null; readyAt: Date | null }[] = [];
  for (const { contact, endedAt, listed } of waiting) {
    const withdrawn = retryWithdrawn(campaign, contact);
    const outcome = contact.outcome as CallOutcome | null;
    if (withdrawn) {
      changes.push({ id: contact.id, status: listed ? "dnc" : withdrawn, notBefore: contact.notBefore, readyAt: null });
      review.finished++;
    } else if (delayChanged && outcome && outcome !== "in_progress") {
      // Its last call's end: the call's, else what its retry was timed from.
      const ended = endedAt?.getTime() ?? (contact.notBefore ? contact.notBefore.getTime() - previous.delay_minutes * 60_000 : now);
      const retry = retryAfter(campaign, contact, outcome, ended, now, now);
      if (retry) {
        changes.push({ id: contact.id, ...retry });
        review.moved++;
      } else {
        changes.push({ id: contact.id, status: listed ? "dnc" : FINAL_STATUS[outcome], notBefore: contact.notBefore, readyAt: null });
        review.finished++;
      }
    }
  }
  for (let i = 0; i < changes.length; i += REVIEW_CHUNK) {
    const values = sql.join(
      changes
        .slice(i, i + REVIEW_CHUNK)
        .map((change) => sql`(${change.id}::uuid, ${change.status}::text, ${change.notBefore ? change.notBefore.toISOString() : null}::timestamptz, ${change.readyAt ? change.readyAt.toISOString() : null}::timestamptz)`),
      sql`, `,
    );
    await tx.execute(sql`
      update ${campaignContacts} as c
      set status = v.status, not_before = v.not_before, ready_at = v.ready_at, updated_at = ${new Date(now).toISOString()}::timestamptz
      from (values ${values}) as v(id, status, not_before, ready_at)
      where c.id = v.id and c.org_id = ${campaign.orgId} and c.campaign_id = ${campaign.id}`);
  }
  return review;
}

/**
 * The ingest's onCallEnded hook (server/webhooks/ingest.ts): the end-of-call report settles even without an ended reason.
 * A report that comes after the status-update settled an order's contact still brings the order its outcome (orderReportArrived).
 */
export async function settleOnCallEnded(tx: Db, row: CallRow, event: "status-update" | "end-of-call-report"): Promise<Settled | null> {
  const settled = await settleCampaignCall(tx, row, { force: event === "end-of-call-report" });
  if (!settled && event === "end-of-call-report" && row.campaignContactId && row.structuredData) await orderReportArrived(tx, row);
  return settled;
}
