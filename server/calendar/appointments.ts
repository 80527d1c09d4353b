/**
 * Appointments (issue 14 §2, §3): free slots, booking, moving, cancelling, for the console's routes and
 * for the agent's booking tools (server/calendar/tools*.ts), which call these functions directly.
 *
 * - Two appointments of one calendar that hold their time never overlap, buffers included: the
 *   database's exclusion constraint (appointments_no_overlap, 23P01) is the guarantee on both engines.
 *   Every booking and move takes its calendar's row `FOR UPDATE` first, so bookings of one calendar take
 *   turns: the checks made before the write (the free slot, max_per_day) still hold when it commits.
 *   A refused request changes nothing (its transaction rolls back).
 * - Who books decides the rules: a person in the console may book outside the hours (the appointment
 *   says outside_hours), never over another appointment; an agent (source "agent") must book a slot the
 *   rules give (hours, notice, how far ahead, closed dates, max_per_day, the slot grid) that no outside
 *   busy time blocks.
 * - Refusals carry the nearest free slots from the asked time on (SLOT_TAKEN_ALTERNATIVES), so the
 *   console's 409 and the agent's answer can offer them.
 * - An agent's booking with a toolCallId is idempotent: the appointment already booked by that tool call
 *   is answered as it is (a retried call is never told that its own slot is taken, and books nothing more).
 * - After each committed change, sync.appointmentChanged (fire and forget) writes it to a connected
 *   outside calendar.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, gte, ilike, inArray, lt, ne, or, sql, type SQL } from "drizzle-orm";
import {
  APPOINTMENT_HOLDING_STATUSES,
  APPOINTMENT_MAX_MINUTES,
  APPOINTMENT_TITLE_MAX_LENGTH,
  CALENDAR_RANGE_MAX_DAYS,
  SLOT_TAKEN_ALTERNATIVES,
  type Appointment,
  type AppointmentSource,
  type AppointmentStatus,
} from "../../contract/calendar";
import { ERROR_CODES } from "../../contract/errors";
import { findAgent } from "../agents/repository";
import { containsPattern } from "../calls/list";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isExclusionViolation, isUniqueViolation } from "../db/errors";
import { agents, appointments } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { calendarFor, lockBookingCalendar, lockCalendar, rulesOfCalendars } from "./calendars";
import { DAY, MINUTE, TakenIndex, computeSlots, dayNumber, instantOfLocal, localDayOf, ruleProblem, withinHours, type AvailabilityRules, type Interval, type RuleProblem } from "./slots";
import type { CalendarSync } from "./sync";

export { calendarFor, type ResolvedCalendar } from "./calendars";
export { noCalendarSync, type CalendarSync } from "./sync";

/** An appointment as stored (the Drizzle row). */
export type AppointmentRow = typeof appointments.$inferSelect;

export interface SlotTimes {
  start: Date;
  end: Date;
}

/** Who changes an appointment: a person in the console, or an agent during a call (its tool call). */
export interface AppointmentActor {
  source: "console" | "agent";
  callId?: string | null;
  toolCallId?: string | null;
  userId?: string | null;
}

export interface NewAppointment {
  title: string;
  start: Date;
  end: Date;
  customerName?: string | null;
  customerNumber?: string | null;
  customerEmail?: string | null;
  notes?: string | null;
  agentId?: string | null;
}

/** The asked time overlaps another appointment of the calendar (or, for an agent, an outside busy time). */
export class SlotTakenError extends Error {
  constructor(
    /** Up to SLOT_TAKEN_ALTERNATIVES nearest free slots from the asked time on. */
    readonly slots: SlotTimes[],
    message = "That time is already taken.",
  ) {
    super(message);
    this.name = "SlotTakenError";
  }
}

