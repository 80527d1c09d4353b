/**
 * Google Calendar as the calendar core sees it (server/calendar/sync.ts): busy times from freeBusy
 * (remembered, never thrown, our own events left out), bookings written as events with our own id
 * (insert, reschedule → update, cancel → delete, retries idempotent), expired tokens renewed and a
 * refused renewal shown on the connection. Against the stand-in (tests/server/fakes/google.ts).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarConnection } from "../../contract";
import { createGoogleCalendar, GOOGLE_MESSAGES, type GoogleCalendar, type GoogleCalendarOptions } from "../../server/calendar/google";
import { googleEventId } from "../../server/calendar/google/event";
import { createSecretBox } from "../../server/crypto/credentials";
import type { Database } from "../../server/db/client";
import { appointments, calendarConnections } from "../../server/db/schema";
import {
  CREDENTIALS_ENV,
  CREDENTIALS_KEY,
  appointmentRow,
  changeAppointment,
  connectGoogle,
  get,
  makeAppointment,
  makeCalendar,
  tomorrowAt,
} from "./calendar-google-fixtures";
import { startFakeGoogle, type FakeGoogle } from "./fakes/google";
import { buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

let google: FakeGoogle;
let database: Database;
let app: FastifyInstance;
const instances: GoogleCalendar[] = [];

beforeAll(async () => {
  google = await startFakeGoogle();
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { ...google.env, ...CREDENTIALS_ENV }));
});
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await app?.close();
  await database?.close();
  await google?.close();
});

/** A calendar sync of its own (its own memory), with short waits, on the app's database and key. */
function sync(options: Partial<GoogleCalendarOptions> = {}): GoogleCalendar {
  const instance = createGoogleCalendar({
    config: app.config,
    db: database.db,
    box: createSecretBox(CREDENTIALS_KEY),
    log: app.log,
    busyTimeoutMs: 400,
    retryDelaysMs: [10, 10],
    ...options,
  })!;
  instances.push(instance);
  return instance;
}

/** A new organisation with Google connected and a calendar in New York. */
async function connectedOrg(): Promise<{ orgId: string; adminToken: string; connection: CalendarConnection; calendarId: string }> {
  const admin = await signUp(app);
  const orgId = await createOrganisation(app, admin.token, `Clinic ${randomUUID().slice(0, 6)}`);
  // Each organisation its own Google account (and so its own calendar at the stand-in).
  const connection = await connectGoogle(app, google, admin.token, { email: `${randomUUID().slice(0, 8)}@example.com` });
  return { orgId, adminToken: admin.token, connection, calendarId: await makeCalendar(database.db, orgId) };
}

const connectionRow = async (orgId: string) => (await database.db.select().from(calendarConnections).where(eq(calendarConnections.orgId, orgId)))[0]!;
const freeBusyRequests = () => google.requests.filter((request) => request.path === "/calendar/v3/freeBusy");
const day = () => ({ from: tomorrowAt(0), to: tomorrowAt(23, 59) });

