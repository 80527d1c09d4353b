import { z } from "zod";
import { isCalendarDate } from "./paging";

/** A calendar day written YYYY-MM-DD, named in its error. */
export const calendarDay = (field: string) =>
  z.string().refine(isCalendarDate, { error: `${field} must be a calendar day written YYYY-MM-DD (zero-padded), e.g. 2026-03-07` });

/**
 * The query of a screen that reads a period of whole days in the organisation's time zone, optionally for one
 * agent (GET /dashboard/, GET /billing/usage): endDate included, at most `maxDays` days.
 */
export function dayRangeQuerySchema(maxDays: number) {
  return z
    .strictObject({
      startDate: calendarDay("startDate").optional(),
      endDate: calendarDay("endDate").optional(),
      agentId: z.uuid({ error: "agentId must be the id (a UUID) of one of the organisation's agents" }).optional(),
    })
    .superRefine((value, ctx) => {
      if (value.startDate && value.endDate) {
        if (value.endDate < value.startDate) ctx.addIssue({ code: "custom", path: ["endDate"], message: "endDate must be the same day as startDate or later" });
        const days = (Date.parse(value.endDate) - Date.parse(value.startDate)) / 86_400_000 + 1;
        if (days > maxDays) ctx.addIssue({ code: "custom", path: ["endDate"], message: `the period can be at most ${maxDays} days` });
      }
    });
}
