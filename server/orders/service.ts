/**
 * Writing orders through the API (server/routes/orders.ts): create, edit, delete, call now, stop, mark
 * as paid. Each runs in one transaction that takes the organisation's row first
 * (lockOrganisationForCalls: the dialler's claim, the webhook ingest and settling take it first too),
 * then the order's contact and the order (lockOrder); a refusal changes nothing. The dialler is nudged
 * (CampaignSignals) after the commit when a contact was queued.
 *
 * Decisions a user notices (README "Orders"):
 * - POST /order/ makes a `manual` order whose reference is its id in the organisation: the same
 *   reference again answers 409 (an import updates it instead). Its follow-up is planned at once.
 * - PUT /order/{id} changes details; a new number or consent re-plans the follow-up of an order not
 *   called yet, and consent taken away stops a waiting call (no_consent). 409 while a call is on the line.
 * - DELETE /order/{id} (admins): the order, its contact and its timeline go; its calls stay in Call
 *   Logs. 409 while a call is on the line.
 * - Call now queues the order's contact at the front of its follow-up (ready since the epoch, so it sorts
 *   first), whether automatic follow-up is on or not, and even past max_attempts (that one call). The
 *   claim still applies concurrency, the windows, the do-not-call list, spend caps and plan limits.
 *   Refusals: 400 follow_up_not_set_up; 409 conflict (paid, opted out, a call on the line, a state
 *   call now does not take, the follow-up paused), consent_required (unless confirm_consent: then
 *   consent is recorded as CONSENT_SOURCE_CONFIRMED_IN_CONSOLE by the member), dnc,
 *   timezone_required, outside_calling_hours and number_call_limit (both with next_call_at).
 * - Stop (members): a waiting call is cancelled and the order is cancelled, "Stopped by <name>".
 * - Mark as paid (admins): the store's paid event's attribution (payment.ts), "marked paid by <name>".
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { CALLING_HOURS, CONSENT_SOURCE_CONFIRMED_IN_CONSOLE, MAX_CALLS_PER_NUMBER_PER_24H } from "../../contract/calling-rules";
import { contactZones, isInsideWindows, nextOpening } from "../../contract/campaign-schedule";
import { ERROR_CODES } from "../../contract/errors";
import { CALLABLE_ORDER_STATUSES, PAID_ORDER_STATUSES, STOPPABLE_ORDER_STATUSES, majorToMinor } from "../../contract/order-shared";
import type { orderCreateSchema, orderMarkPaidSchema, orderUpdateSchema } from "../../contract/order";
import { numberTimeZones } from "../campaigns/number-zones";
import type { CampaignSignals } from "../campaigns/signals";
import { personName } from "../campaigns/service";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { orders } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { recentCallsToNumbers, nextAllowedCallAt } from "./dialling";
import { recordOrderEvent } from "./events";
import {
  cancelWaitingContact,
  followUpFor,
  isListed,
  localTimeText,
  lockOrder,
  planFollowUp,
  queueContact,
  refreshContact,
  setOrderStatus,
  CALL_NOW_READY_AT,
  WAITING,
  type OrderRow,
} from "./follow-up";
import { recordPayment } from "./payment";
import { orderNotFound } from "./repository";

export type NewOrder = z.output<typeof orderCreateSchema>;
export type OrderChanges = z.output<typeof orderUpdateSchema>;
export type MarkPaid = z.output<typeof orderMarkPaidSchema>;

export interface OrderContext {
  db: Db;
  orgId: string;
  userId: string;
  signals: CampaignSignals;
}

const conflict = (detail: string, code: string = ERROR_CODES.conflict, fields?: Record<string, unknown>) =>
  new ApiError(409, code as typeof ERROR_CODES.conflict, detail, undefined, fields);
const onTheLine = () => conflict("A call to this customer is on the line: wait until it ends.");

/** Minor units of a wire amount (the contract already checked that it fits the currency). */
const minor = (value: number, currency: string) => majorToMinor(value, currency) ?? Math.round(value * 100);

function itemsOf(items: NewOrder["items"], currency: string) {
  return (items ?? []).map((item) => ({ name: item.name, quantity: item.quantity, price_minor: minor(item.price, currency) }));
}

async function locked(tx: Db, orgId: string, id: string) {
  await lockOrganisationForCalls(tx, orgId);
  const found = await lockOrder(tx, orgId, id);
  if (!found) throw orderNotFound();
  return found;
}

