/**
 * The agent's booking tools through the signed webhook route (issue 14 §3, issue 18): every tool call
 * shape and its answer in Vapi's `{results: [{toolCallId, name, result | error}]}` shape: check with and
 * without a date, a day with no open times, booking (linked to the call), a time just taken (with
 * alternatives), outside the hours, missing and bad arguments, rescheduling, cancelling, an unknown
 * appointment, another organisation's agent, booking turned off, arguments as a JSON string and as an
 * object, the times said in the caller's zone, and a connected outside calendar's busy times.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, localDate, localIso, spokenDate, spokenTime, startOfLocalDay } from "../../server/calendar/spoken-time";
import type { Database } from "../../server/db/client";
import { WEBHOOK_SECRET } from "./calls-fixtures";
import {
  appointmentRow,
  appointmentsOf,
  bookedId,
  bookingSetup,
  callRefOf,
  callTool,
  listedStarts,
  newCall,
  postToolCalls,
  toolCallsMessage,
  type BookingSetup,
} from "./booking-tools-fixtures";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { buildApp } from "../../server/app";
import type { CalendarSync } from "../../server/calendar/sync";
import { buildTestApp, migratedDatabase, testConfig } from "./helpers";

const NY = "America/New_York";
const HOUR = 60 * 60 * 1000;

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

/** A day `days` from today in `zone`, and the instant of hh:mm on it. */
const dayFromToday = (days: number, zone = NY) => addDays(localDate(new Date(), zone), days);
const at = (date: string, hhmm: string, zone = NY) => new Date(startOfLocalDay(date, zone).getTime() + (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))) * 60_000);

