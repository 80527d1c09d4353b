/**
 * Campaigns and the do-not-call list: the API's schemas (issue 13's minimum contract, issue 18's
 * campaign part). Names, states and limits are in contract/campaign-shared.ts (zod-free, the console's).
 */
import { z } from "zod";
import { CALL_OUTCOMES } from "./call-outcome";
import {
  CAMPAIGN_ACTIONS,
  CAMPAIGN_NAME_MAX_LENGTH,
  CAMPAIGN_STATUSES,
  CAMPAIGN_WINDOWS_MAX,
  CONTACT_IMPORT_JSON_MAX_ROWS,
  CONTACT_NAME_MAX_LENGTH,
  CONTACT_STATUSES,
  CONTACT_VARIABLE_VALUE_MAX_LENGTH,
  CONTACT_VARIABLES_MAX,
  DNC_REASON_MAX_LENGTH,
  DNC_SOURCES,
  PAUSE_CODES,
  RETRY_DELAY_MAX_MINUTES,
  RETRY_MAX_ATTEMPTS,
  RETRY_OUTCOMES,
  WEEKDAYS,
  WINDOW_END_PATTERN,
  WINDOW_TIME_PATTERN,
} from "./campaign-shared";
import { listResponseSchema, pagingQuerySchema } from "./list";
import { timeZoneSchema } from "./time-zone";

export * from "./campaign-shared";

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** One calling window: on these weekdays, from start to end in the contact's local time (end after start). */
export const campaignWindowSchema = z
  .strictObject({
    days: z
      .array(z.enum(WEEKDAYS, { error: `days must be weekdays: ${WEEKDAYS.join(", ")}` }), { error: "days must be a list of weekdays, e.g. [\"mon\", \"tue\"]" })
      .min(1, { error: "a window needs at least one day" })
      .max(7)
      .transform((days) => WEEKDAYS.filter((day) => days.includes(day))),
    start: z.string({ error: "start must be a time HH:MM" }).regex(WINDOW_TIME_PATTERN, { error: "start must be a time HH:MM between 00:00 and 23:59" }),
    end: z.string({ error: "end must be a time HH:MM" }).regex(WINDOW_END_PATTERN, { error: "end must be a time HH:MM between 00:01 and 24:00" }),
  })
  .refine((window) => minutesOf(window.end) > minutesOf(window.start), { error: "a window's end must be after its start (use 24:00 for the end of the day)", path: ["end"] });
export type CampaignWindow = z.infer<typeof campaignWindowSchema>;

