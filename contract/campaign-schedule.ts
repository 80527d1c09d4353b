/**
 * Calling windows in a contact's own local time (issue 13 §2). No zod, no date library, no Node API:
 * Intl only (the console imports this file to preview windows).
 *
 * - A window {days, start, end} holds an instant when, in a zone, the instant's local weekday is one of
 *   `days` and its local wall-clock time t satisfies start <= t < end ("24:00" = end of the day).
 * - A contact with several zones (a number that may be in several) is inside only when the instant is
 *   inside a window in every one of its zones.
 * - Daylight saving: local wall-clock time is the instant plus the zone's offset at that instant, so a
 *   window starting in a skipped hour (02:30 on a spring-forward night) opens at the first instant after
 *   the gap, and a repeated hour is inside for both of its passes.
 *
 * How it is fast: a zone's UTC offset is read from Intl once per UTC day (and the instant of a change
 * found by bisection to the minute) and cached, so after the first call per zone and day everything is
 * arithmetic. nextOpening checks only the instants where the intersection can begin: `from`, every
 * instant whose local time is a window start in some zone (both passes of a repeated hour), and every
 * offset change. Assumes what every zone in tzdata satisfies: offsets change on whole minutes and at most
 * once within 48 hours.
 */
import { WEEKDAYS, type Weekday } from "./campaign-shared";

export interface WindowSpec {
  days: readonly Weekday[] | readonly string[];
  start: string;
  end: string;
}

/** How far ahead nextOpening looks (a schedule with any window opens within a week in every zone). */
export const NEXT_OPENING_HORIZON_MS = 8 * 24 * 60 * 60 * 1000;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

// ---- offsets -------------------------------------------------------------------------------------

interface ZoneOffsets {
  format: Intl.DateTimeFormat;
  /** UTC day number → the zone's offset (ms) at that day's 00:00 UTC. */
  dayStart: Map<number, number>;
  /** UTC day number → the instant within that day at which the offset changes. */
  change: Map<number, number>;
}

/** Per-zone caches stay small: a few entries per zone per day of use; reset if something queries years. */
const ZONE_CACHE_MAX_DAYS = 4096;
const zoneOffsets = new Map<string, ZoneOffsets>();

function zoneOf(zone: string): ZoneOffsets {
  let found = zoneOffsets.get(zone);
  if (!found) {
    // Throws RangeError for a zone Intl does not know, as before.
    const format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    found = { format, dayStart: new Map(), change: new Map() };
    zoneOffsets.set(zone, found);
  }
  return found;
}

/** The zone's offset at `instant` straight from Intl (to the second). */
function intlOffset(zone: ZoneOffsets, instant: number): number {
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of zone.format.formatToParts(instant)) {
    switch (part.type) {
      case "year":
        year = Number(part.value);
        break;
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value) % 24;
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
    }
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(instant / 1000) * 1000;
}

function dayStartOffset(zone: ZoneOffsets, utcDay: number): number {
  let offset = zone.dayStart.get(utcDay);
  if (offset === undefined) {
    if (zone.dayStart.size >= ZONE_CACHE_MAX_DAYS) {
      zone.dayStart.clear();
      zone.change.clear();
    }
    offset = intlOffset(zone, utcDay * DAY);
    zone.dayStart.set(utcDay, offset);
  }
  return offset;
}

/** The first whole minute of UTC day `utcDay` with the next day's offset (the day's offset changes). */
function changeInstant(zone: ZoneOffsets, utcDay: number, before: number): number {
  let instant = zone.change.get(utcDay);
  if (instant === undefined) {
    let low = utcDay * DAY; // has `before`
    let high = low + DAY; // has the other offset
    while (high - low > MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (intlOffset(zone, middle) === before) low = middle;
      else high = middle;
    }
    instant = high;
    zone.change.set(utcDay, instant);
  }
  return instant;
}

/** The zone's UTC offset (ms, local minus UTC) at `instant`. */
function offsetAt(zone: ZoneOffsets, instant: number): number {
  const utcDay = Math.floor(instant / DAY);
  const before = dayStartOffset(zone, utcDay);
  const after = dayStartOffset(zone, utcDay + 1);
  if (before === after) return before;
  return instant < changeInstant(zone, utcDay, before) ? before : after;
}

