/**
 * Reading orders for the API (contract/order.ts): one order, the list with its filters, the timeline and
 * the KPI figures. Every query filters on the organisation; another organisation's order is not found.
 *
 * An answer is the order row with its contact (attempts, last call, next call), the contact's campaign
 * (its fallback zone) and the integration's name, in one statement per page.
 *
 * Days (startDate/endDate) are calendar days of abandoned_at in the organisation's time zone
 * (organizations.timezone), endDate included: the call list's and the dashboard's convention.
 */
import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { contactZones } from "../../contract/campaign-schedule";
import { ORDER_STATUSES, minorToMajor, type OrderCallOutcome, type OrderSource, type OrderStatus } from "../../contract/order-shared";
import type { Order, orderListQuerySchema, orderStatsSchema } from "../../contract/order";
import type { z } from "zod";
import { containsPattern } from "../calls/list";
import { numberTimeZones } from "../campaigns/number-zones";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { calls, campaignContacts, campaigns, orderEvents, orders, storeIntegrations } from "../db/schema";
import { ApiError } from "../plugins/errors";
import type { OrderEventKind } from "./events";
import { CALL_NOW_READY_AT, retryDetail, waitingDetail, type OrderRow } from "./follow-up";

export type OrderListQuery = z.output<typeof orderListQuerySchema>;
export type OrderStats = z.infer<typeof orderStatsSchema>;

export const orderNotFound = () => ApiError.notFound("Order not found");

interface OrderFacts {
  order: OrderRow;
  integrationName: string | null;
  contactStatus: string | null;
  /** The contact's last call's outcome (contract/call-outcome.ts). */
  contactOutcome: string | null;
  attempts: number | null;
  lastCallId: string | null;
  lastCallAt: Date | null;
  readyAt: Date | null;
  fallbackTimezone: string | null;
}

function selectFacts(db: Db) {
  return db
    .select({
      order: orders,
      integrationName: storeIntegrations.name,
      contactStatus: campaignContacts.status,
      contactOutcome: campaignContacts.outcome,
      attempts: campaignContacts.attempts,
      lastCallId: campaignContacts.lastCallId,
      lastCallAt: calls.startedAt,
      readyAt: campaignContacts.readyAt,
      fallbackTimezone: sql<string | null>`${campaigns.schedule} ->> 'fallback_timezone'`,
    })
    .from(orders)
    .leftJoin(storeIntegrations, eq(storeIntegrations.id, orders.integrationId))
    .leftJoin(campaignContacts, eq(campaignContacts.orderId, orders.id))
    .leftJoin(campaigns, eq(campaigns.id, campaignContacts.campaignId))
    .leftJoin(calls, eq(calls.id, campaignContacts.lastCallId))
    .$dynamic();
}

