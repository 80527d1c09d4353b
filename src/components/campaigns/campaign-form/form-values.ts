/**
 * The step form's values, and the API bodies made from them (contract/campaign.ts: POST /campaign/ for
 * the draft, PUT /campaign/{id} with only what the state lets change and what changed).
 */
import dayjs, { type Dayjs } from "dayjs";
import type { Campaign, CampaignCreate, CampaignUpdate } from "../../../../contract/campaign";
import {
  EDITABLE_FIELDS,
  RETRY_OUTCOMES,
  WEEKDAYS,
  WINDOW_END_PATTERN,
  WINDOW_TIME_PATTERN,
  type CampaignField,
  type RetryOutcome,
  type Weekday,
} from "../../../../contract/campaign-shared";

export const STEPS = ["basics", "contacts", "schedule", "calling", "review"] as const;
export type StepKey = (typeof STEPS)[number];
export const isStep = (value: string | null): value is StepKey => (STEPS as readonly string[]).includes(value ?? "");

export interface WindowValue {
  days: Weekday[];
  start: string;
  end: string;
}

export interface CampaignFormValues {
  name: string;
  agent_id?: string | null;
  phone_number_id?: string | null;
  windows: WindowValue[];
  fallback_timezone?: string | null;
  start_at?: Dayjs | null;
  end_at?: Dayjs | null;
  max_concurrency: number;
  max_attempts: number;
  delay_minutes: number;
  retry_on: RetryOutcome[];
}

const WEEKDAYS_ONLY: Weekday[] = ["mon", "tue", "wed", "thu", "fri"];
const ALL_DAYS: Weekday[] = [...WEEKDAYS];

/** Windows a person picks with one click (the first is a new campaign's). */
export const WINDOW_PRESETS = {
  weekdays: [{ days: WEEKDAYS_ONLY, start: "09:00", end: "17:00" }],
  weekdaysLunch: [
    { days: WEEKDAYS_ONLY, start: "09:00", end: "12:00" },
    { days: WEEKDAYS_ONLY, start: "13:00", end: "17:00" },
  ],
  everyDay: [{ days: ALL_DAYS, start: "09:00", end: "20:00" }],
  always: [{ days: ALL_DAYS, start: "00:00", end: "24:00" }],
} satisfies Record<string, WindowValue[]>;
export type WindowPreset = keyof typeof WINDOW_PRESETS;

export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export const isWindowStart = (value: string): boolean => WINDOW_TIME_PATTERN.test(value);
export const isWindowEnd = (value: string): boolean => WINDOW_END_PATTERN.test(value);

/** A window the API takes: a day, times written HH:MM, the end after the start. */
export function isValidWindow(window: Partial<WindowValue> | undefined): window is WindowValue {
  return (
    Boolean(window?.days?.length) &&
    isWindowStart(window?.start ?? "") &&
    isWindowEnd(window?.end ?? "") &&
    minutesOf(window!.end!) > minutesOf(window!.start!)
  );
}

/** The values a campaign opens the form with (a new one: a nameless draft calling on weekdays 9–17). */
export function formValuesOf(campaign?: Campaign): CampaignFormValues {
  if (!campaign) {
    return { name: "", agent_id: null, phone_number_id: null, windows: WINDOW_PRESETS.weekdays.map((window) => ({ ...window, days: [...window.days] })), fallback_timezone: null, start_at: null, end_at: null, max_concurrency: 1, max_attempts: 1, delay_minutes: 0, retry_on: [] };
  }
  return {
    name: campaign.name,
    agent_id: campaign.agent_id,
    phone_number_id: campaign.phone_number_id,
    windows: campaign.schedule.windows.map((window) => ({ days: [...window.days], start: window.start, end: window.end })),
    fallback_timezone: campaign.schedule.fallback_timezone,
    start_at: campaign.schedule.start_at ? dayjs(campaign.schedule.start_at) : null,
    end_at: campaign.schedule.end_at ? dayjs(campaign.schedule.end_at) : null,
    max_concurrency: campaign.max_concurrency,
    max_attempts: campaign.retry.max_attempts,
    delay_minutes: campaign.retry.delay_minutes,
    retry_on: [...campaign.retry.on],
  };
}

type Schedule = NonNullable<CampaignUpdate["schedule"]>;

function scheduleOf(values: CampaignFormValues): Schedule {
  return {
    windows: values.windows.map((window) => ({ days: WEEKDAYS.filter((day) => window.days.includes(day)), start: window.start.trim(), end: window.end.trim() })),
    fallback_timezone: values.fallback_timezone || null,
    start_at: values.start_at ? values.start_at.toISOString() : null,
    end_at: values.end_at ? values.end_at.toISOString() : null,
  };
}

function retryOf(values: CampaignFormValues): NonNullable<CampaignUpdate["retry"]> {
  return { max_attempts: values.max_attempts, delay_minutes: values.delay_minutes, on: RETRY_OUTCOMES.filter((outcome) => values.retry_on.includes(outcome)) };
}

/** POST /campaign/: the draft, from the first step (concurrency and retries are the server's defaults until edited). */
export function createBody(values: CampaignFormValues): CampaignCreate {
  return { name: values.name.trim(), agent_id: values.agent_id || null, phone_number_id: values.phone_number_id || null, schedule: scheduleOf(values) };
}

const instant = (value: string | null | undefined) => (value ? Date.parse(value) : null);

function sameSchedule(a: Schedule, b: Campaign["schedule"]): boolean {
  const windows = (list: Schedule["windows"]) => JSON.stringify(list.map((window) => [WEEKDAYS.filter((day) => (window.days as readonly string[]).includes(day)), window.start, window.end]));
  return (
    windows(a.windows) === windows(b.windows) &&
    (a.fallback_timezone ?? null) === (b.fallback_timezone ?? null) &&
    instant(a.start_at) === instant(b.start_at) &&
    instant(a.end_at) === instant(b.end_at)
  );
}

/**
 * PUT /campaign/{id}: the fields that changed among those the campaign's state lets change
 * (EDITABLE_FIELDS); empty when there is nothing to save.
 */
export function updateBody(values: CampaignFormValues, campaign: Campaign): CampaignUpdate {
  const editable = new Set<CampaignField>(EDITABLE_FIELDS[campaign.status]);
  const body: CampaignUpdate = {};
  if (editable.has("name") && values.name.trim() !== campaign.name) body.name = values.name.trim();
  if (editable.has("agent_id") && (values.agent_id || null) !== campaign.agent_id) body.agent_id = values.agent_id || null;
  if (editable.has("phone_number_id") && (values.phone_number_id || null) !== campaign.phone_number_id) body.phone_number_id = values.phone_number_id || null;
  const schedule = scheduleOf(values);
  if (editable.has("schedule") && !sameSchedule(schedule, campaign.schedule)) body.schedule = schedule;
  if (editable.has("max_concurrency") && values.max_concurrency !== campaign.max_concurrency) body.max_concurrency = values.max_concurrency;
  const retry = retryOf(values);
  const sameRetry = retry.max_attempts === campaign.retry.max_attempts && retry.delay_minutes === campaign.retry.delay_minutes && retry.on.join() === RETRY_OUTCOMES.filter((outcome) => campaign.retry.on.includes(outcome)).join();
  if (editable.has("retry") && !sameRetry) body.retry = retry;
  return body;
}
