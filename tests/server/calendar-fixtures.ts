/** What the calendar tests share: an organisation in a time zone with an agent, dates ahead, and a recording CalendarSync. */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import type { Appointment } from "../../contract/calendar";
import type { BusyInterval, CalendarSync } from "../../server/calendar/sync";
import { DAY, MINUTE, instantOfLocal, localDayOf, weekdayOfDay, dayNumber, dateOfDay } from "../../server/calendar/slots";
import type { LightMyRequestResponse } from "fastify";
import { createAgent } from "./calls-fixtures";
import { addMember, bearer, createOrganisation, signUp } from "./helpers";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export function api(app: FastifyInstance, token: string | null, method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method, url: `/api${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
}

export interface CalendarOrg {
  orgId: string;
  adminToken: string;
  memberToken: string;
  agentId: string;
  agentName: string;
  timezone: string;
}

/** An organisation in `timezone` with an admin, a member and an agent. */
export async function calendarOrg(app: FastifyInstance, timezone = "America/New_York", name = `Calendar ${randomUUID().slice(0, 6)}`): Promise<CalendarOrg> {
  const admin = await signUp(app, undefined, "Ada Admin");
  const orgId = await createOrganisation(app, admin.token, name);
  const member = await addMember(app, admin.token, orgId);
  const settings = await api(app, admin.token, "PATCH", "/organization/settings", { timezone });
  expect(settings.statusCode, settings.body).toBe(200);
  const agentName = `Setter ${randomUUID().slice(0, 4)}`;
  const agent = await createAgent(app, admin.token, { agent_name: agentName });
  return { orgId, adminToken: admin.token, memberToken: member.token, agentId: agent.id, agentName, timezone };
}

/** The first date (YYYY-MM-DD, in `zone`) on `weekday` at least `minDays` days after today there. */
export function nextWeekday(zone: string, weekday: string, minDays = 2, now = Date.now()): string {
  let day = localDayOf(zone, now) + minDays;
  while (weekdayOfDay(day) !== weekday) day++;
  return dateOfDay(day);
}

/** The instant of wall-clock `hhmm` on `date` in `zone`, as ISO. */
export function at(zone: string, date: string, hhmm: string): string {
  const minutes = Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  return new Date(instantOfLocal(zone, dayNumber(date) * DAY + minutes * MINUTE)).toISOString();
}

export const plusMinutes = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * MINUTE).toISOString();

/** The day after `date`. */
export const nextDate = (date: string, days = 1) => dateOfDay(dayNumber(date) + days);

export async function book(app: FastifyInstance, token: string, body: Record<string, unknown>): Promise<Appointment> {
  const response = await api(app, token, "POST", "/appointment/", { title: "Consultation", ...body });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Appointment }).data;
}

/** A CalendarSync that records every committed change and answers the busy times it is given. */
export function recordingSync(busy: BusyInterval[] = []): CalendarSync & { changed: string[]; busyAsked: Array<{ from: Date; to: Date }> } {
  const changed: string[] = [];
  const busyAsked: Array<{ from: Date; to: Date }> = [];
  return {
    changed,
    busyAsked,
    async busy(_orgId, from, to) {
      busyAsked.push({ from, to });
      return busy.filter((interval) => interval.start < to && interval.end > from);
    },
    appointmentChanged(_orgId, id) {
      changed.push(id);
    },
  };
}
