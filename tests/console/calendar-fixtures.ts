/** Availability, free slots and appointments as the API answers them (contract/calendar.ts), and a fake server for /calendar. */
import type { Agent } from "../../contract/agent";
import type { Appointment, AppointmentInput, AppointmentUpdate, Availability, Slot } from "../../contract/calendar";
import { DEFAULT_AVAILABILITY } from "../../contract/calendar-shared";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID } from "./agents-fixtures";
import { json, type FetchFake, type RecordedRequest } from "./fetch-fake";

export { AGENT_ID, OTHER_AGENT_ID };

export const ZONE = "America/New_York";
export const CALENDAR_ID = "ca1e0000-0000-4000-8000-000000000001";
export const APPOINTMENT_ID = "a9900000-0000-4000-8000-000000000001";
export const OTHER_APPOINTMENT_ID = "a9900000-0000-4000-8000-000000000002";
export const NEW_APPOINTMENT_ID = "a9900000-0000-4000-8000-000000000003";
export const CALL_ID = "7c1e0d5f-8a8b-4c51-9a43-2f4a8f0b7e11";

/** The week the tests look at: Monday 7 to Sunday 13 December 2026, New York (UTC−5). */
export const WEEK = { startDate: "2026-12-07", endDate: "2026-12-13" };
export const WEEK_PATH = "/calendar?view=week&date=2026-12-09";

export function makeAvailability(overrides: Partial<Availability> = {}): Availability {
  return {
    id: CALENDAR_ID,
    agent_id: null,
    timezone: ZONE,
    weekly: DEFAULT_AVAILABILITY.weekly.map((range) => ({ ...range })),
    slot_minutes: 30,
    buffer_before_minutes: 0,
    buffer_after_minutes: 0,
    min_notice_minutes: 60,
    max_days_ahead: 60,
    max_per_day: null,
    closed_dates: ["2026-12-25"],
    date_overrides: [],
    is_default: false,
    inherited: false,
    updated_at: "2026-11-01T09:00:00.000Z",
    ...overrides,
  };
}

export function makeAppointment(overrides: Partial<Appointment> = {}): Appointment {
  return {
    id: APPOINTMENT_ID,
    title: "Consultation",
    // Wednesday 9 December, 10:00–10:30 in New York.
    start: "2026-12-09T15:00:00.000Z",
    end: "2026-12-09T15:30:00.000Z",
    customer_name: "Grace Hopper",
    customer_number: "+14155550100",
    customer_email: "grace@example.com",
    notes: "Prefers mornings",
    status: "booked",
    source: "agent",
    agent_id: AGENT_ID,
    agent_name: "Front desk",
    call_id: CALL_ID,
    calendar_id: CALENDAR_ID,
    timezone: ZONE,
    outside_hours: false,
    synced: false,
    created_at: "2026-12-01T14:00:00.000Z",
    updated_at: "2026-12-02T15:30:00.000Z",
    ...overrides,
  };
}

/** Wednesday 9 December's free half hours from 11:00 to 12:00 New York time, and Thursday's 09:00. */
export const SLOTS: Slot[] = [
  { start: "2026-12-09T16:00:00.000Z", end: "2026-12-09T16:30:00.000Z" },
  { start: "2026-12-09T16:30:00.000Z", end: "2026-12-09T17:00:00.000Z" },
  { start: "2026-12-10T14:00:00.000Z", end: "2026-12-10T14:30:00.000Z" },
];

export interface CalendarServer {
  appointments: Appointment[];
  availability: Map<string, Availability>;
  /** What PUT /appointment/{id} and POST /appointment/ answer instead of saving, when set. */
  refuse?: (request: RecordedRequest) => Response | undefined;
}

/** A 409 slot_taken as the API sends it. */
export function slotTaken(slots: Slot[] = SLOTS.slice(0, 2)): Response {
  return json({ detail: "That time is taken: another appointment is booked from 10:00 to 10:30.", code: "slot_taken", slots }, 409);
}

const queryOf = (request: RecordedRequest) => Object.fromEntries(request.query.entries());