const RULE_MESSAGES: Record<RuleProblem, (rules: AvailabilityRules) => string> = {
  closed: () => "That day is closed for appointments.",
  outside_hours: () => "That time is outside the hours when appointments can be booked.",
  too_soon: (rules) => `That time is too soon: appointments need at least ${describeMinutes(rules.min_notice_minutes)} notice.`,
  too_far: (rules) => `That date is too far ahead: appointments can be booked up to ${rules.max_days_ahead} ${rules.max_days_ahead === 1 ? "day" : "days"} ahead.`,
  day_full: () => "That day is fully booked.",
};

function describeMinutes(minutes: number): string {
  if (minutes % (24 * 60) === 0) return `${minutes / (24 * 60)} ${minutes === 24 * 60 ? "day's" : "days'"}`;
  if (minutes % 60 === 0) return `${minutes / 60} ${minutes === 60 ? "hour's" : "hours'"}`;
  return `${minutes} ${minutes === 1 ? "minute's" : "minutes'"}`;
}

/** An agent asked for a time the calendar's rules do not offer; the message can be spoken as it is. */
export class OutsideAvailabilityError extends Error {
  constructor(
    readonly reason: RuleProblem,
    message: string,
    /** Up to SLOT_TAKEN_ALTERNATIVES nearest free slots from the asked time on. */
    readonly slots: SlotTimes[],
  ) {
    super(message);
    this.name = "OutsideAvailabilityError";
  }
}

/** No such appointment in the organisation (another organisation's is not found either): a 404. */
export class AppointmentNotFoundError extends ApiError {
  constructor() {
    super(404, ERROR_CODES.notFound, "Appointment not found");
    this.name = "AppointmentNotFoundError";
  }
}

const invalid = (detail: string) => new ApiError(400, ERROR_CODES.validation, detail);
const stateConflict = (detail: string) => new ApiError(409, ERROR_CODES.conflict, detail);

// ---- reading taken time --------------------------------------------------------------------------

/**
 * How far before a window an appointment that matters to it can start blocking: its longest length,
 * both largest buffers and a day (max_per_day counts whole local days).
 */
const READ_MARGIN = APPOINTMENT_MAX_MINUTES * MINUTE + 8 * 60 * MINUTE + DAY;

interface TakenTime {
  id: string;
  startAt: Date;
  blockedStart: Date;
  blockedEnd: Date;
}

/**
 * The calendar's appointments that hold their time and may matter to slots in [from, to): a range of
 * appointments_calendar_blocked_idx (calendar_id, blocked_start), bounded on both sides.
 */
async function takenTimes(db: Db, calendarId: string, from: number, to: number): Promise<TakenTime[]> {
  return db
    .select({ id: appointments.id, startAt: appointments.startAt, blockedStart: appointments.blockedStart, blockedEnd: appointments.blockedEnd })
    .from(appointments)
    .where(
      and(
        eq(appointments.calendarId, calendarId),
        gte(appointments.blockedStart, new Date(from - READ_MARGIN)),
        lt(appointments.blockedStart, new Date(to + READ_MARGIN)),
        ne(appointments.status, "cancelled"),
      ),
    );
}

const toIntervals = (times: readonly TakenTime[], except?: string): Interval[] =>
  times.filter((time) => time.id !== except).map((time) => ({ start: time.blockedStart.getTime(), end: time.blockedEnd.getTime() }));
const startsOf = (times: readonly TakenTime[], except?: string) => times.filter((time) => time.id !== except).map((time) => time.startAt.getTime());
const busyIntervals = (busy: readonly { start: Date; end: Date }[]): Interval[] => busy.map((interval) => ({ start: interval.start.getTime(), end: interval.end.getTime() }));
const toTimes = (slot: Interval): SlotTimes => ({ start: new Date(slot.start), end: new Date(slot.end) });
const WEEK = 7 * DAY;

