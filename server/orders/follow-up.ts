/**
 * Order follow-up: which follow-up an order belongs to, and whether (and when) its one contact is
 * queued in that follow-up's campaign (issue 16 §3; README "Orders").
 *
 * Each organisation's follow-up is a campaign row of kind `order_follow_up` (the dialler's own
 * machinery: windows in the customer's zone, concurrency, retries, do-not-call, plan limits, spend caps,
 * crash safety) plus an order_follow_ups row (enabled, delay_minutes, attribution_days). A store
 * integration with settings of its own has its own pair (order_follow_ups.integration_id).
 *
 * An order has at most one contact (campaign_contacts.order_id). It is queued automatically when:
 * - the order carries consent to be called (else status no_consent, no contact);
 * - its number is not on the do-not-call list (else opted_out);
 * - the follow-up exists and is enabled (else the order stays open, its status_detail says why);
 * - it was abandoned within FOLLOW_UP_BACKFILL_HOURS (an older order is not dialled out of the blue:
 *   it stays open, and "call now" still works).
 * The contact is then queued with not_before = abandoned_at + delay_minutes and ready_at = the next
 * opening of the follow-up's windows in the customer's zones from then (server/campaigns/readiness.ts,
 * the same code campaigns use, DST-safe), or needs_timezone when no zone is known.
 *
 * Every function here runs inside the caller's transaction, which took the organisation's row first
 * (lockOrganisationForCalls): the lock every writer of contacts and calls takes first, so order writes,
 * claims, webhooks and settling take turns per organisation and cannot deadlock. Within it the order's
 * contact is locked before the order (lockOrder), the order settle.ts's hook follows too.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { FOLLOW_UP_BACKFILL_HOURS, formatOrderAmount, type OrderStatus } from "../../contract/order-shared";
import { contactZones } from "../../contract/campaign-schedule";
import type { Db } from "../db/client";
import { campaignContacts, campaigns, dncNumbers, orderFollowUps, orders } from "../db/schema";
import { numberTimeZones } from "../campaigns/number-zones";
import { readinessPlanner } from "../campaigns/readiness";
import type { CampaignRow } from "../campaigns/repository";
import type { ContactRow } from "../campaigns/settle";

export type OrderRow = typeof orders.$inferSelect;
export type FollowUpSettingsRow = typeof orderFollowUps.$inferSelect;
export interface FollowUp {
  campaign: CampaignRow;
  settings: FollowUpSettingsRow;
}

/** The campaign kind of follow-ups (campaigns.kind); the campaigns API lists, counts and changes only kind `campaign`. */
export const FOLLOW_UP_KIND = "order_follow_up";
export const CAMPAIGN_KIND = "campaign";

/** Contact states still waiting to be dialled (the ones a stop, a payment or a cancellation cancels). */
export const WAITING = ["queued", "needs_timezone"] as const;

const BACKFILL_MS = FOLLOW_UP_BACKFILL_HOURS * 60 * 60 * 1000;
/** The cart line for the agent stays short: a very long cart is cut after this many characters. */
const CART_ITEMS_MAX_LENGTH = 1000;

/**
 * The follow-up that dials an order of `integrationId`: the integration's own settings when it has
 * some, else the organisation's; null when none were ever saved.
 */
export async function followUpFor(tx: Db, orgId: string, integrationId: string | null): Promise<FollowUp | null> {
  const rows = await tx
    .select({ campaign: campaigns, settings: orderFollowUps })
    .from(orderFollowUps)
    .innerJoin(campaigns, eq(campaigns.id, orderFollowUps.campaignId))
    .where(and(eq(orderFollowUps.orgId, orgId), integrationId ? or(eq(orderFollowUps.integrationId, integrationId), isNull(orderFollowUps.integrationId)) : isNull(orderFollowUps.integrationId)))
    .orderBy(sql`${orderFollowUps.integrationId} is null`)
    .limit(1);
  return rows[0] ?? null;
}