describe("busy times", () => {
  it("answers Google's busy times for the window, asking for two weeks from the hour with the account's token", async () => {
    const { orgId } = await connectedOrg();
    const calendar = sync();
    google.busy.push({ start: tomorrowAt(14).toISOString(), end: tomorrowAt(15).toISOString() });
    const before = freeBusyRequests().length;
    const { from, to } = day();
    expect(await calendar.busy(orgId, from, to)).toEqual([{ start: tomorrowAt(14), end: tomorrowAt(15) }]);
    const [request] = freeBusyRequests().slice(before);
    expect(request!.json).toMatchObject({ timeMin: tomorrowAt(0).toISOString(), items: [{ id: "primary" }], timeZone: "UTC" });
    const body = request!.json as { timeMin: string; timeMax: string };
    expect(Date.parse(body.timeMax) - Date.parse(body.timeMin)).toBeGreaterThanOrEqual(14 * 86_400_000);
    expect(request!.headers.authorization).toMatch(/^Bearer ya29\./);
    google.busy.length = 0;
  });

  it("answers from memory inside the window it fetched; after it goes stale, answers at once and refreshes behind", async () => {
    const { orgId } = await connectedOrg();
    const calendar = sync({ busyFreshMs: 150 });
    google.busy.push({ start: tomorrowAt(9).toISOString(), end: tomorrowAt(10).toISOString() });
    const { from, to } = day();
    await calendar.busy(orgId, from, to);
    const fetched = freeBusyRequests().length;
    expect(await calendar.busy(orgId, tomorrowAt(8), tomorrowAt(12))).toEqual([{ start: tomorrowAt(9), end: tomorrowAt(10) }]);
    expect(freeBusyRequests().length).toBe(fetched);

    await new Promise((resolve) => setTimeout(resolve, 200));
    google.busy.push({ start: tomorrowAt(11).toISOString(), end: tomorrowAt(12).toISOString() });
    // Stale: the old answer now, Google asked behind it…
    expect(await calendar.busy(orgId, from, to)).toEqual([{ start: tomorrowAt(9), end: tomorrowAt(10) }]);
    await calendar.settle();
    expect(freeBusyRequests().length).toBe(fetched + 1);
    // …and the next question gets the new one.
    expect(await calendar.busy(orgId, from, to)).toEqual([
      { start: tomorrowAt(9), end: tomorrowAt(10) },
      { start: tomorrowAt(11), end: tomorrowAt(12) },
    ]);
    google.busy.length = 0;
  });

  it("an organisation with nothing connected gets [] without asking Google", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token);
    const before = google.requests.length;
    expect(await sync().busy(orgId, day().from, day().to)).toEqual([]);
    expect(google.requests.length).toBe(before);
  });

  it("Google failing answers [] (never throws) and writes the problem on the connection; the next success clears it", async () => {
    const { orgId, adminToken } = await connectedOrg();
    const calendar = sync();
    google.fail({ status: 503, match: "POST /calendar/v3/freeBusy", message: "Backend Error" });
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([]);
    expect(await connectionRow(orgId)).toMatchObject({ status: "connected", lastError: expect.stringMatching(/^Could not read busy times from Google Calendar: .*Backend Error/) });
    const listed = (await get(app, "/api/calendar/connections", adminToken)).json() as { data: CalendarConnection[] };
    expect(listed.data[0]!.last_error).toMatch(/Backend Error/);

    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([]);
    expect((await connectionRow(orgId)).lastError).toBeNull();
  });

  it("Google not answering: busy answers [] once its wait is over, not when Google gives up", async () => {
    const { orgId } = await connectedOrg();
    const calendar = sync({ busyTimeoutMs: 150 });
    google.hang("POST /calendar/v3/freeBusy");
    const started = performance.now();
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(600);
  });

  it("our own events (appointments written to Google) do not count as busy; other events do", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync();
    const appointmentId = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(13) });
    calendar.appointmentChanged(orgId, appointmentId);
    await calendar.settle();
    expect(google.events.get(googleEventId(appointmentId))?.status).toBe("confirmed");
    google.busy.push({ start: tomorrowAt(13, 30).toISOString(), end: tomorrowAt(14, 30).toISOString() });
    // Google counts 13:00–14:30 busy (our event and another one); only the other part is busy for us.
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([{ start: tomorrowAt(13, 30), end: tomorrowAt(14, 30) }]);
    google.busy.length = 0;
  });
});