describe("check_availability", () => {
  let setup: BookingSetup;
  beforeAll(async () => {
    setup = await bookingSetup(app, database.db, { closed_dates: [dayFromToday(3)] });
  });

  it("for a date: today's date, the zone, then every open time of that day with its exact start, in Vapi's answer shape", async () => {
    const day = dayFromToday(2);
    const message = toolCallsMessage(callRefOf(setup), [{ id: "call_check_1", name: "check_availability", args: { date: day } }]);
    const response = await postToolCalls(app, message);
    expect(loadVapiOpenApi().problems("ServerMessageResponseToolCalls", { results: response })).toEqual([]);
    expect(response).toEqual([{ toolCallId: "call_check_1", name: "check_availability", result: expect.any(String) }]);
    const text = response[0]!.result!;
    expect(text.split("\n")[0]).toBe(`Today is ${spokenDate(dayFromToday(0), NY, new Date(0))}. Times are in Eastern Time (the caller's time zone).`);
    expect(text).toContain(`Open times on ${spokenDate(day, NY)}:`);
    // 09:00–17:00 in 30-minute slots: 16, the first at 9:00 AM.
    expect(listedStarts(text)).toEqual(Array.from({ length: 16 }, (_, i) => localIso(new Date(at(day, "09:00").getTime() + i * 30 * 60_000), NY)));
    expect(text).toContain(`- 9:00 AM (start: ${localIso(at(day, "09:00"), NY)})`);
    expect(text).toContain("Each appointment lasts 30 minutes.");
  });

  it("without a date: the next open times from now, by day, each with its exact start", async () => {
    const { result } = await callTool(app, callRefOf(setup), "check_availability");
    expect(result).toContain("The next open times:");
    const starts = listedStarts(result).map((start) => new Date(start));
    expect(starts.length).toBeGreaterThanOrEqual(4);
    expect(starts.every((start) => start.getTime() > Date.now())).toBe(true);
    expect(starts.map((start) => start.getTime())).toEqual([...starts].map((start) => start.getTime()).sort((a, b) => a - b));
    // The very first free slot from now: tomorrow 9:00 at the latest.
    expect(starts[0]!.getTime()).toBeLessThanOrEqual(at(dayFromToday(1), "09:00").getTime());
  });

  it("after: only later times of that day", async () => {
    const day = dayFromToday(2);
    const { result } = await callTool(app, callRefOf(setup), "check_availability", { date: day, after: localIso(at(day, "15:30"), NY) });
    expect(listedStarts(result)).toEqual([localIso(at(day, "16:00"), NY), localIso(at(day, "16:30"), NY)]);
    expect(result).toContain(`Open times on ${spokenDate(day, NY)} after 3:30 PM:`);
  });

  it("a day with no open times is said plainly, with the next days that have some", async () => {
    const closed = dayFromToday(3);
    const { result } = await callTool(app, callRefOf(setup), "check_availability", { date: closed });
    expect(result).toContain(`No open times on ${spokenDate(closed, NY)}.`);
    expect(result).toContain("The next days with open times:");
    expect(result).toContain(`- ${spokenDate(dayFromToday(4), NY)}: 9:00 AM (start: ${localIso(at(dayFromToday(4), "09:00"), NY)})`);
    expect(listedStarts(result).every((start) => start >= localIso(at(dayFromToday(4), "09:00"), NY))).toBe(true);
  });

  it("a day past the bookable range and a day already gone say why", async () => {
    const far = await callTool(app, callRefOf(setup), "check_availability", { date: dayFromToday(90) });
    expect(far.result).toContain(`No open times on ${spokenDate(dayFromToday(90), NY)}: it is further ahead than bookings can be made (up to 60 days ahead`);
    expect(listedStarts(far.result)).toEqual([]);
    const past = await callTool(app, callRefOf(setup), "check_availability", { date: dayFromToday(-2) });
    expect(past.result).toContain(`${spokenDate(dayFromToday(-2), NY)} has already passed.`);
  });

  it("arguments as Vapi sends them (a JSON string) and as an object give the same answer", async () => {
    const day = dayFromToday(5);
    const asString = await callTool(app, callRefOf(setup), "check_availability", { date: day });
    const asObject = await callTool(app, callRefOf(setup), "check_availability", { date: day }, { asObject: true });
    expect(asObject.result).toBe(asString.result);
    expect(listedStarts(asObject.result)).toHaveLength(16);
  });

  it("a bad date is an error naming the argument and the form to send", async () => {
    for (const date of ["next tuesday", "2026-02-30", 20261201]) {
      const answer = await callTool(app, callRefOf(setup), "check_availability", { date });
      expect(answer.result).toBeUndefined();
      expect(answer.error).toMatch(/^check_availability: date must be a date as YYYY-MM-DD, e\.g\. 2026-12-01/);
    }
    const after = await callTool(app, callRefOf(setup), "check_availability", { after: "3pm" });
    expect(after.error).toMatch(/after must be an ISO 8601 time with its offset/);
  });
});

describe("times in the caller's zone", () => {
  it("a caller whose number has one zone hears that zone; a toll-free caller hears the calendar's", async () => {
    const setup = await bookingSetup(app, database.db, { timezone: "Europe/Berlin", customerNumber: "+12125550100" });
    const day = dayFromToday(2, "Europe/Berlin");
    const berlinNine = at(day, "09:00", "Europe/Berlin");
    const nyDay = localDate(berlinNine, NY);
    const fromNewYork = await callTool(app, callRefOf(setup), "check_availability", { date: nyDay });
    expect(fromNewYork.result).toContain("Times are in Eastern Time (the caller's time zone).");
    // Berlin's 9:00 is New York's 3:00 AM (or 4:00 around the daylight-saving weeks): said so, with New York's offset.
    expect(fromNewYork.result).toContain(`(start: ${localIso(berlinNine, NY)})`);

    const tollFree = await newCall(database.db, setup.orgId, setup.agentId, "+18005550100");
    const fromTollFree = await callTool(app, { ...callRefOf(setup), ...tollFree }, "check_availability", { date: day });
    expect(fromTollFree.result).toContain("Times are in Central European Time (the calendar's time zone).");
    expect(fromTollFree.result).toContain(`- 9:00 AM (start: ${localIso(berlinNine, "Europe/Berlin")})`);
  });
});

