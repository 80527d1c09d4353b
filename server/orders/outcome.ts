/**
 * What a follow-up call means for its order (issue 16 §3; README "Orders").
 *
 * The outcome (ORDER_CALL_OUTCOMES) comes from the agent, either during the call through the function
 * tool `record_order_outcome` (given to order follow-up calls only, beside the campaigns' do_not_call
 * tool: PhoneCallRequest.orderOutcomeTool), or, when no tool call recorded one for that call, from the
 * end-of-call report's structured data (`order_outcome`, optionally `callback_at`). do_not_call goes
 * through the campaigns' opt-out (server/campaigns/opt-out.ts): the number joins the do-not-call list.
 *
 * Settling: settle.ts calls settleOrderContact for a contact that follows an order, in the transaction
 * that records the call's end (the webhook ingest's, the dialler's, the reaper's), after it decided the
 * contact's next state by the campaign rules (a retry or final). The order then moves:
 * - the number listed (opted out on the call) or outcome do_not_call → opted_out (contact dnc);
 * - outcome declined → declined;
 * - outcome call_back_later → the contact is queued again at callback_at (or after the retry delay when
 *   the agent gave no time) moved into the customer's window, while attempts < max_attempts; else it
 *   waits for the purchase like a completed call;
 * - a retry due (busy, no answer, voicemail, failed per retry.on) → stays calling, next call named;
 * - reached (answered, or voicemail: reached_at/reached_call_id set) with completed, a link wanted or no
 *   outcome → stays calling, "Waiting for the purchase" until paid or the attribution window ends (the
 *   sweep, sweep.ts, then declines it);
 * - never reached and no retry due → unreachable.
 * Paid, cancelled and opted-out orders are over: their contact gets no retry.
 *
 * The end-of-call report may arrive after the call's status-update already settled the contact (Vapi
 * sends them separately): orderReportArrived then applies the report's structured outcome to the order
 * (and re-queues or finishes the contact) as settling would have. The same happens for a tool call that
 * comes after settling. Each outcome is recorded once per call (an `outcome` event with the call's id).
 *
 * Lock order: the caller holds the organisation's row (and the contact's, when settling); the order row
 * is taken after the contact's.
 */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { CallOutcome } from "../../contract/call-outcome";
import { ORDER_CALL_OUTCOME_LABELS, ORDER_CALL_OUTCOMES, type OrderCallOutcome, type OrderStatus } from "../../contract/order-shared";
import type { ContactStatus } from "../../contract/campaign-shared";
import { contactZones } from "../../contract/campaign-schedule";
import type { CallRow } from "../calls/repository";
import { addToDnc } from "../campaigns/dnc";
import { recordOptOut } from "../campaigns/opt-out";
import { nextReadyAt, type CampaignRow, type ContactRow, type EndedCall } from "../campaigns/settle";
import type { Db } from "../db/client";
import { calls, campaignContacts, campaigns, orderEvents, orders } from "../db/schema";
import type { FunctionToolSpec } from "../voice/types";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { ToolCallError, type ToolHandler } from "../webhooks/tools";
import { attributionDaysOf } from "./payment";
import { recordOrderEvent } from "./events";
import { retryDetail, setOrderStatus, waitingForPurchaseText, type OrderRow } from "./follow-up";

export const ORDER_OUTCOME_TOOL: FunctionToolSpec = {
  name: "record_order_outcome",
  description:
    "Call this once you know how the customer responded about completing their purchase, before ending the call. " +
    "outcome: completed (they will complete the purchase, or just did), declined (they do not want it), send_link_sms or send_link_email " +
    "(they want the checkout link sent), call_back_later (a better time to call; give callback_at), do_not_call (they asked not to be called again).",
  parameters: {
    type: "object",
    properties: {
      outcome: { type: "string", enum: [...ORDER_CALL_OUTCOMES], description: "What the customer decided." },
      callback_at: { type: "string", format: "date-time", description: "For call_back_later: when to call back, as an ISO 8601 time with its offset." },
      note: { type: "string", description: "Anything worth knowing, in a few words (the reason for declining, the preferred time)." },
    },
    required: ["outcome"],
  },
};

/** Without a time from the customer, a call-back waits at least this long (or the retry delay, when longer). */
const CALLBACK_DEFAULT_MS = 60 * 60 * 1000;
const OVER: readonly string[] = ["recovered", "paid_without_call", "cancelled", "opted_out"];
const WAITING: readonly string[] = ["queued", "needs_timezone"];
const DAY_MS = 24 * 60 * 60 * 1000;

const outcomeArgsSchema = z.object({
  outcome: z.enum(ORDER_CALL_OUTCOMES),
  callback_at: z.iso.datetime({ offset: true }).nullish(),
  note: z.string().max(1000).nullish(),
});

