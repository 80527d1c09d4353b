/**
 * Calendars (issue 14 §1): the organisation's availability rules (agent_id null) and agents' own.
 *
 * - Until an admin saves rules, a calendar has DEFAULT_AVAILABILITY in the organisation's time zone
 *   (organizations.timezone, read now: a later change of the organisation's zone moves unsaved calendars
 *   with it). A row may exist before that (saved=false), made for a first booking so the booking has a
 *   row to lock and to point at.
 * - An agent without rules of its own uses the organisation's (GET answers them with inherited: true);
 *   its appointments go to the organisation's calendar.
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { DEFAULT_AVAILABILITY, type Availability, type AvailabilityInput } from "../../contract/calendar";
import type { Db } from "../db/client";
import { calendars, organizations } from "../db/schema";
import type { AvailabilityRules } from "./slots";

export type CalendarRow = typeof calendars.$inferSelect;

/** A calendar's rules as they apply, with where they come from. */
export interface ResolvedCalendar extends AvailabilityRules {
  /** The calendar's row (null while none exists: the organisation's defaults, never booked in). */
  id: string | null;
  /** The agent whose own calendar this is (null: the organisation's). */
  agent_id: string | null;
  /** False while these are the defaults. */
  saved: boolean;
  /** Asked for an agent without rules of its own: these are the organisation's. */
  inherited: boolean;
  updated_at: Date | null;
}

/** The defaults in a zone. */
export function defaultRules(timezone: string): AvailabilityRules {
  return {
    timezone,
    weekly: DEFAULT_AVAILABILITY.weekly.map((range) => ({ ...range })),
    slot_minutes: DEFAULT_AVAILABILITY.slot_minutes,
    buffer_before_minutes: DEFAULT_AVAILABILITY.buffer_before_minutes,
    buffer_after_minutes: DEFAULT_AVAILABILITY.buffer_after_minutes,
    min_notice_minutes: DEFAULT_AVAILABILITY.min_notice_minutes,
    max_days_ahead: DEFAULT_AVAILABILITY.max_days_ahead,
    max_per_day: DEFAULT_AVAILABILITY.max_per_day,
    closed_dates: [],
    date_overrides: [],
  };
}

/** A row's rules; an unsaved row holds the defaults, in the organisation's current zone. */
export function rulesOfRow(row: CalendarRow, orgTimezone: string): AvailabilityRules {
  if (!row.saved) return defaultRules(orgTimezone);
  return {
    timezone: row.timezone,
    weekly: row.weekly,
    slot_minutes: row.slotMinutes,
    buffer_before_minutes: row.bufferBeforeMinutes,
    buffer_after_minutes: row.bufferAfterMinutes,
    min_notice_minutes: row.minNoticeMinutes,
    max_days_ahead: row.maxDaysAhead,
    max_per_day: row.maxPerDay,
    closed_dates: row.closedDates,
    date_overrides: row.dateOverrides,
  };
}

const resolved = (row: CalendarRow | null, orgTimezone: string, inherited: boolean): ResolvedCalendar => ({
  ...(row ? rulesOfRow(row, orgTimezone) : defaultRules(orgTimezone)),
  id: row?.id ?? null,
  agent_id: row?.agentId ?? null,
  saved: row?.saved ?? false,
  inherited,
  updated_at: row?.saved ? row.updatedAt : null,
});

/**
 * The calendar that applies to `agentId` (its own, else the organisation's) or, for null, the
 * organisation's: one query. The caller checks that the agent is the organisation's.
 */
export async function calendarFor(db: Db, orgId: string, agentId: string | null): Promise<ResolvedCalendar> {
  const which = agentId ? or(isNull(calendars.agentId), eq(calendars.agentId, agentId)) : isNull(calendars.agentId);
  const rows = await db
    .select({ orgTimezone: organizations.timezone, calendar: calendars })
    .from(organizations)
    .leftJoin(calendars, and(eq(calendars.orgId, organizations.id), which))
    .where(eq(organizations.id, orgId));
  const orgTimezone = rows[0]?.orgTimezone ?? "UTC";
  const own = agentId ? rows.find((row) => row.calendar?.agentId === agentId)?.calendar : undefined;
  if (own) return resolved(own, orgTimezone, false);
  const organisation = rows.find((row) => row.calendar && row.calendar.agentId === null)?.calendar ?? null;
  return resolved(organisation, orgTimezone, agentId !== null);
}

