import { z } from "zod";

/**
 * Time zones: an IANA name (Europe/Berlin, America/New_York, UTC). Days of the dashboard and of the
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

export const timeZoneSchema = (field: string) =>
  z.string({ error: `${field} must be a time-zone name such as Europe/Berlin or UTC` }).trim().refine(isTimeZoneName, {
    error: `${field} must be a time-zone name such as Europe/Berlin, America/New_York or UTC`,
  });