describe("writing appointments", () => {
  it("a booking becomes an event with our id and the appointment's details; a reschedule updates it; a cancel deletes it", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync();
    const id = await makeAppointment(database.db, orgId, calendarId, {
      title: "Cleaning",
      start: tomorrowAt(15),
      customerName: "Grace Hopper",
      customerEmail: "grace@example.com",
      notes: "Prefers mornings",
      source: "agent",
    });
    const eventId = googleEventId(id);
    expect(eventId).toBe(`va${id.replace(/-/g, "")}`);
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(eventId)).toMatchObject({
      id: eventId,
      calendar: "primary",
      summary: "Cleaning",
      status: "confirmed",
      start: { dateTime: tomorrowAt(15).toISOString(), timeZone: "America/New_York" },
      end: { dateTime: tomorrowAt(15, 30).toISOString(), timeZone: "America/New_York" },
      extendedProperties: { private: { voiceAgentsAppointmentId: id } },
      writes: 1,
    });
    const description = google.events.get(eventId)!.description!;
    for (const text of ["Customer: Grace Hopper", "Phone: +14155550123", "Email: grace@example.com", "Prefers mornings", "Booked by: Agent (during a call)", `http://localhost:3000/calendar?appointment=${id}`]) {
      expect(description).toContain(text);
    }
    expect((await appointmentRow(database.db, id))!.externalEventId).toBe(eventId);

    await changeAppointment(database.db, id, { start: tomorrowAt(16), minutes: 45 });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(eventId)).toMatchObject({ start: { dateTime: tomorrowAt(16).toISOString() }, end: { dateTime: tomorrowAt(16, 45).toISOString() }, writes: 2 });
    expect(google.requests.filter((request) => request.method === "PUT" && request.path.endsWith(`/events/${eventId}`))).toHaveLength(1);

    await changeAppointment(database.db, id, { status: "cancelled" });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(eventId)!.status).toBe("cancelled");
    expect((await appointmentRow(database.db, id))!.externalEventId).toBeNull();

    // Booked again after the cancel: Google keeps the deleted id (409 on insert), so the event is updated back.
    await changeAppointment(database.db, id, { status: "booked" });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(eventId)).toMatchObject({ status: "confirmed", start: { dateTime: tomorrowAt(16).toISOString() } });
    expect([...google.events.keys()].filter((key) => key === eventId)).toHaveLength(1);
  });

  it("a retried write finds its own event (409 → update): one event, never two", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync();
    const id = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(17) });
    // As if an earlier insert reached Google but its answer was lost.
    google.events.set(googleEventId(id), {
      id: googleEventId(id),
      calendar: "primary",
      account: (await connectionRow(orgId)).accountEmail!,
      summary: "old",
      start: { dateTime: tomorrowAt(17).toISOString() },
      end: { dateTime: tomorrowAt(17, 30).toISOString() },
      status: "confirmed",
      writes: 1,
    });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(googleEventId(id))).toMatchObject({ summary: "Consultation", writes: 2 });
    expect((await appointmentRow(database.db, id))!.externalEventId).toBe(googleEventId(id));
  });

  it("a deleted appointment's event is removed by its derived id", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync();
    const id = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(18) });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    await database.db.delete(appointments).where(eq(appointments.id, id));
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.events.get(googleEventId(id))!.status).toBe("cancelled");
  });

  it("Google's passing failures are retried; a refusal is written on the connection and not retried", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync();
    const retried = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(19) });
    google.fail({ status: 503, match: "POST /calendar/v3/calendars/primary/events", times: 2 });
    const before = google.requests.length;
    calendar.appointmentChanged(orgId, retried);
    await calendar.settle();
    expect(google.events.get(googleEventId(retried))?.status).toBe("confirmed");
    expect(google.requests.slice(before).filter((request) => request.method === "POST" && request.path.endsWith("/events"))).toHaveLength(3);

    const refused = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(20) });
    google.fail({ status: 400, error: "invalid", message: "Invalid start time.", match: "POST /calendar/v3/calendars/primary/events" });
    const beforeRefusal = google.requests.length;
    calendar.appointmentChanged(orgId, refused);
    await calendar.settle();
    expect(google.requests.slice(beforeRefusal).filter((request) => request.method === "POST" && request.path.endsWith("/events"))).toHaveLength(1);
    expect((await connectionRow(orgId)).lastError).toMatch(/^Could not write an appointment to Google Calendar: .*Invalid start time/);
    expect((await appointmentRow(database.db, refused))!.externalEventId).toBeNull();
  });

  it("appointmentChanged returns at once, even while Google hangs; changes made meanwhile are written once, as they last are", async () => {
    const { orgId, calendarId } = await connectedOrg();
    const calendar = sync({ concurrency: 1 });
    const id = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(21) });
    const started = performance.now();
    for (let i = 0; i < 5; i++) calendar.appointmentChanged(orgId, id);
    expect(performance.now() - started).toBeLessThan(20);
    await changeAppointment(database.db, id, { title: "Final title" });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    const event = google.events.get(googleEventId(id))!;
    expect(event.summary).toBe("Final title");
    expect(event.writes).toBeLessThanOrEqual(2);
  });

  it("connecting writes the organisation's upcoming appointments (not past or cancelled ones)", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token);
    const calendarId = await makeCalendar(database.db, orgId);
    const upcoming = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(10) });
    const past = await makeAppointment(database.db, orgId, calendarId, { start: new Date(Date.now() - 3 * 86_400_000) });
    const cancelled = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(11), status: "cancelled" });
    await connectGoogle(app, google, admin.token);
    await app.googleCalendar!.settle();
    expect(google.events.get(googleEventId(upcoming))?.status).toBe("confirmed");
    expect(google.events.has(googleEventId(past))).toBe(false);
    expect(google.events.has(googleEventId(cancelled))).toBe(false);
  });
});

