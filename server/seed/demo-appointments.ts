/**
 * The demo organisation's calendar (issue 14), so a new user sees appointments at once: the
 * organisation's calendar with the default rules (not saved: GET /availability/ says is_default), and
 * in it, on free slots of those rules in the coming week:
 * - up to 4 appointments the Appointment Setter booked during its recent calls (source agent, linked to
 *   the call, the caller's name and number; at the day and time the call's structured data names when
 *   that is a free slot of the coming week, else at another free slot);
 * - 2 booked from the console by the demo admin;
 * - 1 in the past, booked by the agent on an earlier call and completed.
 * Pure and seeded like demo-calls.ts: the same data, organisation and `now` give the same rows. The
 * appointments never overlap (each takes a slot the others have not), so the exclusion constraint holds.
 */
import { computeSlots, dayNumber, localDayOf, instantOfLocal, DAY, MINUTE, type Interval } from "../calendar/slots";
import { defaultRules, rowColumns } from "../calendar/calendars";
import type { Db } from "../db/client";
import { appointments, calendars } from "../db/schema";
import { mulberry32, type CallInsert, type DemoData } from "./demo-calls";

export const DEMO_APPOINTMENT_SEED = 20_261_401;

type CalendarInsert = typeof calendars.$inferInsert;
type AppointmentInsert = typeof appointments.$inferInsert;

export interface DemoAppointments {
  calendars: CalendarInsert[];
  appointments: AppointmentInsert[];
}

const AGENT_BOOKINGS = 4;
const CONSOLE_BOOKINGS: ReadonlyArray<{ title: string; customerName: string; customerNumber: string; notes: string }> = [
  { title: "Follow-up consultation", customerName: "Maria Santos", customerNumber: "+13105550148", notes: "Booked at the front desk; prefers a morning call the day before." },
  { title: "New client intake", customerName: "Tom Becker", customerNumber: "+13105550193", notes: "Bring the signed forms." },
];

function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(next() * 4)]!;
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

interface Booked {
  booked?: boolean;
  appointment_purpose?: string;
  appointment_date?: string;
  appointment_time?: string;
}

/** "a dental check-up" → "Dental check-up". */
function titleOf(purpose: string | undefined): string {
  const text = (purpose ?? "").replace(/^(a|an)\s+/i, "").trim();
  return text ? text[0]!.toUpperCase() + text.slice(1) : "Appointment";
}

export function generateDemoAppointments(data: DemoData, input: { orgId: string; createdBy: string; now: Date; timezone?: string; seed?: number }): DemoAppointments {
  const next = mulberry32(input.seed ?? DEMO_APPOINTMENT_SEED);
  const uuid = () => uuidFrom(next);
  const now = input.now.getTime();
  const rules = defaultRules(input.timezone ?? "UTC");
  const calendarId = uuid();
  const calendar: CalendarInsert = {
    id: calendarId,
    orgId: input.orgId,
    agentId: null,
    ...rowColumns(rules),
    saved: false,
    createdAt: new Date(now - 10 * DAY),
    updatedAt: new Date(now - 10 * DAY),
  };
  const result: DemoAppointments = { calendars: [calendar], appointments: [] };
  const setter = data.agents.find((agent) => agent.name === "Appointment Setter");

  // Free slots of the coming week; each appointment takes one.
  const free = computeSlots(rules, { from: now, to: now + 8 * DAY, now });
  const take = (slot: Interval) => free.splice(free.indexOf(slot), 1)[0]!;
  const pick = () => (free.length > 0 ? take(free[Math.floor(next() * free.length)]!) : null);
  const row = (slot: Interval, fields: Omit<AppointmentInsert, "id" | "orgId" | "calendarId" | "startAt" | "endAt" | "blockedStart" | "blockedEnd">): AppointmentInsert => ({
    id: uuid(),
    orgId: input.orgId,
    calendarId,
    startAt: new Date(slot.start),
    endAt: new Date(slot.end),
    blockedStart: new Date(slot.start),
    blockedEnd: new Date(slot.end),
    ...fields,
  });

  const bookingCalls = setter
    ? data.calls
        .filter((call) => call.agentId === setter.id && call.status === "ended" && (call.structuredData as Booked | null)?.booked === true)
        .sort((a, b) => b.startedAt!.getTime() - a.startedAt!.getTime())
    : [];
  const agentBooking = (call: CallInsert, slot: Interval, status: "booked" | "completed"): AppointmentInsert =>
    row(slot, {
      agentId: setter!.id!,
      callId: call.id!,
      title: titleOf((call.structuredData as Booked).appointment_purpose),
      customerName: call.customerName ?? null,
      customerNumber: call.customerNumber ?? null,
      status,
      source: "agent",
      createdAt: call.endedAt ?? call.startedAt!,
      updatedAt: status === "completed" ? new Date(slot.end + 10 * MINUTE) : (call.endedAt ?? call.startedAt!),
    });

  // The agent's bookings from its most recent calls, at the time the call named when that slot is free.
  for (const call of bookingCalls.filter((c) => now - c.startedAt!.getTime() < 4 * DAY).slice(0, AGENT_BOOKINGS)) {
    const named = call.structuredData as Booked;
    const wanted = named.appointment_date && named.appointment_time ? instantOfLocal(rules.timezone, dayNumber(named.appointment_date) * DAY + (Number(named.appointment_time.slice(0, 2)) * 60 + Number(named.appointment_time.slice(3, 5))) * MINUTE) : null;
    const exact = free.find((slot) => slot.start === wanted);
    const slot = exact ? take(exact) : pick();
    if (slot) result.appointments.push(agentBooking(call, slot, "booked"));
  }
  for (const booking of CONSOLE_BOOKINGS) {
    const slot = pick();
    if (!slot) break;
    result.appointments.push(
      row(slot, {
        agentId: null,
        callId: null,
        title: booking.title,
        customerName: booking.customerName,
        customerNumber: booking.customerNumber,
        notes: booking.notes,
        status: "booked",
        source: "console",
        createdBy: input.createdBy,
        createdAt: new Date(now - (2 + Math.floor(next() * 20)) * 60 * MINUTE),
        updatedAt: new Date(now - 60 * MINUTE),
      }),
    );
  }
  // One in the past, on a weekday two to six days ago, booked on an earlier call and completed.
  const earlier = bookingCalls.find((call) => now - call.startedAt!.getTime() > 7 * DAY);
  if (earlier) {
    const today = localDayOf(rules.timezone, now);
    const past = computeSlots(rules, { from: instantOfLocal(rules.timezone, (today - 6) * DAY), to: instantOfLocal(rules.timezone, (today - 1) * DAY), now: now - 30 * DAY });
    const slot = past[Math.floor(next() * past.length)];
    if (slot) result.appointments.push(agentBooking(earlier, slot, "completed"));
  }
  return result;
}

/** Writes the calendar and its appointments (inside the seed's transaction, after the calls they link to). */
export async function insertDemoAppointments(db: Db, data: DemoAppointments): Promise<void> {
  if (data.calendars.length > 0) await db.insert(calendars).values(data.calendars);
  if (data.appointments.length > 0) await db.insert(appointments).values(data.appointments);
}
