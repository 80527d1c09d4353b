/**
 * Order follow-up end to end on the campaign dialler (issue 16 §2–3, issue 18): store events (the same
 * checkout twice is one order, paid before the call cancels it, attribution recovered vs
 * paid_without_call, cancelled), when the first call may go (the delay, the window in the customer's
 * zone across a DST change, switching follow-up on), the 3-calls-per-number rule in the claim, the
 * outcome from the record_order_outcome tool and from the report's structured data, the opt-out, call
 * back later, unreachable, the attribution sweep, the sandbox's …00 and …05 calls through the real
 * webhook path, the dashboard's figures, and a follow-up contact claimed by a dialler that died.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimCampaign, type ClaimSettings } from "../../server/campaigns/claim";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { calls, campaignContacts, dncNumbers, orders, storeIntegrations } from "../../server/db/schema";
import { removeIntegrationFollowUp, saveFollowUpSettings } from "../../server/orders/settings";
import { lockOrder, planFollowUp } from "../../server/orders/follow-up";
import { ORDER_OUTCOME_TOOL } from "../../server/orders/outcome";
import { sweepAttribution } from "../../server/orders/sweep";
import { walletPolicy } from "../../server/wallet/wallet";
import { callTool } from "./booking-tools-fixtures";
import { endOfCallReport, postWebhook, statusUpdate, waitFor, WEBHOOK_SECRET } from "./calls-fixtures";
import { diallerFor } from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";
import {
  callsOfOrder,
  contactOf,
  eventsOf,
  freshNumber,
  getOrder,
  LEGAL_ALL_WEEK,
  orderRow,
  ordersWorld,
  request,
  saveFollowUp,
  storeEvent,
  storeOrder,
  zoneAtLocalHour,
  type OrdersWorld,
} from "./orders-fixtures";

let database: Database;
let world: OrdersWorld;
let campaignId: string;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, SANDBOX_CALL_SECONDS: "0.3", STARTING_CREDIT_USD: "100", DIALLER_LEASE_SECONDS: "5" });
  world = await ordersWorld(app);
  campaignId = (await saveFollowUp(world, { max_concurrency: 5 })).campaign_id!;
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

const claimSettings = (): ClaimSettings => ({ diallerId: "test-claim", leaseMs: 5000, orgConcurrentCalls: 10, wallet: walletPolicy(world.app.config), isSandbox: true });

/** Claims the follow-up's ready contacts now (no call is placed: the test plays the provider). */
async function claimNow(at = Date.now()) {
  const claim = await claimCampaign(database.db, { id: campaignId, orgId: world.orgId }, claimSettings(), at);
  if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
  return claim.calls;
}

/** A queued order whose contact is the only one ready (others are pushed back first). */
async function queuedOrder(overrides: Parameters<typeof storeOrder>[0] = {}) {
  await database.db.update(campaignContacts).set({ readyAt: new Date(Date.now() + 30 * 86_400_000) }).where(eq(campaignContacts.status, "queued"));
  const applied = await storeEvent(world, { kind: "abandoned", order: storeOrder(overrides) });
  expect(applied.result).toBe("applied");
  return applied.orderId!;
}

const ref = (callId: string, number: string) => ({ providerCallId: `vapi-${callId}`, callId, orgId: world.orgId, customerNumber: number });

/** The call's end as Vapi reports it: status-update ended, then the end-of-call report (with structured data, optionally). */
async function endCall(callId: string, number: string, options: { endedReason?: string; structuredData?: Record<string, unknown> } = {}) {
  const fields = ref(callId, number);
  const endedReason = options.endedReason ?? "customer-ended-call";
  expect((await postWebhook(world.app, statusUpdate(fields, "ended", { endedReason }))).statusCode).toBe(200);
  const report = endOfCallReport(fields);
  report.message.endedReason = endedReason;
  if (options.structuredData) (report.message.analysis as Record<string, unknown>).structuredData = options.structuredData;
  expect((await postWebhook(world.app, report)).statusCode).toBe(200);
}

