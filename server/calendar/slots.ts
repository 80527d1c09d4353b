/**
 * The slot engine (issue 14 §1): a calendar's free slots from its rules, pure arithmetic on epoch
 * milliseconds (no database, no clock: `now` is given). The agent's tools wait on it during a call, so it
 * reads zone offsets from the cache contract/campaign-schedule.ts keeps (Intl once per zone and UTC day)
 * and does no Intl work per slot.
 *
 * What a slot is:
 * - Each date (in the calendar's zone) has its ranges of hours: the date override's when there is one
 *   (`ranges: []` closes the date), else the weekday's; a closed date has none.
 * - A range [a, b) of date D holds the instants whose local wall-clock time is on D between a and b,
 *   each wall-clock time once: a time skipped by daylight saving holds nothing (the range is cut there),
 *   and the second pass of a repeated hour is left out (never doubled). That is at most two pieces of
 *   real time per range.
 * - Slots are `slot_minutes` long (or the asked length), start on a piece's start and step by
 *   `slot_minutes` of real time, and end within the piece.
 * - A slot is free when [start − buffer_before, end + buffer_after) overlaps no taken interval (the
 *   appointments' blocked intervals, which hold their own buffers, and outside busy times: the same test
 *   as the database's exclusion constraint), it starts at or after now + min_notice, its date is at most
 *   max_days_ahead dates after now's date, and its date holds fewer than max_per_day appointments.
 *
 * Results are sorted by start, without duplicates (ranges of one day never overlap: the contract refuses it).
 */
import { WEEKDAYS } from "../../contract/calendar-shared";
import { zoneOffsetAt, zoneOffsetChanges } from "../../contract/campaign-schedule";

export interface HoursRange {
  start: string;
  end: string;
}

/** A calendar's rules: contract availabilityInputSchema's shape, with the zone. */
export interface AvailabilityRules {
  timezone: string;
  weekly: readonly { day: string; start: string; end: string }[];
  slot_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  min_notice_minutes: number;
  max_days_ahead: number;
  max_per_day: number | null;
  closed_dates: readonly string[];
  date_overrides: readonly { date: string; ranges: readonly HoursRange[] }[];
}

/** [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

// ---- local days and times ------------------------------------------------------------------------

/** Days since 1970-01-01 of a YYYY-MM-DD date. */
export const dayNumber = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY;
/** The YYYY-MM-DD of a day number. */
export const dateOfDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
/** 1970-01-01 was a Thursday (index 3 from Monday). */
export const weekdayOfDay = (day: number) => WEEKDAYS[(((day + 3) % 7) + 7) % 7]!;

/** The local date (as a day number) of `instant` in `zone`. */
export function localDayOf(zone: string, instant: number): number {
  return Math.floor((instant + zoneOffsetAt(zone, instant)) / DAY);
}

/** The local date YYYY-MM-DD of `instant` in `zone`. */
export const localDateOf = (zone: string, instant: number) => dateOfDay(localDayOf(zone, instant));

/**
 * The first instant whose local wall-clock time in `zone` is `local` (written as if it were UTC) or
 * later: that instant when the wall-clock time exists (its first pass when it is repeated), the end of
 * the gap when daylight saving skips it. Offsets change at most once within 48 hours (every tzdata zone).
 */
export function instantOfLocal(zone: string, local: number): number {
  const early = zoneOffsetAt(zone, local - DAY);
  const late = zoneOffsetAt(zone, local + DAY);
  let first = Number.POSITIVE_INFINITY;
  for (const offset of early === late ? [early] : [early, late]) {
    const instant = local - offset;
    if (instant < first && zoneOffsetAt(zone, instant) === offset) first = instant;
  }
  if (first !== Number.POSITIVE_INFINITY) return first;
  // Skipped: the gap ends at the offset change between the two candidate instants.
  const low = local - Math.max(early, late);
  const high = local - Math.min(early, late);
  return zoneOffsetChanges(zone, low - 1, high)[0] ?? high;
}