/** The instants in (after, upTo] at which the zone's offset changes, in order. */
function changesBetween(zone: ZoneOffsets, after: number, upTo: number, into: number[]): void {
  for (let utcDay = Math.floor(after / DAY); utcDay <= Math.floor(upTo / DAY); utcDay++) {
    const before = dayStartOffset(zone, utcDay);
    if (before === dayStartOffset(zone, utcDay + 1)) continue;
    const instant = changeInstant(zone, utcDay, before);
    if (instant > after && instant <= upTo) into.push(instant);
  }
}

/**
 * Every instant in (after, upTo] whose local wall-clock time in the zone is `local` (wall-clock time
 * written as if it were UTC): none in a skipped hour, two in a repeated one.
 */
function instantsAtLocal(zone: ZoneOffsets, local: number, after: number, upTo: number, into: number[]): void {
  // Offsets are within ±14 h and change at most once in 48 h, so the offsets a day either side are all
  // the offsets an instant with this wall-clock time can have.
  const early = offsetAt(zone, local - DAY);
  const late = offsetAt(zone, local + DAY);
  for (const offset of early === late ? [early] : [early, late]) {
    const instant = local - offset;
    if (instant > after && instant <= upTo && offsetAt(zone, instant) === offset) into.push(instant);
  }
}

// ---- windows -------------------------------------------------------------------------------------

