/**
 * Shared by the Google Calendar and ICS feed tests: an app wired to the Google stand-in, an
 * organisation's calendar and appointments written as the calendar core leaves them, and the OAuth
 * dance (connect → the stand-in's consent page → callback).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { CalendarConnection } from "../../contract";
import { orgScope } from "../../server/data/orgScope";
import type { Db } from "../../server/db/client";
import { appointments, calendars } from "../../server/db/schema";
import type { FakeGoogle } from "./fakes/google";
import { bearer } from "./helpers";

/** A fixed key, so a test can open what the app sealed. */
export const CREDENTIALS_KEY = randomBytes(32);
export const CREDENTIALS_ENV = { CREDENTIALS_ENCRYPTION_KEY: CREDENTIALS_KEY.toString("base64") };

export function post(app: FastifyInstance, url: string, token: string | null, payload: unknown = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: "POST", url, headers: token ? bearer(token) : {}, payload: payload as object });
}
export function get(app: FastifyInstance, url: string, token: string | null): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url, headers: token ? bearer(token) : {} });
}

/** POST /calendar/google/connect as `token`: the consent page's address. */
export async function connectUrl(app: FastifyInstance, token: string): Promise<URL> {
  const response = await post(app, "/api/calendar/google/connect", token);
  expect(response.statusCode, response.body).toBe(200);
  return new URL((response.json() as { data: { url: string } }).data.url);
}

/** The whole flow as an admin: connect, the stand-in approves, the page posts code and state back. */
export async function connectGoogle(app: FastifyInstance, google: FakeGoogle, adminToken: string, grant?: { scope?: string; email?: string }): Promise<CalendarConnection> {
  const { code, state } = google.approve((await connectUrl(app, adminToken)).toString(), grant);
  const response = await post(app, "/api/calendar/google/callback", adminToken, { code, state });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: CalendarConnection }).data;
}

/** The organisation's calendar, as the core saves it (rules in `timezone`). */
export async function makeCalendar(db: Db, orgId: string, timezone = "America/New_York"): Promise<string> {
  const id = randomUUID();
  await orgScope(db, orgId).insert(calendars, {
    id,
    agentId: null,
    timezone,
    weekly: [{ day: "mon", start: "09:00", end: "17:00" }],
    slotMinutes: 30,
    maxDaysAhead: 60,
    saved: true,
  });
  return id;
}

export interface AppointmentFixture {
  title?: string;
  start: Date;
  minutes?: number;
  status?: "booked" | "cancelled" | "completed" | "no_show";
  customerName?: string | null;
  customerNumber?: string | null;
  customerEmail?: string | null;
  notes?: string | null;
  sequence?: number;
  cancelledAt?: Date | null;
  source?: "console" | "agent" | "calendar_sync";
}

/** An appointment row as the core writes it (buffers 0). */
export async function makeAppointment(db: Db, orgId: string, calendarId: string, fixture: AppointmentFixture): Promise<string> {
  const id = randomUUID();
  const end = new Date(fixture.start.getTime() + (fixture.minutes ?? 30) * 60_000);
  await orgScope(db, orgId).insert(appointments, {
    id,
    calendarId,
    title: fixture.title ?? "Consultation",
    startAt: fixture.start,
    endAt: end,
    blockedStart: fixture.start,
    blockedEnd: end,
    customerName: fixture.customerName === undefined ? "Ada Lovelace" : fixture.customerName,
    customerNumber: fixture.customerNumber === undefined ? "+14155550123" : fixture.customerNumber,
    customerEmail: fixture.customerEmail ?? null,
    notes: fixture.notes ?? null,
    status: fixture.status ?? "booked",
    source: fixture.source ?? "console",
    sequence: fixture.sequence ?? 0,
    cancelledAt: fixture.cancelledAt ?? (fixture.status === "cancelled" ? new Date() : null),
  });
  return id;
}

export async function appointmentRow(db: Db, id: string) {
  const [row] = await db.select().from(appointments).where(eq(appointments.id, id));
  return row;
}

/** Moves or cancels an appointment as the core would (sequence + 1). */
export async function changeAppointment(db: Db, id: string, changes: { start?: Date; minutes?: number; status?: string; title?: string }) {
  const row = await appointmentRow(db, id);
  if (!row) throw new Error(`no appointment ${id}`);
  const start = changes.start ?? row.startAt;
  const end = new Date(start.getTime() + (changes.minutes ?? (row.endAt.getTime() - row.startAt.getTime()) / 60_000) * 60_000);
  await db
    .update(appointments)
    .set({
      startAt: start,
      endAt: end,
      blockedStart: start,
      blockedEnd: end,
      ...(changes.status ? { status: changes.status, cancelledAt: changes.status === "cancelled" ? new Date() : null } : {}),
      ...(changes.title ? { title: changes.title } : {}),
      sequence: row.sequence + 1,
      updatedAt: new Date(),
    })
    .where(eq(appointments.id, id));
}

/** Tomorrow (UTC) at hh:mm. */
export function tomorrowAt(hours: number, minutes = 0): Date {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + 1);
  date.setUTCHours(hours, minutes, 0, 0);
  return date;
}
