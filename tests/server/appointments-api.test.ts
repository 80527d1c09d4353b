/**
 * /api/appointment: booking from the console (201 and its shape, validation naming the field, outside
 * the hours allowed and marked, never over another appointment: 409 slot_taken with the nearest free
 * slots), ten bookings of one slot at once (exactly one wins, on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL), an agent's own calendar, the list (dates in the calendar's zone with endDate included,
 * status, agent, search, order, paging), moving, status changes, cancelling (DELETE), another
 * organisation's appointment answering 404, and the outside calendar told after each committed change
 * and never after a refused one.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Appointment } from "../../contract/calendar";
import { buildApp } from "../../server/app";
import type { Database } from "../../server/db/client";
import { appointments } from "../../server/db/schema";
import { api, at, book, calendarOrg, nextDate, nextWeekday, plusMinutes, recordingSync, type CalendarOrg } from "./calendar-fixtures";
import { migratedDatabase, testConfig } from "./helpers";
import { eq } from "drizzle-orm";

let database: Database;
let app: FastifyInstance;
let org: CalendarOrg;
let other: CalendarOrg;
const sync = recordingSync();
const zone = "America/New_York";
/** A Wednesday well ahead (the defaults: Mon–Fri 09:00–17:00 New York time, 30-minute slots). */
const wednesday = nextWeekday(zone, "wed", 3);

beforeAll(async () => {
  database = await migratedDatabase();
  app = await buildApp({ config: testConfig(), database, logger: false, calendarSync: sync });
  org = await calendarOrg(app, zone);
  other = await calendarOrg(app, "Europe/Berlin");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});
beforeEach(() => {
  sync.changed.length = 0;
});

const dataOf = (response: { json(): unknown }) => (response.json() as { data: Appointment }).data;
type Refusal = { detail: string; code: string; slots: Array<{ start: string; end: string }> };

async function countIn(orgId: string): Promise<number> {
  return (await database.db.select().from(appointments).where(eq(appointments.orgId, orgId))).length;
}

