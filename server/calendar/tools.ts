/**
 * The agent books during the call (issue 14 §3, issue 18): the function tools an agent with
 * `appointment_enable` carries (server/voice/vapi-assistant.ts puts them in the assistant's model.tools,
 * with our webhook as their server) and their handlers, which the webhook's `tool-calls` runs
 * (server/routes/webhooks.ts registers them; server/webhooks/tools.ts answers each tool call once).
 *
 * - check_availability, book_appointment, reschedule_appointment, cancel_appointment (the issue's
 *   minimum contract) and find_appointment (so "my appointment" can be named when a caller has several).
 * - Who asks: the call's agent, in the call's organisation (our call record; for an event about a call we
 *   have no record of, the agent and organisation our assistant's metadata names, checked to belong
 *   together). Bookings go into that agent's calendar (its own, else the organisation's) through the
 *   same core as the console (server/calendar/appointments.ts), so an agent books against the rules a
 *   person sees and never double-books. A booking links to the call (source "agent", call_id).
 * - The caller's appointments: the ones booked from the number they are calling from, or earlier in this
 *   call. A caller can neither see nor move anyone else's, whatever id the model passes.
 * - Times are spoken in the caller's zone (their number's, when it has exactly one; else the calendar's):
 *   server/calendar/tools-answers.ts.
 *
 * Bad arguments answer a ToolCallError naming the argument and what to send instead, which the model
 * can act on; "no" (no open times, taken, nothing to cancel) is a result, said plainly.
 */
import { and, asc, eq, gt, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { E164_PATTERN } from "../../contract/agent";
import { APPOINTMENT_NOTES_MAX_LENGTH, APPOINTMENT_TITLE_MAX_LENGTH, DATE_PATTERN, SLOT_TAKEN_ALTERNATIVES } from "../../contract/calendar-shared";
import { storedConfig } from "../agents/repository";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, appointments } from "../db/schema";
import { ToolCallError, type ToolCallContext, type ToolHandler } from "../webhooks/tools";
import { eventCall } from "../webhooks/vapi-message";
import {
  AppointmentNotFoundError,
  OutsideAvailabilityError,
  SlotTakenError,
  bookAppointment,
  calendarFor,
  cancelAppointment,
  freeSlots,
  rescheduleAppointment,
  type AppointmentRow,
  type ResolvedCalendar,
} from "./appointments";
import { noCalendarSync, type CalendarSync } from "./sync";
import {
  SLOTS_PER_DAY_LISTED,
  appointmentsAnswer,
  bookedAnswer,
  cancelledAnswer,
  daySlotsAnswer,
  movedAnswer,
  nextSlotsAnswer,
  noSlotsAnswer,
  preamble,
  refusedAnswer,
  takenAnswer,
  type Slot,
  type Speaking,
  type SpokenAppointment,
} from "./tools-answers";
import {
  BOOK_APPOINTMENT_TOOL,
  CANCEL_APPOINTMENT_TOOL,
  CHECK_AVAILABILITY_TOOL,
  EXAMPLE_START,
  FIND_APPOINTMENT_TOOL,
  RESCHEDULE_APPOINTMENT_TOOL,
} from "./tools-definitions";
import { addDays, callerZone, isCalendarDate, localDate, localIso, numberZone, spokenDate, spokenTime, startOfLocalDay } from "./spoken-time";

const DAY = 24 * 60 * 60 * 1000;
/** How far check_availability looks for the next days with open times before looking to the horizon. */
const NEXT_DAYS_WINDOW_DAYS = 14;
/** The caller's upcoming appointments listed at most. */
const UPCOMING_LISTED = 10;

// ------------------------------------------------------------------------------------------- arguments

/** An argument the model left out: absent, null or blank. */
const given = (value: unknown): boolean => value !== undefined && value !== null && !(typeof value === "string" && value.trim() === "");

