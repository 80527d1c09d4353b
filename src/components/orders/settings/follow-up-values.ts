/**
 * The follow-up form's values and the PUT /order/follow-up body made from them (contract/order.ts:
 * followUpSettingsInputSchema). The schedule and retry have a campaign's shape, so the campaign form's
 * window and retry editors are reused; their field names (windows, max_attempts, delay_minutes,
 * retry_on, max_concurrency) are theirs, which is why the delay after abandonment is `abandon_delay`.
 */
import type { FollowUpSettings, FollowUpSettingsInput } from "../../../../contract/order";
import { DEFAULT_FOLLOW_UP_WINDOWS, windowWithinCallingHours } from "../../../../contract/calling-rules";
import { RETRY_OUTCOMES, WEEKDAYS, type RetryOutcome } from "../../../../contract/campaign-shared";
import { isValidWindow, WINDOW_PRESETS, type WindowValue } from "../../campaigns/campaign-form/form-values";
import { ordersSettingsText } from "./strings";

export interface FollowUpFormValues {
  enabled: boolean;
  agent_id?: string | null;
  phone_number_id?: string | null;
  abandon_delay: number;
  windows: WindowValue[];
  fallback_timezone?: string | null;
  max_concurrency: number;
  max_attempts: number;
  delay_minutes: number;
  retry_on: RetryOutcome[];
  attribution_days: number;
}

/** Windows a person picks with one click; all inside the calling hours (contract/calling-rules.ts). */
export const FOLLOW_UP_PRESETS = {
  default: DEFAULT_FOLLOW_UP_WINDOWS.map((window) => ({ ...window, days: [...window.days] })),
  weekdays: WINDOW_PRESETS.weekdays,
  widest: [{ days: [...WEEKDAYS], start: "08:00", end: "21:00" }],
} satisfies Record<string, WindowValue[]>;
export type FollowUpPreset = keyof typeof FOLLOW_UP_PRESETS;

export function formValuesOf(settings: FollowUpSettings): FollowUpFormValues {
  return {
    enabled: settings.enabled,
    agent_id: settings.agent_id,
    phone_number_id: settings.phone_number_id,
    abandon_delay: settings.delay_minutes,
    windows: settings.schedule.windows.map((window) => ({ days: WEEKDAYS.filter((day) => window.days.includes(day)), start: window.start, end: window.end })),
    fallback_timezone: settings.schedule.fallback_timezone,
    max_concurrency: settings.max_concurrency,
    max_attempts: settings.retry.max_attempts,
    delay_minutes: settings.retry.delay_minutes,
    retry_on: RETRY_OUTCOMES.filter((outcome) => settings.retry.on.includes(outcome)),
    attribution_days: settings.attribution_days,
  };
}

export function settingsBody(values: FollowUpFormValues): FollowUpSettingsInput {
  return {
    enabled: values.enabled,
    agent_id: values.agent_id || null,
    phone_number_id: values.phone_number_id || null,
    delay_minutes: values.abandon_delay,
    schedule: {
      windows: values.windows.map((window) => ({ days: WEEKDAYS.filter((day) => window.days.includes(day)), start: window.start.trim(), end: window.end.trim() })),
      fallback_timezone: values.fallback_timezone || null,
    },
    retry: { max_attempts: values.max_attempts, delay_minutes: values.delay_minutes, on: RETRY_OUTCOMES.filter((outcome) => values.retry_on.includes(outcome)) },
    attribution_days: values.attribution_days,
    max_concurrency: values.max_concurrency,
  };
}

/** The sentences for windows outside the calling hours (the server refuses them with 400 too). */
export function windowsOutsideCallingHours(windows: Partial<WindowValue>[] | undefined): string[] {
  return (windows ?? []).flatMap((window, index) =>
    isValidWindow(window) && !windowWithinCallingHours(window) ? [ordersSettingsText.followUp.windowOutside(index + 1)] : [],
  );
}

/**
 * The server's 400 detail ("schedule.windows: calls about a purchase may only…; agent_id: …"), each
 * clause's field named as the form names it.
 */
export function readableDetail(detail: string): string[] {
  const fields = ordersSettingsText.followUp.fields;
  const names = Object.keys(fields).sort((a, b) => b.length - a.length);
  return detail
    // Clauses are "field: sentence" joined by "; " (a sentence may hold "; " itself: the calling-hours rule does).
    .split(/; (?=[a-z_][a-z0-9_.[\]]*: )/)
    .filter(Boolean)
    .map((clause) => {
      const field = names.find((name) => clause.startsWith(`${name}`) && /^[:.[\d\]\s]/.test(clause.slice(name.length)));
      if (!field) return clause;
      // "schedule.windows.0.end: …" reads "Calling windows: …"; a repeated field name after the colon goes too.
      let rest = clause.slice(field.length).replace(/^[.[\d\]]*:\s*/, "");
      if (rest.startsWith(`${field}: `)) rest = rest.slice(field.length + 2);
      return `${fields[field]}: ${rest}`;
    });
}