describe("booking from the console", () => {
  it("answers 201 with the appointment: booked, source console, its calendar and zone, inside the hours, not synced", async () => {
    const response = await api(app, org.memberToken, "POST", "/appointment/", {
      title: "  First visit ",
      start: at(zone, wednesday, "09:00"),
      end: at(zone, wednesday, "09:30"),
      customer_name: "Grace Hopper",
      customer_number: "+14155550123",
      customer_email: "grace@example.com",
      notes: "Bring the forms",
      agent_id: org.agentId,
    });
    expect(response.statusCode, response.body).toBe(201);
    const appointment = dataOf(response);
    expect(appointment).toEqual({
      id: expect.any(String),
      title: "First visit",
      start: at(zone, wednesday, "09:00"),
      end: at(zone, wednesday, "09:30"),
      customer_name: "Grace Hopper",
      customer_number: "+14155550123",
      customer_email: "grace@example.com",
      notes: "Bring the forms",
      status: "booked",
      source: "console",
      agent_id: org.agentId,
      agent_name: org.agentName,
      call_id: null,
      calendar_id: expect.any(String),
      timezone: zone,
      outside_hours: false,
      synced: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(sync.changed).toEqual([appointment.id]);
    const shown = await api(app, org.adminToken, "GET", `/appointment/${appointment.id}`);
    expect(dataOf(shown)).toEqual(appointment);
  });

  it("may lie outside the hours (a Saturday, the evening): booked and marked outside_hours", async () => {
    const saturday = nextDate(wednesday, 3);
    const weekend = await book(app, org.memberToken, { start: at(zone, saturday, "10:00"), end: at(zone, saturday, "11:00") });
    expect(weekend.outside_hours).toBe(true);
    const evening = await book(app, org.memberToken, { start: at(zone, wednesday, "16:45"), end: at(zone, wednesday, "17:15") });
    expect(evening.outside_hours).toBe(true);
  });

  it("bad input answers 400 naming the field, and books nothing", async () => {
    const start = at(zone, wednesday, "11:00");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ start, end: start }, "end: must be after start"],
      [{ start, end: plusMinutes(start, 24 * 60 + 1) }, "end: an appointment lasts at most 24 hours"],
      [{ start: "next tuesday", end: start }, "start: must be an ISO 8601 time with its offset, e.g. 2026-12-01T14:00:00Z"],
      [{ start, end: plusMinutes(start, 30), customer_number: "415 555 0123" }, "customer_number: must be in E.164 form: '+', the country code and the number, e.g. +14155550123"],
      [{ start, end: plusMinutes(start, 30), customer_email: "nope" }, "customer_email: must be an email address"],
      [{ start, end: plusMinutes(start, 30), title: "   " }, "title: is required"],
      [{ start, end: plusMinutes(start, 30), agent_id: other.agentId }, `agent_id: ${other.agentId} is not an agent of this organisation`],
    ];
    const before = await countIn(org.orgId);
    for (const [body, detail] of cases) {
      const response = await api(app, org.memberToken, "POST", "/appointment/", { title: "Check-up", ...body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toEqual({ detail, code: "validation_error" });
    }
    expect(await countIn(org.orgId)).toBe(before);
    expect(sync.changed).toEqual([]);
  });

  it("an overlap answers 409 slot_taken with the 3 nearest free slots from the asked time on, in the asked length; nothing is booked", async () => {
    const date = nextDate(wednesday, 7);
    await book(app, org.memberToken, { start: at(zone, date, "10:00"), end: at(zone, date, "11:00") });
    sync.changed.length = 0;
    const before = await countIn(org.orgId);
    const response = await api(app, org.memberToken, "POST", "/appointment/", { title: "Clash", start: at(zone, date, "10:30"), end: at(zone, date, "11:30") });
    expect(response.statusCode).toBe(409);
    const body = response.json() as Refusal;
    expect(body).toEqual({ detail: expect.stringContaining("overlaps another appointment"), code: "slot_taken", slots: expect.any(Array) });
    // From 10:30 on, an hour long, on the 30-minute grid: 11:00, 11:30, 12:00.
    expect(body.slots).toEqual(["11:00", "11:30", "12:00"].map((time) => ({ start: at(zone, date, time), end: plusMinutes(at(zone, date, time), 60) })));
    expect(await countIn(org.orgId)).toBe(before);
    expect(sync.changed).toEqual([]);
    // Touching is not overlapping.
    await book(app, org.memberToken, { start: at(zone, date, "11:00"), end: at(zone, date, "11:30") });
  });

  it("buffers count: with 15 minutes after, the next booking may start only 15 minutes after the end", async () => {
    const buffered = await calendarOrg(app, "UTC");
    const saved = await api(app, buffered.adminToken, "PUT", "/availability/", { timezone: "UTC", weekly: [{ day: "mon", start: "09:00", end: "17:00" }], slot_minutes: 30, buffer_after_minutes: 15, max_days_ahead: 60 });
    expect(saved.statusCode, saved.body).toBe(200);
    const monday = nextWeekday("UTC", "mon");
    await book(app, buffered.memberToken, { start: at("UTC", monday, "09:00"), end: at("UTC", monday, "09:30") });
    const tooClose = await api(app, buffered.memberToken, "POST", "/appointment/", { title: "Next", start: at("UTC", monday, "09:30"), end: at("UTC", monday, "10:00") });
    expect(tooClose.statusCode).toBe(409);
    // 10:00 is the first slot whose own buffer clears the first appointment's block (09:00–09:45).
    expect((tooClose.json() as Refusal).slots[0]).toEqual({ start: at("UTC", monday, "10:00"), end: at("UTC", monday, "10:30") });
    await book(app, buffered.memberToken, { start: at("UTC", monday, "09:45"), end: at("UTC", monday, "10:15") });
  });

  it("ten bookings of one slot at once: exactly one 201, nine 409 slot_taken with slots, one row", async () => {
    const busy = await calendarOrg(app, zone);
    const start = at(zone, wednesday, "14:00");
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => api(app, index % 2 ? busy.memberToken : busy.adminToken, "POST", "/appointment/", { title: `Race ${index}`, start, end: plusMinutes(start, 30) })),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      const body = response.json() as Refusal;
      expect(body.code).toBe("slot_taken");
      expect(body.slots[0]).toEqual({ start: plusMinutes(start, 30), end: plusMinutes(start, 60) });
    }
    expect(await countIn(busy.orgId)).toBe(1);
  });

  it("an agent with its own rules books in its own calendar: the organisation's appointment at the same time does not clash", async () => {
    const split = await calendarOrg(app, zone);
    await api(app, split.adminToken, "PUT", "/availability/", { timezone: "Europe/London", weekly: [{ day: "wed", start: "09:00", end: "17:00" }], slot_minutes: 30, max_days_ahead: 60, agent_id: split.agentId });
    const start = at(zone, wednesday, "10:00");
    const organisation = await book(app, split.memberToken, { start, end: plusMinutes(start, 30) });
    const agents = await book(app, split.memberToken, { start, end: plusMinutes(start, 30), agent_id: split.agentId });
    expect(agents.calendar_id).not.toBe(organisation.calendar_id);
    expect(agents.timezone).toBe("Europe/London");
    expect(organisation.timezone).toBe(zone);
    const clash = await api(app, split.memberToken, "POST", "/appointment/", { title: "Again", start, end: plusMinutes(start, 30), agent_id: split.agentId });
    expect(clash.statusCode).toBe(409);
  });
});

