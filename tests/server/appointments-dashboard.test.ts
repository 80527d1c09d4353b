/**
 * The dashboard's appointments card (GET /api/dashboard/'s `appointments`): booked appointments starting
 * today in the organisation's zone, those starting within 7 days from now, and the next few (one under
 * way included until it ends), soonest first with the agent's name; cancelled, completed and other
 * organisations' appointments never count. Then GET /api/call/{id}'s appointment_ids.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallDetail } from "../../contract/call";
import { DASHBOARD_APPOINTMENTS_MAX } from "../../contract/dashboard";
import { bookAppointment, cancelAppointment, updateAppointment, type AppointmentActor } from "../../server/calendar/appointments";
import { noCalendarSync } from "../../server/calendar/sync";
import { dashboardAppointments } from "../../server/dashboard/appointments";
import type { Database, Db } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { orgScope } from "../../server/data/orgScope";
import { api, at, book, calendarOrg, nextDate, plusMinutes, type CalendarOrg } from "./calendar-fixtures";
import { dashboard } from "./dashboard-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let db: Db;
let app: FastifyInstance;
let org: CalendarOrg;

beforeAll(async () => {
  database = await migratedDatabase();
  db = database.db;
  ({ app } = await buildTestApp(database));
  org = await calendarOrg(app, "America/New_York");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const zone = "America/New_York";
/** Tuesday 3 March 2026, 15:00 in New York. */
const NOW = new Date(at(zone, "2026-03-03", "15:00"));
const CONSOLE: AppointmentActor = { source: "console" };

async function bookAt(orgId: string, title: string, date: string, time: string, minutes = 30, agentId: string | null = null) {
  const start = new Date(at(zone, date, time));
  return bookAppointment(db, noCalendarSync, orgId, { title, start, end: new Date(start.getTime() + minutes * 60_000), agentId }, CONSOLE, NOW);
}

describe("the dashboard's appointments", () => {
  it("counts today in the organisation's zone and the next 7 days from now; lists what is coming, soonest first", async () => {
    const card = await calendarOrg(app, zone);
    await bookAt(card.orgId, "This morning", "2026-03-03", "10:00");
    await bookAt(card.orgId, "Under way", "2026-03-03", "14:45", 30, card.agentId);
    await bookAt(card.orgId, "Tonight", "2026-03-03", "23:30");
    await bookAt(card.orgId, "After midnight", "2026-03-04", "00:30");
    await bookAt(card.orgId, "In six days", "2026-03-10", "14:30");
    // New York moves to summer time on 8 March: a week from 15:00 EST is 16:00 EDT.
    await bookAt(card.orgId, "Exactly a week", "2026-03-10", "16:00");
    await bookAt(card.orgId, "Next month", "2026-04-01", "09:00");
    const cancelled = await bookAt(card.orgId, "Cancelled tonight", "2026-03-03", "22:00");
    await cancelAppointment(db, noCalendarSync, card.orgId, cancelled.id, CONSOLE, NOW);
    const completed = await bookAt(card.orgId, "Done already", "2026-03-03", "16:00");
    await updateAppointment(db, noCalendarSync, card.orgId, completed.id, { status: "completed" }, CONSOLE, NOW);
    const elsewhere = await calendarOrg(app, zone);
    await bookAt(elsewhere.orgId, "Someone else's", "2026-03-03", "16:30");

    const appointments = await dashboardAppointments(db, card.orgId, NOW);
    // Today: this morning, under way, tonight (23:30 New York is already tomorrow in UTC).
    expect(appointments.today).toBe(3);
    // From now to 7 days on: tonight, after midnight, in six days (a week exactly is not within).
    expect(appointments.next_7_days).toBe(3);
    expect(appointments.upcoming.map((item) => item.title)).toEqual(["Under way", "Tonight", "After midnight", "In six days", "Exactly a week"].slice(0, DASHBOARD_APPOINTMENTS_MAX));
    expect(appointments.upcoming[0]).toEqual({
      id: expect.any(String),
      title: "Under way",
      start: at(zone, "2026-03-03", "14:45"),
      end: at(zone, "2026-03-03", "15:15"),
      customer_name: null,
      agent_id: card.agentId,
      agent_name: card.agentName,
      source: "console",
      call_id: null,
    });
  });

  it("an organisation without appointments shows zeros; GET /dashboard/ carries the card", async () => {
    const empty = await calendarOrg(app, "UTC");
    expect((await dashboard(app, empty.memberToken)).appointments).toEqual({ today: 0, next_7_days: 0, upcoming: [] });
    const soon = new Date(Date.now() + 2 * 86_400_000);
    soon.setUTCMinutes(0, 0, 0);
    await book(app, org.memberToken, { title: "Soon", start: soon.toISOString(), end: plusMinutes(soon.toISOString(), 30), agent_id: org.agentId });
    const { appointments } = await dashboard(app, org.memberToken);
    expect(appointments.next_7_days).toBe(1);
    expect(appointments.upcoming).toEqual([expect.objectContaining({ title: "Soon", agent_name: org.agentName, start: soon.toISOString() })]);
  });
});

describe("GET /call/{id}: appointment_ids", () => {
  it("lists the appointments the call booked, oldest first, and [] for a call that booked none", async () => {
    const callId = randomUUID();
    await orgScope(db, org.orgId).insert(calls, { id: callId, type: "inbound", status: "ended", agentId: org.agentId, customerNumber: "+14155550100", providerCallId: `vapi-${callId}` });
    const quiet = randomUUID();
    await orgScope(db, org.orgId).insert(calls, { id: quiet, type: "inbound", status: "ended", agentId: org.agentId, customerNumber: "+14155550101", providerCallId: `vapi-${quiet}` });
    const by: AppointmentActor = { source: "agent", callId };
    const date = nextDate(new Date().toISOString().slice(0, 10), 40);
    const first = await bookAppointment(db, noCalendarSync, org.orgId, { title: "First", start: new Date(`${date}T15:00:00Z`), end: new Date(`${date}T15:30:00Z`), agentId: org.agentId }, { ...by, source: "console" });
    const second = await bookAppointment(db, noCalendarSync, org.orgId, { title: "Second", start: new Date(`${date}T14:00:00Z`), end: new Date(`${date}T14:30:00Z`), agentId: org.agentId }, { ...by, source: "console" });
    const response = await api(app, org.memberToken, "GET", `/call/${callId}`);
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as { data: CallDetail }).data.appointment_ids).toEqual([first.id, second.id]);
    expect(((await api(app, org.memberToken, "GET", `/call/${quiet}`)).json() as { data: CallDetail }).data.appointment_ids).toEqual([]);
  });
});