/** Outside busy times around [from, to) (a failing sync answers what it knows; never throws by contract, guarded anyway). */
async function busyAround(sync: CalendarSync, orgId: string, from: number, to: number): Promise<Interval[]> {
  try {
    return busyIntervals(await sync.busy(orgId, new Date(from - DAY), new Date(to + DAY)));
  } catch {
    return [];
  }
}

// ---- free slots ----------------------------------------------------------------------------------

/**
 * The free slots starting in [from, to) of the calendar that applies to `agentId` (its own, else the
 * organisation's): the rules, minus the calendar's appointments, minus outside busy times. Two queries
 * (the calendar, the appointments in range) and the outside busy times at once.
 */
export async function freeSlots(
  db: Db,
  sync: CalendarSync,
  orgId: string,
  query: { from: Date; to: Date; agentId?: string | null },
  now: Date = new Date(),
): Promise<{ timezone: string; calendarId: string | null; slots: SlotTimes[] }> {
  const calendar = await calendarFor(db, orgId, query.agentId ?? null);
  const from = query.from.getTime();
  const to = query.to.getTime();
  const [taken, busy] = await Promise.all([calendar.id ? takenTimes(db, calendar.id, from, to) : Promise.resolve([]), busyAround(sync, orgId, from, to)]);
  const slots = computeSlots(calendar, { from, to, now: now.getTime(), taken: [...toIntervals(taken), ...busy], bookedStarts: startsOf(taken) });
  return { timezone: calendar.timezone, calendarId: calendar.id, slots: slots.map(toTimes) };
}

/**
 * Up to SLOT_TAKEN_ALTERNATIVES free slots of a calendar from `from` on, reading a week of appointments
 * at a time up to the rules' horizon: in the asked length, or in slot_minutes when the rules hold no
 * slot of the asked length at all.
 */
async function alternatives(db: Db, calendarId: string, rules: AvailabilityRules, context: RefusalContext): Promise<SlotTimes[]> {
  const { busy, now, except } = context;
  const horizon = instantOfLocal(rules.timezone, (localDayOf(rules.timezone, now) + rules.max_days_ahead + 1) * DAY);
  const asked = (context.end - context.start) / MINUTE;
  const found: Interval[] = [];
  for (const lengthMinutes of asked === rules.slot_minutes ? [asked] : [asked, rules.slot_minutes]) {
    for (let from = Math.max(context.start, now); from < horizon && found.length < SLOT_TAKEN_ALTERNATIVES; from += WEEK) {
      const to = Math.min(from + WEEK, horizon);
      const taken = await takenTimes(db, calendarId, from, to);
      const slots = computeSlots(rules, {
        from,
        to,
        now,
        lengthMinutes,
        limit: SLOT_TAKEN_ALTERNATIVES - found.length,
        taken: [...toIntervals(taken, except), ...busy],
        bookedStarts: startsOf(taken, except),
      });
      found.push(...slots);
    }
    if (found.length > 0) break;
  }
  return found.map(toTimes);
}

// ---- checks --------------------------------------------------------------------------------------

function checkTimes(start: Date, end: Date): void {
  if (Number.isNaN(start.getTime())) throw invalid("start: must be a time");
  if (Number.isNaN(end.getTime())) throw invalid("end: must be a time");
  if (end.getTime() <= start.getTime()) throw invalid("end: must be after start");
  if (end.getTime() - start.getTime() > APPOINTMENT_MAX_MINUTES * MINUTE) throw invalid(`end: an appointment lasts at most ${APPOINTMENT_MAX_MINUTES / 60} hours`);
}

async function checkAgent(db: Db, orgId: string, agentId: string | null): Promise<void> {
  if (agentId && !(await findAgent(orgScope(db, orgId), agentId))) throw invalid(`agent_id: ${agentId} is not an agent of this organisation`);
}

/** A refusal found under the lock; the alternatives are read after the transaction rolled back. */
class Refusal extends Error {
  constructor(
    readonly calendarId: string,
    readonly rules: AvailabilityRules,
    readonly problem: RuleProblem | "taken",
  ) {
    super(problem);
  }
}