/** POST /order/: answers the new order's id. */
export async function createOrder(ctx: OrderContext, input: NewOrder): Promise<string> {
  const result = await ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, ctx.orgId);
    const now = new Date();
    const consent = input.call_consent;
    const [row] = await tx
      .insert(orders)
      .values({
        id: randomUUID(),
        orgId: ctx.orgId,
        integrationId: null,
        source: "manual",
        externalId: input.reference,
        reference: input.reference,
        storeName: input.store_name ?? null,
        customerName: input.customer_name ?? null,
        customerNumber: input.customer_number,
        customerEmail: input.customer_email ?? null,
        timezone: input.timezone ?? null,
        items: itemsOf(input.items, input.currency),
        totalMinor: minor(input.total, input.currency),
        currency: input.currency,
        checkoutUrl: input.checkout_url ?? null,
        abandonedAt: input.abandoned_at ? new Date(input.abandoned_at) : now,
        status: "open",
        consentGiven: consent?.given ?? false,
        consentSource: consent?.source ?? null,
        consentAt: consent?.given ? (consent.at ? new Date(consent.at) : now) : null,
        createdBy: ctx.userId,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw conflict(`An order with the reference "${input.reference}" exists already: edit it (PUT /order/{id}) instead.`);
    await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: row.id, kind: "abandoned", detail: "Added by hand.", actor: ctx.userId, at: now });
    const planned = await planFollowUp(tx, { order: row, contact: null }, now);
    if (planned.queued) await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: row.id, kind: "queued", detail: planned.order.statusDetail ?? "Queued for a call.", at: now });
    return { id: row.id, wake: planned.queued ? planned.campaignId : null };
  });
  if (result.wake) ctx.signals.changed(result.wake);
  return result.id;
}

/** PUT /order/{id} */
export async function updateOrder(ctx: OrderContext, id: string, changes: OrderChanges): Promise<void> {
  const wake = await ctx.db.transaction(async (tx) => {
    const { order: before, contact } = await locked(tx, ctx.orgId, id);
    if (contact?.status === "in_progress") throw onTheLine();
    const now = new Date();
    const currency = changes.currency ?? before.currency;
    const consent = changes.call_consent;
    const values: Partial<typeof orders.$inferInsert> = {
      ...(changes.reference !== undefined ? { reference: changes.reference } : {}),
      ...(changes.customer_name !== undefined ? { customerName: changes.customer_name } : {}),
      ...(changes.customer_number !== undefined ? { customerNumber: changes.customer_number } : {}),
      ...(changes.customer_email !== undefined ? { customerEmail: changes.customer_email } : {}),
      ...(changes.items !== undefined ? { items: itemsOf(changes.items, currency) } : {}),
      ...(changes.total !== undefined ? { totalMinor: minor(changes.total, currency) } : {}),
      ...(changes.currency !== undefined ? { currency } : {}),
      ...(changes.checkout_url !== undefined ? { checkoutUrl: changes.checkout_url } : {}),
      ...(changes.abandoned_at !== undefined ? { abandonedAt: new Date(changes.abandoned_at) } : {}),
      ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
      ...(changes.store_name !== undefined ? { storeName: changes.store_name } : {}),
      ...(consent !== undefined
        ? { consentGiven: consent.given, consentSource: consent.source ?? null, consentAt: consent.given ? (consent.at ? new Date(consent.at) : (before.consentAt ?? now)) : null }
        : {}),
      updatedAt: now,
    };
    // A manual order's reference is its id in the organisation: keep them together (the unique index refuses a taken one).
    if (changes.reference !== undefined && before.source === "manual" && before.integrationId === null) values.externalId = changes.reference;
    let order: OrderRow;
    try {
      [order] = (await tx.update(orders).set(values).where(eq(orders.id, before.id)).returning()) as [OrderRow];
    } catch (error) {
      if (/orders_org_integration_external_unique|duplicate key/i.test(String((error as Error).cause ?? error))) throw conflict(`An order with the reference "${changes.reference}" exists already.`);
      throw error;
    }
    const numberChanged = order.customerNumber !== before.customerNumber;
    const consentChanged = order.consentGiven !== before.consentGiven;
    if (consentChanged) {
      await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: id, kind: "consent", detail: order.consentGiven ? `Consent to be called recorded${order.consentSource ? ` (${order.consentSource})` : ""}.` : "Consent to be called taken away.", actor: ctx.userId, at: now });
    }
    await refreshContact(tx, order, contact, now);
    if (!order.consentGiven && !(PAID_ORDER_STATUSES as readonly string[]).includes(order.status) && (order.status === "open" || order.status === "calling")) {
      // No consent: nothing more is dialled.
      await cancelWaitingContact(tx, contact, now);
      await setOrderStatus(tx, order, "no_consent", "No consent to be called: never dialled automatically; Call now asks you to confirm consent first.", now);
      return null;
    }
    if ((numberChanged || consentChanged || changes.timezone !== undefined || changes.abandoned_at !== undefined) && (order.status === "open" || order.status === "no_consent")) {
      const planned = await planFollowUp(tx, { order, contact }, now, { replan: true });
      if (planned.queued) await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: id, kind: "queued", detail: planned.order.statusDetail ?? "Queued for a call.", at: now });
      return planned.queued ? planned.campaignId : null;
    }
    if (numberChanged && (await isListed(tx, ctx.orgId, order.customerNumber)) && !(PAID_ORDER_STATUSES as readonly string[]).includes(order.status)) {
      await cancelWaitingContact(tx, contact, now);
      await setOrderStatus(tx, order, "opted_out", "The number is on the do-not-call list: it is never called.", now);
    }
    return null;
  });
  if (wake) ctx.signals.changed(wake);
}

