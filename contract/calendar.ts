/**
 * Calendar and appointments: the API's schemas (issue 14's minimum contract, issue 18's calendar part).
 * Names, states, defaults and limits are in contract/calendar-shared.ts (zod-free, the console's).
 */
import { z } from "zod";
import { E164_PATTERN } from "./agent";
import {
  APPOINTMENT_LIST_MAX_LIMIT,
  APPOINTMENT_NOTES_MAX_LENGTH,
  APPOINTMENT_SOURCES,
  APPOINTMENT_STATUSES,
  APPOINTMENT_TITLE_MAX_LENGTH,
  AVAILABILITY_LIMITS,
  CALENDAR_CONNECTION_STATUSES,
  CALENDAR_PROVIDERS,
  DATE_PATTERN,
  HOURS_END_PATTERN,
  HOURS_START_PATTERN,
  WEEKDAYS,
} from "./calendar-shared";
import { listResponseSchema, pagingQuerySchema } from "./list";
import { timeZoneSchema } from "./time-zone";

export * from "./calendar-shared";

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const dateSchema = (field: string) =>
  z.string({ error: `${field} must be a date YYYY-MM-DD` }).regex(DATE_PATTERN, { error: `${field} must be a date YYYY-MM-DD, e.g. 2026-12-25` });

const intIn = (field: string, range: { min: number; max: number }) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be a whole number` })
    .min(range.min, { error: `${field} must be between ${range.min} and ${range.max}` })
    .max(range.max, { error: `${field} must be between ${range.min} and ${range.max}` });

/** One range of hours, in the calendar's zone: end after start (24:00 for the end of the day). */
export const hoursRangeSchema = z
  .strictObject({
    start: z.string({ error: "start must be a time HH:MM" }).regex(HOURS_START_PATTERN, { error: "start must be a time HH:MM between 00:00 and 23:59" }),
    end: z.string({ error: "end must be a time HH:MM" }).regex(HOURS_END_PATTERN, { error: "end must be a time HH:MM between 00:01 and 24:00" }),
  })
  .refine((range) => minutesOf(range.end) > minutesOf(range.start), { error: "a range's end must be after its start (use 24:00 for the end of the day)", path: ["end"] });

/** Weekly hours: one entry per range (several ranges a day allowed, they must not overlap). */
export const weeklyHoursSchema = z
  .strictObject({
    day: z.enum(WEEKDAYS, { error: `day must be one of ${WEEKDAYS.join(", ")}` }),
    start: z.string({ error: "start must be a time HH:MM" }).regex(HOURS_START_PATTERN, { error: "start must be a time HH:MM between 00:00 and 23:59" }),
    end: z.string({ error: "end must be a time HH:MM" }).regex(HOURS_END_PATTERN, { error: "end must be a time HH:MM between 00:01 and 24:00" }),
  })
  .refine((range) => minutesOf(range.end) > minutesOf(range.start), { error: "a range's end must be after its start (use 24:00 for the end of the day)", path: ["end"] });

/** A date with its own hours instead of the weekday's (`ranges: []` closes it). */
export const dateOverrideSchema = z.strictObject({
  date: dateSchema("date_overrides[].date"),
  ranges: z.array(hoursRangeSchema).max(AVAILABILITY_LIMITS.rangesPerDay, { error: `a date override holds at most ${AVAILABILITY_LIMITS.rangesPerDay} ranges` }),
});

function overlapping(ranges: { start: string; end: string }[]): boolean {
  const sorted = [...ranges].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
  return sorted.some((range, index) => index > 0 && minutesOf(range.start) < minutesOf(sorted[index - 1]!.end));
}

/** PUT /availability/ (admins). `agent_id`: that agent's own rules; absent or null: the organisation's. */
export const availabilityInputSchema = z
  .strictObject({
    agent_id: z.uuid({ error: "agent_id must be an agent's id" }).nullable().optional(),
    timezone: timeZoneSchema("timezone"),
    weekly: z
      .array(weeklyHoursSchema, { error: "weekly must be a list of {day, start, end}" })
      .max(AVAILABILITY_LIMITS.weeklyRanges, { error: `weekly holds at most ${AVAILABILITY_LIMITS.weeklyRanges} ranges` }),
    slot_minutes: intIn("slot_minutes", AVAILABILITY_LIMITS.slotMinutes),
    buffer_before_minutes: intIn("buffer_before_minutes", AVAILABILITY_LIMITS.bufferMinutes).default(0),
    buffer_after_minutes: intIn("buffer_after_minutes", AVAILABILITY_LIMITS.bufferMinutes).default(0),
    min_notice_minutes: intIn("min_notice_minutes", AVAILABILITY_LIMITS.minNoticeMinutes).default(0),
    max_days_ahead: intIn("max_days_ahead", AVAILABILITY_LIMITS.maxDaysAhead),
    max_per_day: intIn("max_per_day", AVAILABILITY_LIMITS.maxPerDay).nullable().default(null),
    closed_dates: z
      .array(dateSchema("closed_dates[]"))
      .max(AVAILABILITY_LIMITS.closedDates, { error: `closed_dates holds at most ${AVAILABILITY_LIMITS.closedDates} dates` })
      .default([])
      .transform((dates) => [...new Set(dates)].sort()),
    date_overrides: z
      .array(dateOverrideSchema)
      .max(AVAILABILITY_LIMITS.dateOverrides, { error: `date_overrides holds at most ${AVAILABILITY_LIMITS.dateOverrides} dates` })
      .default([]),
  })
  .superRefine((input, context) => {
    for (const day of WEEKDAYS) {
      const ranges = input.weekly.filter((range) => range.day === day);
      if (ranges.length > AVAILABILITY_LIMITS.rangesPerDay) context.addIssue({ code: "custom", path: ["weekly"], message: `${day} has more than ${AVAILABILITY_LIMITS.rangesPerDay} ranges` });
      if (overlapping(ranges)) context.addIssue({ code: "custom", path: ["weekly"], message: `${day}'s ranges overlap: give each part of the day once` });
    }
    const dates = new Set<string>();
    input.date_overrides.forEach((override, index) => {
      if (dates.has(override.date)) context.addIssue({ code: "custom", path: ["date_overrides", index, "date"], message: `${override.date} has two overrides: give each date once` });
      dates.add(override.date);
      if (overlapping(override.ranges)) context.addIssue({ code: "custom", path: ["date_overrides", index, "ranges"], message: `${override.date}'s ranges overlap` });
    });
  });
