/**
 * What a store says about its checkouts and orders, applied to our orders: the one entry point for the
 * store webhooks (Shopify, WooCommerce, the generic endpoint) and the embedded demo store. The stores'
 * own payload shapes are mapped to StoreEvent by their integrations; this file knows only orders.
 *
 * applyStoreEvent(tx, ctx, event) runs inside the caller's transaction (the one that records the
 * delivery, so a delivery and its effects commit together or not at all). It takes the organisation's
 * row first (lockOrganisationForCalls, FOR NO KEY UPDATE), the lock every writer of calls and contacts
 * takes first (the dialler's claim, the webhook ingest, settling): call it before the transaction
 * writes anything else that belongs to the organisation, or take that lock yourself first.
 *
 * Semantics (issue 16 §2; README "Orders"):
 * - abandoned: the same checkout seen again (same integration + externalId) updates the one order,
 *   never a second. A new one is created (status open, or no_consent without consent) and its
 *   follow-up planned (follow-up.ts planFollowUp). An order already called, paid or over changes only
 *   its details (and its waiting contact's copy of them). abandoned_at stays the first one seen. Consent
 *   once given is kept: a later event without it does not withdraw it (withdrawing is the do-not-call
 *   list); a later event with consent gives it to an order that had none, which plans its follow-up.
 * - paid: the order is found by any of externalIds (a Shopify order carries its checkout's token) or
 *   created from `order` as paid_without_call when it was never seen; then payment.ts decides recovered
 *   or paid_without_call, and a contact still waiting is cancelled. Already paid → ignored.
 * - cancelled: the order (found by any of externalIds) becomes cancelled and its waiting contact is
 *   cancelled; a paid or already cancelled order is left as it is (ignored).
 * - An unusable customer number (not E.164 once spaces, dashes and brackets are dropped) is ignored with
 *   the reason, for a new order; an existing order keeps its number.
 * Every change writes an order event (the timeline).
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { ORDER_ITEM_NAME_MAX_LENGTH, ORDER_ITEMS_MAX, ORDER_REFERENCE_MAX_LENGTH, ORDER_TEXT_MAX_LENGTH, ORDER_URL_MAX_LENGTH, PAID_ORDER_STATUSES, formatOrderAmount, type OrderSource } from "../../contract/order-shared";
import { contactNumber } from "../campaigns/contact-number";
import type { Db } from "../db/client";
import { orders } from "../db/schema";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { recordOrderEvent } from "./events";
import { cancelWaitingContact, lockOrder, planFollowUp, refreshContact, setOrderStatus, type OrderRow } from "./follow-up";
import { recordPayment } from "./payment";

/** A checkout or order as a store describes it (money in integer minor units of `currency`). */
export interface StoreOrderInput {
  /** The store's id of the checkout/order (Shopify's checkout token, WooCommerce's order id, the generic id). */
  externalId: string;
  /** What people call it (Shopify's order name "#1001", the checkout's token, WooCommerce's number). */
  reference: string;
  customerName: string | null;
  /** As the store has it: normalised to E.164 here; unusable → ignored with a reason. */
  customerNumber: string;
  customerEmail: string | null;
  items: { name: string; quantity: number; priceMinor: number }[];
  totalMinor: number;
  /** ISO 4217 */
  currency: string;
  checkoutUrl: string | null;
  abandonedAt: Date;
  /** The customer's IANA zone, when the store knows it. */
  timezone: string | null;
  /** Consent to be called (never the store's email or SMS marketing consent). */
  consent: { given: boolean; source: string | null; at: Date | null };
}

export type StoreEvent =
  | { kind: "abandoned"; order: StoreOrderInput }
  | { kind: "paid"; externalIds: string[]; order?: StoreOrderInput; paidMinor: number; currency: string; paidAt: Date }
  | { kind: "cancelled"; externalIds: string[]; at: Date };

export interface StoreEventContext {
  orgId: string;
  /** The integration the event came through (null: none, e.g. an import that reuses this path). */
  integrationId: string | null;
  source: OrderSource;
  /** The store's name, given to orders that do not carry one (the agent says it: {{store_name}}). */
  storeName: string | null;
  /** The embedded demo store (its timeline says so). */
  isDemo: boolean;
}

export interface StoreEventResult {
  result: "applied" | "ignored";
  /** Why it was ignored (or what it did), in a few words. */
  detail: string | null;
  orderId: string | null;
  /** The follow-up campaign the event queued a contact on: the route wakes this process's dialler for it once committed. */
  wake?: string | null;
}

