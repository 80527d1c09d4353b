/**
 * Campaigns, the names and rules both sides read (no zod: the console imports this file; the schemas
 * are in contract/campaign.ts). Issue 13 and issue 18's campaign part.
 *
 * A campaign calls a list of contacts with one agent from one caller number, only inside its weekly
 * calling windows in each contact's own local time (contract/campaign-schedule.ts), at most
 * `max_concurrency` calls at once, retrying the outcomes it is told to after `delay_minutes`.
 *
 * States: draft → scheduled (start_at in the future) → running ⇄ paused → completed; cancelled from any
 * state that is not final. CAMPAIGN_TRANSITIONS says which action applies in which state; any other
 * answers 409 naming the current state.
 */

export const CAMPAIGN_STATUSES = ["draft", "scheduled", "running", "paused", "completed", "cancelled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const FINAL_CAMPAIGN_STATUSES: readonly CampaignStatus[] = ["completed", "cancelled"];

export const CAMPAIGN_ACTIONS = ["start", "pause", "resume", "cancel"] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** Which action applies from which state (the target is decided by the server: start_at may schedule). */
export const CAMPAIGN_TRANSITIONS: Readonly<Record<CampaignAction, readonly CampaignStatus[]>> = {
  start: ["draft"],
  pause: ["running", "scheduled"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
};

export const canTransition = (action: CampaignAction, status: CampaignStatus): boolean => CAMPAIGN_TRANSITIONS[action].includes(status);

/** A campaign may be deleted (admins) only when it is not dialling: drafts and finished campaigns. */
export const DELETABLE_CAMPAIGN_STATUSES: readonly CampaignStatus[] = ["draft", "completed", "cancelled"];

/** Contacts may be added (import) in these states. */
export const CONTACT_IMPORT_STATUSES: readonly CampaignStatus[] = ["draft", "paused"];

/**
 * What PUT /campaign/{id} may change in each state. Fields not listed for the state answer 409 naming
 * them and what to do ("pause the campaign first"). Live edits (running) apply to the next dial in every
 * process: the dialler reads the campaign row under its lock on each claim.
 */
export const CAMPAIGN_FIELDS = ["name", "agent_id", "phone_number_id", "schedule", "max_concurrency", "retry"] as const;
export type CampaignField = (typeof CAMPAIGN_FIELDS)[number];
export const EDITABLE_FIELDS: Readonly<Record<CampaignStatus, readonly CampaignField[]>> = {
  draft: CAMPAIGN_FIELDS,
  scheduled: CAMPAIGN_FIELDS,
  paused: CAMPAIGN_FIELDS,
  running: ["name", "schedule", "max_concurrency", "retry"],
  completed: ["name"],
  cancelled: ["name"],
};

/**
 * A contact's state. queued: waiting to be dialled (for its window, for a retry delay or for a free
 * line); in_progress: claimed by the dialler, the call is being placed or is on; then its final state:
 * the last call's outcome (answered, busy, no_answer, voicemail, failed) once no retry is due, dnc
 * (on the do-not-call list at import or at dial time, or opted out on a call), needs_timezone (no zone
 * known and no fallback: waits until the campaign gets one), cancelled (the campaign was cancelled or
 * ended before the contact was reached).
 */
export const CONTACT_STATUSES = [
  "queued",
  "in_progress",
  "answered",
  "busy",
  "no_answer",
  "voicemail",
  "failed",
  "dnc",
  "needs_timezone",
  "cancelled",
] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** The campaign's `counts`: `total` and one per contact status (in_progress included). */
export const CAMPAIGN_COUNT_KEYS = ["total", ...CONTACT_STATUSES] as const;
export type CampaignCounts = Record<(typeof CAMPAIGN_COUNT_KEYS)[number], number>;

/** Contact states that are over: no more dialling for them. */
export const FINAL_CONTACT_STATUSES: readonly ContactStatus[] = ["answered", "busy", "no_answer", "voicemail", "failed", "dnc", "cancelled"];

/**
 * Outcomes that may be retried (retry.on), in the API's spelling; the call outcome each one is
 * (contract/call-outcome.ts: customer-busy → busy, customer-did-not-answer → no_answer, voicemail →
 * voicemail, call.start.error-* and other failures → failed).
 */
export const RETRY_OUTCOMES = ["busy", "no-answer", "voicemail", "failed"] as const;
export type RetryOutcome = (typeof RETRY_OUTCOMES)[number];
export const RETRY_OUTCOME_OF_CALL: Readonly<Record<string, RetryOutcome>> = {
  busy: "busy",
  no_answer: "no-answer",
  voicemail: "voicemail",
  failed: "failed",
};

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** "HH:MM", 00:00–23:59, or "24:00" for the end of the day (ends only). */
export const WINDOW_TIME_PATTERN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
export const WINDOW_END_PATTERN = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

export const CAMPAIGN_NAME_MAX_LENGTH = 120;
export const CAMPAIGN_WINDOWS_MAX = 28;
export const RETRY_MAX_ATTEMPTS = 10;
/** A week: a longer delay is almost certainly a typo. */
export const RETRY_DELAY_MAX_MINUTES = 7 * 24 * 60;

/** Contacts per campaign, and what one import may bring. */
export const CAMPAIGN_CONTACTS_MAX = 100_000;
export const CONTACT_IMPORT_MAX_BYTES = 20 * 1024 * 1024;
/** JSON imports are for integrations; bigger lists go as CSV. */
export const CONTACT_IMPORT_JSON_MAX_ROWS = 10_000;
/** Variables per contact (the CSV's extra columns) and their sizes. */
export const CONTACT_VARIABLES_MAX = 50;
export const CONTACT_VARIABLE_VALUE_MAX_LENGTH = 1000;
export const CONTACT_NAME_MAX_LENGTH = 120;
/** Invalid rows listed in one import report (the counts cover all of them). */
export const IMPORT_REPORT_INVALID_MAX = 1000;

/** Why a campaign paused itself (pause_code); a person's pause has code `manual`. */
export const PAUSE_CODES = ["manual", "wallet", "provider", "circuit_breaker", "agent_missing", "number_missing", "spend_cap"] as const;
export type PauseCode = (typeof PAUSE_CODES)[number];

/** The organisation's concurrent-call limit until plans exist (issue 18: at least 10). */
export const DEFAULT_ORG_CONCURRENT_CALLS = 10;

/** Do-not-call entries: where they came from. */
export const DNC_SOURCES = ["manual", "import", "call"] as const;
export type DncSource = (typeof DNC_SOURCES)[number];
export const DNC_REASON_MAX_LENGTH = 300;

/** CSV columns with a meaning of their own (matched case-insensitively, trimmed); the rest become variables. */
export const CONTACT_CSV_COLUMNS = { number: ["number", "phone", "phone_number", "phonenumber", "mobile"], name: ["name", "full_name"], timezone: ["timezone", "time_zone", "tz"] } as const;

/** How a CSV header is matched against CONTACT_CSV_COLUMNS: trimmed, lower case, spaces and dashes as "_" ("Phone Number" → phone_number). */
export const csvColumnKey = (header: string): string => header.trim().toLowerCase().replace(/[\s-]+/g, "_");

/** Paths (under /api). */
export const CAMPAIGN_PATHS = {
  list: "/campaign/",
  one: (id: string) => `/campaign/${id}`,
  action: (id: string, action: CampaignAction) => `/campaign/${id}/${action}`,
  contacts: (id: string) => `/campaign/${id}/contacts`,
  export: (id: string) => `/campaign/${id}/export`,
  progress: (id: string) => `/campaign/${id}/progress`,
  events: (id: string) => `/campaign/${id}/events`,
  dnc: "/dnc/",
  dncOne: (id: string) => `/dnc/${id}`,
} as const;
