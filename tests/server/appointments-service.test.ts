/**
 * The appointment service as the agent's booking tools call it (server/calendar/appointments.ts), with a
 * fixed `now`: an agent must book a slot the rules give (OutsideAvailabilityError saying why, with the
 * nearest free slots), outside busy times block an agent but not a person, a retried tool call answers
 * its first booking and books nothing more (one after the other and at once), max_per_day holds under
 * concurrent bookings, moving and cancelling by source, a customer's upcoming appointments, free slots,
 * and the database's exclusion constraint refusing an overlap written past the service.
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AppointmentNotFoundError,
  OutsideAvailabilityError,
  SlotTakenError,
  appointmentsOfCustomer,
  bookAppointment,
  calendarFor,
  cancelAppointment,
  freeSlots,
  rescheduleAppointment,
  toAppointmentView,
  type AppointmentActor,
} from "../../server/calendar/appointments";
import { saveAvailability } from "../../server/calendar/calendars";
import { noCalendarSync } from "../../server/calendar/sync";
import type { Database, Db } from "../../server/db/client";
import { isExclusionViolation } from "../../server/db/errors";
import { appointments, organizations } from "../../server/db/schema";
import { at, recordingSync } from "./calendar-fixtures";
import { migratedDatabase } from "./helpers";

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await migratedDatabase();
  db = database.db;
});
afterAll(() => database?.close());

const zone = "America/New_York";
/** Monday 2 March 2026, 12:00 New York time: the defaults (Mon–Fri 09:00–17:00, 30-minute slots, an hour's notice, 60 days ahead). */
const NOW = new Date(at(zone, "2026-03-02", "12:00"));
const AGENT: AppointmentActor = { source: "agent", callId: null };
const CONSOLE: AppointmentActor = { source: "console", userId: "someone" };
const times = (date: string, start: string, minutes = 30) => ({ start: new Date(at(zone, date, start)), end: new Date(Date.parse(at(zone, date, start)) + minutes * 60_000) });
const iso = (slots: Array<{ start: Date; end: Date }>) => slots.map((slot) => slot.start.toISOString());

async function newOrg(timezone = zone): Promise<string> {
  const id = `org_${randomUUID()}`;
  await db.insert(organizations).values({ id, name: "Clinic", slug: id, timezone });
  return id;
}

async function refusalOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => null,
    (error: Error) => error,
  );
  expect(outcome, "expected a refusal").not.toBeNull();
  return outcome!;
}

