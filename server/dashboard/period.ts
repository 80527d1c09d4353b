/**
 * The dashboard's period and the one before it, as calendar days (YYYY-MM-DD) in the organisation's
 * time zone: the days call_daily_stats is cut in. Plain day arithmetic on UTC dates, so no zone or
 * daylight-saving change can shift a day; only "today" depends on the zone, and the database says
 * what today is there (server/dashboard/stats.ts), with the same zone rules it cuts the days by.
 */
import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS, type DashboardQuery } from "../../contract/dashboard";
import { ERROR_CODES } from "../../contract/errors";
import { ApiError } from "../plugins/errors";

const DAY_MS = 86_400_000;

const toTime = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const toDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The day `n` days after `day` (before it when negative). */
export const addDays = (day: string, n: number) => toDay(toTime(day) + n * DAY_MS);

/** How many days from `start` to `end`, both included. */
export const daysBetween = (start: string, end: string) => Math.round((toTime(end) - toTime(start)) / DAY_MS) + 1;

/** Every day from `start` to `end`, both included, oldest first. */
export function eachDay(start: string, end: string): string[] {
  const days: string[] = [];
  for (let time = toTime(start), last = toTime(end); time <= last; time += DAY_MS) days.push(toDay(time));
  return days;
}

export interface DashboardPeriod {
  start: string;
  end: string;
  days: number;
  previousStart: string;
  previousEnd: string;
}

/**
 * The period a query asks for; `today` is today in the organisation's zone.
 * - neither date: the last DASHBOARD_DEFAULT_DAYS days, today included;
 * - endDate alone: the DASHBOARD_DEFAULT_DAYS days ending that day;
 * - startDate alone: from that day to today (that day alone when it is after today).
 * A period longer than DASHBOARD_MAX_DAYS answers 400 validation_error (the contract checks it when both dates are given).
 * The previous period is the same number of days just before.
 */
export function dashboardPeriod(query: Pick<DashboardQuery, "startDate" | "endDate">, today: string): DashboardPeriod {
  const { start, end, days } = dayRange(query, today, DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS);
  return { start, end, days, previousStart: addDays(start, -days), previousEnd: addDays(start, -1) };
}

/** The days a query asks for, as dashboardPeriod reads them (also GET /billing/usage's range), with its own default and longest span. */
export function dayRange(query: { startDate?: string; endDate?: string }, today: string, defaultDays: number, maxDays: number): { start: string; end: string; days: number } {
  let start = query.startDate;
  let end = query.endDate;
  if (!end) end = start && start > today ? start : today;
  if (!start) start = addDays(end, 1 - defaultDays);
  const days = daysBetween(start, end);
  if (days > maxDays) {
    // The same check as the contract's when both dates are given, so the same code as its answer.
    throw new ApiError(400, ERROR_CODES.validation, `startDate: the period can be at most ${maxDays} days (from ${start} to ${end} is ${days}); give an endDate too`);
  }
  return { start, end, days };
}
