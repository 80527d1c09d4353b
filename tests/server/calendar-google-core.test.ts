/**
 * Google Calendar through the calendar core's own routes (issue 14's whole flow, once the core's
 * /availability/ and /appointment/ routes are in the app): Google's busy times block slots, a booking
 * is inserted as an event with our id, a reschedule updates it (even onto its own old time), a cancel
 * deletes it, and an expired token is renewed on the way. Skipped until server/routes/appointments.ts
 * exists (the core's branch), so this file can live beside the Google code before the merge.
 */
import { existsSync } from "node:fs";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleEventId } from "../../server/calendar/google/event";
import type { Database } from "../../server/db/client";
import { calendarConnections } from "../../server/db/schema";
import { CREDENTIALS_ENV, appointmentRow, connectGoogle, get, post } from "./calendar-google-fixtures";
import { startFakeGoogle, type FakeGoogle } from "./fakes/google";
import { bearer, buildTestApp, migratedDatabase, organisationCast } from "./helpers";

const coreMerged = existsSync(new URL("../../server/routes/appointments.ts", import.meta.url));

let google: FakeGoogle;
let database: Database;
let app: FastifyInstance;
let cast: Awaited<ReturnType<typeof organisationCast>>;

/** A weekday a week or more ahead, as YYYY-MM-DD, and an instant on it (UTC). */
const day = (() => {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + 8);
  while (date.getUTCDay() === 0 || date.getUTCDay() === 6) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
})();
const at = (hhmm: string) => new Date(`${day}T${hhmm}:00.000Z`);

async function slotStarts(): Promise<string[]> {
  const response = await get(app, `/api/availability/slots?startDate=${day}&endDate=${day}`, cast.memberToken);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Array<{ start: string }> }).data.map((slot) => new Date(slot.start).toISOString().slice(11, 16));
}

describe.skipIf(!coreMerged)("Google Calendar with the calendar core's routes", () => {
  beforeAll(async () => {
    google = await startFakeGoogle();
    database = await migratedDatabase();
    ({ app } = await buildTestApp(database, { ...google.env, ...CREDENTIALS_ENV }));
    cast = await organisationCast(app, "Acme Dental");
    const rules = await app.inject({
      method: "PUT",
      url: "/api/availability/",
      headers: bearer(cast.adminToken),
      payload: {
        timezone: "UTC",
        weekly: ["mon", "tue", "wed", "thu", "fri"].map((weekday) => ({ day: weekday, start: "09:00", end: "17:00" })),
        slot_minutes: 60,
        min_notice_minutes: 0,
        max_days_ahead: 60,
      },
    });
    expect(rules.statusCode, rules.body).toBe(200);
    await connectGoogle(app, google, cast.adminToken);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await google?.close();
  });

  it("Google's busy times block slots; a booking becomes an event with our id; a reschedule updates it; a cancel deletes it", async () => {
    // buildApp hands Google Calendar to the core as its calendarSync.
    expect((app as unknown as { calendarSync?: unknown }).calendarSync).toBe(app.googleCalendar);
    google.busy.push({ start: at("10:00").toISOString(), end: at("11:00").toISOString() });
    app.googleCalendar!.forget(cast.orgId);
    const free = await slotStarts();
    expect(free).toContain("09:00");
    expect(free).not.toContain("10:00");
    expect(free).toContain("11:00");

    const booked = await post(app, "/api/appointment/", cast.memberToken, {
      title: "Cleaning",
      start: at("13:00").toISOString(),
      end: at("14:00").toISOString(),
      customer_name: "Grace Hopper",
      customer_number: "+14155550123",
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const id = (booked.json() as { data: { id: string } }).data.id;
    await app.googleCalendar!.settle();
    const eventId = googleEventId(id);
    expect(google.events.get(eventId)).toMatchObject({ summary: "Cleaning", status: "confirmed", start: { dateTime: at("13:00").toISOString() } });
    expect((await appointmentRow(database.db, id))!.externalEventId).toBe(eventId);
    // Our own event is busy at Google, but it is the appointment itself: 12:00 and 14:00 stay free, 13:00 is taken by the booking.
    const afterBooking = await slotStarts();
    expect(afterBooking).toEqual(expect.arrayContaining(["12:00", "14:00"]));
    expect(afterBooking).not.toContain("13:00");

    // Moved by half an hour, onto part of its own old time (Google still has it there).
    const moved = await app.inject({
      method: "PUT",
      url: `/api/appointment/${id}`,
      headers: bearer(cast.memberToken),
      payload: { start: at("13:30").toISOString(), end: at("14:30").toISOString() },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    await app.googleCalendar!.settle();
    expect(google.events.get(eventId)).toMatchObject({ start: { dateTime: at("13:30").toISOString() }, end: { dateTime: at("14:30").toISOString() }, writes: 2 });

    const cancelled = await app.inject({ method: "DELETE", url: `/api/appointment/${id}`, headers: bearer(cast.memberToken) });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    await app.googleCalendar!.settle();
    expect(google.events.get(eventId)!.status).toBe("cancelled");
    expect(await slotStarts()).toEqual(expect.arrayContaining(["13:00", "14:00"]));
  });

  it("an expired token is renewed on the way: busy times still block slots", async () => {
    google.expireAccessTokens();
    await database.db.update(calendarConnections).set({ accessTokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(calendarConnections.orgId, cast.orgId));
    app.googleCalendar!.forget(cast.orgId);
    const refreshes = () => google.requests.filter((request) => request.path === "/token" && request.form?.grant_type === "refresh_token").length;
    const before = refreshes();
    expect(await slotStarts()).not.toContain("10:00");
    expect(refreshes()).toBe(before + 1);
  });
});