/** The first instant of a local date (YYYY-MM-DD) in `zone`. */
export const zonedDayStart = (zone: string, date: string) => instantOfLocal(zone, dayNumber(date) * DAY);

// ---- ranges of hours -----------------------------------------------------------------------------

interface ParsedRules {
  closed: ReadonlySet<number>;
  overrides: ReadonlyMap<number, readonly { start: number; end: number }[]>;
  weekly: Readonly<Record<string, readonly { start: number; end: number }[]>>;
}

const parsedRules = new WeakMap<AvailabilityRules, ParsedRules>();

function parse(rules: AvailabilityRules): ParsedRules {
  let parsed = parsedRules.get(rules);
  if (!parsed) {
    const toMinutes = (ranges: readonly HoursRange[]) =>
      ranges.map((range) => ({ start: minutesOf(range.start), end: minutesOf(range.end) })).sort((a, b) => a.start - b.start);
    const weekly: Record<string, { start: number; end: number }[]> = {};
    for (const day of WEEKDAYS) weekly[day] = toMinutes(rules.weekly.filter((range) => range.day === day));
    parsed = {
      closed: new Set(rules.closed_dates.map(dayNumber)),
      overrides: new Map(rules.date_overrides.map((override) => [dayNumber(override.date), toMinutes(override.ranges)])),
      weekly,
    };
    parsedRules.set(rules, parsed);
  }
  return parsed;
}

/** The ranges of hours (minutes after local midnight) of day `day`: none on a closed date. */
function rangesOf(parsed: ParsedRules, day: number): readonly { start: number; end: number }[] {
  if (parsed.closed.has(day)) return [];
  return parsed.overrides.get(day) ?? parsed.weekly[weekdayOfDay(day)] ?? [];
}

/** The real-time pieces of range [startMinute, endMinute) on local day `day`: without skipped or repeated wall-clock time. */
function rangePieces(zone: string, day: number, startMinute: number, endMinute: number, into: Interval[]): void {
  const start = instantOfLocal(zone, day * DAY + startMinute * MINUTE);
  const end = instantOfLocal(zone, day * DAY + endMinute * MINUTE);
  if (end <= start) return;
  let cursor = start;
  for (const change of zoneOffsetChanges(zone, start - DAY, end)) {
    const before = zoneOffsetAt(zone, change - MINUTE);
    const after = zoneOffsetAt(zone, change);
    if (after >= before) continue; // clocks went forward: nothing repeats
    // Clocks went back by before − after: [change, change + that) repeats wall-clock time already passed.
    if (change > cursor) into.push({ start: cursor, end: Math.min(change, end) });
    cursor = Math.max(cursor, change + (before - after));
  }
  if (cursor < end) into.push({ start: cursor, end });
}

/** Every piece of every range of local day `day`, in order. */
function dayPieces(rules: AvailabilityRules, parsed: ParsedRules, day: number): Interval[] {
  const pieces: Interval[] = [];
  for (const range of rangesOf(parsed, day)) rangePieces(rules.timezone, day, range.start, range.end, pieces);
  return pieces;
}

// ---- taken time ----------------------------------------------------------------------------------

/** Taken intervals sorted by start with the running maximum of their ends: any overlap in O(log n). */
export class TakenIndex {
  private readonly starts: number[];
  private readonly maxEnds: number[];

  constructor(taken: readonly Interval[]) {
    const sorted = taken.filter((interval) => interval.end > interval.start).sort((a, b) => a.start - b.start);
    this.starts = sorted.map((interval) => interval.start);
    this.maxEnds = [];
    let max = Number.NEGATIVE_INFINITY;
    for (const interval of sorted) this.maxEnds.push((max = Math.max(max, interval.end)));
  }

  /** Whether [start, end) overlaps a taken interval. */
  overlaps(start: number, end: number): boolean {
    // The last interval starting before `end`; the largest end up to it must pass `start`.
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle]! < end) low = middle + 1;
      else high = middle;
    }
    return low > 0 && this.maxEnds[low - 1]! > start;
  }
}