/** The order's contact and then the order, locked (FOR UPDATE), in the lock order of every order writer (contact, then order). */
export async function lockOrder(tx: Db, orgId: string, orderId: string): Promise<{ order: OrderRow; contact: ContactRow | null } | null> {
  const [contact] = await tx
    .select()
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, orgId), eq(campaignContacts.orderId, orderId)))
    .for("update");
  const [order] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.orgId, orgId), eq(orders.id, orderId)))
    .for("update");
  return order ? { order, contact: contact ?? null } : null;
}

/** "2 × Blue mug ($12.00), 1 × Tote bag ($35.90)" */
export function cartItemsText(order: Pick<OrderRow, "items" | "currency">): string {
  const parts = order.items.map((item) => `${item.quantity} × ${item.name} (${formatOrderAmount(item.price_minor, order.currency)})`);
  let text = "";
  for (let i = 0; i < parts.length; i++) {
    const next = text ? `${text}, ${parts[i]}` : parts[i]!;
    if (next.length > CART_ITEMS_MAX_LENGTH) return `${text}, and ${parts.length - i} more`;
    text = next;
  }
  return text;
}

/**
 * What the agent is told about the order (assistantOverrides.variableValues; ORDER_CALL_VARIABLES): name,
 * cart_items, cart_total, checkout_link, store_name, order_reference. A value the order lacks is left out
 * (the template's Liquid `default` filters then speak around it).
 */
export function orderVariables(order: Pick<OrderRow, "customerName" | "items" | "currency" | "totalMinor" | "checkoutUrl" | "storeName" | "reference">): Record<string, string> {
  const values: Record<string, string> = {
    cart_total: formatOrderAmount(order.totalMinor, order.currency),
    order_reference: order.reference,
  };
  const name = order.customerName?.trim();
  if (name) values.name = name;
  const items = cartItemsText(order);
  if (items) values.cart_items = items;
  if (order.checkoutUrl) values.checkout_link = order.checkoutUrl;
  if (order.storeName?.trim()) values.store_name = order.storeName.trim();
  return values;
}

/** When `at` is in the first of `zones`, for a person: "Tue 1 Dec, 09:00 (America/Chicago)". */
export function localTimeText(at: Date, zones: readonly string[]): string {
  const zone = zones[0] ?? "UTC";
  let format = TIME_FORMATS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    TIME_FORMATS.set(zone, format);
  }
  return `${format.format(at).replace(" at ", ", ")} (${zone})`;
}
/**
 * The order's line while its purchase may still count: the deadline in the customer's zone, like every other time
 * in the order's sentences (it was a UTC date beside times in their zone).
 */
export function waitingForPurchaseText(until: Date, days: number, zones: readonly string[]): string {
  return `Waiting for the purchase: it counts as recovered if paid by ${localTimeText(until, zones)} (${days} ${days === 1 ? "day" : "days"} after the call).`;
}

/** One formatter per zone (building one costs more than formatting thousands of times). */
const TIME_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** Whether the organisation lists the number (do-not-call). */
export async function isListed(tx: Db, orgId: string, number: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: dncNumbers.id })
    .from(dncNumbers)
    .where(and(eq(dncNumbers.orgId, orgId), eq(dncNumbers.number, number)))
    .limit(1);
  return row !== undefined;
}

/** The contact's fields that come from the order (number, name, zones, variables). */
export function contactFieldsOf(order: OrderRow) {
  return {
    number: order.customerNumber,
    name: order.customerName?.trim() || null,
    timezone: order.timezone,
    numberZones: numberTimeZones(order.customerNumber),
    variables: orderVariables(order),
  };
}

/** Writes the order's status and detail (and whatever else `extra` sets). */
export async function setOrderStatus(tx: Db, order: OrderRow, status: OrderStatus, detail: string | null, now: Date, extra: Partial<typeof orders.$inferInsert> = {}): Promise<OrderRow> {
  const [row] = await tx
    .update(orders)
    .set({ status, statusDetail: detail, updatedAt: now, ...extra })
    .where(and(eq(orders.id, order.id), eq(orders.orgId, order.orgId)))
    .returning();
  return row ?? order;
}