describe("tokens", () => {
  it("an expired access token is renewed with the refresh token, stored sealed, and used", async () => {
    const { orgId } = await connectedOrg();
    const calendar = sync();
    const before = await connectionRow(orgId);
    google.expireAccessTokens();
    await database.db.update(calendarConnections).set({ accessTokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(calendarConnections.orgId, orgId));
    google.busy.push({ start: tomorrowAt(12).toISOString(), end: tomorrowAt(13).toISOString() });
    const refreshes = () => google.requests.filter((request) => request.path === "/token" && request.form?.grant_type === "refresh_token").length;
    const refreshed = refreshes();
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([{ start: tomorrowAt(12), end: tomorrowAt(13) }]);
    expect(refreshes()).toBe(refreshed + 1);
    const after = await connectionRow(orgId);
    expect(after.accessTokenEncrypted).not.toBe(before.accessTokenEncrypted);
    expect(after.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    const newest = [...google.accessTokens.keys()].at(-1)!;
    expect(JSON.stringify(after)).not.toContain(newest);
    google.busy.length = 0;
  });

  it("a token Google stops accepting before its expiry is renewed once and the request tried again", async () => {
    const { orgId } = await connectedOrg();
    const calendar = sync();
    for (const [token, entry] of google.accessTokens) if (entry.expiresAt > Date.now()) google.accessTokens.delete(token);
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([]);
    expect((await connectionRow(orgId)).status).toBe("connected");
    expect(freeBusyRequests().at(-1)!.headers.authorization).toBe(`Bearer ${[...google.accessTokens.keys()].at(-1)}`);
  });

  it("a refused renewal (access removed at Google) sets status error with a message the page shows; Google is then left alone", async () => {
    const { orgId, adminToken, calendarId } = await connectedOrg();
    const calendar = sync();
    google.revokeEverything();
    await database.db.update(calendarConnections).set({ accessTokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(calendarConnections.orgId, orgId));
    expect(await calendar.busy(orgId, day().from, day().to)).toEqual([]);
    expect(await connectionRow(orgId)).toMatchObject({ status: "error", lastError: GOOGLE_MESSAGES.reconnect });
    const listed = (await get(app, "/api/calendar/connections", adminToken)).json() as { data: CalendarConnection[] };
    expect(listed.data[0]).toMatchObject({ status: "error", last_error: GOOGLE_MESSAGES.reconnect });

    const before = google.requests.length;
    expect(await calendar.busy(orgId, tomorrowAt(1), tomorrowAt(2))).toEqual([]);
    const id = await makeAppointment(database.db, orgId, calendarId, { start: tomorrowAt(9) });
    calendar.appointmentChanged(orgId, id);
    await calendar.settle();
    expect(google.requests.length).toBe(before);

    // Reconnecting clears it.
    const again = await connectGoogle(app, google, adminToken);
    expect(again).toMatchObject({ status: "connected", last_error: null });
  });
});