export interface OrderOutcome {
  outcome: OrderCallOutcome;
  callbackAt: Date | null;
  note: string | null;
}

/** The outcome in a call's structured data (`order_outcome`, `callback_at`), or null. */
export function outcomeFromStructuredData(data: Record<string, unknown> | null | undefined): OrderOutcome | null {
  if (!data) return null;
  const raw = typeof data.order_outcome === "string" ? data.order_outcome.trim().toLowerCase() : "";
  if (!(ORDER_CALL_OUTCOMES as readonly string[]).includes(raw)) return null;
  const at = typeof data.callback_at === "string" ? Date.parse(data.callback_at) : Number.NaN;
  return { outcome: raw as OrderCallOutcome, callbackAt: Number.isFinite(at) ? new Date(at) : null, note: null };
}

/** Whether an outcome was recorded for this call already (by the tool, or from the report). */
async function outcomeRecordedFor(tx: Db, orderId: string, callId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: orderEvents.id })
    .from(orderEvents)
    .where(and(eq(orderEvents.orderId, orderId), eq(orderEvents.kind, "outcome"), eq(orderEvents.callId, callId)))
    .limit(1);
  return row !== undefined;
}

async function writeOutcome(tx: Db, order: OrderRow, callId: string, outcome: OrderOutcome, source: string, now: Date): Promise<OrderRow> {
  const [row] = await tx
    .update(orders)
    .set({ callOutcome: outcome.outcome, callbackAt: outcome.outcome === "call_back_later" ? outcome.callbackAt : null, updatedAt: now })
    .where(eq(orders.id, order.id))
    .returning();
  const when = outcome.outcome === "call_back_later" && outcome.callbackAt ? ` (at ${outcome.callbackAt.toISOString()})` : "";
  const note = outcome.note?.trim() ? `: "${outcome.note.trim().slice(0, 200)}"` : "";
  await recordOrderEvent(tx, { orgId: order.orgId, orderId: order.id, kind: "outcome", detail: `${ORDER_CALL_OUTCOME_LABELS[outcome.outcome]}${when}${note} (${source}).`, callId, at: now });
  return row ?? order;
}

interface ContactNext {
  status: ContactStatus;
  notBefore: Date | null;
  readyAt: Date | null;
}

interface Decision {
  next: ContactNext;
  status: OrderStatus;
  detail: string;
  event: { kind: "declined" | "unreachable" | "opted_out" | "queued"; detail: string } | null;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** What becomes of the order and its contact after its call (see the file comment). */
async function decide(
  tx: Db,
  input: { order: OrderRow; contact: ContactRow; campaign: CampaignRow; call: EndedCall; outcome: CallOutcome; listed: boolean; next: ContactNext; now: number },
): Promise<Decision> {
  const { order, contact, campaign, call, outcome, listed, now } = input;
  let next = input.next;
  const zones = contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, campaign.schedule.fallback_timezone);
  const reached = outcome === "answered" || outcome === "voicemail" || order.reachedAt !== null;
  const waitingForPurchase = async () => {
    const days = await attributionDaysOf(tx, order, contact);
    const from = order.reachedAt ?? new Date(now);
    return waitingForPurchaseText(new Date(from.getTime() + days * DAY_MS), days, zones);
  };

  if (listed || order.callOutcome === "do_not_call") {
    const detail = "Asked not to be called again: the number is on the do-not-call list.";
    return { next: { ...next, status: "dnc", readyAt: null }, status: "opted_out", detail, event: { kind: "opted_out", detail } };
  }
  if (order.callOutcome === "declined") {
    if (WAITING.includes(next.status)) next = { ...next, status: "answered", readyAt: null };
    return { next, status: "declined", detail: "Declined on the call.", event: { kind: "declined", detail: "The customer declined on the call." } };
  }
  if (order.callOutcome === "call_back_later") {
    if (contact.attempts < campaign.retry.max_attempts) {
      const ended = call.endedAt?.getTime() ?? now;
      const asked = order.callbackAt?.getTime() ?? ended + Math.max(CALLBACK_DEFAULT_MS, campaign.retry.delay_minutes * 60_000);
      const at = Math.max(asked, now);
      const ready = nextReadyAt(campaign, contact, at);
      next = { status: ready ? "queued" : "needs_timezone", notBefore: new Date(at), readyAt: ready };
      const detail = retryDetail({ outcome, callBackLater: true, readyAt: ready, zones }, new Date(now));
      return { next, status: "calling", detail, event: { kind: "queued", detail } };
    }
    if (WAITING.includes(next.status)) next = { ...next, status: "answered", readyAt: null };
    return { next, status: "calling", detail: `Asked to be called back, but all ${campaign.retry.max_attempts} calls were made. ${await waitingForPurchase()}`, event: null };
  }
  if (WAITING.includes(next.status)) {
    return { next, status: "calling", detail: retryDetail({ outcome, callBackLater: false, readyAt: next.readyAt, zones }, new Date(now)), event: null };
  }
  if (reached) {
    const told = order.callOutcome ? `${ORDER_CALL_OUTCOME_LABELS[order.callOutcome as OrderCallOutcome]}. ` : "";
    return { next, status: "calling", detail: `${told}${await waitingForPurchase()}`, event: null };
  }
  const detail = `Not reached after ${plural(contact.attempts, "call")} (the last: ${outcome.replace("_", " ")}).`;
  return { next, status: "unreachable", detail, event: { kind: "unreachable", detail } };
}

