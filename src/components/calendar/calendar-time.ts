/**
 * Instants and wall-clock times in a named zone, for the calendar screen. The API speaks UTC instants;
 * people read and type the wall-clock time of the zone the calendar shows, whatever the browser's own
 * zone. Wall-clock → instant goes through temporal-polyfill's functions, which FullCalendar already
 * ships in the same chunk (daylight saving: a time in a skipped hour moves forward, a repeated hour
 * takes its first pass, Temporal's "compatible").
 */
import * as PlainDateTimeFns from "temporal-polyfill/fns/PlainDateTime";
import { DATE_PATTERN } from "../../../contract/calendar-shared";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(zone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" });
    partsFormats.set(zone, format);
  }
  return format;
}

/** The wall clock of `instant` in `zone`: its day (YYYY-MM-DD) and time (HH:MM). */
export function wallClock(instant: number | string, zone: string): { date: string; time: string } {
  const ms = typeof instant === "string" ? Date.parse(instant) : instant;
  const parts: Record<string, string> = {};
  for (const part of partsFormat(zone).formatToParts(ms)) parts[part.type] = part.value;
  const hour = parts.hour === "24" ? "00" : parts.hour;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${hour}:${parts.minute}` };
}

/** The day (YYYY-MM-DD) `instant` falls on in `zone`. */
export const dayIn = (instant: number | string, zone: string): string => wallClock(instant, zone).date;

export const isDay = (value: string): boolean => DATE_PATTERN.test(value);
export const isTime = (value: string): boolean => /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(value);
export const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** The instant (ms) of `date` at `time` (HH:MM, 24:00 = the next day's start) on the wall clock of `zone`. */
export function instantAt(date: string, time: string, zone: string): number {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const minutes = minutesOf(time);
  const midnight = PlainDateTimeFns.create(year, month, day, 0, 0);
  const local = PlainDateTimeFns.addMinutes(midnight, minutes);
  return PlainDateTimeFns.toZonedDateTime(local, zone).epochMilliseconds;
}

/** The same, as the API's ISO instant (UTC). */
export const isoAt = (date: string, time: string, zone: string): string => new Date(instantAt(date, time, zone)).toISOString();

/**
 * The days of `zone` that an instant range [start, end) touches: what GET /appointment/ and GET
 * /availability/slots are asked for (startDate and endDate, endDate included, read in the calendar's zone).
 */
export function daysCovering(start: number, end: number, zone: string): { startDate: string; endDate: string } {
  return { startDate: dayIn(start, zone), endDate: dayIn(Math.max(start, end - 1), zone) };
}

/** YYYY-MM-DD plus `days` (calendar arithmetic, no zone). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  return new Date(date.getTime() + days * DAY).toISOString().slice(0, 10);
}

/** Whole minutes between two instants. */
export const minutesBetween = (start: string | number, end: string | number): number =>
  Math.round(((typeof end === "string" ? Date.parse(end) : end) - (typeof start === "string" ? Date.parse(start) : start)) / MINUTE);

const dayFormats = new Map<string, Intl.DateTimeFormat>();
function dayFormat(zone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", year: "numeric" });
    dayFormats.set(zone, format);
  }
  return format;
}

/** "Thu 5 Mar 2026" in `zone`. */
export const formatDay = (instant: number | string, zone: string): string =>
  dayFormat(zone).format(typeof instant === "string" ? Date.parse(instant) : instant).replace(",", "");

/**
 * "Thu 5 Mar 2026, 10:00–10:30" in `zone`; a range over midnight names both days
 * ("Thu 5 Mar 2026, 23:30 – Fri 6 Mar 2026, 00:30").
 */
export function formatRange(start: string | number, end: string | number, zone: string): string {
  const from = wallClock(start, zone);
  const until = wallClock(end, zone);
  const sameDay = from.date === until.date || (until.time === "00:00" && addDays(from.date, 1) === until.date);
  if (sameDay) return `${formatDay(start, zone)}, ${from.time}–${until.time === "00:00" ? "24:00" : until.time}`;
  return `${formatDay(start, zone)}, ${from.time} – ${formatDay(end, zone)}, ${until.time}`;
}

/** A date-time for the record ("Thu 5 Mar 2026, 10:00"). */
export const formatMoment = (instant: string | number, zone: string): string => `${formatDay(instant, zone)}, ${wallClock(instant, zone).time}`;

/** The browser's own zone (the calendar's zone is the default; this is only a fallback). */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/**
 * For a date picker inside a form: Enter confirms the typed date without also submitting the form
 * (the browser's implicit submission would save the whole form at each date typed).
 */
export function keepEnterInPicker(event: { key: string; preventDefault: () => void }): void {
  if (event.key === "Enter") event.preventDefault();
}
