/**
 * Times as the agent says them to a caller (issue 14): in the caller's zone, naming the weekday and the
 * date plainly ("Tuesday, December 1 at 9:00 AM Eastern Time"), because an answer that names the weekday
 * keeps the model from inventing or mis-placing a day; and each instant once more exactly, as ISO 8601
 * with the zone's offset ("2026-12-01T09:00:00-05:00"), for the model to pass back unchanged.
 *
 * Offsets come from the zone-offset cache contract/campaign-schedule.ts keeps (Intl once per zone and UTC
 * day, then arithmetic): the clock times and exact instants of a day's slots cost no Intl call each. Intl
 * names the weekdays, months and zones, with one formatter per zone (making one costs far more than
 * using it).
 */
import { zoneOffsetAt } from "../../contract/campaign-schedule";
import { numberTimeZones } from "../campaigns/number-zones";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

interface ZoneFormats {
  day: Intl.DateTimeFormat;
  dayWithYear: Intl.DateTimeFormat;
  name: Intl.DateTimeFormat;
}

const formats = new Map<string, ZoneFormats>();

function zoneFormats(zone: string): ZoneFormats {
  let found = formats.get(zone);
  if (!found) {
    const options = { timeZone: zone } as const;
    found = {
      day: new Intl.DateTimeFormat("en-US", { ...options, weekday: "long", month: "long", day: "numeric" }),
      dayWithYear: new Intl.DateTimeFormat("en-US", { ...options, weekday: "long", month: "long", day: "numeric", year: "numeric" }),
      name: new Intl.DateTimeFormat("en-US", { ...options, timeZoneName: "longGeneric" }),
    };
    formats.set(zone, found);
  }
  return found;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localParts(instant: Date, zone: string): LocalParts {
  const wall = new Date(instant.getTime() + zoneOffsetAt(zone, instant.getTime()));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

/** The zone's offset from UTC at `instant`, in minutes (New York in winter: -300). */
export function zoneOffsetMinutes(instant: Date, zone: string): number {
  return Math.round(zoneOffsetAt(zone, instant.getTime()) / MINUTE);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** The local date of `instant` in `zone`: YYYY-MM-DD. */
export function localDate(instant: Date, zone: string): string {
  const p = localParts(instant, zone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** `instant` as ISO 8601 in `zone`'s wall-clock time with its offset: 2026-12-01T09:00:00-05:00. */
export function localIso(instant: Date, zone: string): string {
  const p = localParts(instant, zone);
  const offset = zoneOffsetMinutes(instant, zone);
  const sign = offset < 0 ? "-" : "+";
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** The day after (or `days` after) a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const [, y, m, d] = DATE.exec(date)!;
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)) + days * DAY).toISOString().slice(0, 10);
}

/** Whether `date` is a real YYYY-MM-DD calendar date (2026-02-30 is not). */
export function isCalendarDate(date: string): boolean {
  const match = DATE.exec(date);
  if (!match) return false;
  const [, y, m, d] = match;
  const at = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return at.getUTCFullYear() === Number(y) && at.getUTCMonth() === Number(m) - 1 && at.getUTCDate() === Number(d);
}

/**
 * The first instant of `date` (YYYY-MM-DD) in `zone`: its local midnight, or, where midnight is skipped
 * by a daylight-saving change, the first instant after the gap.
 */
export function startOfLocalDay(date: string, zone: string): Date {
  const [, y, m, d] = DATE.exec(date)!;
  const wall = Date.UTC(Number(y), Number(m) - 1, Number(d));
  // Offsets are within ±14 h: try the offsets around that wall time, keep the earliest instant on that date.
  let best: number | null = null;
  for (const probe of [wall - DAY / 2, wall, wall + DAY / 2]) {
    const candidate = wall - zoneOffsetMinutes(new Date(probe), zone) * MINUTE;
    if (localDate(new Date(candidate), zone) === date && (best === null || candidate < best)) best = candidate;
  }
  if (best !== null) return new Date(best);
  // Midnight skipped: the first minute of the day that exists.
  for (let at = wall - 14 * 60 * MINUTE; at < wall + 15 * 60 * MINUTE; at += MINUTE) if (localDate(new Date(at), zone) === date) return new Date(at);
  return new Date(wall);
}

/**
 * The zone's name as a person says it: "Eastern Time", "Central European Time"; UTC and zones Intl
 * only knows by their offset as "UTC" / "UTC+3" / "UTC-9:30".
 */
export function spokenZoneName(zone: string, at: Date = new Date()): string {
  const name = zoneFormats(zone).name.formatToParts(at).find((part) => part.type === "timeZoneName")?.value ?? zone;
  const offset = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/.exec(name);
  if (!offset) return name;
  const [, sign, hours, minutes] = offset;
  if (!sign || (Number(hours) === 0 && !Number(minutes))) return "UTC";
  return `UTC${sign}${Number(hours)}${minutes && minutes !== "00" ? `:${minutes}` : ""}`;
}

/**
 * The day as spoken: "Tuesday, December 1", with the year when it is not `today`'s year
 * ("Tuesday, January 5, 2027").
 */
export function spokenDay(instant: Date, zone: string, today: Date = new Date()): string {
  const f = zoneFormats(zone);
  return localParts(instant, zone).year === localParts(today, zone).year ? f.day.format(instant) : f.dayWithYear.format(instant);
}

/** A YYYY-MM-DD date as spoken ("Tuesday, December 1"): the day of its local noon. */
export function spokenDate(date: string, zone: string, today: Date = new Date()): string {
  const noon = new Date(startOfLocalDay(date, zone).getTime() + DAY / 2);
  return spokenDay(noon, zone, today);
}

/** The clock time as spoken: "9:00 AM", "12:30 PM". */
export function spokenClock(instant: Date, zone: string): string {
  const { hour, minute } = localParts(instant, zone);
  return `${hour % 12 === 0 ? 12 : hour % 12}:${pad(minute)} ${hour < 12 ? "AM" : "PM"}`;
}

/** "Tuesday, December 1 at 9:00 AM Eastern Time". */
export function spokenTime(instant: Date, zone: string, today: Date = new Date()): string {
  return `${spokenDay(instant, zone, today)} at ${spokenClock(instant, zone)} ${spokenZoneName(zone, instant)}`;
}

/** The one zone a phone number is in (server/campaigns/number-zones.ts), or null when it may be in several or none. */
export function numberZone(customerNumber: string | null | undefined): string | null {
  const zones = customerNumber ? numberTimeZones(customerNumber) : [];
  return zones.length === 1 ? zones[0]! : null;
}

/** The zone a caller hears times in: their number's when it has exactly one, else the calendar's. */
export function callerZone(customerNumber: string | null | undefined, calendarZone: string): { zone: string; whose: "caller" | "calendar" } {
  const zone = numberZone(customerNumber);
  return zone ? { zone, whose: "caller" } : { zone: calendarZone, whose: "calendar" };
}
