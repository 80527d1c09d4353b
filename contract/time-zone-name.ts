/**
 * Time zones (no zod: the console reads this file; contract/time-zone.ts adds the schema): an IANA name (Europe/Berlin, America/New_York, UTC). Days of the dashboard and of the
 * call list's date range are cut in one (the organisation's setting, default UTC). Fixed offsets
 * ("+02:00") are refused: a zone name keeps daylight saving right. The server also checks that the
 * database knows the name (400 otherwise).
 */
export const DEFAULT_TIME_ZONE = "UTC";

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** Whether `name` is a time-zone name this runtime knows (Intl), written as a name, not an offset. */
export function isTimeZoneName(name: string): boolean {
  if (!ZONE_NAME.test(name) || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