describe("book_appointment", () => {
  let setup: BookingSetup;
  beforeAll(async () => {
    setup = await bookingSetup(app, database.db);
  });

  it("books the time, linked to the call and its agent, and confirms the day, time and id", async () => {
    const start = at(dayFromToday(2), "10:00");
    const answer = await callTool(app, callRefOf(setup), "book_appointment", { start: localIso(start, NY), customer_name: "Ada Lovelace", title: "Dental check-up", notes: "First visit" }, { id: "call_book_ok" });
    expect(answer.error).toBeUndefined();
    const id = bookedId(answer);
    expect(answer.result).toContain(`Booked: ${spokenTime(start, NY)}, for 30 minutes, for Ada Lovelace (Dental check-up).`);
    const row = await appointmentRow(database.db, id);
    expect(row).toMatchObject({
      orgId: setup.orgId,
      agentId: setup.agentId,
      callId: setup.callId,
      source: "agent",
      status: "booked",
      title: "Dental check-up",
      customerName: "Ada Lovelace",
      // The caller's number, since none was given.
      customerNumber: setup.customerNumber,
      notes: "First visit",
      toolCallId: "call_book_ok",
    });
    expect(row!.startAt.toISOString()).toBe(start.toISOString());
    expect(row!.endAt.getTime() - row!.startAt.getTime()).toBe(30 * 60_000);
  });

  it("a time just taken: not booked, 'that time was just taken' and up to three nearest open times", async () => {
    const start = at(dayFromToday(2), "11:00");
    bookedId(await callTool(app, callRefOf(setup), "book_appointment", { start: localIso(start, NY), customer_name: "Ada Lovelace" }));
    const other = await newCall(database.db, setup.orgId, setup.agentId, "+12125550111");
    const before = (await appointmentsOf(database.db, setup.orgId)).length;
    const answer = await callTool(app, { ...callRefOf(setup), ...other }, "book_appointment", { start: localIso(start, NY), customer_name: "Grace Hopper" });
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatch(/^Not booked: that time was just taken\.\nThe nearest open times instead:/);
    expect(listedStarts(answer.result)).toEqual([localIso(at(dayFromToday(2), "11:30"), NY), localIso(at(dayFromToday(2), "12:00"), NY), localIso(at(dayFromToday(2), "12:30"), NY)]);
    expect(answer.result).toContain(`- ${spokenTime(at(dayFromToday(2), "11:30"), NY)} (start:`);
    expect((await appointmentsOf(database.db, setup.orgId)).length).toBe(before);
  });

  it("outside the hours: not booked, the reason, and the nearest open times", async () => {
    const answer = await callTool(app, callRefOf(setup), "book_appointment", { start: localIso(at(dayFromToday(6), "03:00"), NY), customer_name: "Ada Lovelace" });
    expect(answer.result).toMatch(/^Not booked: That time is outside the hours when appointments can be booked\.\nThe nearest open times instead:/);
    expect(listedStarts(answer.result)[0]).toBe(localIso(at(dayFromToday(6), "09:00"), NY));
  });

  it("missing or bad arguments are errors the model can act on, and book nothing", async () => {
    const before = (await appointmentsOf(database.db, setup.orgId)).length;
    const ref = callRefOf(setup);
    const start = localIso(at(dayFromToday(7), "09:00"), NY);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ customer_name: "Ada" }, /^book_appointment needs start: the exact start of an open time from check_availability, e\.g\. 2026-12-01T09:00:00-05:00\.$/],
      [{ start: "tomorrow at 9", customer_name: "Ada" }, /start must be an ISO 8601 time with its offset, exactly as check_availability wrote it/],
      [{ start: start.slice(0, 19), customer_name: "Ada" }, /start must be an ISO 8601 time with its offset/],
      [{ start, customer_name: "Ada", customer_email: "ada at example" }, /customer_email must be an email address/],
      [{ start, customer_name: "Ada", customer_number: "555-0100" }, /customer_number must be in E\.164 form/],
      [{ start: localIso(new Date(Date.now() - HOUR), NY), customer_name: "Ada" }, /has already passed/],
    ];
    for (const [args, expected] of cases) {
      const answer = await callTool(app, ref, "book_appointment", args);
      expect({ args, result: answer.result }).toEqual({ args, result: undefined });
      expect(answer.error).toMatch(expected);
    }
    // No name given and none known for the call.
    const anonymous = await newCall(database.db, setup.orgId, setup.agentId, "+12125550122", null);
    const nameless = await callTool(app, { ...ref, ...anonymous }, "book_appointment", { start });
    expect(nameless.error).toBe("book_appointment needs customer_name: ask the caller for their name first.");
    expect((await appointmentsOf(database.db, setup.orgId)).length).toBe(before);
  });

  it("a given customer_number and email are booked as given", async () => {
    const start = at(dayFromToday(8), "09:30");
    const id = bookedId(
      await callTool(app, callRefOf(setup), "book_appointment", { start: localIso(start, NY), customer_name: "Ada", customer_number: "+1 (415) 555-0199", customer_email: "ada@example.com" }),
    );
    expect(await appointmentRow(database.db, id)).toMatchObject({ customerNumber: "+14155550199", customerEmail: "ada@example.com", title: "Appointment with Ada" });
  });
});

