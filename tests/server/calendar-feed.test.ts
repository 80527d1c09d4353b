/**
 * The ICS subscription feed, read back with a standard parser (ical.js): the admin's secret address,
 * its rotation (the old address answers 404 at once), what the feed holds (events, UTC times, UIDs,
 * SEQUENCE, statuses, the window) and that it never holds another organisation's appointments.
 */
import ICAL from "ical.js";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_NOT_FOUND } from "../../server/calendar/feed";
import type { Database } from "../../server/db/client";
import { CREDENTIALS_ENV, changeAppointment, get, makeAppointment, makeCalendar, post, tomorrowAt } from "./calendar-google-fixtures";
import { buildTestApp, createOrganisation, migratedDatabase, organisationCast, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;
let cast: Awaited<ReturnType<typeof organisationCast>>;
let calendarId: string;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { ...CREDENTIALS_ENV, PUBLIC_URL: "https://voice.example.com" }));
  cast = await organisationCast(app, "Acme Dental");
  calendarId = await makeCalendar(database.db, cast.orgId);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function feedUrl(token = cast.adminToken): Promise<string> {
  const response = await get(app, "/api/calendar/feed", token);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: { url: string } }).data.url;
}

/** The feed at `url`, fetched without any token, as a calendar app would. */
async function fetchFeed(url: string) {
  const { pathname } = new URL(url);
  return app.inject({ method: "GET", url: pathname });
}

interface ParsedEvent {
  uid: string;
  summary: string;
  description: string;
  start: string;
  end: string;
  startIsUtc: boolean;
  sequence: number;
  status: string;
}

function parse(text: string): { name: string; events: ParsedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const events = calendar.getAllSubcomponents("vevent").map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      summary: event.summary,
      description: event.description,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      startIsUtc: event.startDate.zone?.tzid === "UTC",
      sequence: event.sequence,
      status: String(vevent.getFirstPropertyValue("status")),
    };
  });
  return { name: String(calendar.getFirstPropertyValue("x-wr-calname")), events };
}

describe("the ICS feed's address", () => {
  it("an admin gets a secret address under PUBLIC_URL, made on the first ask and the same on the next", async () => {
    const url = await feedUrl();
    expect(url).toMatch(/^https:\/\/voice\.example\.com\/api\/calendar\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(await feedUrl()).toBe(url);
  });

  it("members may not see or rotate it (403: the address opens every appointment)", async () => {
    const before = await feedUrl();
    for (const response of [await get(app, "/api/calendar/feed", cast.memberToken), await post(app, "/api/calendar/feed/rotate", cast.memberToken)]) {
      expect(response.statusCode).toBe(403);
      expect((response.json() as { code: string }).code).toBe("forbidden");
    }
    expect(await feedUrl()).toBe(before);
  });

  it("rotating gives a new address; the old one answers 404 at once, the new one the feed", async () => {
    const old = await feedUrl();
    expect((await fetchFeed(old)).statusCode).toBe(200);
    const rotated = await post(app, "/api/calendar/feed/rotate", cast.adminToken);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = (rotated.json() as { data: { url: string } }).data.url;
    expect(fresh).not.toBe(old);
    expect(await feedUrl()).toBe(fresh);
    const gone = await fetchFeed(old);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: FEED_NOT_FOUND, code: "not_found" });
    expect((await fetchFeed(fresh)).statusCode).toBe(200);
  });

  it("a made-up, malformed or over-long token answers 4xx {detail, code} (404, or 414 past the router's length) without telling anything", async () => {
    for (const token of ["A".repeat(43), "short", "not a token", "x".repeat(150)]) {
      const response = await app.inject({ method: "GET", url: `/api/calendar/feed/${encodeURIComponent(token)}.ics` });
      expect(response.statusCode, token).toBe(token.length > 100 ? 414 : 404);
      expect(response.json()).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
      expect(response.body).not.toContain("Acme");
    }
  });
});