describe("store events", () => {
  it("the same checkout seen twice is one order: details updated, abandoned_at kept, consent added later plans the follow-up", async () => {
    const input = storeOrder({ consent: { given: false, source: null, at: null } });
    const first = await storeEvent(world, { kind: "abandoned", order: input });
    expect((await orderRow(database.db, first.orderId!)).status).toBe("no_consent");
    expect(await contactOf(database.db, first.orderId!)).toBeNull();
    const second = await storeEvent(world, {
      kind: "abandoned",
      order: { ...input, totalMinor: 7000, abandonedAt: new Date(Date.now() + 60_000), consent: { given: true, source: "checkout checkbox", at: new Date() } },
    });
    expect(second.orderId).toBe(first.orderId);
    expect(await database.db.select().from(orders).where(eq(orders.externalId, input.externalId))).toHaveLength(1);
    const order = await orderRow(database.db, first.orderId!);
    expect(order).toMatchObject({ totalMinor: 7000, status: "open", consentGiven: true, consentSource: "checkout checkbox" });
    expect(order.abandonedAt.getTime()).toBe(input.abandonedAt.getTime());
    expect((await contactOf(database.db, order.id))!.status).toBe("queued");
    // A later event without consent does not take it away.
    await storeEvent(world, { kind: "abandoned", order: { ...input, consent: { given: false, source: null, at: null } } });
    expect((await orderRow(database.db, order.id)).consentGiven).toBe(true);
  });

  it("the agent gets the order as variables", async () => {
    const id = await queuedOrder({ reference: "#1042", customerName: "Grace Hopper" });
    expect((await contactOf(database.db, id))!.variables).toEqual({
      name: "Grace Hopper",
      cart_items: "2 × Blue mug ($12.00), 1 × Tote bag ($35.90)",
      cart_total: "$59.90",
      checkout_link: expect.stringMatching(/^https:\/\/shop\.example\.com\/checkout\//),
      store_name: "Mug Shop",
      order_reference: "#1042",
    });
  });

  it("an unusable number is ignored with the reason; an unknown paid order with its details is created paid_without_call", async () => {
    const bad = await storeEvent(world, { kind: "abandoned", order: storeOrder({ customerNumber: "call me maybe" }) });
    expect(bad).toMatchObject({ result: "ignored", orderId: null, detail: expect.stringMatching(/not a phone number/) });
    const unknown = await storeEvent(world, { kind: "paid", externalIds: ["order-77"], paidMinor: 1000, currency: "USD", paidAt: new Date() });
    expect(unknown).toMatchObject({ result: "ignored", detail: "no order with that id" });
    const created = await storeEvent(world, { kind: "paid", externalIds: ["order-78"], order: storeOrder({ externalId: "order-78" }), paidMinor: 5990, currency: "USD", paidAt: new Date() });
    expect((await orderRow(database.db, created.orderId!)).status).toBe("paid_without_call");
  });

  it("paid before its call: the waiting contact is cancelled and never dialled; a second paid event is ignored", async () => {
    const id = await queuedOrder();
    const paid = await storeEvent(world, { kind: "paid", externalIds: ["other-id", (await orderRow(database.db, id)).externalId], paidMinor: 5990, currency: "USD", paidAt: new Date() });
    expect(paid).toMatchObject({ result: "applied", orderId: id });
    expect((await orderRow(database.db, id)).status).toBe("paid_without_call");
    expect((await contactOf(database.db, id))!.status).toBe("cancelled");
    const dialler = diallerFor(world.app);
    await dialler.tick();
    expect(await callsOfOrder(database.db, id)).toEqual([]);
    expect(await storeEvent(world, { kind: "paid", externalIds: [(await orderRow(database.db, id)).externalId], paidMinor: 5990, currency: "USD", paidAt: new Date() })).toMatchObject({
      result: "ignored",
      detail: "already paid",
    });
  });

  it("cancelled: the order and its waiting contact; a paid order's cancellation is ignored", async () => {
    const id = await queuedOrder();
    const externalId = (await orderRow(database.db, id)).externalId;
    expect(await storeEvent(world, { kind: "cancelled", externalIds: [externalId], at: new Date() })).toMatchObject({ result: "applied" });
    expect((await orderRow(database.db, id)).status).toBe("cancelled");
    expect((await contactOf(database.db, id))!.status).toBe("cancelled");
    expect(await storeEvent(world, { kind: "cancelled", externalIds: [externalId], at: new Date() })).toMatchObject({ result: "ignored", detail: "already cancelled" });
  });
});

describe("do-not-call and store integrations", () => {
  it("a number put on the do-not-call list makes its orders opted_out and stops their waiting calls", async () => {
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    expect((await request(world, "POST", "/dnc/", world.memberToken, { number })).statusCode).toBe(201);
    expect(await orderRow(database.db, id)).toMatchObject({ status: "opted_out" });
    expect((await contactOf(database.db, id))!.status).toBe("dnc");
  });

  it("an integration with settings of its own dials from its own follow-up; removing them moves its waiting orders to the organisation's", async () => {
    const integrationId = crypto.randomUUID();
    await orgScope(database.db, world.orgId).insert(storeIntegrations, { id: integrationId, kind: "shopify", name: "Tea Shop", secretSealed: "sealed", secretHint: "abcd" });
    const own = await saveFollowUpSettings({ db: database.db, orgId: world.orgId, userId: "test", concurrencyLimit: 10, signals: world.app.campaignSignals }, integrationId, {
      enabled: true,
      agent_id: world.agentId,
      phone_number_id: world.phoneNumberId,
      delay_minutes: 0,
      schedule: { windows: LEGAL_ALL_WEEK as never },
    });
    expect(own.campaign_id).not.toBe(campaignId);
    const id = (await storeEvent(world, { kind: "abandoned", order: storeOrder() }, { integrationId, source: "shopify", storeName: "Tea Shop" })).orderId!;
    expect((await contactOf(database.db, id))!.campaignId).toBe(own.campaign_id);
    expect((await contactOf(database.db, id))!.variables.store_name).toBe("Tea Shop");
    expect(await removeIntegrationFollowUp({ db: database.db, orgId: world.orgId, userId: "test", signals: world.app.campaignSignals }, integrationId)).toBe(true);
    expect((await contactOf(database.db, id))!).toMatchObject({ campaignId, status: "queued" });
  });
});

describe("when the first call may go", () => {
  it("abandoned_at + delay_minutes, inside the customer's window", async () => {
    await saveFollowUp(world, { delay_minutes: 30, max_concurrency: 5 });
    const abandonedAt = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const id = await queuedOrder({ abandonedAt, timezone: zoneAtLocalHour(12) });
    const contact = (await contactOf(database.db, id))!;
    expect(contact.notBefore!.getTime()).toBe(abandonedAt.getTime() + 30 * 60_000);
    expect(contact.readyAt!.getTime()).toBe(abandonedAt.getTime() + 30 * 60_000);
    expect((await getOrder(world, id)).next_call_at).toBe(contact.readyAt!.toISOString());
    await saveFollowUp(world, { delay_minutes: 0, max_concurrency: 5 });
  });

  it("a window closed by then waits for its next opening in the customer's zone, across the DST change (New York, 8 March 2026)", async () => {
    await saveFollowUp(world, { delay_minutes: 30, max_concurrency: 5, schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "20:00" }], fallback_timezone: null } });
    // Saturday 7 March, 19:50 in New York (EST): +30 min is after 20:00; Sunday is not in the window; Monday 09:00 is EDT.
    const abandonedAt = new Date("2026-03-08T00:50:00Z");
    const [order] = await orgScope(database.db, world.orgId)
      .insert(orders, {
        id: crypto.randomUUID(),
        source: "manual",
        externalId: "dst-1",
        reference: "dst-1",
        customerNumber: freshNumber(),
        timezone: "America/New_York",
        items: [],
        totalMinor: 100,
        currency: "USD",
        abandonedAt,
        status: "open",
        consentGiven: true,
      })
      .then((row) => [row]);
    await database.db.transaction(async (tx) => planFollowUp(tx, (await lockOrder(tx, world.orgId, order!.id))!, new Date(abandonedAt.getTime() + 60_000)));
    const contact = (await contactOf(database.db, order!.id))!;
    expect(contact.notBefore!.toISOString()).toBe("2026-03-08T01:20:00.000Z");
    expect(contact.readyAt!.toISOString()).toBe("2026-03-09T13:00:00.000Z");
    expect((await orderRow(database.db, order!.id)).statusDetail).toBe("Queued: the first call may go from Mon 9 Mar, 09:00 (America/New_York).");
    await saveFollowUp(world, { delay_minutes: 0, max_concurrency: 5 });
  });

  it("orders arriving while follow-up is off stay open; switching it on queues those abandoned in the last 24 hours", async () => {
    await saveFollowUp(world, { enabled: false, max_concurrency: 5 });
    const recent = (await storeEvent(world, { kind: "abandoned", order: storeOrder() })).orderId!;
    const old = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ abandonedAt: new Date(Date.now() - 30 * 3600_000) }) })).orderId!;
    expect(await orderRow(database.db, recent)).toMatchObject({ status: "open", statusDetail: expect.stringMatching(/Automatic follow-up is off/) });
    expect(await contactOf(database.db, recent)).toBeNull();
    await saveFollowUp(world, { enabled: true, max_concurrency: 5 });
    expect((await contactOf(database.db, recent))!.status).toBe("queued");
    expect(await contactOf(database.db, old)).toBeNull();
    expect((await orderRow(database.db, old)).statusDetail).toMatch(/more than 24 hours/);
  });
});