/** Text fields are cut to the contract's lengths (a store's name for a product may be longer than ours). */
const cut = (value: string | null | undefined, max: number): string | null => {
  const text = value?.replaceAll("\u0000", "").trim();
  return text ? Array.from(text).slice(0, max).join("") : null;
};

/** The order's columns from a store's description (number already normalised). */
function detailsOf(input: StoreOrderInput, number: string, ctx: StoreEventContext) {
  const currency = input.currency.trim().toUpperCase();
  return {
    reference: cut(input.reference, ORDER_REFERENCE_MAX_LENGTH) ?? cut(input.externalId, ORDER_REFERENCE_MAX_LENGTH) ?? "—",
    customerName: cut(input.customerName, ORDER_TEXT_MAX_LENGTH),
    customerNumber: number,
    customerEmail: cut(input.customerEmail, ORDER_TEXT_MAX_LENGTH),
    items: input.items.slice(0, ORDER_ITEMS_MAX).map((item) => ({
      name: cut(item.name, ORDER_ITEM_NAME_MAX_LENGTH) ?? "Item",
      quantity: Math.max(1, Math.round(item.quantity)),
      price_minor: Math.max(0, Math.round(item.priceMinor)),
    })),
    totalMinor: Math.max(0, Math.round(input.totalMinor)),
    currency: /^[A-Z]{3}$/.test(currency) ? currency : "USD",
    checkoutUrl: /^https?:\/\//i.test(input.checkoutUrl ?? "") ? cut(input.checkoutUrl, ORDER_URL_MAX_LENGTH) : null,
    timezone: input.timezone,
    storeName: ctx.storeName,
  };
}

/** Consent to write: given now (with its source and time), else what the order already had. */
function consentOf(input: StoreOrderInput, order: OrderRow | null, now: Date) {
  if (order?.consentGiven) return {};
  if (!input.consent.given) return order ? {} : { consentGiven: false, consentSource: cut(input.consent.source, ORDER_TEXT_MAX_LENGTH), consentAt: null };
  return { consentGiven: true, consentSource: cut(input.consent.source, ORDER_TEXT_MAX_LENGTH), consentAt: input.consent.at ?? now };
}

const storeLabel = (ctx: StoreEventContext) => (ctx.isDemo ? "the demo store" : ctx.storeName?.trim() || `the ${ctx.source} store`);

/** The order with one of these external ids from this integration (the first found), or null. */
async function findOrder(tx: Db, ctx: StoreEventContext, externalIds: readonly string[]): Promise<OrderRow | null> {
  const ids = [...new Set(externalIds.filter((id) => id.length > 0))];
  if (ids.length === 0) return null;
  const rows = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.orgId, ctx.orgId), ctx.integrationId ? eq(orders.integrationId, ctx.integrationId) : isNull(orders.integrationId), inArray(orders.externalId, ids)));
  // The first id given wins when several match (a paid order's own id before its checkout's).
  return ids.map((id) => rows.find((row) => row.externalId === id)).find((row) => row !== undefined) ?? null;
}