/** Writes the decision for the order (its status, reach) and its timeline. */
async function writeDecision(tx: Db, order: OrderRow, call: EndedCall, outcome: CallOutcome, decision: Decision, now: Date): Promise<void> {
  const reachedNow = outcome === "answered" || outcome === "voicemail";
  await setOrderStatus(tx, order, decision.status, decision.detail, now, reachedNow ? { reachedAt: call.endedAt ?? now, reachedCallId: call.id } : {});
  if (decision.event) await recordOrderEvent(tx, { orgId: order.orgId, orderId: order.id, kind: decision.event.kind, detail: decision.event.detail, callId: call.id, at: now });
}

const CALL_ENDED: Readonly<Record<CallOutcome, string>> = {
  answered: "Call answered",
  voicemail: "Call reached voicemail",
  busy: "Call not answered: busy",
  no_answer: "Call not answered",
  failed: "Call failed to connect",
  in_progress: "Call in progress",
};

async function lockOrderRow(tx: Db, orgId: string, orderId: string): Promise<OrderRow | null> {
  const [row] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.orgId, orgId)))
    .for("update");
  return row ?? null;
}

/**
 * settle.ts's hook for a contact that follows an order (contact.order_id), inside its transaction, with
 * the contact locked and `next` the state the campaign rules gave it: answers the contact's state to
 * write (see the file comment).
 */
export async function settleOrderContact(
  tx: Db,
  input: { call: EndedCall & { structuredData?: Record<string, unknown> | null }; contact: ContactRow; campaign: CampaignRow; outcome: CallOutcome; listed: boolean; next: ContactNext; now: number },
): Promise<ContactNext> {
  const { call, contact, campaign, outcome, listed, now } = input;
  let order = contact.orderId ? await lockOrderRow(tx, contact.orgId, contact.orderId) : null;
  if (!order) return input.next;
  const at = new Date(now);
  await recordOrderEvent(tx, { orgId: order.orgId, orderId: order.id, kind: "call", detail: `${CALL_ENDED[outcome]}.`, callId: call.id, at });
  if (OVER.includes(order.status)) {
    // Paid, stopped, cancelled or opted out while the call was on: no retry.
    return WAITING.includes(input.next.status) ? { ...input.next, status: "cancelled", readyAt: null } : input.next;
  }
  // The outcome for this call: the tool's (already on the order), else the report's structured data.
  if (!(await outcomeRecordedFor(tx, order.id, call.id))) {
    const fromReport = outcomeFromStructuredData(call.structuredData);
    if (fromReport) order = await applyReportedOutcome(tx, order, call, fromReport, "from the call's analysis", at);
    else if (order.callOutcome) order = await clearOutcome(tx, order, at);
  }
  const decision = await decide(tx, { order, contact, campaign, call, outcome, listed, next: input.next, now });
  await writeDecision(tx, order, call, outcome, decision, at);
  return decision.next;
}

/** A previous call's outcome does not speak for this call. */
async function clearOutcome(tx: Db, order: OrderRow, now: Date): Promise<OrderRow> {
  const [row] = await tx.update(orders).set({ callOutcome: null, callbackAt: null, updatedAt: now }).where(eq(orders.id, order.id)).returning();
  return row ?? order;
}

/** Records an outcome (tool or report); do_not_call also lists the number (the campaigns' opt-out rule). */
async function applyReportedOutcome(tx: Db, order: OrderRow, call: Pick<CallRow, "id" | "orgId"> & { customerNumber?: string | null }, outcome: OrderOutcome, source: string, now: Date): Promise<OrderRow> {
  if (outcome.outcome === "do_not_call") {
    await addToDnc(tx, order.orgId, { number: call.customerNumber ?? order.customerNumber, reason: "Asked not to be called again during a call", source: "call", callId: call.id, createdBy: null });
  }
  return writeOutcome(tx, order, call.id, outcome, source, now);
}