interface ParsedWindow {
  /** Bit i set: WEEKDAYS[i] is one of the window's days. */
  days: number;
  start: number;
  end: number;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const WEEKDAY_BIT: Readonly<Record<string, number>> = Object.fromEntries(WEEKDAYS.map((day, index) => [day, 1 << index]));

// The dialler passes the same campaign's windows array for a whole group of contacts.
const parsedWindows = new WeakMap<readonly WindowSpec[], ParsedWindow[]>();
function parse(windows: readonly WindowSpec[]): ParsedWindow[] {
  let parsed = parsedWindows.get(windows);
  if (!parsed) {
    parsed = windows.map((window) => ({
      days: (window.days as readonly string[]).reduce((bits, day) => bits | (WEEKDAY_BIT[day] ?? 0), 0),
      start: minutesOf(window.start),
      end: minutesOf(window.end),
    }));
    parsedWindows.set(windows, parsed);
  }
  return parsed;
}

/** 1970-01-01 was a Thursday (index 3 from Monday). */
const weekdayIndex = (localDay: number) => (((localDay + 3) % 7) + 7) % 7;

function insideInZone(windows: readonly ParsedWindow[], zone: ZoneOffsets, instant: number): boolean {
  const local = instant + offsetAt(zone, instant);
  const localDay = Math.floor(local / DAY);
  const bit = 1 << weekdayIndex(localDay);
  const minute = (local - localDay * DAY) / MINUTE; // fractional: start <= t < end to the millisecond
  for (const window of windows) {
    if (window.days & bit && minute >= window.start && minute < window.end) return true;
  }
  return false;
}

function insideAll(windows: readonly ParsedWindow[], zones: readonly ZoneOffsets[], instant: number): boolean {
  for (const zone of zones) if (!insideInZone(windows, zone, instant)) return false;
  return true;
}

/**
 * The instants in (after, upTo] where the intersection may change: in each zone, every instant whose
 * local time is one of the windows' starts (or ends) on one of its days, and every offset change.
 */
function boundaries(windows: readonly ParsedWindow[], zones: readonly ZoneOffsets[], after: number, upTo: number, edge: "start" | "end"): number[] {
  const found: number[] = [];
  for (const zone of zones) {
    changesBetween(zone, after, upTo, found);
    const firstDay = Math.floor((after + offsetAt(zone, after)) / DAY) - 1;
    const lastDay = Math.floor((upTo + offsetAt(zone, upTo)) / DAY) + 1;
    for (let localDay = firstDay; localDay <= lastDay; localDay++) {
      const bit = 1 << weekdayIndex(localDay);
      for (const window of windows) {
        if (window.days & bit && window.start < window.end) instantsAtLocal(zone, localDay * DAY + window[edge] * MINUTE, after, upTo, found);
      }
    }
  }
  return found.sort((a, b) => a - b);
}

// ---- the contract --------------------------------------------------------------------------------

/** The local weekday and minutes after local midnight of `instant` (epoch ms) in `zone`. */
export function localClock(instant: number, zone: string): { weekday: Weekday; minutes: number } {
  const local = instant + offsetAt(zoneOf(zone), instant);
  const localDay = Math.floor(local / DAY);
  return { weekday: WEEKDAYS[weekdayIndex(localDay)] as Weekday, minutes: Math.floor((local - localDay * DAY) / MINUTE) };
}

/** The zone's UTC offset (ms, local minus UTC) at `instant` (epoch ms), from the same cache (the calendar's slots use it). */
export function zoneOffsetAt(zone: string, instant: number): number {
  return offsetAt(zoneOf(zone), instant);
}

/** The instants in (after, upTo] at which the zone's offset changes, in order (to the minute). */
export function zoneOffsetChanges(zone: string, after: number, upTo: number): number[] {
  const found: number[] = [];
  changesBetween(zoneOf(zone), after, upTo, found);
  return found;
}

/** Whether `instant` is inside one of `windows` in `zone`. */
export function isInsideWindowsInZone(windows: readonly WindowSpec[], zone: string, instant: number): boolean {
  return insideInZone(parse(windows), zoneOf(zone), instant);
}

/** Whether `instant` is inside the windows in every one of `zones` (false for no zones). */
export function isInsideWindows(windows: readonly WindowSpec[], zones: readonly string[], instant: number): boolean {
  return zones.length > 0 && insideAll(parse(windows), zones.map(zoneOf), instant);
}

/**
 * The earliest instant >= `from` (epoch ms, to the minute) inside the windows in every zone, looking no
 * further than NEXT_OPENING_HORIZON_MS (or `until`); null when there is none (no zones, no windows, or
 * the windows never meet in all the zones).
 */
export function nextOpening(windows: readonly WindowSpec[], zones: readonly string[], from: number, options: { until?: number } = {}): number | null {
  if (zones.length === 0 || windows.length === 0) return null;
  const upTo = Math.min(options.until ?? Number.POSITIVE_INFINITY, from + NEXT_OPENING_HORIZON_MS);
  const parsed = parse(windows);
  const zoneList = zones.map(zoneOf);
  if (insideAll(parsed, zoneList, from)) return from;
  if (upTo <= from) return null;
  // The intersection begins where some zone begins to be inside: a window start or an offset change.
  for (const candidate of boundaries(parsed, zoneList, from, upTo, "start")) {
    if (insideAll(parsed, zoneList, candidate)) return candidate;
  }
  return null;
}

/**
 * When calling stops (for "calling until …"): the first instant >= `instant` that is not inside the
 * windows in every zone, so `instant` itself when it is not inside; null when it stays inside for all
 * of NEXT_OPENING_HORIZON_MS (every day 00:00–24:00) or there are no zones.
 */
export function windowClosesAt(windows: readonly WindowSpec[], zones: readonly string[], instant: number): number | null {
  if (zones.length === 0) return null;
  const parsed = parse(windows);
  const zoneList = zones.map(zoneOf);
  if (!insideAll(parsed, zoneList, instant)) return instant;
  // The intersection ends where some zone stops being inside: a window end or an offset change.
  for (const candidate of boundaries(parsed, zoneList, instant, instant + NEXT_OPENING_HORIZON_MS, "end")) {
    if (!insideAll(parsed, zoneList, candidate)) return candidate;
  }
  return null;
}

/** The zones a contact's window is computed in (issue 18): its own zone, else its number's, else the campaign's fallback; empty when none. */
export function contactZones(contact: { timezone: string | null; numberZones: readonly string[] }, fallback: string | null | undefined): string[] {
  if (contact.timezone) return [contact.timezone];
  if (contact.numberZones.length > 0) return [...contact.numberZones];
  return fallback ? [fallback] : [];
}

export { WEEKDAYS };
