/**
 * The availability form's values and the API's shapes (contract/calendar.ts availabilitySchema and
 * availabilityInputSchema), both ways. The form holds the weekly hours per weekday (one list of ranges a
 * day, as a person edits them); the API takes one flat list of {day, start, end}.
 */
import dayjs, { type Dayjs } from "dayjs";
import type { Availability, AvailabilityInput } from "../../../contract/calendar";
import { WEEKDAYS, type Weekday } from "../../../contract/calendar-shared";
import { isTime, minutesOf } from "./calendar-time";

export interface RangeValue {
  start: string;
  end: string;
}

export interface AvailabilityValues {
  timezone: string;
  weekly: Record<Weekday, RangeValue[]>;
  slot_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  min_notice_minutes: number;
  max_days_ahead: number;
  max_per_day: number | null;
  closed_dates: string[];
  date_overrides: Array<{ date: Dayjs | null; ranges: RangeValue[] }>;
}

export function valuesOf(availability: Availability): AvailabilityValues {
  const weekly = Object.fromEntries(WEEKDAYS.map((day) => [day, [] as RangeValue[]])) as Record<Weekday, RangeValue[]>;
  for (const range of availability.weekly) weekly[range.day].push({ start: range.start, end: range.end });
  for (const day of WEEKDAYS) weekly[day].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
  return {
    timezone: availability.timezone,
    weekly,
    slot_minutes: availability.slot_minutes,
    buffer_before_minutes: availability.buffer_before_minutes,
    buffer_after_minutes: availability.buffer_after_minutes,
    min_notice_minutes: availability.min_notice_minutes,
    max_days_ahead: availability.max_days_ahead,
    max_per_day: availability.max_per_day,
    closed_dates: [...availability.closed_dates].sort(),
    date_overrides: availability.date_overrides.map((override) => ({ date: dayjs(override.date), ranges: override.ranges.map((range) => ({ ...range })) })),
  };
}

/** PUT /availability/'s body; `agentId` undefined saves the organisation's rules. */
export function inputOf(values: AvailabilityValues, agentId: string | undefined): AvailabilityInput {
  return {
    ...(agentId ? { agent_id: agentId } : {}),
    timezone: values.timezone,
    weekly: WEEKDAYS.flatMap((day) => (values.weekly[day] ?? []).map((range) => ({ day, start: range.start, end: range.end }))),
    slot_minutes: values.slot_minutes,
    buffer_before_minutes: values.buffer_before_minutes ?? 0,
    buffer_after_minutes: values.buffer_after_minutes ?? 0,
    min_notice_minutes: values.min_notice_minutes ?? 0,
    max_days_ahead: values.max_days_ahead,
    max_per_day: values.max_per_day ?? null,
    closed_dates: [...(values.closed_dates ?? [])].sort(),
    date_overrides: (values.date_overrides ?? [])
      .filter((override): override is { date: Dayjs; ranges: RangeValue[] } => override.date !== null && override.date !== undefined)
      .map((override) => ({ date: override.date.format("YYYY-MM-DD"), ranges: (override.ranges ?? []).map((range) => ({ start: range.start, end: range.end })) })),
  };
}

/** Whether two ranges of one day overlap (both written well; an unwritten one overlaps nothing). */
export function rangesOverlap(ranges: RangeValue[] | undefined): boolean {
  const valid = (ranges ?? []).filter((range) => range && isTime(range.start ?? "") && isTime(range.end ?? ""));
  const sorted = [...valid].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
  return sorted.some((range, index) => index > 0 && minutesOf(range.start) < minutesOf(sorted[index - 1]!.end));
}
