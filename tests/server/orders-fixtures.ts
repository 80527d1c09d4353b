/**
 * What the orders tests share: an organisation (admin and member) with an agent and a caller number,
 * follow-up settings saved through the API, store events applied as the store webhooks apply them
 * (applyStoreEvent in its own transaction), the rows behind an order (its contact, events, calls), a
 * time zone in which it is the middle of the afternoon now (so sandbox calls fall inside the legal
 * calling hours whatever time the suite runs), and a dialler on a clock the test controls.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { FollowUpSettings, FollowUpSettingsInput, Order } from "../../contract/order";
import type { Db } from "../../server/db/client";
import { calls, campaignContacts, orderEvents, orders } from "../../server/db/schema";
import { applyStoreEvent, type StoreEvent, type StoreEventContext, type StoreOrderInput } from "../../server/orders/store-events";
import { addPhoneNumber, createAgent } from "./calls-fixtures";
import { addMember, bearer, createOrganisation, signUp } from "./helpers";

export interface OrdersWorld {
  app: FastifyInstance;
  db: Db;
  orgId: string;
  adminToken: string;
  memberToken: string;
  agentId: string;
  phoneNumberId: string;
}

export async function ordersWorld(app: FastifyInstance, name = "Shop Co"): Promise<OrdersWorld> {
  const admin = await signUp(app, undefined, "Ada Admin");
  const orgId = await createOrganisation(app, admin.token, name);
  const member = await addMember(app, admin.token, orgId);
  const agent = await createAgent(app, admin.token, {
    agent_name: "Purchase Completion Agent",
    agent_welcome_message: "Hi {{name}}, this is {{store_name}} about order {{order_reference}}.",
    analysis_plan: { structured_data_prompt: "Extract order_outcome and callback_at." },
  });
  const phoneNumberId = await addPhoneNumber(app.db, orgId);
  return { app, db: app.db, orgId, adminToken: admin.token, memberToken: member.token, agentId: agent.id, phoneNumberId };
}

/** Every day, 08:00–21:00: the widest window the calling rules allow. */
export const LEGAL_ALL_WEEK = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "08:00", end: "21:00" }];

/**
 * A fixed-offset zone (Etc/GMT±N) where it is now about `hour` o'clock, so a window of 08:00–21:00 is
 * open for the next few hours whenever the test runs.
 */
export function zoneAtLocalHour(hour = 14, now = Date.now()): string {
  const utcHour = new Date(now).getUTCHours();
  let offset = hour - utcHour;
  if (offset > 14) offset -= 24;
  if (offset < -12) offset += 24;
  // Etc/GMT's sign is inverted: Etc/GMT-5 is UTC+5.
  return offset === 0 ? "Etc/GMT" : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

export function request(world: OrdersWorld, method: string, url: string, token: string | null, payload?: unknown): Promise<LightMyRequestResponse> {
  return world.app.inject({ method: method as "GET", url: `/api${url}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
}

export async function saveFollowUp(world: OrdersWorld, input: Partial<FollowUpSettingsInput> = {}): Promise<FollowUpSettings> {
  const response = await request(world, "PUT", "/order/follow-up", world.adminToken, {
    enabled: true,
    agent_id: world.agentId,
    phone_number_id: world.phoneNumberId,
    delay_minutes: 0,
    schedule: { windows: LEGAL_ALL_WEEK, fallback_timezone: null },
    retry: { max_attempts: 2, delay_minutes: 1, on: ["busy", "no-answer"] },
    ...input,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: FollowUpSettings }).data;
}

let counter = 0;
/** A number nobody else in the file uses, ending in `suffix` (the sandbox's outcome digits). */
export function freshNumber(suffix = "00"): string {
  counter++;
  return `+1415${String(2_000 + counter).padStart(5, "0")}${suffix}`;
}

export function storeOrder(overrides: Partial<StoreOrderInput> = {}): StoreOrderInput {
  const externalId = overrides.externalId ?? `chk_${randomUUID().slice(0, 8)}`;
  return {
    externalId,
    reference: `#${externalId.slice(-4)}`,
    customerName: "Grace Hopper",
    customerNumber: freshNumber(),
    customerEmail: "grace@example.com",
    items: [
      { name: "Blue mug", quantity: 2, priceMinor: 1200 },
      { name: "Tote bag", quantity: 1, priceMinor: 3590 },
    ],
    totalMinor: 5990,
    currency: "USD",
    checkoutUrl: `https://shop.example.com/checkout/${externalId}`,
    abandonedAt: new Date(),
    timezone: zoneAtLocalHour(),
    consent: { given: true, source: "checkout checkbox", at: new Date() },
    ...overrides,
  };
}

export function storeContext(world: OrdersWorld, overrides: Partial<StoreEventContext> = {}): StoreEventContext {
  return { orgId: world.orgId, integrationId: null, source: "generic", storeName: "Mug Shop", isDemo: false, ...overrides };
}

/** Applies a store event as the store webhooks do (in its own transaction). */
export function storeEvent(world: OrdersWorld, event: StoreEvent, ctx: Partial<StoreEventContext> = {}) {
  return world.db.transaction((tx) => applyStoreEvent(tx, storeContext(world, ctx), event));
}

export async function orderRow(db: Db, id: string) {
  return (await db.select().from(orders).where(eq(orders.id, id)))[0]!;
}

export async function contactOf(db: Db, orderId: string) {
  return (await db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId)))[0] ?? null;
}

export async function eventsOf(db: Db, orderId: string) {
  return db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId)).orderBy(asc(orderEvents.createdAt), asc(orderEvents.seq));
}

export async function callsOfOrder(db: Db, orderId: string) {
  const contact = await contactOf(db, orderId);
  if (!contact) return [];
  return db.select().from(calls).where(and(eq(calls.campaignContactId, contact.id))).orderBy(asc(calls.startedAt));
}

export async function getOrder(world: OrdersWorld, id: string, token = world.adminToken): Promise<Order> {
  const response = await request(world, "GET", `/order/${id}`, token);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Order }).data;
}

/** A JSON body for POST /order/ with a fresh number and consent. */
export function newOrderBody(overrides: Record<string, unknown> = {}) {
  return {
    reference: `R-${randomUUID().slice(0, 8)}`,
    customer_name: "Alan Turing",
    customer_number: freshNumber(),
    customer_email: "alan@example.com",
    items: [{ name: "Blue mug", quantity: 2, price: 12 }],
    total: 24,
    currency: "USD",
    checkout_url: "https://shop.example.com/cart/1",
    timezone: zoneAtLocalHour(),
    call_consent: { given: true, source: "checkout checkbox" },
    ...overrides,
  };
}

export async function createOrderApi(world: OrdersWorld, overrides: Record<string, unknown> = {}, token = world.adminToken): Promise<Order> {
  const response = await request(world, "POST", "/order/", token, newOrderBody(overrides));
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Order }).data;
}