describe("the calling rules in the claim", () => {
  it("at most 3 calls to one number in 24 hours, across two orders of that number: the second waits until the oldest call is 24 hours old", async () => {
    const number = freshNumber();
    const twentyHoursAgo = new Date(Date.now() - 20 * 3600_000);
    await orgScope(database.db, world.orgId).insert(calls, { id: crypto.randomUUID(), type: "outbound", status: "ended", customerNumber: number, startedAt: twentyHoursAgo, endedReason: "customer-busy" });
    await orgScope(database.db, world.orgId).insert(calls, { id: crypto.randomUUID(), type: "outbound", status: "ended", customerNumber: number, startedAt: new Date(Date.now() - 3600_000), endedReason: "customer-busy" });
    await database.db.update(campaignContacts).set({ readyAt: new Date(Date.now() + 30 * 86_400_000) }).where(eq(campaignContacts.status, "queued"));
    const zone = zoneAtLocalHour(10);
    const first = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ customerNumber: number, timezone: zone }) })).orderId!;
    const second = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ customerNumber: number, timezone: zone }) })).orderId!;
    const now = Date.now();
    const claimed = await claimNow(now);
    expect(claimed).toHaveLength(1);
    const [dialled, waiting] = claimed[0]!.contact.orderId === first ? [first, second] : [second, first];
    expect((await orderRow(database.db, dialled)).status).toBe("calling");
    const held = (await contactOf(database.db, waiting))!;
    expect(held.status).toBe("queued");
    expect(held.readyAt!.getTime()).toBe(twentyHoursAgo.getTime() + 24 * 3600_000);
    expect((await orderRow(database.db, waiting)).status).toBe("open");
    // End the dialled call so it does not hold a line for the next tests.
    await endCall(claimed[0]!.callId, number, { endedReason: "customer-busy" });
  });

  it("an order without consent is never dialled", async () => {
    const id = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ consent: { given: false, source: "newsletter", at: null } }) })).orderId!;
    await diallerFor(world.app).tick();
    expect(await orderRow(database.db, id)).toMatchObject({ status: "no_consent" });
    expect(await contactOf(database.db, id)).toBeNull();
  });
});

