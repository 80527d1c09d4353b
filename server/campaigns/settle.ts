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
 *
 * - A contact that follows an order (order_id; issue 16) also moves its order (server/orders/outcome.ts
 *   settleOrderContact: opted out, declined, call back later, waiting for the purchase, unreachable),
 *   which may change the contact's next state (a call-back is queued; a paid or stopped order gets no retry).
 *
 * Never locks the campaign row (the dialler's claim holds it while it inserts calls): the campaign is
 * read as it stands. The order's row is locked after the contact's.
 */
import { and, eq, sql } from "drizzle-orm";
import { callOutcome, type CallOutcome } from "../../contract/call-outcome";
import { contactZones, NEXT_OPENING_HORIZON_MS, nextOpening } from "../../contract/campaign-schedule";
import { RETRY_OUTCOME_OF_CALL, type ContactStatus } from "../../contract/campaign-shared";
import type { CallRow } from "../calls/repository";
import type { Db } from "../db/client";
import { campaignContacts, campaigns, dncNumbers } from "../db/schema";
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
  if (listed) {
    status = "dnc";
  } else if (retryDue(campaign, contact, outcome, now)) {
    const retryAt = (call.endedAt?.getTime() ?? now) + campaign.retry.delay_minutes * 60_000;
    const ready = nextReadyAt(campaign, contact, retryAt);
    // A retry that could only come after the campaign's end is no retry.
    if (!campaign.endAt || (ready !== null && ready < campaign.endAt)) {
      status = ready === null ? "needs_timezone" : "queued";
      notBefore = new Date(retryAt);
      readyAt = ready;
    }
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

function retryDue(campaign: CampaignRow, contact: ContactRow, outcome: CallOutcome, now: number): boolean {
  if (!RETRYING_CAMPAIGN_STATUSES.has(campaign.status)) return false;
  if (campaign.endAt && campaign.endAt.getTime() <= now) return false;
  const retryOutcome = RETRY_OUTCOME_OF_CALL[outcome];
  return retryOutcome !== undefined && campaign.retry.on.includes(retryOutcome) && contact.attempts < campaign.retry.max_attempts;
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
