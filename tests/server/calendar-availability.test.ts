/**
 * /api/availability: the defaults in the organisation's zone, saving the organisation's rules and an
 * agent's own (admins only), inheritance, validation naming the field, another organisation's agent
 * answering 404, and GET /availability/slots: dates in the calendar's zone with endDate included, the
 * rules, booked appointments with buffers and a connected calendar's busy times taken out.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_AVAILABILITY, type Availability, type Slot } from "../../contract/calendar";
import { buildApp } from "../../server/app";
import type { Database } from "../../server/db/client";
import { api, at, book, calendarOrg, nextDate, nextWeekday, plusMinutes, recordingSync, type CalendarOrg } from "./calendar-fixtures";
import { migratedDatabase, testConfig } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: CalendarOrg;
let other: CalendarOrg;
/** Busy 13:00–14:00 New York time on the Tuesday used below, as a connected calendar would say. */
const tuesday = nextWeekday("America/New_York", "tue", 3);
const sync = recordingSync([{ start: new Date(at("America/New_York", tuesday, "13:00")), end: new Date(at("America/New_York", tuesday, "14:00")) }]);

beforeAll(async () => {
  database = await migratedDatabase();
  app = await buildApp({ config: testConfig(), database, logger: false, calendarSync: sync });
  org = await calendarOrg(app, "America/New_York");
  other = await calendarOrg(app, "Europe/Berlin");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const RULES = {
  timezone: "America/New_York",
  weekly: [
    { day: "tue", start: "09:00", end: "12:00" },
    { day: "tue", start: "13:00", end: "17:00" },
    { day: "wed", start: "09:00", end: "17:00" },
  ],
  slot_minutes: 60,
  buffer_before_minutes: 0,
  buffer_after_minutes: 30,
  min_notice_minutes: 60,
  max_days_ahead: 30,
  max_per_day: null,
  closed_dates: [],
  date_overrides: [],
};

async function availability(token: string, query = ""): Promise<Availability> {
  const response = await api(app, token, "GET", `/availability/${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Availability }).data;
}

async function slots(token: string, query: string): Promise<{ data: Slot[]; timezone: string }> {
  const response = await api(app, token, "GET", `/availability/slots?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: Slot[]; timezone: string };
}

const wallClock = (iso: string, zone: string) => new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));