const instantSchema = (field: string) =>
  z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 time with its offset, e.g. 2026-12-01T09:00:00Z` }).nullable().optional();

export const campaignScheduleSchema = z
  .strictObject({
    windows: z
      .array(campaignWindowSchema, { error: "schedule.windows must be a list of windows {days, start, end}" })
      .min(1, { error: "schedule.windows needs at least one calling window" })
      .max(CAMPAIGN_WINDOWS_MAX, { error: `schedule.windows may hold at most ${CAMPAIGN_WINDOWS_MAX} windows` }),
    /** The zone of contacts whose own zone is not known (no timezone column, number's zones unknown); null: they wait as needs_timezone. */
    fallback_timezone: timeZoneSchema("schedule.fallback_timezone").nullable().optional(),
    start_at: instantSchema("schedule.start_at"),
    end_at: instantSchema("schedule.end_at"),
  })
  .refine((s) => !s.start_at || !s.end_at || Date.parse(s.end_at) > Date.parse(s.start_at), { error: "schedule.end_at must be after schedule.start_at", path: ["end_at"] });
export type CampaignScheduleInput = z.input<typeof campaignScheduleSchema>;

export const campaignRetrySchema = z.strictObject({
  /** Calls per contact in all, the first included. */
  max_attempts: z.number({ error: "retry.max_attempts must be a number" }).int().min(1, { error: "retry.max_attempts must be at least 1" }).max(RETRY_MAX_ATTEMPTS, { error: `retry.max_attempts may be at most ${RETRY_MAX_ATTEMPTS}` }),
  delay_minutes: z.number({ error: "retry.delay_minutes must be a number" }).int().min(0, { error: "retry.delay_minutes must be 0 or more" }).max(RETRY_DELAY_MAX_MINUTES, { error: `retry.delay_minutes may be at most ${RETRY_DELAY_MAX_MINUTES} (a week)` }),
  on: z
    .array(z.enum(RETRY_OUTCOMES, { error: `retry.on must list outcomes among ${RETRY_OUTCOMES.join(", ")}` }))
    .max(RETRY_OUTCOMES.length)
    .transform((on) => RETRY_OUTCOMES.filter((outcome) => on.includes(outcome))),
});
export type CampaignRetry = z.infer<typeof campaignRetrySchema>;

export const DEFAULT_CAMPAIGN_RETRY: CampaignRetry = { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer", "voicemail"] };

const nameSchema = z
  .string({ error: "name is required" })
  .trim()
  .min(1, { error: "name is required" })
  .max(CAMPAIGN_NAME_MAX_LENGTH, { error: `name must be at most ${CAMPAIGN_NAME_MAX_LENGTH} characters` });
const agentIdSchema = z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" });
const phoneNumberIdSchema = z.uuid({ error: "phone_number_id must be the id (a UUID) of one of the organisation's phone numbers" });
/** 1..the organisation's concurrent-call limit (the server checks the upper bound: it depends on the plan). */
const concurrencySchema = z.number({ error: "max_concurrency must be a number" }).int({ error: "max_concurrency must be a whole number" }).min(1, { error: "max_concurrency must be at least 1" }).max(1000);

/** POST /campaign/: a draft. agent and caller number may come later (they are needed to start). */
export const campaignCreateSchema = z.strictObject({
  name: nameSchema,
  agent_id: agentIdSchema.nullable().optional(),
  phone_number_id: phoneNumberIdSchema.nullable().optional(),
  schedule: campaignScheduleSchema,
  max_concurrency: concurrencySchema.default(1),
  retry: campaignRetrySchema.default(DEFAULT_CAMPAIGN_RETRY),
});
export type CampaignCreate = z.input<typeof campaignCreateSchema>;

/** PUT /campaign/{id}: any of the fields; what the state allows (EDITABLE_FIELDS), else 409. */
export const campaignUpdateSchema = z.strictObject({
  name: nameSchema.optional(),
  agent_id: agentIdSchema.nullable().optional(),
  phone_number_id: phoneNumberIdSchema.nullable().optional(),
  schedule: campaignScheduleSchema.optional(),
  max_concurrency: concurrencySchema.optional(),
  retry: campaignRetrySchema.optional(),
});
export type CampaignUpdate = z.input<typeof campaignUpdateSchema>;

export const campaignCountsSchema = z.object({
  total: z.number().int(),
  queued: z.number().int(),
  in_progress: z.number().int(),
  answered: z.number().int(),
  busy: z.number().int(),
  no_answer: z.number().int(),
  voicemail: z.number().int(),
  failed: z.number().int(),
  dnc: z.number().int(),
  needs_timezone: z.number().int(),
  cancelled: z.number().int(),
});

export const campaignSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  phone_number_id: z.uuid().nullable(),
  phone_number: z.string().nullable(),
  schedule: z.object({
    windows: z.array(z.object({ days: z.array(z.enum(WEEKDAYS)), start: z.string(), end: z.string() })),
    fallback_timezone: z.string().nullable(),
    start_at: z.string().nullable(),
    end_at: z.string().nullable(),
  }),
  max_concurrency: z.number().int(),
  retry: z.object({ max_attempts: z.number().int(), delay_minutes: z.number().int(), on: z.array(z.enum(RETRY_OUTCOMES)) }),
  /** Why the campaign is paused: a sentence a person can act on; null when not paused (or paused by a person without one). */
  pause_reason: z.string().nullable(),
  pause_code: z.enum(PAUSE_CODES).nullable(),
  counts: campaignCountsSchema,
  /** When the next contact's window opens (or its retry is due), while contacts wait; null when dialling now or nothing waits. */
  next_window_at: z.string().nullable(),
  /** The organisation's concurrent-call limit (max_concurrency's upper bound). */
  concurrency_limit: z.number().int(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;
export type CampaignCountsBody = z.infer<typeof campaignCountsSchema>;

export const campaignResponseSchema = z.object({ data: campaignSchema });
export const campaignListResponseSchema = listResponseSchema(campaignSchema);

export const campaignListQuerySchema = pagingQuerySchema().extend({
  status: z.enum(CAMPAIGN_STATUSES, { error: `status must be one of ${CAMPAIGN_STATUSES.join(", ")}` }).optional(),
  search: z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional(),
});

export const campaignIdParamsSchema = z.object({ id: z.uuid({ error: "the campaign id must be a UUID" }) });
export const campaignActionParamsSchema = campaignIdParamsSchema.extend({ action: z.enum(CAMPAIGN_ACTIONS) });

// --- Contacts -----------------------------------------------------------------------------------

/** One contact in a JSON import. Numbers are checked row by row (a bad one is reported, not fatal). */
export const contactInputSchema = z.strictObject({
  number: z.string({ error: "number is required" }).max(60),
  name: z.string().max(CONTACT_NAME_MAX_LENGTH * 2).nullable().optional(),
  timezone: z.string().max(64).nullable().optional(),
  variables: z.record(z.string().max(100), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

/** POST /campaign/{id}/contacts (JSON; multipart takes a CSV in the field `file`). */
export const contactImportJsonSchema = z.strictObject({
  contacts: z
    .array(contactInputSchema, { error: "contacts must be a list of {number, name?, timezone?, variables?}" })
    .min(1, { error: "contacts must hold at least one contact" })
    .max(CONTACT_IMPORT_JSON_MAX_ROWS, { error: `at most ${CONTACT_IMPORT_JSON_MAX_ROWS} contacts in one JSON import: upload a CSV for more` }),
});
export type ContactImportJson = z.input<typeof contactImportJsonSchema>;

/** The import report: counts, and the invalid rows (row 1 = the first contact; a CSV's header not counted). */
export const contactImportReportSchema = z.object({
  accepted: z.number().int(),
  duplicates: z.number().int(),
  dnc: z.number().int(),
  invalid: z.array(z.object({ row: z.number().int(), reason: z.string(), number: z.string().optional() })),
  /** All invalid rows (`invalid` lists at most IMPORT_REPORT_INVALID_MAX). */
  invalid_count: z.number().int(),
  /** Accepted contacts with no zone and no campaign fallback: they wait as needs_timezone. */
  needs_timezone: z.number().int(),
  /** Names of the columns that became variables. */
  variables: z.array(z.string()),
  total_contacts: z.number().int(),
});
export type ContactImportReport = z.infer<typeof contactImportReportSchema>;
export const contactImportResponseSchema = z.object({ data: contactImportReportSchema });

export const campaignContactSchema = z.object({
  id: z.uuid(),
  number: z.string(),
  name: z.string().nullable(),
  /** The zones its window is computed in: its timezone, else its number's zones, else the campaign fallback; empty while it needs one. */
  timezones: z.array(z.string()),
  timezone: z.string().nullable(),
  status: z.enum(CONTACT_STATUSES),
  /** The last call's outcome; null before the first call ends. */
  outcome: z.enum(CALL_OUTCOMES).nullable(),
  attempts: z.number().int(),
  last_call_id: z.uuid().nullable(),
  last_ended_reason: z.string().nullable(),
  /** When it may be dialled next (queued contacts). */
  next_attempt_at: z.string().nullable(),
  variables: z.record(z.string(), z.string()),
  /** The contact's calls, newest first (ids), at most the campaign's max_attempts. */
  call_ids: z.array(z.uuid()),
  updated_at: z.string(),
});
export type CampaignContact = z.infer<typeof campaignContactSchema>;
export const campaignContactListResponseSchema = listResponseSchema(campaignContactSchema);

export const campaignContactListQuerySchema = pagingQuerySchema().extend({
  status: z.enum(CONTACT_STATUSES, { error: `status must be one of ${CONTACT_STATUSES.join(", ")}` }).optional(),
  outcome: z.enum(CALL_OUTCOMES, { error: `outcome must be one of ${CALL_OUTCOMES.join(", ")}` }).optional(),
  search: z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional(),
});

/** GET /campaign/{id}/progress: contacts finished per bucket and calls placed, for the chart. */
export const campaignProgressSchema = z.object({
  data: z.object({
    bucket_seconds: z.number().int(),
    points: z.array(z.object({ at: z.string(), calls: z.number().int(), answered: z.number().int(), ended: z.number().int() })),
  }),
});

/** GET /campaign/{id}/events: what happened to the campaign (starts, pauses with their reasons, edits), newest first. */
export const campaignEventSchema = z.object({
  id: z.uuid(),
  at: z.string(),
  kind: z.string(),
  detail: z.string(),
  actor: z.string().nullable(),
});
export const campaignEventListResponseSchema = z.object({ data: z.array(campaignEventSchema) });

// --- Do-not-call list ---------------------------------------------------------------------------

export const dncEntrySchema = z.object({
  id: z.uuid(),
  number: z.string(),
  reason: z.string().nullable(),
  source: z.enum(DNC_SOURCES),
  call_id: z.uuid().nullable(),
  created_at: z.string(),
});
export type DncEntry = z.infer<typeof dncEntrySchema>;
export const dncListResponseSchema = listResponseSchema(dncEntrySchema);
export const dncListQuerySchema = pagingQuerySchema().extend({
  search: z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional(),
});

/** POST /dnc/ JSON (multipart takes a CSV with a `number` column in the field `file`). */
export const dncCreateSchema = z.strictObject({
  number: z.string({ error: "number is required (E.164, e.g. +14155550123)" }).max(60),
  reason: z.string().trim().max(DNC_REASON_MAX_LENGTH, { error: `reason must be at most ${DNC_REASON_MAX_LENGTH} characters` }).nullable().optional(),
});
/** What POST /dnc/ answers: the entry (one number) or, for a CSV, the counts. */
export const dncCreateResponseSchema = z.object({
  data: z.object({ added: z.number().int(), already_listed: z.number().int(), invalid: z.array(z.object({ row: z.number().int(), reason: z.string() })), entry: dncEntrySchema.nullable() }),
});
export const dncIdParamsSchema = z.object({ id: z.uuid({ error: "the do-not-call entry id must be a UUID" }) });

export const CAMPAIGN_VALUE_LIMITS = { CONTACT_VARIABLES_MAX, CONTACT_VARIABLE_VALUE_MAX_LENGTH } as const;