/**
 * Answers the calendar's requests: GET /agent/, GET and PUT /availability/, GET /availability/slots, GET
 * /appointment/ (status, agentId and search applied; the days are the test's), GET, PUT and DELETE
 * /appointment/{id} and POST /appointment/, keeping what was written.
 */
export function serveCalendar(
  fetch: FetchFake,
  {
    appointments = [makeAppointment()],
    availability = makeAvailability(),
    slots = SLOTS,
    agents = [makeAgent({ agent_name: "Front desk" }), makeAgent({ id: OTHER_AGENT_ID, agent_name: "Sales line" })],
  }: { appointments?: Appointment[]; availability?: Availability; slots?: Slot[]; agents?: Agent[] } = {},
): CalendarServer {
  const server: CalendarServer = { appointments: [...appointments], availability: new Map([["", availability]]) };
  fetch.on("GET", "/api/agent/", () => json({ data: agents, total: agents.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/availability/", (request) => {
    const agentId = request.query.get("agentId") ?? "";
    const own = server.availability.get(agentId);
    const answer = own ?? { ...server.availability.get("")!, agent_id: null, inherited: agentId !== "" };
    return json({ data: answer });
  });
  fetch.on("PUT", "/api/availability/", (request) => {
    const { agent_id: agentId, ...rules } = request.body as { agent_id?: string } & Omit<Availability, "id">;
    const saved: Availability = { ...makeAvailability(), ...rules, agent_id: agentId ?? null, is_default: false, inherited: false, updated_at: "2026-12-01T10:00:00.000Z" };
    server.availability.set(agentId ?? "", saved);
    return json({ data: saved });
  });
  fetch.on("GET", "/api/availability/slots", () => json({ data: slots, timezone: ZONE }));
  fetch.on("GET", "/api/appointment/", (request) => {
    const query = queryOf(request);
    const found = server.appointments.filter(
      (appointment) =>
        (!query.status || appointment.status === query.status) &&
        (!query.agentId || appointment.agent_id === query.agentId) &&
        (!query.search || JSON.stringify(appointment).toLowerCase().includes(query.search.toLowerCase())),
    );
    const limit = Number(query.limit ?? 20);
    return json({ data: found.slice(0, limit), total: found.length, page: Number(query.page ?? 1), limit });
  });
  fetch.on("POST", "/api/appointment/", (request) => {
    const refused = server.refuse?.(request);
    if (refused) return refused;
    const body = request.body as AppointmentInput;
    const created = makeAppointment({
      id: NEW_APPOINTMENT_ID,
      customer_name: null,
      customer_number: null,
      customer_email: null,
      notes: null,
      agent_id: null,
      call_id: null,
      source: "console",
      ...body,
      agent_name: body.agent_id ? (agents.find((agent) => agent.id === body.agent_id)?.agent_name ?? null) : null,
    });
    server.appointments.push(created);
    return json({ data: created }, 201);
  });
  const one = (id: string) => server.appointments.find((appointment) => appointment.id === id);
  for (const id of [APPOINTMENT_ID, OTHER_APPOINTMENT_ID, NEW_APPOINTMENT_ID]) {
    const path = `/api/appointment/${id}`;
    fetch.on("GET", path, () => (one(id) ? json({ data: one(id) }) : json({ detail: "Appointment not found", code: "not_found" }, 404)));
    fetch.on("PUT", path, (request) => {
      const refused = server.refuse?.(request);
      if (refused) return refused;
      const current = one(id)!;
      const updated = { ...current, ...(request.body as AppointmentUpdate), updated_at: "2026-12-03T10:00:00.000Z" } as Appointment;
      server.appointments = server.appointments.map((appointment) => (appointment.id === id ? updated : appointment));
      return json({ data: updated });
    });
    fetch.on("DELETE", path, () => {
      const cancelled = { ...one(id)!, status: "cancelled" as const, updated_at: "2026-12-03T10:00:00.000Z" };
      server.appointments = server.appointments.map((appointment) => (appointment.id === id ? cancelled : appointment));
      return json({ data: cancelled });
    });
  }
  return server;
}

/** The queries of GET `path`, each as a plain object. */
export const queriesTo = (fetch: FetchFake, path: string) => fetch.to("GET", path).map(queryOf);