/** The organisation's zone (UTC when unknown). */
export async function organizationTimezone(db: Db, orgId: string): Promise<string> {
  const [row] = await db.select({ timezone: organizations.timezone }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row?.timezone ?? "UTC";
}

/** The rules of the calendars `ids` (for appointments' views): id → rules. */
export async function rulesOfCalendars(db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, AvailabilityRules>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db
    .select({ orgTimezone: organizations.timezone, calendar: calendars })
    .from(calendars)
    .innerJoin(organizations, eq(organizations.id, calendars.orgId))
    .where(and(eq(calendars.orgId, orgId), inArray(calendars.id, unique)));
  return new Map(rows.map((row) => [row.calendar.id, rulesOfRow(row.calendar, row.orgTimezone)]));
}

/**
 * The row an appointment of `agentId` is booked in, locked (`FOR UPDATE`) for the booking transaction:
 * the agent's own calendar when it has one, else the organisation's, made with the defaults
 * (saved=false) when it does not exist yet. Bookings of one calendar take turns on this lock, so the
 * checks before an insert (max_per_day, the free slot) hold until it commits.
 */
export async function lockBookingCalendar(tx: Db, orgId: string, agentId: string | null): Promise<{ row: CalendarRow; rules: AvailabilityRules }> {
  const orgTimezone = await organizationTimezone(tx, orgId);
  if (agentId) {
    const [own] = await tx
      .select()
      .from(calendars)
      .where(and(eq(calendars.orgId, orgId), eq(calendars.agentId, agentId)))
      .for("update");
    if (own) return { row: own, rules: rulesOfRow(own, orgTimezone) };
  }
  let [row] = await tx
    .select()
    .from(calendars)
    .where(and(eq(calendars.orgId, orgId), isNull(calendars.agentId)))
    .for("update");
  if (!row) {
    const defaults = defaultRules(orgTimezone);
    await tx
      .insert(calendars)
      .values({ id: randomUUID(), orgId, agentId: null, ...rowColumns(defaults), saved: false })
      .onConflictDoNothing({ target: calendars.orgId, where: isNull(calendars.agentId) });
    [row] = await tx
      .select()
      .from(calendars)
      .where(and(eq(calendars.orgId, orgId), isNull(calendars.agentId)))
      .for("update");
  }
  return { row: row!, rules: rulesOfRow(row!, orgTimezone) };
}

/** Locks the calendar `id` (an appointment's own, when it is moved or booked again). */
export async function lockCalendar(tx: Db, orgId: string, id: string): Promise<{ row: CalendarRow; rules: AvailabilityRules } | null> {
  const [row] = await tx
    .select()
    .from(calendars)
    .where(and(eq(calendars.orgId, orgId), eq(calendars.id, id)))
    .for("update");
  if (!row) return null;
  return { row, rules: rulesOfRow(row, await organizationTimezone(tx, orgId)) };
}

/** The columns of a calendar row holding `rules` (also the demo seed's). */
export function rowColumns(rules: AvailabilityRules) {
  return {
    timezone: rules.timezone,
    weekly: rules.weekly.map((range) => ({ day: range.day, start: range.start, end: range.end })),
    slotMinutes: rules.slot_minutes,
    bufferBeforeMinutes: rules.buffer_before_minutes,
    bufferAfterMinutes: rules.buffer_after_minutes,
    minNoticeMinutes: rules.min_notice_minutes,
    maxDaysAhead: rules.max_days_ahead,
    maxPerDay: rules.max_per_day,
    closedDates: [...rules.closed_dates],
    dateOverrides: rules.date_overrides.map((override) => ({ date: override.date, ranges: override.ranges.map((range) => ({ start: range.start, end: range.end })) })),
  };
}

/**
 * Saves the organisation's rules (agent_id absent or null) or an agent's own: one upsert on the
 * calendar's unique index. Appointments already booked keep their blocked intervals (the buffers they
 * were booked with). The caller checks that the agent is the organisation's.
 */
export async function saveAvailability(db: Db, orgId: string, input: AvailabilityInput): Promise<ResolvedCalendar> {
  const agentId = input.agent_id ?? null;
  const columns = { ...rowColumns({ ...input, max_per_day: input.max_per_day ?? null }), saved: true };
  const insert = db.insert(calendars).values({ id: randomUUID(), orgId, agentId, ...columns });
  const set = { ...columns, updatedAt: sql`now()` };
  const [row] = agentId
    ? await insert.onConflictDoUpdate({ target: [calendars.orgId, calendars.agentId], targetWhere: sql`${calendars.agentId} is not null`, set }).returning()
    : await insert.onConflictDoUpdate({ target: calendars.orgId, targetWhere: isNull(calendars.agentId), set }).returning();
  return resolved(row!, input.timezone, false);
}

/** GET /availability/'s answer. */
export function toAvailabilityView(calendar: ResolvedCalendar): Availability {
  return {
    id: calendar.saved ? calendar.id : null,
    agent_id: calendar.agent_id,
    timezone: calendar.timezone,
    weekly: calendar.weekly.map((range) => ({ day: range.day as Availability["weekly"][number]["day"], start: range.start, end: range.end })),
    slot_minutes: calendar.slot_minutes,
    buffer_before_minutes: calendar.buffer_before_minutes,
    buffer_after_minutes: calendar.buffer_after_minutes,
    min_notice_minutes: calendar.min_notice_minutes,
    max_days_ahead: calendar.max_days_ahead,
    max_per_day: calendar.max_per_day,
    closed_dates: [...calendar.closed_dates],
    date_overrides: calendar.date_overrides.map((override) => ({ date: override.date, ranges: override.ranges.map((range) => ({ start: range.start, end: range.end })) })),
    is_default: !calendar.saved,
    inherited: calendar.inherited,
    updated_at: calendar.updated_at?.toISOString() ?? null,
  };
}
