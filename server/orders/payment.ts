/**
 * An order's payment and its attribution, one rule for the store's paid event (store-events.ts) and
 * "mark as paid" (POST /order/{id}/paid):
 *
 * - recovered: a call reached the customer (answered, or a voicemail left: orders.reached_call_id) and
 *   the payment came between that call's start and attribution_days after its end (orders.reached_at),
 *   or a call is on the line as the payment arrives (the customer paid while talking to the agent);
 *   recovered_minor = what was paid, the reached call linked;
 * - paid_without_call otherwise: paid before any call reached the customer, or after the window;
 * - either way a contact still waiting for its call is cancelled ("an order paid before its call
 *   cancels the pending follow-up"), and the order's timeline gets a `paid` event.
 * A paid order is final: a second payment is ignored ("already paid").
 *
 * attribution_days is the follow-up's whose campaign holds the order's contact (else the follow-up the
 * order belongs to, else DEFAULT_ATTRIBUTION_DAYS). Runs in the caller's transaction, after lockOrder.
 */
import { and, eq } from "drizzle-orm";
import { DEFAULT_ATTRIBUTION_DAYS, PAID_ORDER_STATUSES, formatOrderAmount, type OrderStatus } from "../../contract/order-shared";
import type { Db } from "../db/client";
import { calls, orderFollowUps } from "../db/schema";
import type { ContactRow } from "../campaigns/settle";
import { recordOrderEvent } from "./events";
import { cancelWaitingContact, followUpFor, setOrderStatus, type OrderRow } from "./follow-up";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface Payment {
  paidMinor: number;
  currency: string;
  paidAt: Date;
  /** Who said so, for the timeline: "the store (Shopify)", "marked paid by Ada". */
  source: string;
  actor?: string | null;
}

export type PaymentResult = { result: "applied"; order: OrderRow } | { result: "ignored"; detail: string; order: OrderRow };

/** The attribution window (days) that applies to the order. */
export async function attributionDaysOf(tx: Db, order: OrderRow, contact: ContactRow | null): Promise<number> {
  if (contact) {
    const [row] = await tx.select({ days: orderFollowUps.attributionDays }).from(orderFollowUps).where(eq(orderFollowUps.campaignId, contact.campaignId)).limit(1);
    if (row) return row.days;
  }
  return (await followUpFor(tx, order.orgId, order.integrationId))?.settings.attributionDays ?? DEFAULT_ATTRIBUTION_DAYS;
}

const day = (at: Date) => at.toISOString().slice(0, 10);

/** Records the payment on the locked order (see the file comment). */
export async function recordPayment(tx: Db, locked: { order: OrderRow; contact: ContactRow | null }, payment: Payment, now: Date): Promise<PaymentResult> {
  const { order, contact } = locked;
  if ((PAID_ORDER_STATUSES as readonly string[]).includes(order.status)) return { result: "ignored", detail: "already paid", order };

  const amount = formatOrderAmount(payment.paidMinor, payment.currency);
  // On the line: the follow-up's call is answered (in progress), not merely placed or ringing.
  let onLine = false;
  if (contact?.status === "in_progress" && contact.lastCallId) {
    const [current] = await tx.select({ status: calls.status }).from(calls).where(and(eq(calls.id, contact.lastCallId), eq(calls.orgId, order.orgId))).limit(1);
    onLine = current?.status === "in-progress" || current?.status === "forwarding";
  }
  let status: OrderStatus = "paid_without_call";
  let detail: string;
  let reachedCallId = order.reachedCallId;
  let reachedAt = order.reachedAt;
  const days = await attributionDaysOf(tx, order, contact);
  if (onLine) {
    status = "recovered";
    reachedCallId = contact!.lastCallId;
    reachedAt ??= payment.paidAt;
    detail = `Recovered: paid ${amount} during the call.`;
  } else if (order.reachedCallId && order.reachedAt) {
    const [call] = await tx.select({ startedAt: calls.startedAt }).from(calls).where(and(eq(calls.id, order.reachedCallId), eq(calls.orgId, order.orgId))).limit(1);
    const from = call?.startedAt ?? order.reachedAt;
    const until = new Date(order.reachedAt.getTime() + days * DAY_MS);
    if (payment.paidAt >= from && payment.paidAt <= until) {
      status = "recovered";
      detail = `Recovered: paid ${amount} on ${day(payment.paidAt)}, within ${days} day${days === 1 ? "" : "s"} of the call.`;
    } else if (payment.paidAt < from) {
      detail = `Paid ${amount} on ${day(payment.paidAt)}, before the call reached the customer.`;
    } else {
      detail = `Paid ${amount} on ${day(payment.paidAt)}, more than ${days} day${days === 1 ? "" : "s"} after the call: not counted as recovered.`;
    }
  } else {
    detail = `Paid ${amount} on ${day(payment.paidAt)} before any call reached the customer.`;
  }
  const cancelled = await cancelWaitingContact(tx, contact, now);
  if (cancelled) detail += " The pending follow-up call was cancelled.";

  const written = await setOrderStatus(tx, order, status, detail, now, {
    paidAt: payment.paidAt,
    paidMinor: payment.paidMinor,
    recoveredMinor: status === "recovered" ? payment.paidMinor : 0,
    reachedCallId: status === "recovered" ? reachedCallId : order.reachedCallId,
    reachedAt: status === "recovered" ? reachedAt : order.reachedAt,
  });
  await recordOrderEvent(tx, {
    orgId: order.orgId,
    orderId: order.id,
    kind: "paid",
    detail: `${detail} (${payment.source})`,
    callId: status === "recovered" ? reachedCallId : null,
    actor: payment.actor ?? null,
    at: now,
  });
  return { result: "applied", order: written };
}