/** Cancels the order's contact if it is still waiting (answers whether it did). */
export async function cancelWaitingContact(tx: Db, contact: ContactRow | null, now: Date): Promise<boolean> {
  if (!contact || !(WAITING as readonly string[]).includes(contact.status)) return false;
  await tx.update(campaignContacts).set({ status: "cancelled", readyAt: null, updatedAt: now }).where(eq(campaignContacts.id, contact.id));
  return true;
}

/** Keeps a contact's copy of the order (number, zones, variables) up to date after the order changed. */
export async function refreshContact(tx: Db, order: OrderRow, contact: ContactRow | null, now: Date): Promise<void> {
  if (!contact) return;
  await tx.update(campaignContacts).set({ ...contactFieldsOf(order), updatedAt: now }).where(eq(campaignContacts.id, contact.id));
}

export interface QueueResult {
  order: OrderRow;
  /** The contact was queued (or re-queued) for a call. */
  queued: boolean;
  /** The campaign the contact waits in (to wake the dialler). */
  campaignId: string | null;
}

/**
 * Puts the contact in the follow-up's campaign, queued from `notBefore` (moved into the customer's next
 * window), or waiting for a time zone; creates it when the order has none. `readyAt` overrides the
 * computed ready_at (call now). Answers the contact's status and ready_at.
 */
export async function queueContact(
  tx: Db,
  order: OrderRow,
  contact: ContactRow | null,
  followUp: FollowUp,
  input: { notBefore: Date; now: Date; readyAt?: Date; position?: number },
): Promise<{ status: "queued" | "needs_timezone"; readyAt: Date | null; zones: string[] }> {
  const fields = contactFieldsOf(order);
  const zones = contactZones({ timezone: fields.timezone, numberZones: fields.numberZones }, followUp.campaign.schedule.fallback_timezone);
  const planned = readinessPlanner(followUp.campaign, input.now.getTime())({ timezone: fields.timezone, numberZones: fields.numberZones, notBefore: input.notBefore });
  const status = input.readyAt ? "queued" : planned.status;
  const readyAt = input.readyAt ?? planned.readyAt;
  const values = {
    ...fields,
    campaignId: followUp.campaign.id,
    status,
    notBefore: input.notBefore,
    readyAt,
    leaseUntil: null,
    leasedBy: null,
    updatedAt: input.now,
    ...(input.position !== undefined ? { position: input.position } : {}),
  };
  if (contact) {
    await tx.update(campaignContacts).set(values).where(eq(campaignContacts.id, contact.id));
  } else {
    await tx.insert(campaignContacts).values({ id: randomUUID(), orgId: order.orgId, orderId: order.id, position: input.position ?? 1, createdAt: input.now, ...values });
  }
  return { status, readyAt, zones };
}

/**
 * The sentence for an order waiting for its first call. GET /order/ makes it afresh from the contact
 * (server/orders/repository.ts), so the time it names follows the contact when its follow-up's windows
 * change or the contact moves to another follow-up, and says "when a line is free" once that time has come.
 */
export function waitingDetail(queued: { status: "queued" | "needs_timezone"; readyAt: Date | null; zones: string[] }, now: Date): string {
  if (queued.status === "needs_timezone") return "Waiting for a time zone: give the order a timezone, or set a fallback zone in the follow-up settings.";
  if (!queued.readyAt) return "Queued, but the follow-up's calling windows never open in the customer's time zone: change the windows.";
  if (queued.readyAt.getTime() <= now.getTime()) return "Queued: the first call goes out when a line is free.";
  return `Queued: the first call may go from ${localTimeText(queued.readyAt, queued.zones)}.`;
}

/**
 * The sentence for an order whose contact waits for its next call after one that did not settle it (a retry
 * due, or the customer asked to be called back): what the last call came to, then when the next may go.
 * Written when the call ends (server/orders/outcome.ts) and made afresh by GET /order/ from the contact as it
 * is (server/orders/repository.ts), so the time follows a change of the follow-up's windows, a move to
 * another follow-up or the 3-calls-in-24-hours rule, and says "when a line is free" once it has come.
 * `outcome` is the last call's (contract/call-outcome.ts).
 */