describe("an agent books only what the rules give", () => {
  it("a slot of the rules is booked; the row links the call and the tool call", async () => {
    const orgId = await newOrg();
    const row = await bookAppointment(db, noCalendarSync, orgId, { title: "Check-up", ...times("2026-03-03", "10:00"), customerNumber: "+14155550123" }, { source: "agent", callId: null, toolCallId: "tool-1" }, NOW);
    expect(row).toMatchObject({ status: "booked", source: "agent", toolCallId: "tool-1", customerNumber: "+14155550123" });
    expect(toAppointmentView(row, { rules: await calendarFor(db, orgId, null), agentName: null })).toMatchObject({ outside_hours: false, timezone: zone, source: "agent" });
  });

  it("refuses, saying why in words that can be spoken, with the nearest free slots", async () => {
    const orgId = await newOrg();
    await saveAvailability(db, orgId, {
      timezone: zone,
      weekly: ["mon", "tue", "wed", "thu", "fri"].map((day) => ({ day: day as "mon", start: "09:00", end: "17:00" })),
      slot_minutes: 30,
      buffer_before_minutes: 0,
      buffer_after_minutes: 0,
      min_notice_minutes: 120,
      max_days_ahead: 14,
      max_per_day: null,
      closed_dates: ["2026-03-04"],
      date_overrides: [],
    });
    const cases: Array<[ReturnType<typeof times>, string, string, string]> = [
      [times("2026-03-02", "13:00"), "too_soon", "That time is too soon: appointments need at least 2 hours' notice.", at(zone, "2026-03-02", "14:00")],
      [times("2026-03-03", "10:10"), "outside_hours", "That time is outside the hours when appointments can be booked.", at(zone, "2026-03-03", "10:30")],
      [times("2026-03-03", "18:00"), "outside_hours", "That time is outside the hours when appointments can be booked.", at(zone, "2026-03-05", "09:00")],
      [times("2026-03-04", "10:00"), "closed", "That day is closed for appointments.", at(zone, "2026-03-05", "09:00")],
      [times("2026-03-07", "10:00"), "closed", "That day is closed for appointments.", at(zone, "2026-03-09", "09:00")],
      [times("2026-03-17", "10:00"), "too_far", "That date is too far ahead: appointments can be booked up to 14 days ahead.", ""],
    ];
    for (const [asked, reason, message, firstSlot] of cases) {
      const error = await refusalOf(bookAppointment(db, noCalendarSync, orgId, { title: "Visit", ...asked }, AGENT, NOW));
      expect(error, reason).toBeInstanceOf(OutsideAvailabilityError);
      const refusal = error as OutsideAvailabilityError;
      expect([refusal.reason, refusal.message]).toEqual([reason, message]);
      if (firstSlot) expect(refusal.slots[0]?.start.toISOString()).toBe(firstSlot);
      else expect(refusal.slots).toEqual([]);
      expect(refusal.slots.length).toBeLessThanOrEqual(3);
    }
    expect(await db.select().from(appointments).where(eq(appointments.orgId, orgId))).toEqual([]);
    // A person may book any of those times (outside the hours is allowed in the console).
    const console = await bookAppointment(db, noCalendarSync, orgId, { title: "Visit", ...times("2026-03-07", "10:00") }, CONSOLE, NOW);
    expect(toAppointmentView(console, { rules: await calendarFor(db, orgId, null), agentName: null }).outside_hours).toBe(true);
  });

  it("outside busy times block an agent's booking (SlotTakenError) but not a person's", async () => {
    const orgId = await newOrg();
    const sync = recordingSync([{ start: new Date(at(zone, "2026-03-03", "10:00")), end: new Date(at(zone, "2026-03-03", "11:00")) }]);
    const error = await refusalOf(bookAppointment(db, sync, orgId, { title: "Visit", ...times("2026-03-03", "10:30") }, AGENT, NOW));
    expect(error).toBeInstanceOf(SlotTakenError);
    expect(iso((error as SlotTakenError).slots)).toEqual(["11:00", "11:30", "12:00"].map((time) => at(zone, "2026-03-03", time)));
    expect(sync.changed).toEqual([]);
    const row = await bookAppointment(db, sync, orgId, { title: "Visit", ...times("2026-03-03", "10:30") }, CONSOLE, NOW);
    expect(sync.changed).toEqual([row.id]);
    const free = await freeSlots(db, sync, orgId, { from: new Date(at(zone, "2026-03-03", "09:00")), to: new Date(at(zone, "2026-03-03", "12:00")) }, NOW);
    expect(iso(free.slots)).toEqual(["09:00", "09:30", "11:00", "11:30"].map((time) => at(zone, "2026-03-03", time)));
  });

  it("max_per_day holds when bookings arrive at once: exactly that many succeed", async () => {
    const orgId = await newOrg("UTC");
    await saveAvailability(db, orgId, {
      timezone: "UTC",
      weekly: [{ day: "tue", start: "09:00", end: "17:00" }],
      slot_minutes: 30,
      buffer_before_minutes: 0,
      buffer_after_minutes: 0,
      min_notice_minutes: 0,
      max_days_ahead: 30,
      max_per_day: 2,
      closed_dates: [],
      date_overrides: [],
    });
    const starts = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00"];
    const outcomes = await Promise.allSettled(
      starts.map((start) => bookAppointment(db, noCalendarSync, orgId, { title: start, start: new Date(`2026-03-03T${start}:00Z`), end: new Date(`2026-03-03T${start.slice(0, 2)}:30:00Z`) }, AGENT, NOW)),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(2);
    for (const outcome of outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected")) {
      expect(outcome.reason).toBeInstanceOf(OutsideAvailabilityError);
      expect((outcome.reason as OutsideAvailabilityError).reason).toBe("day_full");
      // The next day with room is the next Tuesday.
      expect((outcome.reason as OutsideAvailabilityError).slots[0]?.start.toISOString()).toBe("2026-03-10T09:00:00.000Z");
    }
    expect(await db.select().from(appointments).where(eq(appointments.orgId, orgId))).toHaveLength(2);
  });
});

describe("a retried tool call", () => {
  it("answers its first booking again, even for another time, and books nothing more", async () => {
    const orgId = await newOrg();
    const sync = recordingSync();
    const by: AppointmentActor = { source: "agent", callId: null, toolCallId: "call_abc" };
    const first = await bookAppointment(db, sync, orgId, { title: "Visit", ...times("2026-03-03", "10:00") }, by, NOW);
    const again = await bookAppointment(db, sync, orgId, { title: "Visit", ...times("2026-03-03", "10:00") }, by, NOW);
    expect(again).toEqual(first);
    const other = await bookAppointment(db, sync, orgId, { title: "Visit", ...times("2026-03-03", "15:00") }, by, NOW);
    expect(other.id).toBe(first.id);
    expect(sync.changed).toEqual([first.id]);
    // The same tool-call id in another organisation is another tool call.
    const elsewhere = await bookAppointment(db, sync, await newOrg(), { title: "Visit", ...times("2026-03-03", "10:00") }, by, NOW);
    expect(elsewhere.id).not.toBe(first.id);
  });

  it("five copies at once: one appointment, every copy answers it, none hears the slot is taken", async () => {
    const orgId = await newOrg();
    const by: AppointmentActor = { source: "agent", callId: null, toolCallId: "call_race" };
    const rows = await Promise.all(Array.from({ length: 5 }, () => bookAppointment(db, noCalendarSync, orgId, { title: "Visit", ...times("2026-03-03", "11:00") }, by, NOW)));
    expect(new Set(rows.map((row) => row.id)).size).toBe(1);
    expect(await db.select().from(appointments).where(eq(appointments.orgId, orgId))).toHaveLength(1);
  });
});

describe("moving and cancelling", () => {
  it("an agent moves to a slot of the rules only; a person anywhere free; an unknown or another organisation's id is not found", async () => {
    const orgId = await newOrg();
    const row = await bookAppointment(db, noCalendarSync, orgId, { title: "Visit", ...times("2026-03-03", "10:00") }, AGENT, NOW);
    const outside = await refusalOf(rescheduleAppointment(db, noCalendarSync, orgId, row.id, times("2026-03-03", "19:00"), AGENT, NOW));
    expect(outside).toBeInstanceOf(OutsideAvailabilityError);
    const moved = await rescheduleAppointment(db, noCalendarSync, orgId, row.id, times("2026-03-03", "10:30"), AGENT, NOW);
    expect(moved.startAt.toISOString()).toBe(at(zone, "2026-03-03", "10:30"));
    expect(moved.sequence).toBe(row.sequence + 1);
    const evening = await rescheduleAppointment(db, noCalendarSync, orgId, row.id, times("2026-03-03", "19:00"), CONSOLE, NOW);
    expect(evening.startAt.toISOString()).toBe(at(zone, "2026-03-03", "19:00"));
    expect(await refusalOf(rescheduleAppointment(db, noCalendarSync, orgId, randomUUID(), times("2026-03-03", "11:00"), AGENT, NOW))).toBeInstanceOf(AppointmentNotFoundError);
    expect(await refusalOf(cancelAppointment(db, noCalendarSync, await newOrg(), row.id, AGENT, NOW))).toBeInstanceOf(AppointmentNotFoundError);
  });

  it("moving onto another appointment throws SlotTakenError and leaves it where it was", async () => {
    const orgId = await newOrg();
    const first = await bookAppointment(db, noCalendarSync, orgId, { title: "A", ...times("2026-03-03", "10:00") }, AGENT, NOW);
    await bookAppointment(db, noCalendarSync, orgId, { title: "B", ...times("2026-03-03", "11:00") }, AGENT, NOW);
    const error = await refusalOf(rescheduleAppointment(db, noCalendarSync, orgId, first.id, times("2026-03-03", "11:00"), AGENT, NOW));
    expect(error).toBeInstanceOf(SlotTakenError);
    // The alternatives run from the asked time on (B holds 11:00).
    expect(iso((error as SlotTakenError).slots)).toEqual(["11:30", "12:00", "12:30"].map((time) => at(zone, "2026-03-03", time)));
    const [stored] = await db.select().from(appointments).where(eq(appointments.id, first.id));
    expect(stored!.startAt.toISOString()).toBe(at(zone, "2026-03-03", "10:00"));
  });

  it("alternatives keep the asked length when the rules hold one, else they are slot_minutes long", async () => {
    const orgId = await newOrg();
    await bookAppointment(db, noCalendarSync, orgId, { title: "A", ...times("2026-03-03", "10:00", 60) }, CONSOLE, NOW);
    const hour = await refusalOf(bookAppointment(db, noCalendarSync, orgId, { title: "B", ...times("2026-03-03", "10:30", 60) }, CONSOLE, NOW));
    expect((hour as SlotTakenError).slots.map((slot) => (slot.end.getTime() - slot.start.getTime()) / 60_000)).toEqual([60, 60, 60]);
    // Ten hours fit in no day of 09:00–17:00: the alternatives are the rules' 30-minute slots.
    const long = await refusalOf(bookAppointment(db, noCalendarSync, orgId, { title: "C", ...times("2026-03-03", "08:00", 600) }, CONSOLE, NOW));
    expect((long as SlotTakenError).slots.map((slot) => slot.start.toISOString())).toEqual(["09:00", "09:30", "11:00"].map((time) => at(zone, "2026-03-03", time)));
    expect((long as SlotTakenError).slots.every((slot) => slot.end.getTime() - slot.start.getTime() === 30 * 60_000)).toBe(true);
  });

  it("cancelling sets cancelled_at once, frees the time, and tells the outside calendar once", async () => {
    const orgId = await newOrg();
    const sync = recordingSync();
    const row = await bookAppointment(db, sync, orgId, { title: "A", ...times("2026-03-03", "10:00") }, AGENT, NOW);
    const cancelled = await cancelAppointment(db, sync, orgId, row.id, AGENT, NOW);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelledAt: NOW });
    expect(await cancelAppointment(db, sync, orgId, row.id, AGENT, new Date(NOW.getTime() + 60_000))).toEqual(cancelled);
    expect(sync.changed).toEqual([row.id, row.id]);
    await bookAppointment(db, sync, orgId, { title: "B", ...times("2026-03-03", "10:00") }, AGENT, NOW);
  });
});

