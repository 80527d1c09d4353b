/**
 * Calling windows in a contact's own local time (issue 13 §2). No zod, no date library: Intl only (the
 * console imports this file to preview windows). PLACEHOLDER IMPLEMENTATION (minute scan): the schedule
 * helper replaces the bodies with the fast candidate-instant version and property tests; the
 * signatures are the contract other files are written against.
 *
 * - A window {days, start, end} holds an instant when, in a zone, the instant's local weekday is one of
 *   `days` and its local wall-clock time t satisfies start <= t < end ("24:00" = end of the day).
 * - A contact with several zones (a number that may be in several) is inside only when the instant is
 *   inside a window in every one of its zones.
 * - Daylight saving: local wall-clock time is read from Intl at the instant, so a window starting in a
 *   skipped hour (02:30 on a spring-forward night) opens at the first instant after the gap, and a
 *   repeated hour is inside for both of its passes.
 */
import { WEEKDAYS, type Weekday } from "./campaign-shared";

export interface WindowSpec {
  days: readonly Weekday[] | readonly string[];
  start: string;
  end: string;
}

/** How far ahead nextOpening looks (a schedule with any window opens within a week in every zone). */
export const NEXT_OPENING_HORIZON_MS = 8 * 24 * 60 * 60 * 1000;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", weekday: "short", hour: "2-digit", minute: "2-digit" });
    formatters.set(zone, found);
  }
  return found;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The local weekday and minutes after local midnight of `instant` (epoch ms) in `zone`. */
export function localClock(instant: number, zone: string): { weekday: Weekday; minutes: number } {
  let weekday = "mon";
  let hour = 0;
  let minute = 0;
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type === "weekday") weekday = part.value.slice(0, 3).toLowerCase();
    else if (part.type === "hour") hour = Number(part.value);
    else if (part.type === "minute") minute = Number(part.value);
  }
  return { weekday: weekday as Weekday, minutes: hour * 60 + minute };
}

/** Whether `instant` is inside one of `windows` in `zone`. */
export function isInsideWindowsInZone(windows: readonly WindowSpec[], zone: string, instant: number): boolean {
  const { weekday, minutes } = localClock(instant, zone);
  return windows.some((window) => (window.days as readonly string[]).includes(weekday) && minutes >= minutesOf(window.start) && minutes < minutesOf(window.end));
}

/** Whether `instant` is inside the windows in every one of `zones` (false for no zones). */
export function isInsideWindows(windows: readonly WindowSpec[], zones: readonly string[], instant: number): boolean {
  return zones.length > 0 && zones.every((zone) => isInsideWindowsInZone(windows, zone, instant));
}

/**
 * The earliest instant >= `from` (epoch ms, to the minute) inside the windows in every zone, looking no
 * further than NEXT_OPENING_HORIZON_MS (or `until`); null when there is none (no zones, no windows, or
 * the windows never meet in all the zones).
 */
export function nextOpening(windows: readonly WindowSpec[], zones: readonly string[], from: number, options: { until?: number } = {}): number | null {
  if (zones.length === 0 || windows.length === 0) return null;
  const until = Math.min(options.until ?? Number.POSITIVE_INFINITY, from + NEXT_OPENING_HORIZON_MS);
  if (isInsideWindows(windows, zones, from)) return from;
  for (let t = Math.floor(from / 60_000) * 60_000 + 60_000; t <= until; t += 60_000) {
    if (isInsideWindows(windows, zones, t)) return t;
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