/** What a refused request asked for, to find its alternatives. */
interface RefusalContext {
  busy: readonly Interval[];
  start: number;
  end: number;
  now: number;
  /** The appointment being moved (it does not block itself). */
  except?: string;
}

/**
 * What the calendar's rules and appointments say about [start, end) under its lock: throws a Refusal
 * when the actor may not have it. `except`: the appointment being moved (it does not block itself).
 */
async function checkFree(
  tx: Db,
  calendar: { id: string; rules: AvailabilityRules },
  start: number,
  end: number,
  by: AppointmentActor,
  busy: readonly Interval[],
  now: number,
  except?: string,
): Promise<{ blockedStart: Date; blockedEnd: Date }> {
  const { rules } = calendar;
  const blockedStart = start - rules.buffer_before_minutes * MINUTE;
  const blockedEnd = end + rules.buffer_after_minutes * MINUTE;
  const taken = await takenTimes(tx, calendar.id, start, end);
  if (by.source === "agent") {
    const problem = ruleProblem(rules, start, end, now, startsOf(taken, except));
    if (problem) throw new Refusal(calendar.id, rules, problem);
  }
  const blocking = new TakenIndex(by.source === "agent" ? [...toIntervals(taken, except), ...busy] : toIntervals(taken, except));
  if (blocking.overlaps(blockedStart, blockedEnd)) throw new Refusal(calendar.id, rules, "taken");
  return { blockedStart: new Date(blockedStart), blockedEnd: new Date(blockedEnd) };
}

/**
 * Turns a failed transaction into the caller's error: a Refusal, or an exclusion violation (a writer
 * that took no lock got there first, e.g. a calendar sync), becomes SlotTakenError or
 * OutsideAvailabilityError with the nearest free slots of `calendarId`; anything else is rethrown.
 */
async function refused(db: Db, orgId: string, error: unknown, calendarId: string | null, context: RefusalContext): Promise<never> {
  let refusal = error instanceof Refusal ? error : null;
  if (!refusal && isExclusionViolation(error)) {
    const rules = calendarId ? (await rulesOfCalendars(db, orgId, [calendarId])).get(calendarId) : undefined;
    if (!rules) throw new SlotTakenError([]);
    refusal = new Refusal(calendarId!, rules, "taken");
  }
  if (!refusal) throw error;
  const slots = await alternatives(db, refusal.calendarId, refusal.rules, context);
  if (refusal.problem !== "taken") throw new OutsideAvailabilityError(refusal.problem, RULE_MESSAGES[refusal.problem](refusal.rules), slots);
  throw new SlotTakenError(slots);
}

// ---- booking -------------------------------------------------------------------------------------

async function byToolCall(db: Db, orgId: string, toolCallId: string): Promise<AppointmentRow | null> {
  const [row] = await db
    .select()
    .from(appointments)
    .where(and(eq(appointments.orgId, orgId), eq(appointments.toolCallId, toolCallId)))
    .limit(1);
  return row ?? null;
}

const trimmed = (value: string | null | undefined) => {
  const text = value?.trim();
  return text ? text : null;
};

/**
 * Books an appointment in its agent's calendar (the agent's own, else the organisation's). A console
 * booking may lie outside the hours; an agent's must be a slot the rules give (OutsideAvailabilityError
 * otherwise). An overlap throws SlotTakenError. Both carry the nearest free slots.
 */
