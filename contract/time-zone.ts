import { z } from "zod";
import { isTimeZoneName } from "./time-zone-name";

export { DEFAULT_TIME_ZONE, isTimeZoneName } from "./time-zone-name";

/** A time-zone name (contract/time-zone-name.ts) as a query or body field. */
export const timeZoneSchema = (field: string) =>
  z.string({ error: `${field} must be a time-zone name such as Europe/Berlin or UTC` }).trim().refine(isTimeZoneName, {
    error: `${field} must be a time-zone name such as Europe/Berlin, America/New_York or UTC`,
  });