export function toApiOrder(facts: OrderFacts, now = Date.now()): Order {
  const { order } = facts;
  const numberZones = numberTimeZones(order.customerNumber);
  const waiting = facts.contactStatus === "queued" && facts.readyAt !== null && (order.status === "open" || order.status === "calling");
  const timezones = contactZones({ timezone: order.timezone, numberZones }, facts.fallbackTimezone);
  // An open order whose contact waits for its first call: the sentence from the contact as it is now (a
  // stored one would keep a time its follow-up's windows or a move to another follow-up changed since).
  const contactWaiting = facts.contactStatus === "queued" || facts.contactStatus === "needs_timezone";
  const firstCallWaiting = order.status === "open" && contactWaiting && (facts.attempts ?? 0) === 0;
  // The same for an order called before whose contact waits for its next call (a retry or a call-back), but
  // not after Call now (its own sentence names who asked for the call).
  const nextCallWaiting =
    order.status === "calling" && contactWaiting && (facts.attempts ?? 0) > 0 && facts.contactOutcome !== null && facts.readyAt?.getTime() !== CALL_NOW_READY_AT.getTime();
  return {
    id: order.id,
    reference: order.reference,
    source: order.source as OrderSource,
    integration_id: order.integrationId,
    integration_name: facts.integrationName,
    store_name: order.storeName,
    customer_name: order.customerName,
    customer_number: order.customerNumber,
    customer_email: order.customerEmail,
    timezone: order.timezone,
    timezones,
    items: order.items.map((item) => ({ name: item.name, quantity: item.quantity, price: minorToMajor(item.price_minor, order.currency) })),
    total: minorToMajor(order.totalMinor, order.currency),
    currency: order.currency,
    checkout_url: order.checkoutUrl,
    abandoned_at: isoTime(order.abandonedAt),
    status: order.status as OrderStatus,
    status_detail: firstCallWaiting
      ? waitingDetail({ status: facts.contactStatus as "queued" | "needs_timezone", readyAt: facts.readyAt, zones: timezones }, new Date(now))
      : nextCallWaiting
        ? retryDetail({ outcome: facts.contactOutcome!, callBackLater: order.callOutcome === "call_back_later", readyAt: facts.readyAt, zones: timezones }, new Date(now))
        : order.statusDetail,
    call_consent: { given: order.consentGiven, source: order.consentSource, at: order.consentAt ? isoTime(order.consentAt) : null },
    attempts: facts.attempts ?? 0,
    last_call_id: facts.lastCallId,
    last_call_at: facts.lastCallAt ? isoTime(facts.lastCallAt) : null,
    // A call already due waits only for a free line (or the claim's window and per-number checks): "now".
    next_call_at: waiting ? isoTime(new Date(Math.max(facts.readyAt!.getTime(), now))) : null,
    call_outcome: order.callOutcome as OrderCallOutcome | null,
    callback_at: order.callbackAt ? isoTime(order.callbackAt) : null,
    paid_at: order.paidAt ? isoTime(order.paidAt) : null,
    recovered_amount: minorToMajor(order.recoveredMinor, order.currency),
    created_at: isoTime(order.createdAt),
    updated_at: isoTime(order.updatedAt),
  };
}

/** One order of the organisation as the API answers it, or null. */
export async function readOrder(db: Db, orgId: string, id: string): Promise<Order | null> {
  const [facts] = await selectFacts(db)
    .where(and(eq(orders.orgId, orgId), eq(orders.id, id)))
    .limit(1);
  return facts ? toApiOrder(facts) : null;
}

/** The organisation's zone, as a SQL expression (UTC when unset). */
const zoneOf = (orgId: string) => sql`(select coalesce((select timezone from organizations where id = ${orgId}), 'UTC'))`;

/** abandoned_at within the days (in the organisation's zone), endDate included. */
function dayFilters(orgId: string, query: { startDate?: string | undefined; endDate?: string | undefined }): SQL[] {
  const filters: SQL[] = [];
  if (query.startDate) filters.push(sql`${orders.abandonedAt} >= (${query.startDate}::date::timestamp at time zone ${zoneOf(orgId)})`);
  if (query.endDate) filters.push(sql`${orders.abandonedAt} < ((${query.endDate}::date + 1)::timestamp at time zone ${zoneOf(orgId)})`);
  return filters;
}

/** An order called at least once: its reached call, or a follow-up contact with an attempt (GET /order/stats' `called`, and the list's filter). */
const CALLED_ORDER = sql`(${orders.reachedCallId} is not null or exists (select 1 from ${campaignContacts} c where c.order_id = ${orders.id} and c.attempts > 0))`;

function listWhere(orgId: string, query: OrderListQuery): SQL {
  const filters: SQL[] = [eq(orders.orgId, orgId), ...dayFilters(orgId, query)];
  if (query.status && query.status.length > 0) filters.push(inArray(orders.status, query.status));
  if (query.called !== undefined) filters.push(query.called ? CALLED_ORDER : sql`not ${CALLED_ORDER}`);
  if (query.integrationId) filters.push(eq(orders.integrationId, query.integrationId));
  if (query.search) {
    const pattern = containsPattern(query.search);
    const digits = query.search.replace(/\D/g, "");
    const parts: SQL[] = [
      sql`${orders.customerName} ilike ${pattern}`,
      sql`${orders.customerEmail} ilike ${pattern}`,
      sql`${orders.reference} ilike ${pattern}`,
    ];
    // Digits match the number however it is written ("+1 415-555…", "4155550100").
    if (digits.length >= 3) parts.push(sql`${orders.customerNumber} like ${containsPattern(digits)}`);
    filters.push(sql`(${sql.join(parts, sql` or `)})`);
  }
  return and(...filters)!;
}