export async function bookAppointment(db: Db, sync: CalendarSync, orgId: string, input: NewAppointment, by: AppointmentActor, now: Date = new Date()): Promise<AppointmentRow> {
  const title = input.title.trim();
  if (!title) throw invalid("title: is required");
  if (title.length > APPOINTMENT_TITLE_MAX_LENGTH) throw invalid(`title: must be at most ${APPOINTMENT_TITLE_MAX_LENGTH} characters`);
  checkTimes(input.start, input.end);
  const toolCallId = by.source === "agent" ? (by.toolCallId ?? null) : null;
  if (toolCallId) {
    const earlier = await byToolCall(db, orgId, toolCallId);
    if (earlier) return earlier;
  }
  const agentId = input.agentId ?? null;
  const start = input.start.getTime();
  const end = input.end.getTime();
  const [, busy] = await Promise.all([checkAgent(db, orgId, agentId), by.source === "agent" ? busyAround(sync, orgId, start, end) : Promise.resolve([])]);
  let created = true;
  let calendarId: string | null = null;
  let row: AppointmentRow;
  try {
    row = await db.transaction(async (tx) => {
      const { row: calendar, rules } = await lockBookingCalendar(tx, orgId, agentId);
      calendarId = calendar.id;
      if (toolCallId) {
        // A retry that waited for the first attempt's lock: answer the first attempt's appointment.
        const earlier = await byToolCall(tx, orgId, toolCallId);
        if (earlier) {
          created = false;
          return earlier;
        }
      }
      const blocked = await checkFree(tx, { id: calendar.id, rules }, start, end, by, busy, now.getTime());
      const [inserted] = await tx
        .insert(appointments)
        .values({
          id: randomUUID(),
          orgId,
          calendarId: calendar.id,
          agentId,
          callId: by.callId ?? null,
          title,
          startAt: input.start,
          endAt: input.end,
          ...blocked,
          customerName: trimmed(input.customerName),
          customerNumber: trimmed(input.customerNumber),
          customerEmail: trimmed(input.customerEmail),
          notes: trimmed(input.notes),
          status: "booked",
          source: by.source satisfies AppointmentSource,
          toolCallId,
          createdBy: by.userId ?? null,
        })
        .returning();
      return inserted!;
    });
  } catch (error) {
    if (toolCallId && isUniqueViolation(error)) {
      // The same tool call booked at the same moment in another request (no shared lock: another calendar).
      const earlier = await byToolCall(db, orgId, toolCallId);
      if (earlier) return earlier;
    }
    return refused(db, orgId, error, calendarId, { busy, start, end, now: now.getTime() });
  }
  if (created) sync.appointmentChanged(orgId, row.id);
  return row;
}

// ---- changing ------------------------------------------------------------------------------------

/** Status changes a person (or an agent) may make; cancelled → booked only when its time is free. */
const TRANSITIONS: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  booked: ["completed", "no_show", "cancelled"],
  completed: ["booked", "no_show"],
  no_show: ["booked", "completed"],
  cancelled: ["booked"],
};

const holds = (status: string) => (APPOINTMENT_HOLDING_STATUSES as readonly string[]).includes(status);

/** PUT /appointment/{id}'s changes (every field optional; start and end together move it). */
export interface AppointmentChanges {
  title?: string;
  start?: Date;
  end?: Date;
  customerName?: string | null;
  customerNumber?: string | null;
  customerEmail?: string | null;
  notes?: string | null;
  agentId?: string | null;
  status?: AppointmentStatus;
}

/**
 * Changes an appointment in one transaction: its row locked, then its calendar's (or, when its agent
 * changes to one with its own calendar, that calendar's). A move, a change of calendar or a booking
 * again of a cancelled one checks the time under the lock (the actor's rules; SlotTakenError /
 * OutsideAvailabilityError) and takes the calendar's current buffers.
 */