describe("the feed", () => {
  it("is text/calendar that a standard parser reads: the organisation's name, each appointment with its UID, UTC times, SEQUENCE and status", async () => {
    const booked = await makeAppointment(database.db, cast.orgId, calendarId, {
      title: "Cleaning",
      start: tomorrowAt(14),
      minutes: 45,
      customerName: "Grace Hopper",
      notes: "Bring X-rays",
      sequence: 2,
    });
    const completed = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Check-up", start: new Date(Date.now() - 2 * 86_400_000), status: "completed" });
    const cancelled = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Whitening", start: tomorrowAt(16), status: "cancelled", sequence: 1 });
    const response = await fetchFeed(await feedUrl());
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/calendar; charset=utf-8");
    expect(response.body).toMatch(/^BEGIN:VCALENDAR\r\n/);
    const feed = parse(response.body);
    expect(feed.name).toBe("Acme Dental appointments");
    const byUid = new Map(feed.events.map((event) => [event.uid, event]));
    expect(byUid.get(`${booked}@voice-agents`)).toMatchObject({
      summary: "Cleaning",
      start: tomorrowAt(14).toISOString(),
      end: tomorrowAt(14, 45).toISOString(),
      startIsUtc: true,
      sequence: 2,
      status: "CONFIRMED",
    });
    const description = byUid.get(`${booked}@voice-agents`)!.description;
    for (const text of ["Customer: Grace Hopper", "Phone: +14155550123", "Bring X-rays", `https://voice.example.com/calendar?appointment=${booked}`]) expect(description).toContain(text);
    expect(byUid.get(`${completed}@voice-agents`)).toMatchObject({ summary: "Check-up", status: "CONFIRMED" });
    expect(byUid.get(`${cancelled}@voice-agents`)).toMatchObject({ summary: "Whitening", status: "CANCELLED", sequence: 1 });
  });

  it("holds 90 days back to a year ahead, and cancelled appointments only for 30 days after their cancellation", async () => {
    const day = 86_400_000;
    const tooOld = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Too old", start: new Date(Date.now() - 100 * day) });
    const tooFar = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Too far", start: new Date(Date.now() + 400 * day) });
    const recentPast = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Recent", start: new Date(Date.now() - 80 * day) });
    const longCancelled = await makeAppointment(database.db, cast.orgId, calendarId, {
      title: "Cancelled long ago",
      start: new Date(Date.now() + 10 * day),
      status: "cancelled",
      cancelledAt: new Date(Date.now() - 31 * day),
    });
    const uids = parse((await fetchFeed(await feedUrl())).body).events.map((event) => event.uid);
    expect(uids).toContain(`${recentPast}@voice-agents`);
    for (const id of [tooOld, tooFar, longCancelled]) expect(uids).not.toContain(`${id}@voice-agents`);
  });

  it("never holds another organisation's appointments, and each feed opens only its own", async () => {
    const otherCalendar = await makeCalendar(database.db, cast.otherOrgId);
    const theirs = await makeAppointment(database.db, cast.otherOrgId, otherCalendar, { title: "Elsewhere secret", start: tomorrowAt(11) });
    const ours = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Ours", start: tomorrowAt(12) });
    const ourFeed = (await fetchFeed(await feedUrl())).body;
    const theirFeed = (await fetchFeed(await feedUrl(cast.otherToken))).body;
    expect(ourFeed).not.toContain(theirs);
    expect(ourFeed).not.toContain("Elsewhere secret");
    expect(theirFeed).not.toContain(ours);
    expect(parse(theirFeed)).toMatchObject({ name: "Elsewhere Ltd appointments", events: [{ uid: `${theirs}@voice-agents`, summary: "Elsewhere secret" }] });
  });

  it("answers 304 to If-None-Match while nothing changed; a change makes a new feed with a new ETag", async () => {
    const id = await makeAppointment(database.db, cast.orgId, calendarId, { title: "Before", start: tomorrowAt(9) });
    const { pathname } = new URL(await feedUrl());
    const first = await app.inject({ method: "GET", url: pathname });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const again = await app.inject({ method: "GET", url: pathname, headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");

    await changeAppointment(database.db, id, { title: "After" });
    const changed = await app.inject({ method: "GET", url: pathname, headers: { "if-none-match": etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(parse(changed.body).events.find((event) => event.uid === `${id}@voice-agents`)).toMatchObject({ summary: "After", sequence: 1 });
  });

  it("an organisation without appointments gets a valid, empty calendar", async () => {
    const admin = await signUp(app);
    await createOrganisation(app, admin.token, "Empty Co");
    const feed = parse((await fetchFeed(await feedUrl(admin.token))).body);
    expect(feed).toEqual({ name: "Empty Co appointments", events: [] });
  });

  it("is rate-limited per client and feed (429 {detail, code})", async () => {
    const { app: limited } = await buildTestApp(database, CREDENTIALS_ENV);
    try {
      const { pathname } = new URL(await feedUrl());
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) statuses.push((await limited.inject({ method: "GET", url: pathname })).statusCode);
      expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
      const refused = await limited.inject({ method: "GET", url: pathname });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: "rate_limited", detail: expect.any(String) });
    } finally {
      await limited.close();
    }
  });
});