function text(tool: string, args: Record<string, unknown>, field: string, max: number): string | null {
  const value = args[field];
  if (!given(value)) return null;
  if (typeof value !== "string" && typeof value !== "number") throw new ToolCallError(`${tool}: ${field} must be text.`);
  const trimmed = String(value).trim();
  return Array.from(trimmed).length > max ? Array.from(trimmed).slice(0, max).join("") : trimmed;
}

const isoWithOffset = z.iso.datetime({ offset: true });

function instant(tool: string, args: Record<string, unknown>, field: string, required: boolean): Date | null {
  const value = args[field];
  if (!given(value)) {
    if (required) throw new ToolCallError(`${tool} needs ${field}: the exact start of an open time from check_availability, e.g. ${EXAMPLE_START}.`);
    return null;
  }
  if (typeof value !== "string" || !isoWithOffset.safeParse(value.trim()).success) {
    throw new ToolCallError(
      `${tool}: ${field} must be an ISO 8601 time with its offset, exactly as check_availability wrote it (e.g. ${EXAMPLE_START}); got ${JSON.stringify(value)}.`,
    );
  }
  return new Date(value.trim());
}

function date(tool: string, args: Record<string, unknown>, field: string): string | null {
  const value = args[field];
  if (!given(value)) return null;
  const trimmed = typeof value === "string" ? value.trim() : "";
  if (!DATE_PATTERN.test(trimmed) || !isCalendarDate(trimmed)) throw new ToolCallError(`${tool}: ${field} must be a date as YYYY-MM-DD, e.g. 2026-12-01; got ${JSON.stringify(value)}.`);
  return trimmed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function appointmentId(tool: string, args: Record<string, unknown>): string | null {
  const value = args.appointment_id;
  if (!given(value)) return null;
  if (typeof value !== "string" || !UUID.test(value.trim())) {
    throw new ToolCallError(`${tool}: appointment_id must be an appointment's id as find_appointment gives it (a UUID); got ${JSON.stringify(value)}. Leave it out for the caller's next appointment.`);
  }
  return value.trim().toLowerCase();
}

function phoneNumber(tool: string, args: Record<string, unknown>): string | null {
  const value = text(tool, args, "customer_number", 40);
  if (value === null) return null;
  const compact = value.replace(/[\s().-]/g, "");
  if (!E164_PATTERN.test(compact)) throw new ToolCallError(`${tool}: customer_number must be in E.164 form: '+', the country code and the number, e.g. +14155550123. Leave it out to use the number the caller is calling from.`);
  return compact;
}

function email(tool: string, args: Record<string, unknown>): string | null {
  const value = text(tool, args, "customer_email", 254);
  if (value === null) return null;
  if (!z.email().safeParse(value).success) throw new ToolCallError(`${tool}: customer_email must be an email address, e.g. ada@example.com; leave it out if the caller gave none.`);
  return value;
}

// --------------------------------------------------------------------------------------------- handlers

export interface BookingToolOptions {
  db: Db;
  /** The organisation's outside calendars (busy times, written bookings); default none. */
  calendarSync?: CalendarSync;
  /** The clock (tests). */
  now?: () => Date;
}

/** Who is asking: the call's agent in its organisation, and the caller. */
interface Asker {
  orgId: string;
  agentId: string;
  /** Our call id (null: an event about a call we have no record of). */
  callId: string | null;
  customerNumber: string | null;
  customerName: string | null;
}

const NOT_OUR_CALL = "Booking is not available on this call: it is not a call of one of this organisation's agents. Tell the caller you cannot book by phone right now.";
const BOOKING_OFF =
  "Appointment booking is turned off for this agent. Tell the caller you cannot book by phone right now and offer to take a message instead.";

const asSlot = (slot: { start: Date | string; end: Date | string }): Slot => ({ start: new Date(slot.start), end: new Date(slot.end) });
const asSlots = (value: unknown): Slot[] => (Array.isArray(value) ? value.map(asSlot) : []);

const spoken = (row: AppointmentRow): SpokenAppointment => ({ id: row.id, title: row.title, start: row.startAt, end: row.endAt, customerName: row.customerName });

/** The tool registry's handlers for the booking tools (server/routes/webhooks.ts registers them). */
export function bookingToolHandlers(options: BookingToolOptions): Record<string, ToolHandler> {
  const { db } = options;
  const sync = options.calendarSync ?? noCalendarSync;
  const clock = options.now ?? (() => new Date());

  async function askerOf(context: ToolCallContext): Promise<Asker> {
    const ref = eventCall(context.message);
    const call = context.call;
    const orgId = call?.orgId ?? ref.orgId ?? ref.agentOrgId;
    const agentId = call ? call.agentId : ref.agentId;
    if (!orgId || !agentId) throw new ToolCallError(NOT_OUR_CALL);
    // The agent must be this organisation's (metadata naming another organisation's agent books nothing).
    const agent = await orgScope(db, orgId).byId(agents, agentId);
    if (!agent) throw new ToolCallError(NOT_OUR_CALL);
    if (!storedConfig(agent).appointment_enable) throw new ToolCallError(BOOKING_OFF);
    return {
      orgId,
      agentId,
      // Our call id only when we have its record (the metadata's may name a call that is gone).
      callId: call?.id ?? null,
      customerNumber: call?.customerNumber ?? ref.customerNumber,
      customerName: call?.customerName ?? ref.customerName,
    };
  }

  async function speakingFor(asker: Asker, now: Date) {
    const calendar = await calendarFor(db, asker.orgId, asker.agentId);
    const { zone, whose } = callerZone(asker.customerNumber, calendar.timezone);
    return { calendar, speaking: { zone, whose, now } satisfies Speaking };
  }

  /** Free slots starting in [from, to) (and after `after`), in order. */
  async function slotsBetween(asker: Asker, from: Date, to: Date, now: Date, after: Date | null = null): Promise<Slot[]> {
    if (to <= from) return [];
    const found = await freeSlots(db, sync, asker.orgId, { from, to, agentId: asker.agentId }, now);
    return found.slots
      .map(asSlot)
      .filter((slot) => slot.start >= from && slot.start < to && (!after || slot.start > after))
      .sort((a, b) => a.start.getTime() - b.start.getTime());
  }

  /** The caller's appointments still to come: booked from their number or earlier in this call, soonest first. */
  async function upcomingOf(asker: Asker, now: Date): Promise<AppointmentRow[]> {
    const whose: SQL[] = [];
    if (asker.customerNumber) whose.push(eq(appointments.customerNumber, asker.customerNumber));
    if (asker.callId) whose.push(eq(appointments.callId, asker.callId));
    if (whose.length === 0) return [];
    return orgScope(db, asker.orgId).select(appointments, {
      where: and(eq(appointments.status, "booked"), gt(appointments.startAt, now), or(...whose)),
      orderBy: [asc(appointments.startAt), asc(appointments.id)],
      limit: UPCOMING_LISTED,
    });
  }

  /** One of the caller's own booked appointments, or null (someone else's is not found either). */
  async function ownAppointment(asker: Asker, id: string): Promise<AppointmentRow | null> {
    const row = await orgScope(db, asker.orgId).byId(appointments, id);
    if (!row) return null;
    const theirs = (asker.customerNumber !== null && row.customerNumber === asker.customerNumber) || (asker.callId !== null && row.callId === asker.callId);
    return theirs ? row : null;
  }

  /**
   * The appointment a reschedule or cancel is about: the one named, else the caller's only upcoming one.
   * Answers a string instead when there is nothing to act on (none, or several to choose from).
   */
  async function targetOf(tool: string, asker: Asker, id: string | null, speaking: Speaking): Promise<AppointmentRow | string> {
    if (id) {
      const row = await ownAppointment(asker, id);
      if (!row) throw new ToolCallError(`${tool}: no appointment of this caller has the id ${id}. Call find_appointment to list theirs.`);
      const when = spokenTime(row.startAt, speaking.zone, speaking.now);
      if (row.status !== "booked") return `${preamble(speaking)}\nThat appointment (${when}) is ${row.status === "cancelled" ? "already cancelled" : `marked ${row.status.replace("_", "-")}`}: nothing to change.`;
      if (row.startAt <= speaking.now) return `${preamble(speaking)}\nThat appointment (${when}) has already begun: nothing to change.`;
      return row;
    }
    const upcoming = await upcomingOf(asker, speaking.now);
    if (upcoming.length === 1) return upcoming[0]!;
    if (upcoming.length === 0) return appointmentsAnswer(speaking, [], null);
    return appointmentsAnswer(speaking, upcoming.map(spoken), `Ask the caller which one they mean, then call ${tool} again with its appointment_id.`);
  }

  const by = (asker: Asker, context: ToolCallContext) => ({ source: "agent" as const, callId: asker.callId ?? undefined, toolCallId: context.toolCallId });

  /** A booking or move the core refused: taken, or outside the rules (both answer alternatives). */
  function refusal(error: unknown, speaking: Speaking): string | null {
    if (error instanceof SlotTakenError) return takenAnswer(speaking, asSlots(error.slots).slice(0, SLOT_TAKEN_ALTERNATIVES));
    if (error instanceof OutsideAvailabilityError) return refusedAnswer(speaking, error.message, asSlots(error.slots).slice(0, SLOT_TAKEN_ALTERNATIVES));
    return null;
  }

  return {
    async [CHECK_AVAILABILITY_TOOL.name](args, context) {
      const tool = CHECK_AVAILABILITY_TOOL.name;
      const day = date(tool, args, "date");
      const after = instant(tool, args, "after", false);
      const asker = await askerOf(context);
      const now = clock();
      // The calendar's rules are read only when needed (the caller's zone unknown, or no open times to
      // explain): the slots themselves already keep to them, and every read costs the waiting caller.
      let rules: Promise<ResolvedCalendar> | null = null;
      const calendar = () => (rules ??= calendarFor(db, asker.orgId, asker.agentId));
      const ownZone = numberZone(asker.customerNumber);
      const speaking: Speaking = ownZone ? { zone: ownZone, whose: "caller", now } : { zone: (await calendar()).timezone, whose: "calendar", now };
      const { zone } = speaking;
      const horizon = async () => new Date(now.getTime() + (await calendar()).max_days_ahead * DAY);

      if (!day) {
        const from = after && after > now ? after : now;
        const soon = await slotsBetween(asker, from, new Date(from.getTime() + NEXT_DAYS_WINDOW_DAYS * DAY), now, after);
        if (soon.length > 0) return nextSlotsAnswer(speaking, soon, (await calendar()).max_days_ahead);
        const later = await slotsBetween(asker, new Date(from.getTime() + NEXT_DAYS_WINDOW_DAYS * DAY), await horizon(), now, after);
        return nextSlotsAnswer(speaking, later, (await calendar()).max_days_ahead);
      }

      const today = localDate(now, zone);
      if (day < today) {
        return `${preamble(speaking)}\n${spokenDate(day, zone, now)} has already passed. Ask the caller for a day from today on.`;
      }
      const dayStart = startOfLocalDay(day, zone);
      const dayEnd = startOfLocalDay(addDays(day, 1), zone);
      const found = await slotsBetween(asker, dayStart, dayEnd, now, after);
      if (found.length > 0) return daySlotsAnswer(speaking, day, found.slice(0, SLOTS_PER_DAY_LISTED), found.length - SLOTS_PER_DAY_LISTED, after);

      const { max_days_ahead: maxDaysAhead } = await calendar();
      const lastBookable = localDate(await horizon(), zone);
      const reason =
        day > lastBookable
          ? `it is further ahead than bookings can be made (up to ${maxDaysAhead} days ahead, the last day being ${spokenDate(lastBookable, zone, now)}).`
          : after
            ? `none after ${localIso(after, zone)}.`
            : null;
      const next = day > lastBookable ? [] : await slotsBetween(asker, dayEnd, new Date(dayEnd.getTime() + NEXT_DAYS_WINDOW_DAYS * DAY), now);
      return noSlotsAnswer(speaking, day, next, reason, maxDaysAhead);
    },

    async [BOOK_APPOINTMENT_TOOL.name](args, context) {
      const tool = BOOK_APPOINTMENT_TOOL.name;
      const start = instant(tool, args, "start", true)!;
      const name = text(tool, args, "customer_name", 200);
      const title = text(tool, args, "title", APPOINTMENT_TITLE_MAX_LENGTH);
      const number = phoneNumber(tool, args);
      const mail = email(tool, args);
      const notes = text(tool, args, "notes", APPOINTMENT_NOTES_MAX_LENGTH);
      const asker = await askerOf(context);
      const customerName = name ?? asker.customerName;
      if (!customerName) throw new ToolCallError(`${tool} needs customer_name: ask the caller for their name first.`);
      const now = clock();
      const { calendar, speaking } = await speakingFor(asker, now);
      if (start <= now) throw new ToolCallError(`${tool}: ${localIso(start, speaking.zone)} has already passed. Call check_availability for open times from now on.`);
      const end = new Date(start.getTime() + calendar.slot_minutes * 60_000);
      try {
        const row = await bookAppointment(
          db,
          sync,
          asker.orgId,
          {
            title: title ?? `Appointment with ${customerName}`,
            start,
            end,
            customerName,
            customerNumber: number ?? asker.customerNumber ?? undefined,
            customerEmail: mail ?? undefined,
            notes: notes ?? undefined,
            agentId: asker.agentId,
          },
          by(asker, context),
          now,
        );
        return bookedAnswer(speaking, spoken(row));
      } catch (error) {
        const answer = refusal(error, speaking);
        if (answer) return answer;
        throw error;
      }
    },

    async [RESCHEDULE_APPOINTMENT_TOOL.name](args, context) {
      const tool = RESCHEDULE_APPOINTMENT_TOOL.name;
      const start = instant(tool, args, "start", true)!;
      const id = appointmentId(tool, args);
      const asker = await askerOf(context);
      const now = clock();
      const { speaking } = await speakingFor(asker, now);
      if (start <= now) throw new ToolCallError(`${tool}: ${localIso(start, speaking.zone)} has already passed. Call check_availability for open times from now on.`);
      const target = await targetOf(tool, asker, id, speaking);
      if (typeof target === "string") return target;
      const end = new Date(start.getTime() + (target.endAt.getTime() - target.startAt.getTime()));
      try {
        const row = await rescheduleAppointment(db, sync, asker.orgId, target.id, { start, end }, by(asker, context), now);
        return movedAnswer(speaking, spoken(target), spoken(row));
      } catch (error) {
        if (error instanceof AppointmentNotFoundError) throw new ToolCallError(`${tool}: that appointment no longer exists. Call find_appointment to list the caller's appointments.`);
        const answer = refusal(error, speaking);
        if (answer) return answer;
        throw error;
      }
    },

    async [CANCEL_APPOINTMENT_TOOL.name](args, context) {
      const tool = CANCEL_APPOINTMENT_TOOL.name;
      const id = appointmentId(tool, args);
      const asker = await askerOf(context);
      const { speaking } = await speakingFor(asker, clock());
      const target = await targetOf(tool, asker, id, speaking);
      if (typeof target === "string") return target;
      try {
        await cancelAppointment(db, sync, asker.orgId, target.id, by(asker, context));
      } catch (error) {
        if (error instanceof AppointmentNotFoundError) throw new ToolCallError(`${tool}: that appointment no longer exists. Call find_appointment to list the caller's appointments.`);
        throw error;
      }
      return cancelledAnswer(speaking, spoken(target));
    },

    async [FIND_APPOINTMENT_TOOL.name](_args, context) {
      const asker = await askerOf(context);
      const { speaking } = await speakingFor(asker, clock());
      return appointmentsAnswer(speaking, (await upcomingOf(asker, speaking.now)).map(spoken), null);
    },
  };
}