describe("the rules", () => {
  it("until saved: the defaults in the organisation's time zone, for members too", async () => {
    const fresh = await calendarOrg(app, "Asia/Kolkata");
    const rules = await availability(fresh.memberToken);
    expect(rules).toEqual({
      id: null,
      agent_id: null,
      timezone: "Asia/Kolkata",
      weekly: DEFAULT_AVAILABILITY.weekly,
      slot_minutes: 30,
      buffer_before_minutes: 0,
      buffer_after_minutes: 0,
      min_notice_minutes: 60,
      max_days_ahead: 60,
      max_per_day: null,
      closed_dates: [],
      date_overrides: [],
      is_default: true,
      inherited: false,
      updated_at: null,
    });
    expect(await availability(fresh.memberToken, `?agentId=${fresh.agentId}`)).toMatchObject({ timezone: "Asia/Kolkata", is_default: true, inherited: true });
  });

  it("only admins save them: a member gets 403 and nothing changes", async () => {
    const refused = await api(app, org.memberToken, "PUT", "/availability/", RULES);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: "Only admins may change the calendar's availability.", code: "forbidden" });
    expect((await availability(org.memberToken)).is_default).toBe(true);
  });

  it("an admin saves the organisation's rules; GET answers them to members", async () => {
    const response = await api(app, org.adminToken, "PUT", "/availability/", { ...RULES, closed_dates: ["2030-12-25", "2030-01-01", "2030-12-25"] });
    expect(response.statusCode, response.body).toBe(200);
    const saved = (response.json() as { data: Availability }).data;
    expect(saved).toMatchObject({ ...RULES, closed_dates: ["2030-01-01", "2030-12-25"], agent_id: null, is_default: false, inherited: false });
    expect(saved.id).toEqual(expect.any(String));
    expect(saved.updated_at).toEqual(expect.any(String));
    expect(await availability(org.memberToken)).toEqual(saved);
    // Saving again keeps the same calendar.
    const again = await api(app, org.adminToken, "PUT", "/availability/", RULES);
    expect((again.json() as { data: Availability }).data.id).toBe(saved.id);
  });

  it("an agent inherits the organisation's rules until it has its own; its own leave the organisation's alone", async () => {
    const agentOrg = await calendarOrg(app, "Europe/Berlin");
    await api(app, agentOrg.adminToken, "PUT", "/availability/", { ...RULES, timezone: "Europe/Berlin" });
    expect(await availability(agentOrg.memberToken, `?agentId=${agentOrg.agentId}`)).toMatchObject({ timezone: "Europe/Berlin", inherited: true, agent_id: null, slot_minutes: 60 });
    const own = await api(app, agentOrg.adminToken, "PUT", "/availability/", { ...RULES, timezone: "Europe/Paris", slot_minutes: 20, agent_id: agentOrg.agentId });
    expect(own.statusCode, own.body).toBe(200);
    expect((own.json() as { data: Availability }).data).toMatchObject({ agent_id: agentOrg.agentId, timezone: "Europe/Paris", slot_minutes: 20, inherited: false, is_default: false });
    expect(await availability(agentOrg.memberToken, `?agentId=${agentOrg.agentId}`)).toMatchObject({ agent_id: agentOrg.agentId, slot_minutes: 20, inherited: false });
    expect(await availability(agentOrg.memberToken)).toMatchObject({ agent_id: null, timezone: "Europe/Berlin", slot_minutes: 60 });
  });

  it("bad rules answer 400 naming the field, and nothing is saved", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...RULES, timezone: "Mars/Olympus" }, /^timezone: /],
      [{ ...RULES, weekly: [{ day: "tue", start: "09:00", end: "12:00" }, { day: "tue", start: "11:00", end: "13:00" }] }, /tue's ranges overlap/],
      [{ ...RULES, weekly: [{ day: "tue", start: "12:00", end: "09:00" }] }, /end must be after its start/],
      [{ ...RULES, slot_minutes: 2 }, /^slot_minutes: must be between 5 and 480/],
      [{ ...RULES, closed_dates: ["2030-13-01"] }, /closed_dates/],
      [{ ...RULES, date_overrides: [{ date: "2030-01-02", ranges: [] }, { date: "2030-01-02", ranges: [] }] }, /2030-01-02 has two overrides/],
      [{ ...RULES, holidays: [] }, /holidays: is not a known field/],
    ];
    const before = await availability(org.memberToken);
    for (const [body, detail] of cases) {
      const response = await api(app, org.adminToken, "PUT", "/availability/", body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toEqual({ detail: expect.stringMatching(detail), code: "validation_error" });
    }
    expect(await availability(org.memberToken)).toEqual(before);
  });

  it("another organisation's agent answers 404, on GET, PUT and the slots, and changes nothing", async () => {
    expect((await api(app, org.memberToken, "GET", `/availability/?agentId=${other.agentId}`)).json()).toEqual({ detail: "Agent not found", code: "not_found" });
    const put = await api(app, org.adminToken, "PUT", "/availability/", { ...RULES, agent_id: other.agentId });
    expect(put.statusCode).toBe(404);
    const date = nextWeekday(org.timezone, "wed");
    expect((await api(app, org.memberToken, "GET", `/availability/slots?startDate=${date}&endDate=${date}&agentId=${other.agentId}`)).statusCode).toBe(404);
    expect((await availability(other.memberToken, `?agentId=${other.agentId}`)).inherited).toBe(true);
  });
});