export async function updateAppointment(
  db: Db,
  sync: CalendarSync,
  orgId: string,
  id: string,
  changes: AppointmentChanges,
  by: AppointmentActor,
  now: Date = new Date(),
): Promise<AppointmentRow> {
  if ((changes.start === undefined) !== (changes.end === undefined)) throw invalid("start and end: give both to move an appointment");
  if (changes.start && changes.end) checkTimes(changes.start, changes.end);
  if (changes.title !== undefined) {
    if (!changes.title.trim()) throw invalid("title: is required");
    if (changes.title.trim().length > APPOINTMENT_TITLE_MAX_LENGTH) throw invalid(`title: must be at most ${APPOINTMENT_TITLE_MAX_LENGTH} characters`);
  }
  if (changes.agentId !== undefined) await checkAgent(db, orgId, changes.agentId);
  const wanted = changes.start && changes.end ? { start: changes.start.getTime(), end: changes.end.getTime() } : null;
  const busy = wanted && by.source === "agent" ? await busyAround(sync, orgId, wanted.start, wanted.end) : [];
  let changed = false;
  let context: RefusalContext = { busy, start: 0, end: 0, now: now.getTime(), except: id };
  let calendarId: string | null = null;
  try {
    const row = await db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(appointments)
        .where(and(eq(appointments.orgId, orgId), eq(appointments.id, id)))
        .for("update");
      if (!current) throw new AppointmentNotFoundError();
      const status = (changes.status ?? current.status) as AppointmentStatus;
      if (status !== current.status && !TRANSITIONS[current.status as AppointmentStatus].includes(status)) {
        throw stateConflict(
          current.status === "cancelled"
            ? `The appointment is cancelled: it can only be booked again (status booked), not marked ${status}.`
            : `The appointment is ${current.status}: it cannot become ${status}${status === "cancelled" ? " (only booked appointments are cancelled)" : ""}.`,
        );
      }
      const agentId = changes.agentId === undefined ? current.agentId : changes.agentId;
      const start = wanted?.start ?? current.startAt.getTime();
      const end = wanted?.end ?? current.endAt.getTime();
      const moved = start !== current.startAt.getTime() || end !== current.endAt.getTime();
      // Its calendar: unchanged unless the agent changes (then the new agent's own, else the organisation's).
      const calendar = agentId !== current.agentId ? await lockBookingCalendar(tx, orgId, agentId) : await lockCalendar(tx, orgId, current.calendarId);
      if (!calendar) throw new AppointmentNotFoundError();
      calendarId = calendar.row.id;
      const rebooked = current.status === "cancelled" && holds(status);
      const checked = holds(status) && (moved || rebooked || calendar.row.id !== current.calendarId);
      context = { ...context, start, end };
      const blocked = checked
        ? await checkFree(tx, { id: calendar.row.id, rules: calendar.rules }, start, end, by, busy, now.getTime(), current.id)
        : moved
          ? {
              blockedStart: new Date(start - calendar.rules.buffer_before_minutes * MINUTE),
              blockedEnd: new Date(end + calendar.rules.buffer_after_minutes * MINUTE),
            }
          : {};
      const set: Partial<typeof appointments.$inferInsert> = {
        ...blocked,
        calendarId: calendar.row.id,
        agentId,
        startAt: new Date(start),
        endAt: new Date(end),
        status,
        ...(changes.title !== undefined ? { title: changes.title.trim() } : {}),
        ...(changes.customerName !== undefined ? { customerName: trimmed(changes.customerName) } : {}),
        ...(changes.customerNumber !== undefined ? { customerNumber: trimmed(changes.customerNumber) } : {}),
        ...(changes.customerEmail !== undefined ? { customerEmail: trimmed(changes.customerEmail) } : {}),
        ...(changes.notes !== undefined ? { notes: trimmed(changes.notes) } : {}),
      };
      if (status === "cancelled" && current.status !== "cancelled") set.cancelledAt = now;
      if (status !== "cancelled") set.cancelledAt = null;
      changed = Object.entries(set).some(([key, value]) => {
        const before = current[key as keyof AppointmentRow];
        return value instanceof Date && before instanceof Date ? value.getTime() !== before.getTime() : value !== before;
      });
      if (!changed) return current;
      const [updated] = await tx
        .update(appointments)
        .set({ ...set, sequence: current.sequence + 1, updatedAt: now })
        .where(and(eq(appointments.orgId, orgId), eq(appointments.id, id)))
        .returning();
      return updated!;
    });
    if (changed) sync.appointmentChanged(orgId, row.id);
    return row;
  } catch (error) {
    return refused(db, orgId, error, calendarId, context);
  }
}

