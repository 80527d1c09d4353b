/**
 * The /order API (issue 16; issue 18's orders part): create, read, edit, delete with their validation
 * (400s name the field), another organisation's order 404, member and admin roles, the follow-up
 * settings and the calling-hours rule, call now with each refusal, stop, mark as paid, the timeline,
 * the list's filters and the KPI figures. One app, one organisation per concern.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALLING_HOURS_RULE, CONSENT_SOURCE_CONFIRMED_IN_CONSOLE } from "../../contract/calling-rules";
import type { Order } from "../../contract/order";
import type { Database } from "../../server/db/client";
import { calls, campaignContacts, campaigns, orders } from "../../server/db/schema";
import { orgScope } from "../../server/data/orgScope";
import { planUsage } from "../../server/billing/plan-limits";
import { buildTestApp, migratedDatabase } from "./helpers";
import { contactOf, createOrderApi, eventsOf, freshNumber, getOrder, newOrderBody, orderRow, ordersWorld, request, saveFollowUp, zoneAtLocalHour, type OrdersWorld } from "./orders-fixtures";

let database: Database;
let world: OrdersWorld;
let other: OrdersWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database);
  world = await ordersWorld(app, "Mug Shop");
  other = await ordersWorld(app, "Elsewhere");
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

const bodyOf = <T>(response: { json(): unknown }) => (response.json() as { data: T }).data;

describe("orders: create, read, edit, delete", () => {
  it("POST /order/ (a member may) answers 201 with the order; money in the major unit, the number normalised, consent kept", async () => {
    const response = await request(world, "POST", "/order/", world.memberToken, newOrderBody({ customer_number: "+1 (415) 555-0142", reference: "R-1001", total: 59.9, items: [{ name: "Blue mug", quantity: 2, price: 12 }, { name: "Tote bag", quantity: 1, price: 35.9 }] }));
    expect(response.statusCode, response.body).toBe(201);
    const order = bodyOf<Order>(response);
    expect(order).toMatchObject({
      reference: "R-1001",
      source: "manual",
      customer_number: "+14155550142",
      total: 59.9,
      currency: "USD",
      items: [{ name: "Blue mug", quantity: 2, price: 12 }, { name: "Tote bag", quantity: 1, price: 35.9 }],
      call_consent: { given: true, source: "checkout checkbox" },
      attempts: 0,
      last_call_id: null,
      recovered_amount: 0,
      status: "open",
    });
    expect((await orderRow(database.db, order.id)).totalMinor).toBe(5990);
    // No follow-up set up yet: open, and it says why.
    expect(order.status_detail).toMatch(/not set up/);
    expect(await getOrder(world, order.id, world.memberToken)).toEqual({ ...order, updated_at: expect.any(String) });
    // The same reference again is refused.
    const again = await request(world, "POST", "/order/", world.adminToken, newOrderBody({ reference: "R-1001" }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "conflict" });
  });

  it("400s name the field", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ customer_number: "12" }, /customer_number/],
      [{ total: -1 }, /total/],
      [{ total: 1.234 }, /total/],
      [{ currency: "dollars" }, /currency/],
      [{ checkout_url: "javascript:alert(1)" }, /checkout_url/],
      [{ customer_email: "nope" }, /customer_email/],
      [{ timezone: "Mars/Olympus" }, /timezone/],
      [{ reference: "" }, /reference/],
      [{ unknown_field: 1 }, /unknown_field/],
    ];
    for (const [change, field] of cases) {
      const response = await request(world, "POST", "/order/", world.adminToken, newOrderBody(change));
      expect(response.statusCode, JSON.stringify(change)).toBe(400);
      expect(response.json(), JSON.stringify(change)).toMatchObject({ detail: expect.stringMatching(field), code: expect.any(String) });
    }
  });

  it("another organisation's order answers 404 on every route; lists never hold it", async () => {
    const order = await createOrderApi(world);
    for (const [method, url, payload] of [
      ["GET", `/order/${order.id}`, undefined],
      ["PUT", `/order/${order.id}`, { customer_name: "x" }],
      ["DELETE", `/order/${order.id}`, undefined],
      ["POST", `/order/${order.id}/call`, { confirm_consent: true }],
      ["POST", `/order/${order.id}/stop`, {}],
      ["POST", `/order/${order.id}/paid`, {}],
      ["GET", `/order/${order.id}/timeline`, undefined],
    ] as const) {
      const response = await request(other, method, url, other.adminToken, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ code: "not_found" });
    }
    const list = await request(other, "GET", "/order/", other.adminToken);
    expect(bodyOf<Order[]>(list).map((one) => one.id)).not.toContain(order.id);
    expect((await orderRow(database.db, order.id)).status).toBe("open");
  });

  it("members may not delete, mark paid or change the follow-up settings (403); admins may", async () => {
    const order = await createOrderApi(world);
    for (const [method, url, payload] of [
      ["DELETE", `/order/${order.id}`, undefined],
      ["POST", `/order/${order.id}/paid`, {}],
      ["PUT", "/order/follow-up", { enabled: false }],
    ] as const) {
      const response = await request(world, method, url, world.memberToken, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json()).toMatchObject({ code: "forbidden" });
    }
    const deleted = await request(world, "DELETE", `/order/${order.id}`, world.adminToken);
    expect(deleted.statusCode).toBe(200);
    expect(await request(world, "GET", `/order/${order.id}`, world.adminToken).then((r) => r.statusCode)).toBe(404);
  });

  it("PUT /order/{id} edits details; taking consent away makes it no_consent; 409 while a call is on the line", async () => {
    const order = await createOrderApi(world);
    const edited = await request(world, "PUT", `/order/${order.id}`, world.memberToken, { customer_name: "Ada Lovelace", total: 30, items: [{ name: "Red mug", quantity: 1, price: 30 }] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(bodyOf<Order>(edited)).toMatchObject({ customer_name: "Ada Lovelace", total: 30, items: [{ name: "Red mug", quantity: 1, price: 30 }] });
    const withdrawn = await request(world, "PUT", `/order/${order.id}`, world.memberToken, { call_consent: { given: false } });
    expect(bodyOf<Order>(withdrawn)).toMatchObject({ status: "no_consent", call_consent: { given: false } });
    expect((await eventsOf(database.db, order.id)).map((event) => event.kind)).toContain("consent");
  });
});

describe("follow-up settings", () => {
  it("GET answers the defaults before any save: off, 9:00–20:00 Monday to Saturday, the purchase-completion agent and the default number", async () => {
    const settings = bodyOf<Record<string, unknown>>(await request(other, "GET", "/order/follow-up", other.memberToken));
    expect(settings).toMatchObject({
      enabled: false,
      state: "off",
      agent_id: other.agentId,
      phone_number_id: other.phoneNumberId,
      delay_minutes: 30,
      attribution_days: 7,
      schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "20:00" }], fallback_timezone: null },
      campaign_id: null,
    });
  });

  it("a window outside 8:00–21:00 answers 400 naming the rule; enabling needs an agent and a number of the organisation's own", async () => {
    const late = await request(world, "PUT", "/order/follow-up", world.adminToken, { enabled: false, schedule: { windows: [{ days: ["mon"], start: "09:00", end: "21:30" }] } });
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({ detail: expect.stringContaining(CALLING_HOURS_RULE), code: expect.any(String) });
    const early = await request(world, "PUT", "/order/follow-up", world.adminToken, { enabled: false, schedule: { windows: [{ days: ["mon"], start: "07:30", end: "12:00" }] } });
    expect(early.statusCode).toBe(400);
    expect((early.json() as { detail: string }).detail).toContain("08:00 and 21:00");
    const noAgent = await request(world, "PUT", "/order/follow-up", world.adminToken, { enabled: true, agent_id: null, phone_number_id: world.phoneNumberId });
    expect(noAgent.statusCode).toBe(400);
    expect((noAgent.json() as { detail: string }).detail).toMatch(/^agent_id/);
    const foreign = await request(world, "PUT", "/order/follow-up", world.adminToken, { enabled: true, agent_id: other.agentId, phone_number_id: world.phoneNumberId });
    expect(foreign.statusCode).toBe(400);
    expect((foreign.json() as { detail: string }).detail).toMatch(/^agent_id: .* is not an agent of this organisation/);
    const foreignNumber = await request(world, "PUT", "/order/follow-up", world.adminToken, { enabled: true, agent_id: world.agentId, phone_number_id: other.phoneNumberId });
    expect((foreignNumber.json() as { detail: string }).detail).toMatch(/^phone_number_id/);
  });

  it("the first save creates the follow-up campaign, which never shows in /campaign (its id answers 404 there) nor on the dashboard's card", async () => {
    const settings = await saveFollowUp(world, { enabled: false });
    expect(settings).toMatchObject({ enabled: false, state: "off", agent_id: world.agentId, phone_number_id: world.phoneNumberId });
    const campaignId = settings.campaign_id!;
    const [row] = await database.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    expect(row).toMatchObject({ kind: "order_follow_up", status: "running" });
    expect(bodyOf<{ id: string }[]>(await request(world, "GET", "/campaign/", world.adminToken)).map((one) => one.id)).not.toContain(campaignId);
    for (const [method, url] of [
      ["GET", `/campaign/${campaignId}`],
      ["POST", `/campaign/${campaignId}/pause`],
      ["DELETE", `/campaign/${campaignId}`],
      ["GET", `/campaign/${campaignId}/contacts`],
    ] as const) {
      expect((await request(world, method, url, world.adminToken, method === "POST" ? {} : undefined)).statusCode, `${method} ${url}`).toBe(404);
    }
    const dashboard = bodyOf<{ campaigns: { running: number; items: { id: string }[] } }>(await request(world, "GET", "/dashboard/", world.adminToken));
    expect(dashboard.campaigns.items.map((item) => item.id)).not.toContain(campaignId);
    expect(dashboard.campaigns.running).toBe(0);
  });
});

describe("the follow-up's automatic pause", () => {
  it("shows as state paused with the reason; saving with enabled true resumes it", async () => {
    const mine = await ordersWorld(world.app, "Pause Co");
    const { campaign_id: campaignId } = await saveFollowUp(mine, { enabled: true });
    await database.db.update(campaigns).set({ status: "paused", pauseCode: "wallet", pauseReason: "Paused automatically: the wallet's balance is low." }).where(eq(campaigns.id, campaignId!));
    const paused = bodyOf<{ state: string; pause_reason: string | null }>(await request(mine, "GET", "/order/follow-up", mine.memberToken));
    expect(paused).toMatchObject({ state: "paused", pause_reason: "Paused automatically: the wallet's balance is low." });
    // Saved with follow-up off it stays paused; with it on it resumes.
    expect(await saveFollowUp(mine, { enabled: false })).toMatchObject({ state: "paused" });
    expect(await saveFollowUp(mine, { enabled: true })).toMatchObject({ state: "running", pause_reason: null });
    const [row] = await database.db.select().from(campaigns).where(eq(campaigns.id, campaignId!));
    expect(row).toMatchObject({ status: "running", pauseCode: null });
  });

  it("follow-up contacts do not count against the plan's contacts-per-campaign limit", async () => {
    const mine = await ordersWorld(world.app, "Plan Co");
    await saveFollowUp(mine, { enabled: true });
    for (let i = 0; i < 3; i++) await createOrderApi(mine);
    expect((await planUsage(database.db, mine.orgId)).campaign_contacts).toBe(0);
  });
});

describe("call now", () => {
  it("400 follow_up_not_set_up without an agent and a caller number", async () => {
    const order = await createOrderApi(other);
    const response = await request(other, "POST", `/order/${order.id}/call`, other.memberToken, {});
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "follow_up_not_set_up" });
  });

  it("each refusal: consent_required (then confirm_consent records it), dnc, outside_calling_hours and number_call_limit with next_call_at, conflict", async () => {
    await saveFollowUp(world, { enabled: false });
    // No consent: asks for it; confirming records it with the member's name and queues the call at the front.
    const noConsent = await createOrderApi(world, { call_consent: { given: false } });
    expect(noConsent.status).toBe("no_consent");
    const asked = await request(world, "POST", `/order/${noConsent.id}/call`, world.memberToken, {});
    expect(asked.statusCode).toBe(409);
    expect(asked.json()).toMatchObject({ code: "consent_required", detail: expect.stringContaining("confirm_consent") });
    const confirmed = await request(world, "POST", `/order/${noConsent.id}/call`, world.memberToken, { confirm_consent: true });
    expect(confirmed.statusCode, confirmed.body).toBe(202);
    expect(bodyOf<Order>(confirmed)).toMatchObject({ status: "open", call_consent: { given: true, source: expect.stringContaining(CONSENT_SOURCE_CONFIRMED_IN_CONSOLE) } });
    expect(bodyOf<Order>(confirmed).next_call_at).not.toBeNull();
    const contact = await contactOf(database.db, noConsent.id);
    expect(contact).toMatchObject({ status: "queued", position: 0 });
    expect(contact!.readyAt!.getTime()).toBe(0);
    expect((await eventsOf(database.db, noConsent.id)).map((event) => event.kind)).toEqual(expect.arrayContaining(["consent", "reopened"]));

    // On the do-not-call list.
    const listedNumber = freshNumber();
    expect((await request(world, "POST", "/dnc/", world.adminToken, { number: listedNumber })).statusCode).toBe(201);
    const listed = await createOrderApi(world, { customer_number: listedNumber });
    expect(listed.status).toBe("opted_out");
    const dnc = await request(world, "POST", `/order/${listed.id}/call`, world.memberToken, {});
    expect(dnc.json()).toMatchObject({ code: "dnc" });

    // Outside the window: a zone where it is 3 in the morning.
    const night = await createOrderApi(world, { timezone: zoneAtLocalHour(3) });
    const outside = await request(world, "POST", `/order/${night.id}/call`, world.memberToken, {});
    expect(outside.statusCode).toBe(409);
    const refused = outside.json() as { code: string; detail: string; next_call_at: string };
    expect(refused.code).toBe("outside_calling_hours");
    expect(refused.detail).toMatch(/the next call may go from .*08:00/);
    expect(Date.parse(refused.next_call_at) - Date.now()).toBeGreaterThan(4 * 3600_000);

    // Three calls to the number in the last 24 hours.
    const busyNumber = freshNumber();
    const busy = await createOrderApi(world, { customer_number: busyNumber });
    const started = [20, 10, 2].map((hoursAgo) => new Date(Date.now() - hoursAgo * 3600_000));
    for (const at of started) {
      await orgScope(database.db, world.orgId).insert(calls, { id: crypto.randomUUID(), type: "outbound", status: "ended", customerNumber: busyNumber, startedAt: at, endedReason: "customer-ended-call" });
    }
    const limited = await request(world, "POST", `/order/${busy.id}/call`, world.memberToken, {});
    expect(limited.statusCode).toBe(409);
    expect(limited.json()).toMatchObject({ code: "number_call_limit", next_call_at: new Date(started[0]!.getTime() + 24 * 3600_000).toISOString() });

    // A paid order, and a call already on the line: conflict.
    const paid = await createOrderApi(world);
    expect((await request(world, "POST", `/order/${paid.id}/paid`, world.adminToken, {})).statusCode).toBe(200);
    expect((await request(world, "POST", `/order/${paid.id}/call`, world.memberToken, {})).json()).toMatchObject({ code: "conflict", status: "paid_without_call" });
    await database.db.update(orders).set({ status: "calling" }).where(eq(orders.id, noConsent.id));
    await database.db.update(campaignContacts).set({ status: "in_progress" }).where(eq(campaignContacts.orderId, noConsent.id));
    expect((await request(world, "POST", `/order/${noConsent.id}/call`, world.memberToken, {})).json()).toMatchObject({ code: "conflict" });
    expect((await request(world, "PUT", `/order/${noConsent.id}`, world.memberToken, { customer_name: "x" })).statusCode).toBe(409);
    expect((await request(world, "DELETE", `/order/${noConsent.id}`, world.adminToken)).statusCode).toBe(409);
  });
});

describe("stop, mark as paid, timeline", () => {
  it("stop cancels the waiting call: cancelled, 'Stopped by <name>'; a second stop is 409", async () => {
    await saveFollowUp(world, { enabled: true });
    const order = await createOrderApi(world);
    expect(order.status).toBe("open");
    expect((await contactOf(database.db, order.id))!.status).toBe("queued");
    const stopped = await request(world, "POST", `/order/${order.id}/stop`, world.memberToken);
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(bodyOf<Order>(stopped)).toMatchObject({ status: "cancelled", status_detail: expect.stringMatching(/^Stopped by /), next_call_at: null });
    expect((await contactOf(database.db, order.id))!.status).toBe("cancelled");
    expect((await request(world, "POST", `/order/${order.id}/stop`, world.memberToken, {})).statusCode).toBe(409);
  });

  it("mark as paid (admins): before any call reached the customer it is paid_without_call and the waiting call is cancelled; again is 409", async () => {
    await saveFollowUp(world, { enabled: true });
    const order = await createOrderApi(world);
    const paid = await request(world, "POST", `/order/${order.id}/paid`, world.adminToken, { amount: 20 });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(bodyOf<Order>(paid)).toMatchObject({ status: "paid_without_call", recovered_amount: 0, paid_at: expect.any(String) });
    expect((await contactOf(database.db, order.id))!.status).toBe("cancelled");
    expect((await request(world, "POST", `/order/${order.id}/paid`, world.adminToken, {})).statusCode).toBe(409);
    const timeline = bodyOf<{ kind: string; detail: string }[]>(await request(world, "GET", `/order/${order.id}/timeline`, world.memberToken));
    expect(timeline.map((entry) => entry.kind)).toEqual(["abandoned", "queued", "paid"]);
    expect(timeline.at(-1)!.detail).toMatch(/marked paid by /);
  });
});

describe("the list and the KPI figures", () => {
  it("filters by status (several), days of abandonment in the organisation's zone, and search by name, number, email or reference", async () => {
    const mine = await ordersWorld(world.app, "Filter Co");
    const a = await createOrderApi(mine, { reference: "FIND-ME-1", customer_name: "Zelda Fitzgerald", abandoned_at: "2026-03-07T23:30:00Z" });
    const b = await createOrderApi(mine, { reference: "R-2", customer_email: "special@example.org", abandoned_at: "2026-03-08T10:00:00Z", call_consent: { given: false } });
    const c = await createOrderApi(mine, { reference: "R-3", customer_number: "+14155559876", abandoned_at: "2026-03-09T10:00:00Z" });
    const ids = async (query: string) => bodyOf<Order[]>(await request(mine, "GET", `/order/?${query}`, mine.memberToken)).map((one) => one.id);
    expect(await ids("")).toEqual([c.id, b.id, a.id]);
    expect(await ids("status=no_consent")).toEqual([b.id]);
    expect(await ids("status=open,no_consent")).toEqual([c.id, b.id, a.id]);
    expect(await ids("search=zelda")).toEqual([a.id]);
    expect(await ids("search=find-me")).toEqual([a.id]);
    expect(await ids("search=SPECIAL@")).toEqual([b.id]);
    expect(await ids("search=415-555-9876")).toEqual([c.id]);
    expect(await ids("startDate=2026-03-08&endDate=2026-03-08")).toEqual([b.id]);
    // In New York the 7th's 23:30 UTC is the 7th's evening, the 8th's 10:00 UTC is the 8th.
    expect((await request(mine, "PATCH", "/organization/settings", mine.adminToken, { timezone: "Asia/Tokyo" })).statusCode).toBe(200);
    // In Tokyo the 7th's 23:30 UTC is already the 8th.
    expect(await ids("startDate=2026-03-08&endDate=2026-03-08")).toEqual([b.id, a.id]);
    const bad = await request(mine, "GET", "/order/?status=lost", mine.memberToken);
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { detail: string }).detail).toMatch(/status/);
  });

  it("GET /order/stats: orders, called, recovered, recovery rate, revenue per currency, time to recovery, by status", async () => {
    const mine = await ordersWorld(world.app, "Stats Co");
    const recovered = await createOrderApi(mine, { abandoned_at: new Date(Date.now() - 3600_000).toISOString(), total: 59.9 });
    await createOrderApi(mine, { call_consent: { given: false } });
    const called = await createOrderApi(mine);
    // A call reached the first two; the first paid within the window.
    const callId = crypto.randomUUID();
    await orgScope(database.db, mine.orgId).insert(calls, { id: callId, type: "outbound", status: "ended", customerNumber: recovered.customer_number, startedAt: new Date(Date.now() - 1800_000), endedReason: "customer-ended-call" });
    await database.db.update(orders).set({ status: "calling", reachedAt: new Date(Date.now() - 1700_000), reachedCallId: callId }).where(eq(orders.id, recovered.id));
    await database.db.update(orders).set({ status: "calling", reachedAt: new Date(), reachedCallId: callId }).where(eq(orders.id, called.id));
    expect(bodyOf<Order>(await request(mine, "POST", `/order/${recovered.id}/paid`, mine.adminToken, {}))).toMatchObject({ status: "recovered", recovered_amount: 59.9 });
    const stats = bodyOf<Record<string, unknown>>(await request(mine, "GET", "/order/stats", mine.memberToken));
    expect(stats).toMatchObject({ orders: 3, called: 2, recovered: 1, recovery_rate: 0.5, recovered_revenue: [{ currency: "USD", amount: 59.9 }] });
    expect(stats.average_time_to_recovery_seconds).toBeGreaterThan(3500);
    expect(stats.by_status).toMatchObject({ recovered: 1, no_consent: 1, calling: 1, open: 0 });
    const dashboard = bodyOf<{ orders: unknown }>(await request(mine, "GET", "/dashboard/", mine.memberToken));
    expect(dashboard.orders).toEqual({ recovered: 1, called: 0, recovery_rate: null, recovered_revenue: [{ currency: "USD", amount: 59.9 }] });

    // The list shows the orders behind the "called" figure (the console's card filters it so), and the others.
    const list = async (query: string) => {
      const answer = await request(mine, "GET", `/order/?${query}`, mine.memberToken);
      return { ids: bodyOf<Order[]>(answer).map((one) => one.id).sort(), total: (answer.json() as { total: number }).total };
    };
    expect(await list("called=true")).toEqual({ ids: [recovered.id, called.id].sort(), total: stats.called });
    const uncalled = await list("called=false");
    expect(uncalled.total).toBe(1);
    expect(uncalled.ids).not.toContain(recovered.id);
    expect(uncalled.ids).not.toContain(called.id);
    expect((await list("called=true&status=recovered")).ids).toEqual([recovered.id]);
    const bad = await request(mine, "GET", "/order/?called=yes", mine.memberToken);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ detail: "called: must be one of true, false", code: expect.any(String) });
  });

  it("the dashboard's recovery rate is the share of the orders called in the period that are recovered (an order called the day before and paid in it does not push it over 1)", async () => {
    const mine = await ordersWorld(world.app, "Rate Co");
    await saveFollowUp(mine, { enabled: true });
    const [early, won, lost] = [await createOrderApi(mine), await createOrderApi(mine), await createOrderApi(mine)];
    const day = (offset: number) => new Date(Date.UTC(2026, 5, 10 + offset, 15)).toISOString().slice(0, 10);
    // June 9th: `early` is called; June 10th: `won` and `lost` are. `early` and `won` pay on the 10th.
    const callOn = async (order: Order, date: Date) => {
      const contact = await contactOf(database.db, order.id);
      expect(contact, "the follow-up queued a contact").not.toBeNull();
      await orgScope(database.db, mine.orgId).insert(calls, { id: crypto.randomUUID(), type: "outbound", status: "ended", customerNumber: order.customer_number, campaignContactId: contact!.id, startedAt: date, endedReason: "customer-ended-call" });
    };
    await callOn(early, new Date("2026-06-09T15:00:00Z"));
    await callOn(won, new Date("2026-06-10T15:00:00Z"));
    await callOn(lost, new Date("2026-06-10T16:00:00Z"));
    for (const order of [early, won]) {
      await database.db.update(orders).set({ status: "recovered", paidAt: new Date("2026-06-10T18:00:00Z"), recoveredMinor: 1000 }).where(eq(orders.id, order.id));
    }
    const dashboardOf = async (startDate: string, endDate: string) =>
      bodyOf<{ orders: unknown }>(await request(mine, "GET", `/dashboard/?startDate=${startDate}&endDate=${endDate}`, mine.memberToken)).orders;
    // The 10th alone: two recovered (paid that day), two called that day, one of them recovered.
    expect(await dashboardOf(day(0), day(0))).toEqual({ recovered: 2, called: 2, recovery_rate: 0.5, recovered_revenue: [{ currency: "USD", amount: 20 }] });
    // The 9th and the 10th: the three called, two of them recovered.
    expect(await dashboardOf(day(-1), day(0))).toMatchObject({ recovered: 2, called: 3, recovery_rate: 2 / 3 });
    // The 9th alone: `early` called and recovered since; nothing paid that day.
    expect(await dashboardOf(day(-1), day(-1))).toEqual({ recovered: 0, called: 1, recovery_rate: 1, recovered_revenue: [] });
  });
});
