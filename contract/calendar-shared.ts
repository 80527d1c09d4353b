/**
 * Calendar and appointments (issue 14, issue 18's calendar part): names, states, defaults, limits and
 * paths. Zod-free: the console's calendar chunk imports this; the API's schemas are in
 * contract/calendar.ts.
 *
 * A "calendar" is one set of availability rules: the organisation's (agent_id null), or an agent's own
 * when one was saved for it. Appointments belong to the calendar of their agent (its own, else the
 * organisation's); two appointments of one calendar never overlap (buffers included), whoever books.
 */
import { WEEKDAYS, type Weekday } from "./campaign-shared";

export { WEEKDAYS, type Weekday };

export const APPOINTMENT_STATUSES = ["booked", "cancelled", "completed", "no_show"] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** Statuses that hold their time: everything but cancelled (a completed or no-show appointment happened there). */
export const APPOINTMENT_HOLDING_STATUSES = ["booked", "completed", "no_show"] as const;

export const APPOINTMENT_SOURCES = ["console", "agent", "calendar_sync"] as const;
export type AppointmentSource = (typeof APPOINTMENT_SOURCES)[number];

/** What the console says for each status and source. */
export const APPOINTMENT_STATUS_LABELS: Readonly<Record<AppointmentStatus, string>> = {
  booked: "Booked",
  cancelled: "Cancelled",
  completed: "Completed",
  no_show: "No-show",
};
export const APPOINTMENT_SOURCE_LABELS: Readonly<Record<AppointmentSource, string>> = {
  console: "Console",
  agent: "Agent (during a call)",
  calendar_sync: "Calendar sync",
};

/** The agent's function tools (issue 14's minimum contract). */
export const BOOKING_TOOL_NAMES = ["check_availability", "book_appointment", "reschedule_appointment", "cancel_appointment"] as const;
export type BookingToolName = (typeof BOOKING_TOOL_NAMES)[number];

/** The 409 code of an appointment that would overlap another of its calendar. */
export const SLOT_TAKEN_CODE = "slot_taken";
/** How many nearest free slots a 409 slot_taken carries (issue 18). */
export const SLOT_TAKEN_ALTERNATIVES = 3;

/** HH:MM, 00:00–23:59 (a range's start) and 00:01–24:00 (its end). */
export { WINDOW_TIME_PATTERN as HOURS_START_PATTERN, WINDOW_END_PATTERN as HOURS_END_PATTERN } from "./campaign-shared";
export const DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** Limits of the availability rules. */
export const AVAILABILITY_LIMITS = {
  slotMinutes: { min: 5, max: 480 },
  bufferMinutes: { min: 0, max: 240 },
  minNoticeMinutes: { min: 0, max: 60 * 24 * 30 },
  maxDaysAhead: { min: 1, max: 730 },
  maxPerDay: { min: 1, max: 500 },
  /** Ranges per weekday and per date override. */
  rangesPerDay: 6,
  weeklyRanges: 42,
  closedDates: 366,
  dateOverrides: 366,
} as const;

/** The rules a calendar has until an admin saves its own (Mon–Fri 09:00–17:00, 30-minute slots). */
export const DEFAULT_AVAILABILITY = {
  weekly: (["mon", "tue", "wed", "thu", "fri"] as const).map((day) => ({ day, start: "09:00", end: "17:00" })),
  slot_minutes: 30,
  buffer_before_minutes: 0,
  buffer_after_minutes: 0,
  min_notice_minutes: 60,
  max_days_ahead: 60,
  max_per_day: null as number | null,
  closed_dates: [] as string[],
  date_overrides: [] as { date: string; ranges: { start: string; end: string }[] }[],
} as const;

/** The longest range GET /availability/slots and GET /appointment/ answer for (days, endDate included). */
export const CALENDAR_RANGE_MAX_DAYS = 62;
/** The longest appointment. */
export const APPOINTMENT_MAX_MINUTES = 24 * 60;
export const APPOINTMENT_TITLE_MAX_LENGTH = 200;
export const APPOINTMENT_NOTES_MAX_LENGTH = 5000;
/** GET /appointment/'s largest page (a busy month in the calendar fits one request). */
export const APPOINTMENT_LIST_MAX_LIMIT = 1000;

export const CALENDAR_PROVIDERS = ["google"] as const;
export type CalendarProvider = (typeof CALENDAR_PROVIDERS)[number];
export const CALENDAR_CONNECTION_STATUSES = ["connected", "error"] as const;

export const calendarPaths = {
  availability: "/availability/",
  availabilitySlots: "/availability/slots",
  appointments: "/appointment/",
  appointment: (id: string) => `/appointment/${encodeURIComponent(id)}`,
  /** Admin: the secret ICS address ({data: {url}}) and its rotation. */
  feed: "/calendar/feed",
  feedRotate: "/calendar/feed/rotate",
  /** Public, with the secret only: the ICS feed itself. */
  feedIcs: (token: string) => `/calendar/feed/${encodeURIComponent(token)}.ics`,
  /** The organisation's outside-calendar connections, and whether Google is configured. */
  connections: "/calendar/connections",
  connection: (id: string) => `/calendar/connections/${encodeURIComponent(id)}`,
  /** Admin: starts Google's OAuth flow ({data: {url}}: where to send the browser). */
  googleConnect: "/calendar/google/connect",
  /** Admin: the console posts Google's `code` and `state` back here from /calendar-permission. */
  googleCallback: "/calendar/google/callback",
} as const;

/** The console page Google redirects back to (OAuth redirect_uri = PUBLIC_URL + this). */
export const CALENDAR_PERMISSION_PAGE = "/calendar-permission";