/**
 * An outcome that arrives after the call's contact was settled (the end-of-call report after the
 * status-update, a late tool call): applied to the order as settling would have, and the contact
 * re-queued or finished accordingly, when it still rests on this call. Runs under the organisation's row.
 */
async function applyAfterSettle(tx: Db, call: CallRow, outcome: OrderOutcome, source: string, now: Date): Promise<boolean> {
  if (!call.campaignContactId) return false;
  const [found] = await tx
    .select({ contact: campaignContacts, campaign: campaigns })
    .from(campaignContacts)
    .innerJoin(campaigns, eq(campaigns.id, campaignContacts.campaignId))
    .where(and(eq(campaignContacts.id, call.campaignContactId), eq(campaignContacts.orgId, call.orgId)))
    .for("update", { of: campaignContacts });
  if (!found?.contact.orderId) return false;
  const { contact, campaign } = found;
  let order = await lockOrderRow(tx, call.orgId, contact.orderId!);
  if (!order || (await outcomeRecordedFor(tx, order.id, call.id))) return false;
  order = await applyReportedOutcome(tx, order, call, outcome, source, now);
  // Still on the line, or another call since: settling (or the next call's) reads the outcome.
  if (contact.status === "in_progress" || contact.lastCallId !== call.id || OVER.includes(order.status)) return true;
  const callOutcome = (call.outcome ?? "answered") as CallOutcome;
  const current: ContactNext = { status: contact.status as ContactStatus, notBefore: contact.notBefore, readyAt: contact.readyAt };
  const decision = await decide(tx, { order, contact, campaign, call, outcome: callOutcome, listed: false, next: current, now: now.getTime() });
  await writeDecision(tx, order, call, callOutcome, decision, now);
  if (decision.next.status !== current.status || decision.next.readyAt?.getTime() !== current.readyAt?.getTime()) {
    await tx
      .update(campaignContacts)
      .set({ status: decision.next.status, notBefore: decision.next.notBefore, readyAt: decision.next.readyAt, updatedAt: now })
      .where(eq(campaignContacts.id, contact.id));
  }
  return true;
}

/** The ingest's end-of-call report for a call whose contact was already settled: its structured outcome, if it brings one. */
export async function orderReportArrived(tx: Db, row: CallRow): Promise<void> {
  const outcome = outcomeFromStructuredData(row.structuredData);
  if (!outcome || !row.campaignContactId) return;
  await applyAfterSettle(tx, row, outcome, "from the call's analysis", new Date());
}

/** The tool registry's handler for record_order_outcome (server/routes/webhooks.ts and the dialler's reaper register it). */
export function orderToolHandlers(db: Db): Record<string, ToolHandler> {
  return {
    [ORDER_OUTCOME_TOOL.name]: async (args, { call }) => {
      if (!call?.campaignContactId) throw new ToolCallError("This call is not an order follow-up call placed by this server, so there is no order to record an outcome for.");
      const parsed = outcomeArgsSchema.safeParse(args);
      if (!parsed.success) throw new ToolCallError(`outcome must be one of ${ORDER_CALL_OUTCOMES.join(", ")}; callback_at, when given, an ISO 8601 time with its offset.`);
      const outcome: OrderOutcome = { outcome: parsed.data.outcome, callbackAt: parsed.data.callback_at ? new Date(parsed.data.callback_at) : null, note: parsed.data.note ?? null };
      if (outcome.outcome === "do_not_call") await recordOptOut(db, call, outcome.note);
      const recorded = await db.transaction(async (tx) => {
        await lockOrganisationForCalls(tx, call.orgId);
        const [fresh] = await tx.select().from(calls).where(eq(calls.id, call.id));
        if (!fresh) return false;
        return applyAfterSettle(tx, fresh, outcome, "said on the call", new Date());
      });
      if (!recorded) return "Noted.";
      switch (outcome.outcome) {
        case "completed":
          return "Recorded: the customer will complete the purchase. Thank them, confirm they can use the checkout link, and end the call politely.";
        case "declined":
          return "Recorded: the customer declined. Thank them for their time and end the call politely without pressing further.";
        case "send_link_sms":
        case "send_link_email":
          return "Recorded: the customer wants the checkout link sent. Confirm it will be sent, thank them and end the call.";
        case "call_back_later":
          return "Recorded: the customer will be called back later. Confirm the time, thank them and end the call.";
        case "do_not_call":
          return "The number is on the do-not-call list: this person will not be called again. Tell them so, thank them, and end the call politely.";
      }
    },
  };
}