describe("the list", () => {
  let listOrg: CalendarOrg;
  const monday = nextWeekday(zone, "mon", 9);
  beforeAll(async () => {
    listOrg = await calendarOrg(app, zone);
    await book(app, listOrg.memberToken, { title: "Late call", start: at(zone, monday, "23:30"), end: at(zone, nextDate(monday), "00:00"), customer_name: "Ada Lovelace" });
    await book(app, listOrg.memberToken, { title: "Early call", start: at(zone, nextDate(monday), "00:30"), end: at(zone, nextDate(monday), "01:00"), customer_number: "+442071838750" });
    await book(app, listOrg.memberToken, { title: "Morning", start: at(zone, monday, "09:00"), end: at(zone, monday, "09:30"), agent_id: listOrg.agentId, customer_email: "alan@example.org" });
    const cancelled = await book(app, listOrg.memberToken, { title: "Gone", start: at(zone, monday, "10:00"), end: at(zone, monday, "10:30") });
    expect((await api(app, listOrg.memberToken, "DELETE", `/appointment/${cancelled.id}`)).statusCode).toBe(200);
  });

  async function titles(query: string): Promise<string[]> {
    const response = await api(app, listOrg.memberToken, "GET", `/appointment/?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Appointment[] }).data.map((appointment) => appointment.title);
  }

  it("dates are read in the calendar's zone, endDate included, ordered by start", async () => {
    // 23:30 on Monday New York time is Tuesday in UTC, and still Monday here.
    expect(await titles(`startDate=${monday}&endDate=${monday}`)).toEqual(["Morning", "Gone", "Late call"]);
    expect(await titles(`startDate=${nextDate(monday)}&endDate=${nextDate(monday)}`)).toEqual(["Early call"]);
    expect(await titles(`startDate=${monday}&endDate=${nextDate(monday)}`)).toEqual(["Morning", "Gone", "Late call", "Early call"]);
    expect(await titles(`startDate=${nextDate(monday)}`)).toEqual(["Early call"]);
  });

  it("filters by status, agent and search (title, name, email, digits of the number)", async () => {
    expect(await titles("status=cancelled")).toEqual(["Gone"]);
    expect(await titles(`agentId=${listOrg.agentId}`)).toEqual(["Morning"]);
    expect(await titles(`agentId=${other.agentId}`)).toEqual([]);
    expect(await titles("search=late")).toEqual(["Late call"]);
    expect(await titles("search=lovelace")).toEqual(["Late call"]);
    expect(await titles("search=alan%40example")).toEqual(["Morning"]);
    expect(await titles(`search=${encodeURIComponent("20 7183")}`)).toEqual(["Early call"]);
    expect(await titles("search=100%25")).toEqual([]);
  });

  it("pages, and never shows another organisation's appointments", async () => {
    const page = await api(app, listOrg.memberToken, "GET", "/appointment/?page=2&limit=3");
    expect(page.json()).toMatchObject({ total: 4, page: 2, limit: 3, data: [{ title: "Early call" }] });
    const others = await api(app, other.memberToken, "GET", "/appointment/?limit=1000");
    expect((others.json() as { total: number }).total).toBe(0);
    const tooLong = await api(app, listOrg.memberToken, "GET", `/appointment/?startDate=${monday}&endDate=${nextDate(monday, 62)}`);
    expect(tooLong.json()).toEqual({ detail: "endDate: the range may span at most 62 days", code: "validation_error" });
  });
});

describe("changing and cancelling", () => {
  let changeOrg: CalendarOrg;
  const thursday = nextWeekday(zone, "thu", 3);
  beforeAll(async () => {
    changeOrg = await calendarOrg(app, zone);
  });

  it("PUT moves it with start and end together; onto another appointment answers 409 and changes nothing", async () => {
    const first = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "09:00"), end: at(zone, thursday, "09:30") });
    const second = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "11:00"), end: at(zone, thursday, "11:30") });
    sync.changed.length = 0;
    const moved = await api(app, changeOrg.memberToken, "PUT", `/appointment/${first.id}`, { start: at(zone, thursday, "09:15"), end: at(zone, thursday, "10:15"), notes: "Moved" });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(dataOf(moved)).toMatchObject({ start: at(zone, thursday, "09:15"), end: at(zone, thursday, "10:15"), notes: "Moved", outside_hours: false });
    // The move above overlapped its own old time, which never blocks it; onto the second appointment is refused.
    const clash = await api(app, changeOrg.memberToken, "PUT", `/appointment/${first.id}`, { start: at(zone, thursday, "10:30"), end: at(zone, thursday, "11:30"), notes: "Clash" });
    expect(clash.statusCode).toBe(409);
    expect((clash.json() as Refusal).slots[0]).toEqual({ start: at(zone, thursday, "11:30"), end: at(zone, thursday, "12:30") });
    expect(dataOf(await api(app, changeOrg.memberToken, "GET", `/appointment/${first.id}`))).toMatchObject({ start: at(zone, thursday, "09:15"), notes: "Moved" });
    expect(sync.changed).toEqual([first.id]);
    const half = await api(app, changeOrg.memberToken, "PUT", `/appointment/${second.id}`, { start: at(zone, thursday, "12:00") });
    expect(half.json()).toEqual({ detail: "start and end: give both to move an appointment", code: "validation_error" });
  });

  it("status: booked ⇄ completed / no_show, booked → cancelled, cancelled → booked only while free; anything else 409", async () => {
    const appointment = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "13:00"), end: at(zone, thursday, "13:30") });
    const status = async (id: string, value: string) => api(app, changeOrg.memberToken, "PUT", `/appointment/${id}`, { status: value });
    expect(dataOf(await status(appointment.id, "completed")).status).toBe("completed");
    expect(dataOf(await status(appointment.id, "no_show")).status).toBe("no_show");
    const cannot = await status(appointment.id, "cancelled");
    expect(cannot.statusCode).toBe(409);
    expect(cannot.json()).toEqual({ detail: "The appointment is no_show: it cannot become cancelled (only booked appointments are cancelled).", code: "conflict" });
    expect(dataOf(await status(appointment.id, "booked")).status).toBe("booked");
    const cancelled = await api(app, changeOrg.memberToken, "DELETE", `/appointment/${appointment.id}`);
    expect(dataOf(cancelled).status).toBe("cancelled");
    // Its time is free again: someone else books it; booking the cancelled one again is then refused.
    const taker = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "13:00"), end: at(zone, thursday, "13:30") });
    const rebook = await status(appointment.id, "booked");
    expect(rebook.statusCode).toBe(409);
    expect((rebook.json() as Refusal).code).toBe("slot_taken");
    expect((await status(appointment.id, "completed")).json()).toEqual({ detail: "The appointment is cancelled: it can only be booked again (status booked), not marked completed.", code: "conflict" });
    await api(app, changeOrg.memberToken, "DELETE", `/appointment/${taker.id}`);
    expect(dataOf(await status(appointment.id, "booked"))).toMatchObject({ status: "booked" });
  });

  it("DELETE cancels (status cancelled), twice is fine, a completed one answers 409", async () => {
    const appointment = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "15:00"), end: at(zone, thursday, "15:30") });
    sync.changed.length = 0;
    const first = await api(app, changeOrg.memberToken, "DELETE", `/appointment/${appointment.id}`);
    expect(first.statusCode).toBe(200);
    expect(dataOf(first)).toMatchObject({ id: appointment.id, status: "cancelled" });
    const second = await api(app, changeOrg.memberToken, "DELETE", `/appointment/${appointment.id}`);
    expect(second.statusCode).toBe(200);
    expect(dataOf(second)).toEqual(dataOf(first));
    expect(sync.changed).toEqual([appointment.id]);
    const [row] = await database.db.select().from(appointments).where(eq(appointments.id, appointment.id));
    expect(row!.cancelledAt).toBeInstanceOf(Date);
    const done = await book(app, changeOrg.memberToken, { start: at(zone, thursday, "16:00"), end: at(zone, thursday, "16:30") });
    await api(app, changeOrg.memberToken, "PUT", `/appointment/${done.id}`, { status: "completed" });
    expect((await api(app, changeOrg.memberToken, "DELETE", `/appointment/${done.id}`)).statusCode).toBe(409);
  });

  it("another organisation's appointment answers 404 to GET, PUT and DELETE, and stays as it was", async () => {
    const appointment = await book(app, changeOrg.memberToken, { title: "Private", start: at(zone, nextDate(thursday, 7), "09:00"), end: at(zone, nextDate(thursday, 7), "09:30") });
    for (const [method, payload] of [["GET", undefined], ["PUT", { notes: "mine now" }], ["DELETE", undefined]] as const) {
      const response = await api(app, other.adminToken, method, `/appointment/${appointment.id}`, payload);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: "Appointment not found", code: "not_found" });
    }
    expect(dataOf(await api(app, changeOrg.memberToken, "GET", `/appointment/${appointment.id}`))).toEqual(appointment);
  });
});