describe("reschedule_appointment, cancel_appointment, find_appointment", () => {
  it("move the caller's next appointment, list theirs, cancel it", async () => {
    const setup = await bookingSetup(app, database.db);
    const ref = callRefOf(setup);
    const first = at(dayFromToday(2), "09:00");
    const id = bookedId(await callTool(app, ref, "book_appointment", { start: localIso(first, NY), customer_name: "Ada Lovelace" }));

    const moved = at(dayFromToday(3), "14:00");
    const answer = await callTool(app, ref, "reschedule_appointment", { start: localIso(moved, NY) });
    expect(answer.result).toBe(
      [`Moved: the appointment is now on ${spokenTime(moved, NY)} (it was ${spokenTime(first, NY)}).`, `Appointment id: ${id}.`, "Tell the caller the new day and time."].join("\n"),
    );
    const row = await appointmentRow(database.db, id);
    expect(row!.startAt.toISOString()).toBe(moved.toISOString());
    expect(row!.endAt.getTime() - row!.startAt.getTime()).toBe(30 * 60_000);

    // The same caller calling again finds it by their number.
    const again = await newCall(database.db, setup.orgId, setup.agentId, setup.customerNumber);
    const found = await callTool(app, { ...ref, ...again }, "find_appointment");
    expect(found.result).toContain("The caller has 1 upcoming appointment:");
    expect(found.result).toContain(`- ${spokenTime(moved, NY)}: Appointment with Ada Lovelace (appointment_id: ${id})`);

    const cancelled = await callTool(app, { ...ref, ...again }, "cancel_appointment", { appointment_id: id });
    expect(cancelled.result).toMatch(new RegExp(`^Cancelled: the appointment on ${spokenTime(moved, NY)} \\(Appointment with Ada Lovelace\\) is cancelled\\.`));
    expect(await appointmentRow(database.db, id)).toMatchObject({ status: "cancelled" });
    // Cancelled twice (a new tool call, not a retry): said so, nothing changes.
    const twice = await callTool(app, { ...ref, ...again }, "cancel_appointment", { appointment_id: id });
    expect(twice.result).toContain(`That appointment (${spokenTime(moved, NY)}) is already cancelled: nothing to change.`);
    // The freed time is offered again.
    const check = await callTool(app, ref, "check_availability", { date: dayFromToday(3) });
    expect(listedStarts(check.result)).toContain(localIso(moved, NY));
    // Nothing left to cancel.
    const nothing = await callTool(app, ref, "cancel_appointment");
    expect(nothing.result).toContain("The caller has no upcoming appointments");
  });

  it("with several appointments and no id: lists them and asks which one; with its id, moves that one", async () => {
    const setup = await bookingSetup(app, database.db);
    const ref = callRefOf(setup);
    const a = bookedId(await callTool(app, ref, "book_appointment", { start: localIso(at(dayFromToday(2), "09:00"), NY), customer_name: "Ada" }));
    const b = bookedId(await callTool(app, ref, "book_appointment", { start: localIso(at(dayFromToday(4), "09:00"), NY), customer_name: "Ada" }));
    const target = localIso(at(dayFromToday(5), "10:00"), NY);
    const ask = await callTool(app, ref, "reschedule_appointment", { start: target });
    expect(ask.result).toContain("The caller has 2 upcoming appointments:");
    expect(ask.result).toContain(`(appointment_id: ${a})`);
    expect(ask.result).toContain(`(appointment_id: ${b})`);
    expect(ask.result).toContain("Ask the caller which one they mean, then call reschedule_appointment again with its appointment_id.");
    expect((await appointmentRow(database.db, b))!.startAt.toISOString()).toBe(at(dayFromToday(4), "09:00").toISOString());

    const moved = await callTool(app, ref, "reschedule_appointment", { start: target, appointment_id: b });
    expect(moved.result).toMatch(/^Moved:/);
    expect((await appointmentRow(database.db, b))!.startAt.toISOString()).toBe(new Date(target).toISOString());
    expect((await appointmentRow(database.db, a))!.startAt.toISOString()).toBe(at(dayFromToday(2), "09:00").toISOString());
  });

  it("a move onto a taken time answers it was just taken, with alternatives, and moves nothing", async () => {
    const setup = await bookingSetup(app, database.db);
    const ref = callRefOf(setup);
    const mine = bookedId(await callTool(app, ref, "book_appointment", { start: localIso(at(dayFromToday(2), "09:00"), NY), customer_name: "Ada" }));
    const other = await newCall(database.db, setup.orgId, setup.agentId, "+12125550133");
    bookedId(await callTool(app, { ...ref, ...other }, "book_appointment", { start: localIso(at(dayFromToday(2), "13:00"), NY), customer_name: "Grace" }));
    const answer = await callTool(app, ref, "reschedule_appointment", { start: localIso(at(dayFromToday(2), "13:00"), NY) });
    expect(answer.result).toMatch(/^Not booked: that time was just taken\./);
    expect(listedStarts(answer.result)[0]).toBe(localIso(at(dayFromToday(2), "13:30"), NY));
    expect((await appointmentRow(database.db, mine))!.startAt.toISOString()).toBe(at(dayFromToday(2), "09:00").toISOString());
  });

  it("an unknown appointment, another caller's, or a malformed id: an error, and nothing changes", async () => {
    const setup = await bookingSetup(app, database.db);
    const ref = callRefOf(setup);
    const other = await newCall(database.db, setup.orgId, setup.agentId, "+12125550144");
    const theirs = bookedId(await callTool(app, { ...ref, ...other }, "book_appointment", { start: localIso(at(dayFromToday(2), "09:00"), NY), customer_name: "Grace" }));
    for (const id of [randomUUID(), theirs]) {
      const cancel = await callTool(app, ref, "cancel_appointment", { appointment_id: id });
      expect(cancel.error).toBe(`cancel_appointment: no appointment of this caller has the id ${id}. Call find_appointment to list theirs.`);
      const move = await callTool(app, ref, "reschedule_appointment", { appointment_id: id, start: localIso(at(dayFromToday(3), "09:00"), NY) });
      expect(move.error).toMatch(/^reschedule_appointment: no appointment of this caller has the id/);
    }
    const malformed = await callTool(app, ref, "cancel_appointment", { appointment_id: "my appointment" });
    expect(malformed.error).toMatch(/appointment_id must be an appointment's id as find_appointment gives it/);
    expect(await appointmentRow(database.db, theirs)).toMatchObject({ status: "booked" });
    expect((await appointmentRow(database.db, theirs))!.startAt.toISOString()).toBe(at(dayFromToday(2), "09:00").toISOString());
    // The other caller does not show up in this caller's list.
    expect((await callTool(app, ref, "find_appointment")).result).toContain("The caller has no upcoming appointments");
  });
});

describe("who may book", () => {
  it("a call we have no record of books through the assistant's metadata, into that agent's calendar, without a call id", async () => {
    const setup = await bookingSetup(app, database.db);
    // Its metadata names a call id we have no record of (gone, or never ours): booked without one.
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId: randomUUID(), orgId: setup.orgId, customerNumber: "+12125550155", assistant: { agentId: setup.agentId, orgId: setup.orgId } };
    const id = bookedId(await callTool(app, ref, "book_appointment", { start: localIso(at(dayFromToday(2), "09:00"), NY), customer_name: "Ada" }));
    expect(await appointmentRow(database.db, id)).toMatchObject({ orgId: setup.orgId, agentId: setup.agentId, callId: null, source: "agent", customerNumber: "+12125550155" });
  });

  it("metadata naming another organisation's agent, or no agent at all: an error, and nothing is booked anywhere", async () => {
    const mine = await bookingSetup(app, database.db);
    const theirs = await bookingSetup(app, database.db);
    const start = localIso(at(dayFromToday(2), "09:00"), NY);
    for (const assistant of [{ agentId: theirs.agentId, orgId: mine.orgId }, { agentId: mine.agentId, orgId: theirs.orgId }]) {
      const answer = await callTool(app, { providerCallId: `vapi-${randomUUID()}`, customerNumber: "+12125550166", assistant }, "book_appointment", { start, customer_name: "Mallory" });
      expect(answer.error).toMatch(/^Booking is not available on this call: it is not a call of one of this organisation's agents\./);
      const check = await callTool(app, { providerCallId: `vapi-${randomUUID()}`, assistant }, "check_availability", {});
      expect(check.error).toMatch(/^Booking is not available on this call/);
    }
    const nobody = await callTool(app, { providerCallId: `vapi-${randomUUID()}` }, "check_availability", {});
    expect(nobody.error).toMatch(/^Booking is not available on this call/);
    expect(await appointmentsOf(database.db, mine.orgId)).toEqual([]);
    expect(await appointmentsOf(database.db, theirs.orgId)).toEqual([]);
  });

  it("an agent with booking turned off answers that it is off and books nothing", async () => {
    const setup = await bookingSetup(app, database.db, { appointmentEnable: false });
    const answer = await callTool(app, callRefOf(setup), "book_appointment", { start: localIso(at(dayFromToday(2), "09:00"), NY), customer_name: "Ada" });
    expect(answer.error).toMatch(/^Appointment booking is turned off for this agent\./);
    expect(await appointmentsOf(database.db, setup.orgId)).toEqual([]);
  });

  it("several tool calls in one message are each answered under their own id", async () => {
    const setup = await bookingSetup(app, database.db);
    const results = await postToolCalls(
      app,
      toolCallsMessage(callRefOf(setup), [
        { id: "call_multi_check", name: "check_availability", args: { date: dayFromToday(2) } },
        { id: "call_multi_find", name: "find_appointment" },
        { id: "call_multi_unknown", name: "order_pizza" },
      ]),
    );
    expect(results.map((result) => [result.toolCallId, result.name, result.result !== undefined])).toEqual([
      ["call_multi_check", "check_availability", true],
      ["call_multi_find", "find_appointment", true],
      ["call_multi_unknown", "order_pizza", false],
    ]);
  });
});

describe("a connected outside calendar (the app's CalendarSync)", () => {
  it("its busy times are not offered and cannot be booked; a booking is handed to it", async () => {
    const day = dayFromToday(2);
    const changed: string[] = [];
    const sync: CalendarSync = {
      busy: async (_orgId, from, to) => {
        const busy = { start: at(day, "09:00"), end: at(day, "10:00") };
        return busy.start < to && busy.end > from ? [busy] : [];
      },
      appointmentChanged: (_orgId, id) => void changed.push(id),
    };
    const synced = await buildApp({ config: testConfig({ VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET }), database, logger: false, calendarSync: sync });
    try {
      const setup = await bookingSetup(synced, database.db);
      const check = await callTool(synced, callRefOf(setup), "check_availability", { date: day });
      expect(listedStarts(check.result)[0]).toBe(localIso(at(day, "10:00"), NY));
      const blocked = await callTool(synced, callRefOf(setup), "book_appointment", { start: localIso(at(day, "09:30"), NY), customer_name: "Ada" });
      expect(blocked.result).toMatch(/^Not booked: that time was just taken\./);
      const id = bookedId(await callTool(synced, callRefOf(setup), "book_appointment", { start: localIso(at(day, "10:00"), NY), customer_name: "Ada" }));
      expect(changed).toEqual([id]);
    } finally {
      await synced.close();
    }
  });
});
