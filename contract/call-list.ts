import { z } from "zod";
import { CALENDAR_DATE_PATTERN, DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "./paging";

/**
 * GET /call/?page&limit&startDate&endDate&search (spec §7). The console sends page and limit always,
 * startDate/endDate only when given, search only when non-empty; endDate includes that whole day.
 */
export const callListQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(DEFAULT_PAGE),
  limit: z.coerce.number().int().min(1).max(100).default(DEFAULT_PAGE_SIZE),
  startDate: z.string().regex(CALENDAR_DATE_PATTERN, "startDate must be YYYY-MM-DD").optional(),
  endDate: z.string().regex(CALENDAR_DATE_PATTERN, "endDate must be YYYY-MM-DD").optional(),
  search: z.string().min(1).optional(),
});
export type CallListQuery = z.input<typeof callListQuerySchema>;