/** Moves an appointment to [start, end) (same rules by source as a booking). */
export function rescheduleAppointment(db: Db, sync: CalendarSync, orgId: string, id: string, times: SlotTimes, by: AppointmentActor, now: Date = new Date()): Promise<AppointmentRow> {
  return updateAppointment(db, sync, orgId, id, { start: times.start, end: times.end }, by, now);
}

/**
 * Cancels an appointment (status cancelled, cancelled_at); cancelling a cancelled one answers it as it
 * is. A completed or no-show appointment is not cancelled (409).
 */
export function cancelAppointment(db: Db, sync: CalendarSync, orgId: string, id: string, by: AppointmentActor, now: Date = new Date()): Promise<AppointmentRow> {
  return updateAppointment(db, sync, orgId, id, { status: "cancelled" }, by, now);
}

// ---- reading -------------------------------------------------------------------------------------

export async function findAppointment(db: Db, orgId: string, id: string): Promise<AppointmentRow> {
  const row = await orgScope(db, orgId).byId(appointments, id);
  if (!row) throw new AppointmentNotFoundError();
  return row;
}

/** The appointments a call booked (GET /call/{id}'s appointment_ids), oldest first. */
export async function appointmentIdsOfCall(db: Db, orgId: string, callId: string): Promise<string[]> {
  const rows = await db
    .select({ id: appointments.id })
    .from(appointments)
    .where(and(eq(appointments.orgId, orgId), eq(appointments.callId, callId)))
    .orderBy(asc(appointments.createdAt), asc(appointments.id));
  return rows.map((row) => row.id);
}

/** A customer's booked appointments not ended by `from` (one under way counts), soonest first: the agent's reschedule and cancel tools find them by number. */
export async function appointmentsOfCustomer(db: Db, orgId: string, query: { customerNumber: string; from: Date; agentId?: string | null }): Promise<AppointmentRow[]> {
  const filters: SQL[] = [
    eq(appointments.orgId, orgId),
    eq(appointments.customerNumber, query.customerNumber.trim()),
    eq(appointments.status, "booked"),
    gte(appointments.endAt, query.from),
  ];
  if (query.agentId) filters.push(eq(appointments.agentId, query.agentId));
  return db
    .select()
    .from(appointments)
    .where(and(...filters))
    .orderBy(asc(appointments.startAt), asc(appointments.id));
}