export type AvailabilityInput = z.infer<typeof availabilityInputSchema>;

export const availabilitySchema = z.object({
  /** The calendar's id (null until its rules were first saved). */
  id: z.uuid().nullable(),
  agent_id: z.uuid().nullable(),
  timezone: z.string(),
  weekly: z.array(z.object({ day: z.enum(WEEKDAYS), start: z.string(), end: z.string() })),
  slot_minutes: z.number().int(),
  buffer_before_minutes: z.number().int(),
  buffer_after_minutes: z.number().int(),
  min_notice_minutes: z.number().int(),
  max_days_ahead: z.number().int(),
  max_per_day: z.number().int().nullable(),
  closed_dates: z.array(z.string()),
  date_overrides: z.array(z.object({ date: z.string(), ranges: z.array(z.object({ start: z.string(), end: z.string() })) })),
  /** True while these are the defaults (nothing saved yet). */
  is_default: z.boolean(),
  /** Asked for an agent that has no rules of its own: these are the organisation's. */
  inherited: z.boolean(),
  updated_at: z.string().nullable(),
});
export type Availability = z.infer<typeof availabilitySchema>;

export const availabilityQuerySchema = z.object({
  agentId: z.uuid({ error: "agentId must be an agent's id" }).optional(),
});

/** startDate / endDate: YYYY-MM-DD in the calendar's zone, endDate included (issue 18). */
export const calendarRangeQuerySchema = z.object({
  startDate: dateSchema("startDate"),
  endDate: dateSchema("endDate"),
  agentId: z.uuid({ error: "agentId must be an agent's id" }).optional(),
});

export const slotSchema = z.object({ start: z.string(), end: z.string() });
export type Slot = z.infer<typeof slotSchema>;

/** GET /availability/slots: free slots as UTC instants, with the calendar's zone named. */
export const slotsResponseSchema = z.object({ data: z.array(slotSchema), timezone: z.string() });

const instant = (field: string) =>
  z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 time with its offset, e.g. 2026-12-01T14:00:00Z` });

const customerNumber = z
  .string({ error: "customer_number must be text" })
  .trim()
  .regex(E164_PATTERN, { error: "customer_number must be in E.164 form: '+', the country code and the number, e.g. +14155550123" });

const optionalText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters` })
    .nullable()
    .optional();