describe("reading", () => {
  it("a customer's booked appointments from a time on, soonest first, optionally one agent's", async () => {
    const orgId = await newOrg();
    const number = "+14155550177";
    const later = await bookAppointment(db, noCalendarSync, orgId, { title: "Later", ...times("2026-03-05", "10:00"), customerNumber: number }, AGENT, NOW);
    const sooner = await bookAppointment(db, noCalendarSync, orgId, { title: "Sooner", ...times("2026-03-03", "10:00"), customerNumber: number }, AGENT, NOW);
    const gone = await bookAppointment(db, noCalendarSync, orgId, { title: "Gone", ...times("2026-03-04", "10:00"), customerNumber: number }, AGENT, NOW);
    await cancelAppointment(db, noCalendarSync, orgId, gone.id, AGENT, NOW);
    await bookAppointment(db, noCalendarSync, orgId, { title: "Someone else", ...times("2026-03-03", "11:00"), customerNumber: "+14155550178" }, AGENT, NOW);
    await bookAppointment(db, noCalendarSync, await newOrg(), { title: "Elsewhere", ...times("2026-03-03", "10:00"), customerNumber: number }, AGENT, NOW);
    const found = await appointmentsOfCustomer(db, orgId, { customerNumber: number, from: NOW });
    expect(found.map((row) => row.title)).toEqual(["Sooner", "Later"]);
    expect((await appointmentsOfCustomer(db, orgId, { customerNumber: number, from: new Date(at(zone, "2026-03-04", "00:00")) })).map((row) => row.id)).toEqual([later.id]);
    expect(sooner.id).toBe(found[0]!.id);
  });

  it("free slots name the zone and the calendar (none before the first booking)", async () => {
    const orgId = await newOrg("Europe/Berlin");
    const range = { from: new Date("2026-03-03T00:00:00Z"), to: new Date("2026-03-04T00:00:00Z") };
    const before = await freeSlots(db, noCalendarSync, orgId, range, NOW);
    expect(before).toMatchObject({ timezone: "Europe/Berlin", calendarId: null });
    expect(before.slots).toHaveLength(16);
    expect(before.slots[0]!.start.toISOString()).toBe("2026-03-03T08:00:00.000Z");
    const row = await bookAppointment(db, noCalendarSync, orgId, { title: "A", start: before.slots[0]!.start, end: before.slots[0]!.end }, AGENT, NOW);
    const after = await freeSlots(db, noCalendarSync, orgId, range, NOW);
    expect(after.calendarId).toBe(row.calendarId);
    expect(after.slots).toHaveLength(15);
  });
});

describe("the database's guarantee", () => {
  it("an overlapping appointment written past the service is refused by the exclusion constraint (23P01); a cancelled one is not", async () => {
    const orgId = await newOrg();
    const row = await bookAppointment(db, noCalendarSync, orgId, { title: "A", ...times("2026-03-03", "10:00") }, AGENT, NOW);
    const copy = { ...row, id: randomUUID(), toolCallId: null, startAt: new Date(row.startAt.getTime() + 15 * 60_000), endAt: new Date(row.endAt.getTime() + 15 * 60_000) };
    const overlapping = { ...copy, blockedStart: copy.startAt, blockedEnd: copy.endAt };
    const error = await db.insert(appointments).values(overlapping).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(isExclusionViolation(error)).toBe(true);
    await db.insert(appointments).values({ ...overlapping, status: "cancelled" });
    expect(await db.select().from(appointments).where(and(eq(appointments.orgId, orgId), eq(appointments.status, "booked")))).toHaveLength(1);
  });
});