/** GET /order/: newest abandoned first. */
export async function listOrders(db: Db, orgId: string, query: OrderListQuery): Promise<{ data: Order[]; total: number }> {
  const where = listWhere(orgId, query);
  const [rows, [counted]] = await Promise.all([
    selectFacts(db)
      .where(where)
      .orderBy(desc(orders.abandonedAt), desc(orders.id))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    db.select({ n: sql<number>`count(*)::int` }).from(orders).where(where),
  ]);
  const now = Date.now();
  return { data: rows.map((row) => toApiOrder(row, now)), total: counted?.n ?? 0 };
}

/** GET /order/{id}/timeline: the order's events, oldest first. */
export async function orderTimeline(db: Db, orgId: string, id: string) {
  const rows = await db
    .select()
    .from(orderEvents)
    .where(and(eq(orderEvents.orgId, orgId), eq(orderEvents.orderId, id)))
    .orderBy(asc(orderEvents.createdAt), asc(orderEvents.seq));
  return rows.map((row) => ({ at: isoTime(row.createdAt), kind: row.kind as OrderEventKind, detail: row.detail, call_id: row.callId }));
}

/**
 * GET /order/stats: the KPI cards for the orders abandoned in the days (all of them without dates):
 * orders, called (at least one call placed), recovered, recovery_rate = recovered ÷ called,
 * recovered revenue per currency, the mean time from abandonment to payment of recovered orders, and
 * the orders per status.
 */
export async function orderStats(db: Db, orgId: string, query: { startDate?: string | undefined; endDate?: string | undefined }): Promise<OrderStats> {
  const where = and(eq(orders.orgId, orgId), ...dayFilters(orgId, query));
  const [[totals], byStatus, revenue] = await Promise.all([
    db
      .select({
        orders: sql<number>`count(*)::int`,
        called: sql<number>`(count(*) filter (where ${CALLED_ORDER}))::int`,
        recovered: sql<number>`(count(*) filter (where ${orders.status} = 'recovered'))::int`,
        avgSeconds: sql<number | null>`avg(extract(epoch from ${orders.paidAt} - ${orders.abandonedAt})) filter (where ${orders.status} = 'recovered')`,
      })
      .from(orders)
      .where(where),
    db.select({ status: orders.status, n: sql<number>`count(*)::int` }).from(orders).where(where).groupBy(orders.status),
    db
      .select({ currency: orders.currency, minor: sql<string>`sum(${orders.recoveredMinor})::text` })
      .from(orders)
      .where(and(where, eq(orders.status, "recovered")))
      .groupBy(orders.currency)
      .orderBy(orders.currency),
  ]);
  const by = Object.fromEntries(ORDER_STATUSES.map((status) => [status, 0])) as Record<OrderStatus, number>;
  for (const row of byStatus) if ((ORDER_STATUSES as readonly string[]).includes(row.status)) by[row.status as OrderStatus] = row.n;
  const calledCount = totals?.called ?? 0;
  const recovered = totals?.recovered ?? 0;
  const avg = totals?.avgSeconds === null || totals?.avgSeconds === undefined ? null : Math.round(Number(totals.avgSeconds));
  return {
    orders: totals?.orders ?? 0,
    called: calledCount,
    recovered,
    recovery_rate: calledCount > 0 ? recovered / calledCount : null,
    recovered_revenue: revenue.map((row) => ({ currency: row.currency, amount: minorToMajor(Number(row.minor), row.currency) })),
    average_time_to_recovery_seconds: avg,
    by_status: by,
  };
}