describe("outcomes", () => {
  it("record_order_outcome declined during the call → declined when it ends; the tool goes with follow-up calls only", async () => {
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    expect(claimed!.contact.orderId).toBe(id);
    const answer = await callTool(world.app, ref(claimed!.callId, number), ORDER_OUTCOME_TOOL.name, { outcome: "declined", note: "found it cheaper" });
    expect(answer.result).toMatch(/declined/);
    expect((await orderRow(database.db, id))).toMatchObject({ callOutcome: "declined", status: "calling" });
    await endCall(claimed!.callId, number);
    expect(await orderRow(database.db, id)).toMatchObject({ status: "declined", reachedCallId: claimed!.callId });
    expect((await contactOf(database.db, id))!.status).toBe("answered");
    const kinds = (await eventsOf(database.db, id)).map((event) => [event.kind, event.callId === claimed!.callId]);
    expect(kinds).toEqual([["abandoned", false], ["queued", false], ["call", true], ["outcome", true], ["call", true], ["declined", true]]);
    const order = await getOrder(world, id);
    expect(order).toMatchObject({ status: "declined", call_outcome: "declined", attempts: 1, last_call_id: claimed!.callId });
  });

  it("no tool call: the report's structured data (order_outcome call_back_later, callback_at) re-queues the contact at that time, moved into its window", async () => {
    const number = freshNumber();
    const zone = zoneAtLocalHour(10);
    const id = await queuedOrder({ customerNumber: number, timezone: zone });
    const [claimed] = await claimNow();
    const callbackAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 2 * 3600_000);
    await endCall(claimed!.callId, number, { structuredData: { order_outcome: "call_back_later", callback_at: callbackAt.toISOString() } });
    expect(await orderRow(database.db, id)).toMatchObject({ status: "calling", callOutcome: "call_back_later", statusDetail: expect.stringMatching(/^Asked to be called back: next call from/) });
    const contact = (await contactOf(database.db, id))!;
    expect(contact).toMatchObject({ status: "queued", attempts: 1 });
    expect(contact.readyAt!.getTime()).toBe(callbackAt.getTime());
  });

  it("do_not_call (the opt-out tool) → opted_out and the number on the do-not-call list", async () => {
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    await callTool(world.app, ref(claimed!.callId, number), "do_not_call", { reason: "stop calling" });
    await endCall(claimed!.callId, number);
    expect((await orderRow(database.db, id)).status).toBe("opted_out");
    expect((await contactOf(database.db, id))!.status).toBe("dnc");
    expect(await database.db.select().from(dncNumbers).where(eq(dncNumbers.number, number))).toHaveLength(1);
  });

  it("answered without an outcome waits for the purchase; the sweep declines it once the attribution window is over", async () => {
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    await endCall(claimed!.callId, number);
    const waiting = await orderRow(database.db, id);
    expect(waiting).toMatchObject({ status: "calling", statusDetail: expect.stringMatching(/^Waiting for the purchase/) });
    // Its deadline in the customer's zone, named, like the order's other times (not a bare UTC date).
    expect(waiting.statusDetail).toMatch(/paid by [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2} \([A-Za-z_]+\/[A-Za-z0-9_+-]+\) \(7 days after the call\)\.$/);
    expect(await sweepAttribution(database.db, Date.now() + 6 * 86_400_000)).toBe(0);
    expect(await sweepAttribution(database.db, Date.now() + 8 * 86_400_000)).toBeGreaterThanOrEqual(1);
    expect(await orderRow(database.db, id)).toMatchObject({ status: "declined", statusDetail: "No purchase within 7 days of the call." });
    expect((await eventsOf(database.db, id)).at(-1)).toMatchObject({ kind: "declined", detail: "No purchase within 7 days of the call." });
  });

  it("attribution: paid within the window after a call that reached the customer → recovered; after it → paid_without_call", async () => {
    const results: string[] = [];
    for (const daysLater of [3, 9]) {
      const number = freshNumber();
      const id = await queuedOrder({ customerNumber: number });
      const [claimed] = await claimNow();
      await endCall(claimed!.callId, number);
      const reachedAt = (await orderRow(database.db, id)).reachedAt!;
      await storeEvent(world, { kind: "paid", externalIds: [(await orderRow(database.db, id)).externalId], paidMinor: 5990, currency: "USD", paidAt: new Date(reachedAt.getTime() + daysLater * 86_400_000) });
      const order = await getOrder(world, id);
      results.push(`${order.status} ${order.recovered_amount}`);
    }
    expect(results).toEqual(["recovered 59.9", "paid_without_call 0"]);
  });

  it("paid while the call is on the line → recovered with that call; its end changes nothing more", async () => {
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    expect((await postWebhook(world.app, statusUpdate(ref(claimed!.callId, number), "in-progress"))).statusCode).toBe(200);
    await storeEvent(world, { kind: "paid", externalIds: [(await orderRow(database.db, id)).externalId], paidMinor: 5990, currency: "USD", paidAt: new Date() });
    expect(await orderRow(database.db, id)).toMatchObject({ status: "recovered", recoveredMinor: 5990, reachedCallId: claimed!.callId, statusDetail: "Recovered: paid $59.90 during the call." });
    await endCall(claimed!.callId, number);
    expect(await orderRow(database.db, id)).toMatchObject({ status: "recovered", recoveredMinor: 5990 });
    expect((await contactOf(database.db, id))!.status).toBe("answered");
  });

  it("a retry's sentence names the next call, and GET /order/ makes it afresh: a moved time, a time come; Call now keeps its own", async () => {
    await saveFollowUp(world, { max_concurrency: 5, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy"] } });
    const number = freshNumber();
    const zone = zoneAtLocalHour(10);
    const id = await queuedOrder({ customerNumber: number, timezone: zone });
    const [claimed] = await claimNow();
    await endCall(claimed!.callId, number, { endedReason: "customer-busy" });
    const written = (await orderRow(database.db, id)).statusDetail;
    expect(written).toMatch(/^Not reached \(busy\); next call from .+\.$/);
    expect(written!.endsWith(` (${zone}).`)).toBe(true);
    // Written when the call ended and read now, the same words.
    expect(await getOrder(world, id)).toMatchObject({ status: "calling", status_detail: written, attempts: 1 });

    // The contact's time moves (its follow-up's windows changed, the 3-calls rule): the sentence follows, the stored one does not.
    const contact = (await contactOf(database.db, id))!;
    const later = new Date(contact.readyAt!.getTime() + 2 * 86_400_000);
    await database.db.update(campaignContacts).set({ readyAt: later }).where(eq(campaignContacts.id, contact.id));
    const moved = (await getOrder(world, id)).status_detail;
    expect(moved).toMatch(/^Not reached \(busy\); next call from /);
    expect(moved).not.toBe(written);
    expect((await orderRow(database.db, id)).statusDetail).toBe(written);
    // Its time has come: it waits for a free line (the claim's window and per-number checks), not for a time past.
    await database.db.update(campaignContacts).set({ readyAt: new Date(Date.now() - 60_000) }).where(eq(campaignContacts.id, contact.id));
    expect((await getOrder(world, id)).status_detail).toBe("Not reached (busy); next call when a line is free.");

    // Call now: its own sentence (who asked) stays.
    expect((await request(world, "POST", `/order/${id}/call`, world.memberToken, {})).statusCode).toBe(202);
    expect((await getOrder(world, id)).status_detail).toMatch(/^Call now by .+: the call goes out as soon as a line is free\.$/);
    await database.db.update(campaignContacts).set({ status: "cancelled", readyAt: null }).where(eq(campaignContacts.id, contact.id));
    await saveFollowUp(world, { max_concurrency: 5 });
  });

  it("never reached and no retry left → unreachable", async () => {
    await saveFollowUp(world, { max_concurrency: 5, retry: { max_attempts: 1, delay_minutes: 1, on: ["busy"] } });
    const number = freshNumber();
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    await endCall(claimed!.callId, number, { endedReason: "customer-busy" });
    expect(await orderRow(database.db, id)).toMatchObject({ status: "unreachable", statusDetail: "Not reached after 1 call (the last: busy)." });
    await saveFollowUp(world, { max_concurrency: 5 });
  });
});

describe("the sandbox, through the real webhook path", () => {
  it("…00 answers and agrees (record_order_outcome completed): calling until the store's paid event makes it recovered; …05 declines; the dashboard counts it", async () => {
    await database.db.update(campaignContacts).set({ readyAt: new Date(Date.now() + 30 * 86_400_000) }).where(eq(campaignContacts.status, "queued"));
    const agrees = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ customerNumber: freshNumber("00") }) })).orderId!;
    const declines = (await storeEvent(world, { kind: "abandoned", order: storeOrder({ customerNumber: freshNumber("05") }) })).orderId!;
    const dialler = diallerFor(world.app);
    await waitFor(
      async () => {
        await dialler.tick();
        const [a, b] = [await orderRow(database.db, agrees), await orderRow(database.db, declines)];
        const [call] = await callsOfOrder(database.db, agrees);
        return a.reachedAt !== null && b.status === "declined" && (await contactOf(database.db, agrees))!.status === "answered" && Boolean(call?.transcript);
      },
      20_000,
      "both sandbox calls to end",
    );
    expect(await orderRow(database.db, agrees)).toMatchObject({ status: "calling", callOutcome: "completed" });
    const [call] = await callsOfOrder(database.db, agrees);
    expect(call!.transcript).toMatch(/complete the purchase/);
    expect(call!.campaignId).toBe(campaignId);
    expect((await eventsOf(database.db, agrees)).find((event) => event.kind === "outcome")!.detail).toMatch(/said on the call/);
    // The sandbox never marks an order paid: the store's paid event does.
    await storeEvent(world, { kind: "paid", externalIds: [(await orderRow(database.db, agrees)).externalId], paidMinor: 5990, currency: "USD", paidAt: new Date() });
    expect(await getOrder(world, agrees)).toMatchObject({ status: "recovered", recovered_amount: 59.9, last_call_id: call!.id });
    const dashboard = (await request(world, "GET", "/dashboard/", world.memberToken)).json() as { data: { orders: { recovered: number; called: number; recovered_revenue: unknown[] } } };
    expect(dashboard.data.orders.recovered).toBeGreaterThanOrEqual(1);
    expect(dashboard.data.orders.called).toBeGreaterThanOrEqual(dashboard.data.orders.recovered);
    expect(dashboard.data.orders.recovered_revenue).toEqual([{ currency: "USD", amount: expect.any(Number) }]);
  });
});

describe("crash safety (inherited from the dialler)", () => {
  it("a follow-up contact claimed by a dialler that died is reaped and dialled once", async () => {
    const number = freshNumber("00");
    const id = await queuedOrder({ customerNumber: number });
    const [claimed] = await claimNow();
    expect(claimed!.contact.orderId).toBe(id);
    await database.db.update(campaignContacts).set({ leaseUntil: new Date(Date.now() - 1000) }).where(eq(campaignContacts.orderId, id));
    const dialler = diallerFor(world.app);
    expect((await dialler.tick()).givenBack).toBeGreaterThanOrEqual(1);
    await waitFor(
      async () => {
        await dialler.tick();
        return (await contactOf(database.db, id))!.status === "answered";
      },
      20_000,
      "the reaped contact's call",
    );
    expect(await callsOfOrder(database.db, id)).toHaveLength(1);
    expect((await contactOf(database.db, id))!.attempts).toBe(1);
  });
});
