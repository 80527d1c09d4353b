import { z } from "zod";
import { CALL_STATUSES, CALL_TYPES, callSchema } from "./call";
import { CALL_OUTCOMES } from "./call-outcome";
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, isCalendarDate } from "./paging";
import { SUCCESS_OUTCOMES } from "./success-outcome";
import { timeZoneSchema } from "./time-zone";

/**
 * GET /call/ and GET /call/export (spec §7). The console sends page and limit always, the others only
 * when set. startDate/endDate are calendar days (`YYYY-MM-DD`, zero-padded) in `timezone` (an IANA
 * name; default UTC), endDate including that whole day. Unknown parameters answer 400 naming them.
 *
 * - search: the customer number (digits compared, so '+', spaces and dashes do not matter; a part of
 *   it finds it), the customer name (a part of it, any case), the agent's name, the call id (a UUID),
 *   or words of the transcript and summary (every word must appear).
 * - status, type, endedReason, successEvaluation, outcome, success: one value or several separated by
 *   commas. outcome is contract/call-outcome.ts's mapping (answered, busy, no_answer, voicemail,
 *   failed, in_progress); success is contract/success-outcome.ts's (pass, fail): the dashboard's
 *   figures open the list with these, so it shows exactly the calls that were counted.
 * - durationMin/durationMax in seconds, costMin/costMax in USD, all inclusive.
 * - sortBy startedAt (default, newest first) | duration | cost; a call without a duration or cost
 *   yet counts as the smallest. Ties keep a stable order (by id).
 */

export const CALL_SORT_FIELDS = ["startedAt", "duration", "cost"] as const;
export type CallSortField = (typeof CALL_SORT_FIELDS)[number];
export const SORT_ORDERS = ["asc", "desc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Longest search text accepted. */
export const CALL_SEARCH_MAX_LENGTH = 200;


const calendarDate = (field: string) =>
  z.string().refine(isCalendarDate, { error: `${field} must be a calendar day written YYYY-MM-DD (zero-padded), e.g. 2026-03-07` });

/** One value or a comma-separated list of them. */
const oneOrMany = <T extends readonly [string, ...string[]]>(field: string, values?: T) =>
  z
    .string()
    .transform((raw) => [...new Set(raw.split(",").map((part) => part.trim()).filter(Boolean))])
    .pipe(
      values
        ? z.array(z.enum(values, { error: `${field} must be one or more (comma-separated) of ${values.join(", ")}` })).min(1, { error: `${field} is empty` })
        : z.array(z.string().max(200)).min(1, { error: `${field} is empty` }),
    );

const nonNegative = (field: string, unit: string) =>
  z.coerce.number({ error: `${field} must be a number of ${unit}` }).min(0, { error: `${field} must be 0 or more` });

/** The filters the list and the export share. */
const callFilterShape = {
  startDate: calendarDate("startDate").optional(),
  endDate: calendarDate("endDate").optional(),
  timezone: timeZoneSchema("timezone").optional(),
  search: z.string().trim().max(CALL_SEARCH_MAX_LENGTH, { error: `search must be at most ${CALL_SEARCH_MAX_LENGTH} characters` }).optional(),
  agentId: z.uuid({ error: "agentId must be the id (a UUID) of one of the organisation's agents" }).optional(),
  status: oneOrMany("status", CALL_STATUSES).optional(),
  type: oneOrMany("type", CALL_TYPES).optional(),
  endedReason: oneOrMany("endedReason").optional(),
  campaignId: z.uuid({ error: "campaignId must be a campaign id (a UUID)" }).optional(),
  successEvaluation: oneOrMany("successEvaluation").optional(),
  outcome: oneOrMany("outcome", CALL_OUTCOMES).optional(),
  success: oneOrMany("success", SUCCESS_OUTCOMES).optional(),
  durationMin: nonNegative("durationMin", "seconds").pipe(z.number().int({ error: "durationMin must be whole seconds" })).optional(),
  durationMax: nonNegative("durationMax", "seconds").pipe(z.number().int({ error: "durationMax must be whole seconds" })).optional(),
  costMin: nonNegative("costMin", "USD").optional(),
  costMax: nonNegative("costMax", "USD").optional(),
  sortBy: z.enum(CALL_SORT_FIELDS).default("startedAt"),
  sortOrder: z.enum(SORT_ORDERS).default("desc"),
};

interface RangeFields {
  startDate?: string | undefined;
  endDate?: string | undefined;
  durationMin?: number | undefined;
  durationMax?: number | undefined;
  costMin?: number | undefined;
  costMax?: number | undefined;
}

function checkRanges(value: RangeFields, ctx: z.RefinementCtx) {
  if (value.startDate && value.endDate && value.endDate < value.startDate) {
    ctx.addIssue({ code: "custom", path: ["endDate"], message: "endDate must be the same day as startDate or later" });
  }
  if (value.durationMin !== undefined && value.durationMax !== undefined && value.durationMax < value.durationMin) {
    ctx.addIssue({ code: "custom", path: ["durationMax"], message: "durationMax must be at least durationMin" });
  }
  if (value.costMin !== undefined && value.costMax !== undefined && value.costMax < value.costMin) {
    ctx.addIssue({ code: "custom", path: ["costMax"], message: "costMax must be at least costMin" });
  }
}

export const callListQuerySchema = z
  .strictObject({
    page: z.coerce.number().int().min(1).default(DEFAULT_PAGE),
    limit: z.coerce.number().int().min(1).max(100, { error: "limit must be at most 100" }).default(DEFAULT_PAGE_SIZE),
    ...callFilterShape,
  })
  .superRefine(checkRanges);
export type CallListQuery = z.input<typeof callListQuerySchema>;
export type CallListParams = z.output<typeof callListQuerySchema>;

/** GET /call/export: the list's filters and order, every matching row. */
export const callExportQuerySchema = z.strictObject(callFilterShape).superRefine(checkRanges);
export type CallExportQuery = z.input<typeof callExportQuerySchema>;
export type CallFilters = z.output<typeof callExportQuerySchema>;

/** A call in the list: the call without its heavy fields (messages, transcript, cost breakdown, structured data). */
export const callListItemSchema = callSchema.omit({ messages: true, transcript: true, cost_breakdown: true, structured_data: true });
export type CallListItem = z.infer<typeof callListItemSchema>;

export const callListResponseSchema = z.object({
  data: z.array(callListItemSchema),
  /** Exact, unless total_is_estimate. */
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  /**
   * True when `total` is the database's estimate: when more than CALL_LIST_EXACT_COUNT_LIMIT calls
   * match (or the planner expects far more), since counting a million rows is too slow for a page.
   */
  total_is_estimate: z.boolean(),
});
export type CallListResponse = z.infer<typeof callListResponseSchema>;

/** Up to this many matching calls the list's total is exact. */
export const CALL_LIST_EXACT_COUNT_LIMIT = 10_000;

export const callExportPath = "/call/export";

/** The CSV's columns, in order. */
export const CALL_EXPORT_COLUMNS = [
  "id",
  "started_at",
  "ended_at",
  "type",
  "status",
  "agent_id",
  "agent_name",
  "customer_number",
  "customer_name",
  "duration_seconds",
  "cost_usd",
  "ended_reason",
  "success_evaluation",
  "outcome",
  "success",
  "summary",
  "campaign_id",
  "phone_number_id",
  "is_sandbox",
] as const;