export function retryDetail(input: { outcome: string; callBackLater: boolean; readyAt: Date | null; zones: string[] }, now: Date): string {
  const due = input.readyAt !== null && input.readyAt.getTime() <= now.getTime();
  if (input.callBackLater) {
    if (!input.readyAt) return "Asked to be called back: waiting for a time zone to call in.";
    return due ? "Asked to be called back: the next call goes out when a line is free." : `Asked to be called back: next call from ${localTimeText(input.readyAt, input.zones)}.`;
  }
  const what = input.outcome === "voicemail" ? "Voicemail left" : input.outcome === "answered" ? "Answered" : `Not reached (${input.outcome.replace("_", " ")})`;
  const when = !input.readyAt ? "waiting for a time zone for the next call" : due ? "next call when a line is free" : `next call from ${localTimeText(input.readyAt, input.zones)}`;
  return `${what}; ${when}.`;
}

/** Call now's ready_at: ready since the epoch, so first in the claim's ORDER BY ready_at (and told apart from a retry's time). */
export const CALL_NOW_READY_AT = new Date(0);

export const FOLLOW_UP_OFF_DETAIL = "Automatic follow-up is off: switch it on in the follow-up settings, or use Call now.";
export const FOLLOW_UP_NOT_SET_DETAIL = "Follow-up is not set up yet: choose the agent and the caller number in the follow-up settings, or use Call now once they are set.";
export const noConsentDetail = (order: Pick<OrderRow, "consentSource">) =>
  order.consentSource
    ? `No consent to be called (${order.consentSource}): never dialled automatically; Call now asks you to confirm consent first.`
    : "No consent to be called: never dialled automatically; Call now asks you to confirm consent first.";
export const DNC_DETAIL = "The number is on the do-not-call list: it is never called.";
const tooOldDetail = () =>
  `Abandoned more than ${FOLLOW_UP_BACKFILL_HOURS} hours before automatic follow-up could take it: not called automatically (use Call now).`;

/**
 * Decides what becomes of an order that has not been called in this follow-up yet (status open or
 * no_consent; see the file comment) and writes it: the order's status and detail, and its contact.
 * Orders in any other status are left alone. `replan`: the number, zone or abandonment time changed, so a
 * waiting contact's time is computed again.
 */
export async function planFollowUp(tx: Db, locked: { order: OrderRow; contact: ContactRow | null }, now: Date, options: { replan?: boolean } = {}): Promise<QueueResult> {
  let { order } = locked;
  const { contact } = locked;
  const none: QueueResult = { order, queued: false, campaignId: null };
  if (order.status !== "open" && order.status !== "no_consent") return none;

  if (!order.consentGiven) {
    await cancelWaitingContact(tx, contact, now);
    order = await setOrderStatus(tx, order, "no_consent", noConsentDetail(order), now);
    return { ...none, order };
  }
  if (await isListed(tx, order.orgId, order.customerNumber)) {
    await cancelWaitingContact(tx, contact, now);
    order = await setOrderStatus(tx, order, "opted_out", DNC_DETAIL, now);
    return { ...none, order };
  }
  // Already waiting in a follow-up (queued while follow-up was on): it keeps its place, with fresh details
  // (unless the number or zone changed: `replan` computes its time again below).
  const waiting = contact !== null && (WAITING as readonly string[]).includes(contact.status);
  if (waiting && !options.replan) {
    await refreshContact(tx, order, contact, now);
    if (order.status !== "open") order = await setOrderStatus(tx, order, "open", order.statusDetail, now);
    return { order, queued: false, campaignId: contact.campaignId };
  }
  const followUp = await followUpFor(tx, order.orgId, order.integrationId);
  // The automatic rules decide for an order not waiting yet; one already waiting keeps waiting.
  if (!waiting) {
    if (!followUp || !followUp.settings.enabled) {
      const setUp = followUp !== null && followUp.campaign.agentId !== null && followUp.campaign.phoneNumberId !== null;
      order = await setOrderStatus(tx, order, "open", setUp ? FOLLOW_UP_OFF_DETAIL : FOLLOW_UP_NOT_SET_DETAIL, now);
      return { ...none, order };
    }
    if (order.abandonedAt.getTime() < now.getTime() - BACKFILL_MS) {
      order = await setOrderStatus(tx, order, "open", tooOldDetail(), now);
      return { ...none, order };
    }
  }
  if (!followUp) return { ...none, order };
  const notBefore = new Date(Math.max(order.abandonedAt.getTime() + followUp.settings.delayMinutes * 60_000, waiting ? (contact.notBefore?.getTime() ?? 0) : 0));
  const queued = await queueContact(tx, order, contact, followUp, { notBefore, now });
  order = await setOrderStatus(tx, order, "open", waitingDetail(queued, now), now);
  return { order, queued: true, campaignId: followUp.campaign.id };
}