/** The API's shape of an appointment, given its calendar's rules and its agent's name. */
export function toAppointmentView(row: AppointmentRow, context: { rules: AvailabilityRules; agentName: string | null }): Appointment {
  return {
    id: row.id,
    title: row.title,
    start: row.startAt.toISOString(),
    end: row.endAt.toISOString(),
    customer_name: row.customerName,
    customer_number: row.customerNumber,
    customer_email: row.customerEmail,
    notes: row.notes,
    status: row.status as AppointmentStatus,
    source: row.source as AppointmentSource,
    agent_id: row.agentId,
    agent_name: context.agentName,
    call_id: row.callId,
    calendar_id: row.calendarId,
    timezone: context.rules.timezone,
    outside_hours: !withinHours(context.rules, row.startAt.getTime(), row.endAt.getTime()),
    synced: row.externalEventId !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The API's shapes of several appointments: their calendars' rules and agents' names read once. */
export async function appointmentViews(db: Db, orgId: string, rows: readonly AppointmentRow[]): Promise<Appointment[]> {
  if (rows.length === 0) return [];
  const agentIds = [...new Set(rows.map((row) => row.agentId).filter((id): id is string => id !== null))];
  const [rules, names] = await Promise.all([
    rulesOfCalendars(db, orgId, rows.map((row) => row.calendarId)),
    agentIds.length > 0
      ? db
          .select({ id: agents.id, name: agents.name })
          .from(agents)
          .where(and(eq(agents.orgId, orgId), inArray(agents.id, agentIds)))
      : Promise.resolve([]),
  ]);
  const nameOf = new Map(names.map((agent) => [agent.id, agent.name]));
  return rows.map((row) => toAppointmentView(row, { rules: rules.get(row.calendarId) ?? fallbackRules, agentName: row.agentId ? (nameOf.get(row.agentId) ?? null) : null }));
}

/** Never used in practice (an appointment's calendar is its organisation's by foreign key); keeps the view total. */
const fallbackRules: AvailabilityRules = {
  timezone: "UTC",
  weekly: [],
  slot_minutes: 30,
  buffer_before_minutes: 0,
  buffer_after_minutes: 0,
  min_notice_minutes: 0,
  max_days_ahead: 1,
  max_per_day: null,
  closed_dates: [],
  date_overrides: [],
};

/** 400 unless startDate..endDate (both included) runs forwards over at most CALENDAR_RANGE_MAX_DAYS days. */
export function checkRange(startDate: string, endDate: string): void {
  const days = dayNumber(endDate) - dayNumber(startDate) + 1;
  if (days < 1) throw invalid("endDate: must be on or after startDate");
  if (days > CALENDAR_RANGE_MAX_DAYS) throw invalid(`endDate: the range may span at most ${CALENDAR_RANGE_MAX_DAYS} days`);
}

export interface AppointmentListQuery {
  page: number;
  limit: number;
  startDate?: string | undefined;
  endDate?: string | undefined;
  status?: AppointmentStatus | undefined;
  agentId?: string | undefined;
  search?: string | undefined;
}

/**
 * GET /appointment/: the organisation's appointments ordered by start, a page at a time. startDate and
 * endDate are dates in the zone of the agentId's calendar (else the organisation's), endDate included;
 * search matches a part of the title, the customer's name or email, or the digits of the number.
 */
export async function listAppointments(db: Db, orgId: string, query: AppointmentListQuery): Promise<{ rows: AppointmentRow[]; total: number; timezone: string }> {
  if (query.startDate && query.endDate) checkRange(query.startDate, query.endDate);
  const { timezone } = await calendarFor(db, orgId, query.agentId ?? null);
  const filters: SQL[] = [];
  if (query.startDate) filters.push(gte(appointments.startAt, new Date(instantOfLocal(timezone, dayNumber(query.startDate) * DAY))));
  if (query.endDate) filters.push(lt(appointments.startAt, new Date(instantOfLocal(timezone, (dayNumber(query.endDate) + 1) * DAY))));
  if (query.status) filters.push(eq(appointments.status, query.status));
  if (query.agentId) filters.push(eq(appointments.agentId, query.agentId));
  const text = query.search?.trim();
  if (text) {
    const pattern = containsPattern(text);
    const parts: SQL[] = [ilike(appointments.title, pattern), ilike(appointments.customerName, pattern), ilike(appointments.customerEmail, pattern)];
    const digits = text.replace(/\D/g, "");
    if (digits.length >= 3 && /^[\d\s()+.-]+$/.test(text)) parts.push(sql`regexp_replace(coalesce(${appointments.customerNumber}, ''), '\\D', '', 'g') like ${`%${digits}%`}`);
    filters.push(or(...parts)!);
  }
  const scope = orgScope(db, orgId);
  const where = filters.length > 0 ? and(...filters) : undefined;
  const [rows, total] = await Promise.all([
    scope.select(appointments, { where, orderBy: [asc(appointments.startAt), asc(appointments.id)], limit: query.limit, offset: (query.page - 1) * query.limit }),
    scope.count(appointments, where),
  ]);
  return { rows, total, timezone };
}