describe("GET /availability/slots", () => {
  it("the rules' slots in UTC with the zone named; endDate included; buffers, booked appointments and busy times taken out", async () => {
    const zone = "America/New_York";
    // Tuesday: 09–12 and 13–17 in hours; the connected calendar is busy 13:00–14:00.
    const first = await slots(org.memberToken, `startDate=${tuesday}&endDate=${tuesday}`);
    expect(first.timezone).toBe(zone);
    expect(first.data.map((slot) => wallClock(slot.start, zone))).toEqual(["09:00", "10:00", "11:00", "14:00", "15:00", "16:00"]);
    expect(first.data[0]).toEqual({ start: at(zone, tuesday, "09:00"), end: at(zone, tuesday, "10:00") });
    // A booking 10:00–11:00 blocks 10:00–11:30 (30 minutes' buffer after): 09:00's own buffer would reach
    // into it (09:00–10:30), and 11:00 starts inside it.
    await book(app, org.memberToken, { start: at(zone, tuesday, "10:00"), end: at(zone, tuesday, "11:00") });
    const after = await slots(org.memberToken, `startDate=${tuesday}&endDate=${tuesday}`);
    expect(after.data.map((slot) => wallClock(slot.start, zone))).toEqual(["14:00", "15:00", "16:00"]);
    // Two days, endDate included: Tuesday's three and Wednesday's eight.
    const both = await slots(org.memberToken, `startDate=${tuesday}&endDate=${nextDate(tuesday)}`);
    expect(both.data).toHaveLength(3 + 8);
    expect(sync.busyAsked.length).toBeGreaterThan(0);
  });

  it("an agent with its own rules gets its own slots", async () => {
    const agentOrg = await calendarOrg(app, "UTC");
    const date = nextWeekday("UTC", "mon");
    await api(app, agentOrg.adminToken, "PUT", "/availability/", { ...RULES, timezone: "UTC", weekly: [{ day: "mon", start: "10:00", end: "11:00" }], slot_minutes: 15, agent_id: agentOrg.agentId });
    const own = await slots(agentOrg.memberToken, `startDate=${date}&endDate=${date}&agentId=${agentOrg.agentId}`);
    expect(own.data.map((slot) => slot.start)).toEqual(["10:00", "10:15", "10:30", "10:45"].map((time) => at("UTC", date, time)));
    // The organisation's defaults: 09:00–17:00 in 30-minute slots.
    expect((await slots(agentOrg.memberToken, `startDate=${date}&endDate=${date}`)).data).toHaveLength(16);
  });

  it("a range backwards, too long or without dates answers 400", async () => {
    const date = nextWeekday(org.timezone, "wed");
    for (const [query, detail] of [
      [`startDate=${nextDate(date)}&endDate=${date}`, "endDate: must be on or after startDate"],
      [`startDate=${date}&endDate=${nextDate(date, 62)}`, "endDate: the range may span at most 62 days"],
      [`startDate=${date}`, "endDate: is required"],
      [`startDate=${date}&endDate=tomorrow`, "endDate: must be a date YYYY-MM-DD, e.g. 2026-12-25"],
    ]) {
      const response = await api(app, org.memberToken, "GET", `/availability/slots?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toEqual({ detail, code: "validation_error" });
    }
    expect((await api(app, org.memberToken, "GET", `/availability/slots?startDate=${date}&endDate=${nextDate(date, 61)}`)).statusCode).toBe(200);
  });

  it("nothing past max_days_ahead, nothing sooner than the notice", async () => {
    const near = await calendarOrg(app, "UTC");
    await api(app, near.adminToken, "PUT", "/availability/", { ...RULES, timezone: "UTC", weekly: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => ({ day, start: "00:00", end: "24:00" })), max_days_ahead: 2, min_notice_minutes: 120 });
    const today = new Date().toISOString().slice(0, 10);
    const found = await slots(near.memberToken, `startDate=${today}&endDate=${nextDate(today, 10)}`);
    const last = Date.parse(`${nextDate(today, 3)}T00:00:00Z`);
    expect(found.data.length).toBeGreaterThan(0);
    expect(found.data.every((slot) => Date.parse(slot.start) >= Date.now() + 119 * 60_000 && Date.parse(slot.start) < last)).toBe(true);
    expect(Date.parse(found.data.at(-1)!.start)).toBe(last - 60 * 60_000);
    expect(plusMinutes(found.data[0]!.start, 60)).toBe(found.data[0]!.end);
  });
});