/** DELETE /order/{id} (admins). */
export async function deleteOrder(ctx: OrderContext, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const { contact } = await locked(tx, ctx.orgId, id);
    if (contact?.status === "in_progress") throw onTheLine();
    await tx.delete(orders).where(and(eq(orders.id, id), eq(orders.orgId, ctx.orgId)));
  });
}

const by = (name: string | null) => (name ? ` by ${name}` : "");

/** POST /order/{id}/call (see the file comment). */
export async function callNow(ctx: OrderContext, id: string, input: { confirm_consent?: boolean | undefined }): Promise<void> {
  const name = await personName(ctx.db, ctx.userId);
  const wake = await ctx.db.transaction(async (tx) => {
    const { order: found, contact } = await locked(tx, ctx.orgId, id);
    let order = found;
    const now = new Date();
    const followUp = await followUpFor(tx, ctx.orgId, order.integrationId);
    if (!followUp || !followUp.campaign.agentId || !followUp.campaign.phoneNumberId) {
      throw new ApiError(400, ERROR_CODES.followUpNotSetUp, "Follow-up is not set up: choose the agent and the caller number in the follow-up settings (PUT /order/follow-up), then call again.");
    }
    if ((PAID_ORDER_STATUSES as readonly string[]).includes(order.status)) throw conflict("This order is paid: there is nothing to follow up.", ERROR_CODES.conflict, { status: order.status });
    if (contact?.status === "in_progress") throw conflict("A call to this customer is on the line already.", ERROR_CODES.conflict, { status: order.status });
    if (await isListed(tx, ctx.orgId, order.customerNumber)) throw conflict(`${order.customerNumber} is on the do-not-call list: it is never called.`, ERROR_CODES.dnc);
    if (order.status === "opted_out") throw conflict("The customer asked not to be called again.", ERROR_CODES.conflict, { status: order.status });
    const queuedAlready = contact !== null && (WAITING as readonly string[]).includes(contact.status);
    if (!(CALLABLE_ORDER_STATUSES as readonly string[]).includes(order.status) && !(order.status === "calling" && queuedAlready)) {
      throw conflict(`This order is ${order.status.replace(/_/g, " ")}: call now takes open, declined, unreachable, cancelled and no-consent orders, and brings forward a call that is waiting.`, ERROR_CODES.conflict, { status: order.status });
    }
    if (followUp.campaign.status === "paused") {
      throw conflict(`The follow-up is paused: ${followUp.campaign.pauseReason ?? "no calls go out"}. Save the follow-up settings with automatic follow-up on to resume it.`, ERROR_CODES.conflict, { status: order.status });
    }
    if (!order.consentGiven && !input.confirm_consent) {
      throw conflict("This order carries no consent to be called. Confirm that the customer agreed to be called about this purchase (confirm_consent: true), then call.", ERROR_CODES.consentRequired);
    }
    const zones = contactZones({ timezone: order.timezone, numberZones: numberTimeZones(order.customerNumber) }, followUp.campaign.schedule.fallback_timezone);
    if (zones.length === 0) {
      throw conflict("The customer's time zone is unknown, so their calling hours are too: give the order a timezone, or set a fallback zone in the follow-up settings.", ERROR_CODES.timezoneRequired);
    }
    const nowMs = now.getTime();
    if (!isInsideWindows(followUp.campaign.schedule.windows, zones, nowMs)) {
      const next = nextOpening(followUp.campaign.schedule.windows, zones, nowMs);
      const when = next ? `the next call may go from ${localTimeText(new Date(next), zones)}` : "the follow-up's windows never open there: change them";
      throw conflict(
        `Outside the customer's calling hours (the follow-up's windows, within ${CALLING_HOURS.start}–${CALLING_HOURS.end} their time): ${when}.`,
        ERROR_CODES.outsideCallingHours,
        { next_call_at: next ? isoTime(new Date(next)) : null },
      );
    }
    const recent = await recentCallsToNumbers(tx, ctx.orgId, [order.customerNumber], nowMs);
    const allowedAt = nextAllowedCallAt(recent.get(order.customerNumber) ?? [], nowMs);
    if (allowedAt > nowMs) {
      throw conflict(
        `${order.customerNumber} was called ${MAX_CALLS_PER_NUMBER_PER_24H} times in the last 24 hours, the most allowed: the next call may go from ${localTimeText(new Date(allowedAt), zones)}.`,
        ERROR_CODES.numberCallLimit,
        { next_call_at: isoTime(new Date(allowedAt)) },
      );
    }

    if (!order.consentGiven) {
      const source = `${CONSENT_SOURCE_CONFIRMED_IN_CONSOLE}${by(name)}`;
      [order] = (await tx.update(orders).set({ consentGiven: true, consentSource: source, consentAt: now, updatedAt: now }).where(eq(orders.id, order.id)).returning()) as [OrderRow];
      await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order.id, kind: "consent", detail: `Consent to be called confirmed in the console${by(name)}.`, actor: ctx.userId, at: now });
    }
    const reopened = order.status !== "open" && order.status !== "calling";
    await queueContact(tx, order, contact, followUp, { notBefore: now, now, readyAt: CALL_NOW_READY_AT, position: 0 });
    const calledBefore = (contact?.attempts ?? 0) > 0;
    const detail = `Call now${by(name)}: the call goes out as soon as a line is free.`;
    order = await setOrderStatus(tx, order, calledBefore ? "calling" : "open", detail, now);
    await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order.id, kind: reopened ? "reopened" : "queued", detail, actor: ctx.userId, at: now });
    return followUp.campaign.id;
  });
  ctx.signals.changed(wake);
}

