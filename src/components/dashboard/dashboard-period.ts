import { isCalendarDate } from "../../../contract/paging";
import type { DashboardQuery } from "../../../contract/dashboard";
import { DASHBOARD_DEFAULT_DAYS } from "../../../contract/dashboard-paths";

/**
 * The dashboard's view, kept in its URL so a link or a reload shows the same figures:
 * `?period=7d | 30d | 90d | month | custom` (absent: the last 30 days), `&startDate=&endDate=` for a
 * custom range (YYYY-MM-DD, endDate included), `&agentId=` for one agent.
 * The presets are relative ("the last 7 days" stays the last 7 days in a bookmark) and are cut in the
 * organisation's time zone, never the browser's.
 */
export const PERIOD_CHOICES = ["7d", "30d", "90d", "month", "custom"] as const;
export type PeriodChoice = (typeof PERIOD_CHOICES)[number];
export type PresetPeriod = Exclude<PeriodChoice, "custom">;

export interface DashboardView {
  period: PeriodChoice;
  /** Set for a custom period only. */
  startDate?: string;
  endDate?: string;
  agentId?: string;
}

export const DEFAULT_PERIOD: PresetPeriod = "30d";
const PRESET_DAYS = { "7d": 7, "30d": DASHBOARD_DEFAULT_DAYS, "90d": 90 } as const;

export function readDashboardView(params: URLSearchParams): DashboardView {
  const agentId = params.get("agentId") || undefined;
  const period = params.get("period");
  const withAgent = (view: DashboardView): DashboardView => (agentId ? { ...view, agentId } : view);
  if (period === "custom") {
    const startDate = params.get("startDate") ?? "";
    const endDate = params.get("endDate") ?? "";
    if (isCalendarDate(startDate) && isCalendarDate(endDate) && startDate <= endDate) return withAgent({ period, startDate, endDate });
  }
  if (period && period !== "custom" && (PERIOD_CHOICES as readonly string[]).includes(period)) return withAgent({ period: period as PresetPeriod });
  return withAgent({ period: DEFAULT_PERIOD });
}

/** The URL's query for `view`: what readDashboardView reads back. */
export function dashboardViewParams(view: DashboardView): URLSearchParams {
  const params = new URLSearchParams({ period: view.period });
  if (view.period === "custom" && view.startDate && view.endDate) {
    params.set("startDate", view.startDate);
    params.set("endDate", view.endDate);
  }
  if (view.agentId) params.set("agentId", view.agentId);
  return params;
}

/** Today's calendar day (YYYY-MM-DD) in `timeZone` at `now`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now);
  const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

/** A calendar day moved by `days` (calendar arithmetic: no time zone, no daylight saving). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The days a preset covers in `timeZone` at `now`: the last n days with today, or this month so far. */
export function presetRange(period: PresetPeriod, timeZone: string, now: Date = new Date()): { startDate: string; endDate: string } {
  const today = todayIn(timeZone, now);
  if (period === "month") return { startDate: `${today.slice(0, 8)}01`, endDate: today };
  return { startDate: addDays(today, -(PRESET_DAYS[period] - 1)), endDate: today };
}

/**
 * What GET /dashboard/ is asked for `view`; null while the organisation's time zone it needs is not
 * known yet. The default (the last 30 days) sends no dates: it is the server's own default, cut in the
 * organisation's zone, so the landing page asks at once without first waiting for the zone.
 */
export function dashboardQuery(view: DashboardView, timeZone: string | undefined, now: Date = new Date()): DashboardQuery | null {
  const agent = view.agentId ? { agentId: view.agentId } : {};
  if (view.period === "custom") return { startDate: view.startDate, endDate: view.endDate, ...agent };
  if (view.period === DEFAULT_PERIOD) return agent;
  if (!timeZone) return null;
  return { ...presetRange(view.period, timeZone, now), ...agent };
}