export const appointmentInputSchema = z.strictObject({
  title: z.string({ error: "title is required" }).trim().min(1, { error: "title is required" }).max(APPOINTMENT_TITLE_MAX_LENGTH, { error: `title must be at most ${APPOINTMENT_TITLE_MAX_LENGTH} characters` }),
  start: instant("start"),
  end: instant("end"),
  customer_name: optionalText("customer_name", 200),
  customer_number: customerNumber.nullable().optional(),
  customer_email: z.email({ error: "customer_email must be an email address" }).nullable().optional(),
  notes: optionalText("notes", APPOINTMENT_NOTES_MAX_LENGTH),
  agent_id: z.uuid({ error: "agent_id must be an agent's id" }).nullable().optional(),
});
export type AppointmentInput = z.infer<typeof appointmentInputSchema>;

/** PUT /appointment/{id}: any of the fields (start and end together reschedule), and the status. */
export const appointmentUpdateSchema = appointmentInputSchema.partial().extend({
  status: z.enum(APPOINTMENT_STATUSES, { error: `status must be one of ${APPOINTMENT_STATUSES.join(", ")}` }).optional(),
});
export type AppointmentUpdate = z.infer<typeof appointmentUpdateSchema>;

export const appointmentSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  customer_name: z.string().nullable(),
  customer_number: z.string().nullable(),
  customer_email: z.string().nullable(),
  notes: z.string().nullable(),
  status: z.enum(APPOINTMENT_STATUSES),
  source: z.enum(APPOINTMENT_SOURCES),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  /** The call that booked it (source agent). */
  call_id: z.uuid().nullable(),
  /** The calendar (availability) it belongs to, and that calendar's zone. */
  calendar_id: z.uuid(),
  timezone: z.string(),
  /** True when it lies outside the calendar's hours (a person may book there; agents may not). */
  outside_hours: z.boolean(),
  /** Written to a connected outside calendar. */
  synced: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Appointment = z.infer<typeof appointmentSchema>;

export const appointmentListQuerySchema = pagingQuerySchema({ maxLimit: APPOINTMENT_LIST_MAX_LIMIT }).extend({
  startDate: dateSchema("startDate").optional(),
  endDate: dateSchema("endDate").optional(),
  status: z.enum(APPOINTMENT_STATUSES, { error: `status must be one of ${APPOINTMENT_STATUSES.join(", ")}` }).optional(),
  agentId: z.uuid({ error: "agentId must be an agent's id" }).optional(),
  search: z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional(),
});
export const appointmentListResponseSchema = listResponseSchema(appointmentSchema);

/** The 409 of a booking that would overlap (issue 18): up to 3 nearest free slots from the asked time on. */
export const slotTakenErrorSchema = z.object({ detail: z.string(), code: z.literal("slot_taken"), slots: z.array(slotSchema) });

export const calendarConnectionSchema = z.object({
  id: z.uuid(),
  provider: z.enum(CALENDAR_PROVIDERS),
  account_email: z.string().nullable(),
  /** The outside calendar written to and read from (Google: "primary"). */
  calendar: z.string(),
  status: z.enum(CALENDAR_CONNECTION_STATUSES),
  last_error: z.string().nullable(),
  connected_at: z.string(),
});
export type CalendarConnection = z.infer<typeof calendarConnectionSchema>;

export const calendarConnectionsResponseSchema = z.object({
  data: z.array(calendarConnectionSchema),
  /** Whether GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set (the page says how to set them when not). */
  google_configured: z.boolean(),
});

export const googleCallbackSchema = z.strictObject({
  code: z.string({ error: "code is required" }).min(1, { error: "code is required" }).max(2000),
  state: z.string({ error: "state is required" }).min(1, { error: "state is required" }).max(500),
});

export const calendarFeedResponseSchema = z.object({ data: z.object({ url: z.string() }) });
export const urlResponseSchema = z.object({ data: z.object({ url: z.string() }) });

/** POST /calendar/google/callback: the organisation's connection, new or replaced. */
export const calendarConnectionResponseSchema = z.object({ data: calendarConnectionSchema });

/**
 * DELETE /calendar/connections/{id}: the connection is gone either way; `revoked` says whether Google
 * confirmed taking the permission back (when not, `revoke_error` says why and the person can remove it
 * in their Google account).
 */
export const calendarDisconnectResponseSchema = z.object({
  data: z.object({ id: z.uuid(), revoked: z.boolean(), revoke_error: z.string().nullable() }),
});
export type CalendarDisconnectResult = z.infer<typeof calendarDisconnectResponseSchema>["data"];

export const calendarConnectionIdParamsSchema = z.object({ id: z.uuid({ error: "id must be a calendar connection's id" }) });