/** POST /order/{id}/stop */
export async function stopOrder(ctx: OrderContext, id: string): Promise<void> {
  const name = await personName(ctx.db, ctx.userId);
  await ctx.db.transaction(async (tx) => {
    const { order, contact } = await locked(tx, ctx.orgId, id);
    if (!(STOPPABLE_ORDER_STATUSES as readonly string[]).includes(order.status)) {
      throw conflict(`This order is ${order.status.replace(/_/g, " ")}: only an open or calling order's follow-up can be stopped.`, ERROR_CODES.conflict, { status: order.status });
    }
    const now = new Date();
    const cancelled = await cancelWaitingContact(tx, contact, now);
    const detail = `Stopped${by(name)}.`;
    await setOrderStatus(tx, order, "cancelled", detail, now);
    const onLine = contact?.status === "in_progress" ? " The call on the line finishes; no call follows." : "";
    await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: id, kind: "stopped", detail: `${detail}${cancelled ? " The waiting call was cancelled." : ""}${onLine}`, actor: ctx.userId, at: now });
  });
}

/** POST /order/{id}/paid (admins). */
export async function markPaid(ctx: OrderContext, id: string, input: MarkPaid): Promise<void> {
  const name = await personName(ctx.db, ctx.userId);
  await ctx.db.transaction(async (tx) => {
    const found = await locked(tx, ctx.orgId, id);
    if ((PAID_ORDER_STATUSES as readonly string[]).includes(found.order.status)) throw conflict("This order is already paid.", ERROR_CODES.conflict, { status: found.order.status });
    const now = new Date();
    const amount = input.amount !== undefined ? minor(input.amount, found.order.currency) : found.order.totalMinor;
    await recordPayment(tx, found, { paidMinor: amount, currency: found.order.currency, paidAt: input.paid_at ? new Date(input.paid_at) : now, source: `marked paid${by(name)}`, actor: ctx.userId }, now);
  });
}