/** How many appointments start on each local day (max_per_day). */
function countPerDay(zone: string, starts: readonly number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const start of starts) {
    const day = localDayOf(zone, start);
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  return counts;
}

// ---- the contract --------------------------------------------------------------------------------

export interface SlotQuery {
  /** Slots starting in [from, to). */
  from: number;
  to: number;
  now: number;
  /** Blocked intervals of the calendar's appointments (buffers included) and outside busy times. */
  taken?: readonly Interval[];
  /** Starts of the calendar's appointments that hold their time (for max_per_day). */
  bookedStarts?: readonly number[];
  /** The slots' length (default slot_minutes): the 409's alternatives keep the asked length. */
  lengthMinutes?: number;
  /** Stop after this many slots (the earliest ones). */
  limit?: number;
}

/** The free slots starting in [from, to), sorted by start. */
export function computeSlots(rules: AvailabilityRules, query: SlotQuery): Interval[] {
  const zone = rules.timezone;
  const parsed = parse(rules);
  const step = rules.slot_minutes * MINUTE;
  const length = (query.lengthMinutes ?? rules.slot_minutes) * MINUTE;
  const before = rules.buffer_before_minutes * MINUTE;
  const after = rules.buffer_after_minutes * MINUTE;
  const earliest = Math.max(query.from, query.now + rules.min_notice_minutes * MINUTE);
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const slots: Interval[] = [];
  if (earliest >= query.to || limit <= 0 || length <= 0 || step <= 0) return slots;
  const taken = new TakenIndex(query.taken ?? []);
  const perDay = rules.max_per_day === null ? null : countPerDay(zone, query.bookedStarts ?? []);
  const lastDay = Math.min(localDayOf(zone, query.to) + 1, localDayOf(zone, query.now) + rules.max_days_ahead);
  for (let day = localDayOf(zone, earliest) - 1; day <= lastDay; day++) {
    if (perDay && (perDay.get(day) ?? 0) >= rules.max_per_day!) continue;
    for (const piece of dayPieces(rules, parsed, day)) {
      let start = piece.start;
      if (start < earliest) start += Math.ceil((earliest - start) / step) * step;
      for (; start + length <= piece.end && start < query.to; start += step) {
        if (taken.overlaps(start - before, start + length + after)) continue;
        slots.push({ start, end: start + length });
        if (slots.length >= limit) return slots;
      }
    }
  }
  return slots;
}

/** Why an agent may not book [start, end) under the rules (overlaps aside), or null when it may. */
export type RuleProblem = "closed" | "outside_hours" | "too_soon" | "too_far" | "day_full";

export function ruleProblem(rules: AvailabilityRules, start: number, end: number, now: number, bookedStarts: readonly number[] = []): RuleProblem | null {
  const zone = rules.timezone;
  const parsed = parse(rules);
  const day = localDayOf(zone, start);
  if (rangesOf(parsed, day).length === 0) return "closed";
  const length = end - start;
  const step = rules.slot_minutes * MINUTE;
  const onGrid = dayPieces(rules, parsed, day).some((piece) => start >= piece.start && end <= piece.end && (start - piece.start) % step === 0);
  if (!onGrid) return "outside_hours";
  if (length <= 0) return "outside_hours";
  if (start < now + rules.min_notice_minutes * MINUTE) return "too_soon";
  if (day > localDayOf(zone, now) + rules.max_days_ahead) return "too_far";
  if (rules.max_per_day !== null && (countPerDay(zone, bookedStarts).get(day) ?? 0) >= rules.max_per_day) return "day_full";
  return null;
}

/** Whether [start, end) lies within one range of hours of an open date (an appointment's outside_hours is the opposite). */
export function withinHours(rules: AvailabilityRules, start: number, end: number): boolean {
  const parsed = parse(rules);
  const day = localDayOf(rules.timezone, start);
  return dayPieces(rules, parsed, day).some((piece) => start >= piece.start && end <= piece.end);
}
