/** Orders as the API answers them (contract/order.ts), and a small fake of the /order API for the orders screen. */
import type { Order } from "../../contract/order";
import type { OrderStats } from "../../src/components/orders/order-kpis";
import type { OrderTimelineEntry } from "../../src/components/orders/order-drawer";
import { json, type FetchFake, type RecordedRequest } from "./fetch-fake";

export const ORDER_ID = "0b6f3c52-1e7a-4c1d-9a51-6f0c2d9e8a01";
export const OTHER_ORDER_ID = "0b6f3c52-1e7a-4c1d-9a51-6f0c2d9e8a02";
export const THIRD_ORDER_ID = "0b6f3c52-1e7a-4c1d-9a51-6f0c2d9e8a03";
export const CALL_ID = "7c1e0d5f-8a8b-4c51-9a43-2f4a8f0b7e21";
export const INTEGRATION_ID = "5e0b1d6a-3c2f-4a8b-9e7d-1f2a3b4c5d60";

export function makeOrder(overrides: Partial<Order> = {}): Order {
  return {
    id: ORDER_ID,
    reference: "#1042",
    source: "generic",
    integration_id: INTEGRATION_ID,
    integration_name: "Demo store",
    store_name: "Demo store",
    customer_name: "Ada Lovelace",
    customer_number: "+14155550100",
    customer_email: "ada@example.com",
    timezone: "America/Los_Angeles",
    timezones: ["America/Los_Angeles"],
    items: [
      { name: "Blue mug", quantity: 2, price: 12.5 },
      { name: "Tote bag", quantity: 1, price: 35.9 },
    ],
    total: 60.9,
    currency: "USD",
    checkout_url: "https://shop.example/checkout/recover/chk_7731",
    abandoned_at: "2026-03-05T09:00:00.000Z",
    status: "recovered",
    status_detail: "Paid $60.90 two hours after the call.",
    call_consent: { given: true, source: "Checkout checkbox", at: "2026-03-05T08:58:00.000Z" },
    attempts: 1,
    last_call_id: CALL_ID,
    last_call_at: "2026-03-05T09:31:00.000Z",
    next_call_at: null,
    call_outcome: "completed",
    callback_at: null,
    paid_at: "2026-03-05T11:30:00.000Z",
    recovered_amount: 60.9,
    created_at: "2026-03-05T09:00:00.000Z",
    updated_at: "2026-03-05T11:30:00.000Z",
    ...overrides,
  };
}

export function makeStats(overrides: Partial<OrderStats> = {}): OrderStats {
  return {
    orders: 12,
    called: 8,
    recovered: 3,
    recovery_rate: 0.375,
    recovered_revenue: [
      { currency: "USD", amount: 182.7 },
      { currency: "EUR", amount: 49 },
    ],
    average_time_to_recovery_seconds: 2 * 3600 + 20 * 60,
    by_status: { open: 2, calling: 1, recovered: 3, declined: 2, unreachable: 1, paid_without_call: 1, opted_out: 1, cancelled: 0, no_consent: 1 },
    ...overrides,
  };
}

export function makeTimeline(): OrderTimelineEntry[] {
  return [
    { at: "2026-03-05T09:00:00.000Z", kind: "abandoned", detail: "Checkout abandoned at Demo store.", call_id: null },
    { at: "2026-03-05T09:00:01.000Z", kind: "queued", detail: "Queued: the first call may go from Thu 5 Mar, 09:30.", call_id: null },
    { at: "2026-03-05T09:31:00.000Z", kind: "call", detail: "Call ended: answered (2 min 10 s).", call_id: CALL_ID },
    { at: "2026-03-05T09:33:10.000Z", kind: "outcome", detail: "Will complete the purchase", call_id: CALL_ID },
    { at: "2026-03-05T11:30:00.000Z", kind: "paid", detail: "Paid $60.90: recovered.", call_id: null },
  ];
}

export interface OrderServer {
  orders: Order[];
  stats: OrderStats;
  timeline: Record<string, OrderTimelineEntry[]>;
}

/**
 * A small order API over `state`: the list (status, search, paging), the stats, one order, its
 * timeline, call now / stop / paid (each answering with the order) and delete. A test overrides any
 * answer with `fetch.on` (the latest handler wins).
 */
export function serveOrders(fetch: FetchFake, initial: Partial<OrderServer> = {}): OrderServer {
  const state: OrderServer = { orders: initial.orders ?? [makeOrder()], stats: initial.stats ?? makeStats(), timeline: initial.timeline ?? {} };
  const list = (request: RecordedRequest) => {
    const statuses = request.query.get("status")?.split(",");
    const search = request.query.get("search")?.toLowerCase();
    const rows = state.orders.filter(
      (order) =>
        (!statuses || statuses.includes(order.status)) &&
        (!search || [order.reference, order.customer_name ?? "", order.customer_email ?? "", order.customer_number].some((field) => field.toLowerCase().includes(search))),
    );
    const page = Number(request.query.get("page") ?? 1);
    const limit = Number(request.query.get("limit") ?? 20);
    return json({ data: rows.slice((page - 1) * limit, page * limit), total: rows.length, page, limit });
  };
  fetch.on("GET", "/api/order/", list);
  fetch.on("GET", "/api/order/stats", () => json({ data: state.stats }));
  const find = (id: string) => state.orders.find((order) => order.id === id);
  const change = (id: string, patch: Partial<Order>) => {
    state.orders = state.orders.map((order) => (order.id === id ? { ...order, ...patch, updated_at: new Date().toISOString() } : order));
    return find(id)!;
  };
  for (const order of state.orders) {
    const id = order.id;
    fetch.on("GET", `/api/order/${id}`, () => (find(id) ? json({ data: find(id) }) : json({ detail: "Order not found.", code: "not_found" }, 404)));
    fetch.on("GET", `/api/order/${id}/timeline`, () => json({ data: state.timeline[id] ?? makeTimeline() }));
    fetch.on("POST", `/api/order/${id}/call`, () => json({ data: change(id, { status: "calling", next_call_at: new Date().toISOString() }) }, 202));
    fetch.on("POST", `/api/order/${id}/stop`, () => json({ data: change(id, { status: "cancelled", status_detail: "Stopped by Ada Lovelace", next_call_at: null }) }));
    fetch.on("POST", `/api/order/${id}/paid`, () => json({ data: change(id, { status: "paid_without_call", paid_at: new Date().toISOString() }) }));
    fetch.on("DELETE", `/api/order/${id}`, () => {
      state.orders = state.orders.filter((one) => one.id !== id);
      return json({ data: { id } });
    });
  }
  return state;
}

export function queriesTo(fetch: FetchFake, method: string, path: string): Array<Record<string, string>> {
  return fetch.to(method, path).map((request) => Object.fromEntries(request.query));
}