/**
 * Queues the organisation's open orders abandoned within FOLLOW_UP_BACKFILL_HOURS that have no
 * waiting contact (follow-up was just switched on, or its settings saved). Runs in the settings' transaction.
 */
export async function backfillOpenOrders(tx: Db, followUp: FollowUp, now: Date): Promise<number> {
  const since = new Date(now.getTime() - BACKFILL_MS);
  const candidates = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.orgId, followUp.settings.orgId),
        eq(orders.status, "open"),
        sql`${orders.abandonedAt} >= ${since.toISOString()}::timestamptz`,
        followUp.settings.integrationId ? eq(orders.integrationId, followUp.settings.integrationId) : undefined,
        sql`not exists (select 1 from ${campaignContacts} c where c.order_id = ${orders.id} and c.status in ('queued', 'needs_timezone', 'in_progress'))`,
      ),
    )
    .orderBy(asc(orders.abandonedAt))
    .limit(10_000);
  // Older open orders waiting on "follow-up is off" now say why they are still not called (one statement).
  await tx
    .update(orders)
    .set({ statusDetail: tooOldDetail(), updatedAt: now })
    .where(
      and(
        eq(orders.orgId, followUp.settings.orgId),
        eq(orders.status, "open"),
        sql`${orders.abandonedAt} < ${since.toISOString()}::timestamptz`,
        inArray(orders.statusDetail, [FOLLOW_UP_OFF_DETAIL, FOLLOW_UP_NOT_SET_DETAIL]),
        followUp.settings.integrationId ? eq(orders.integrationId, followUp.settings.integrationId) : undefined,
      ),
    );
  let queued = 0;
  for (const { id } of candidates) {
    const locked = await lockOrder(tx, followUp.settings.orgId, id);
    if (!locked) continue;
    const result = await planFollowUp(tx, locked, now);
    if (result.queued) queued++;
  }
  return queued;
}

/**
 * Numbers just put on the do-not-call list (server/campaigns/dnc.ts addManyToDnc, whatever the source: a
 * person, an import, the opt-out tool): the organisation's orders to them that may still be called become
 * opted_out, with a timeline event (one statement). Their waiting contacts were stopped by the caller.
 */
export async function optOutOrdersOf(tx: Db, orgId: string, numbersLiteral: string): Promise<void> {
  const at = new Date().toISOString();
  await tx.execute(sql`
    with stopped as (
      update orders set status = 'opted_out', status_detail = ${DNC_DETAIL}, updated_at = ${at}::timestamptz
      where org_id = ${orgId} and customer_number = any(${numbersLiteral}::text[]) and status in ('open', 'calling', 'no_consent')
      returning id
    )
    insert into order_events (id, org_id, order_id, kind, detail, created_at)
    select gen_random_uuid(), ${orgId}, stopped.id, 'opted_out', 'The number was put on the do-not-call list.', ${at}::timestamptz from stopped`);
}