/** Creates the order (status open until planFollowUp or recordPayment decides). */
async function insertOrder(tx: Db, ctx: StoreEventContext, input: StoreOrderInput, number: string, now: Date): Promise<OrderRow> {
  const [row] = await tx
    .insert(orders)
    .values({
      id: randomUUID(),
      orgId: ctx.orgId,
      integrationId: ctx.integrationId,
      source: ctx.source,
      externalId: cut(input.externalId, 500) ?? randomUUID(),
      ...detailsOf(input, number, ctx),
      ...consentOf(input, null, now),
      abandonedAt: input.abandonedAt,
      status: "open",
      statusDetail: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

/** Applies one store event to the organisation's orders (see the file comment). */
export async function applyStoreEvent(tx: Db, ctx: StoreEventContext, event: StoreEvent): Promise<StoreEventResult> {
  await lockOrganisationForCalls(tx, ctx.orgId);
  const now = new Date();
  const label = storeLabel(ctx);

  if (event.kind === "abandoned") {
    const input = event.order;
    const number = contactNumber(input.customerNumber ?? "");
    const existing = await findOrder(tx, ctx, [input.externalId]);
    if (!existing) {
      if (!number) return { result: "ignored", detail: `the customer's number "${String(input.customerNumber ?? "").slice(0, 40)}" is not a phone number (E.164, e.g. +14155550123)`, orderId: null };
      const created = await insertOrder(tx, ctx, input, number, now);
      await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: created.id, kind: "abandoned", detail: `Checkout abandoned with ${formatOrderAmount(created.totalMinor, created.currency)} in the cart (from ${label}).`, at: now });
      const planned = await planFollowUp(tx, { order: created, contact: null }, now);
      if (planned.queued) await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: created.id, kind: "queued", detail: planned.order.statusDetail ?? "Queued for a call.", at: now });
      return { result: "applied", detail: `order ${planned.order.status}`, orderId: created.id, wake: planned.queued ? planned.campaignId : null };
    }
    const locked = (await lockOrder(tx, ctx.orgId, existing.id))!;
    const before = locked.order;
    const details = detailsOf(input, number ?? before.customerNumber, ctx);
    const consent = consentOf(input, before, now);
    // A store name the order already has stays (an integration renamed later does not rewrite history).
    const [updated] = await tx
      .update(orders)
      .set({ ...details, storeName: before.storeName ?? details.storeName, ...consent, updatedAt: now })
      .where(eq(orders.id, before.id))
      .returning();
    let order = updated!;
    await refreshContact(tx, order, locked.contact, now);
    const consentGiven = !before.consentGiven && order.consentGiven;
    if (consentGiven) await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order.id, kind: "consent", detail: `Consent to be called given${order.consentSource ? ` (${order.consentSource})` : ""}.`, at: now });
    let wake: string | null = null;
    if (order.status === "open" || order.status === "no_consent") {
      const planned = await planFollowUp(tx, { order, contact: locked.contact }, now);
      order = planned.order;
      if (planned.queued) {
        await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order.id, kind: "queued", detail: order.statusDetail ?? "Queued for a call.", at: now });
        wake = planned.campaignId;
      }
    }
    return { result: "applied", detail: "order updated", orderId: order.id, wake };
  }

  if (event.kind === "paid") {
    const externalIds = [...event.externalIds, ...(event.order ? [event.order.externalId] : [])];
    let found = await findOrder(tx, ctx, externalIds);
    if (!found) {
      if (!event.order) return { result: "ignored", detail: "no order with that id", orderId: null };
      const number = contactNumber(event.order.customerNumber ?? "");
      if (!number) return { result: "ignored", detail: `the customer's number "${String(event.order.customerNumber ?? "").slice(0, 40)}" is not a phone number (E.164, e.g. +14155550123)`, orderId: null };
      found = await insertOrder(tx, ctx, event.order, number, now);
      await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: found.id, kind: "abandoned", detail: `Order first seen when it was paid (from ${label}).`, at: now });
    }
    const locked = (await lockOrder(tx, ctx.orgId, found.id))!;
    if ((PAID_ORDER_STATUSES as readonly string[]).includes(locked.order.status)) return { result: "ignored", detail: "already paid", orderId: locked.order.id };
    if (event.order) {
      // The paid order's details are the final ones (the number stays when the store's is unusable).
      const number = contactNumber(event.order.customerNumber ?? "") ?? locked.order.customerNumber;
      const details = detailsOf(event.order, number, ctx);
      const [updated] = await tx
        .update(orders)
        .set({ ...details, storeName: locked.order.storeName ?? details.storeName, ...consentOf(event.order, locked.order, now), updatedAt: now })
        .where(eq(orders.id, locked.order.id))
        .returning();
      locked.order = updated!;
    }
    const paid = await recordPayment(tx, locked, { paidMinor: Math.max(0, Math.round(event.paidMinor)), currency: event.currency.trim().toUpperCase() || locked.order.currency, paidAt: event.paidAt, source: `from ${label}` }, now);
    return { result: paid.result, detail: paid.result === "ignored" ? paid.detail : `order ${paid.order.status}`, orderId: paid.order.id };
  }

  const found = await findOrder(tx, ctx, event.externalIds);
  if (!found) return { result: "ignored", detail: "no order with that id", orderId: null };
  const locked = (await lockOrder(tx, ctx.orgId, found.id))!;
  const order = locked.order;
  if ((PAID_ORDER_STATUSES as readonly string[]).includes(order.status)) return { result: "ignored", detail: "already paid", orderId: order.id };
  if (order.status === "cancelled") return { result: "ignored", detail: "already cancelled", orderId: order.id };
  const stopped = await cancelWaitingContact(tx, locked.contact, now);
  const detail = `Cancelled by ${label} on ${event.at.toISOString().slice(0, 10)}${stopped ? "; the pending follow-up call was cancelled" : ""}.`;
  await setOrderStatus(tx, order, "cancelled", detail, now);
  await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order.id, kind: "cancelled", detail, at: now });
  return { result: "applied", detail: "order cancelled", orderId: order.id };
}
