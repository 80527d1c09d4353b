/**
 * How a campaign reads: its progress, its weekly windows, the time of its next window. No antd, no
 * dayjs, no zod: the dashboard's card (the landing page) imports this file too.
 */
import {
  FINAL_CONTACT_STATUSES,
  WEEKDAYS,
  type CampaignCounts,
  type CampaignStatus,
  type PauseCode,
  type Weekday,
} from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";

const text = strings.campaigns;

/** A campaign whose numbers move on their own: its screens ask again every CAMPAIGN_POLL_MS. */
export const LIVE_CAMPAIGN_STATUSES: readonly CampaignStatus[] = ["running", "scheduled"];
export const CAMPAIGN_POLL_MS = 5_000;

export const isLive = (status: CampaignStatus | undefined): boolean => status !== undefined && LIVE_CAMPAIGN_STATUSES.includes(status);

/**
 * Why a paused campaign stopped, as a person reads it: the server's sentence (pause_reason), else its
 * cause's words; null when it is not paused or says nothing (the list's tag and the dashboard's card).
 */
export function pauseReasonText(campaign: { status: CampaignStatus; pause_code: PauseCode | null; pause_reason: string | null }): string | null {
  if (campaign.status !== "paused" || !(campaign.pause_reason || campaign.pause_code)) return null;
  return campaign.pause_reason ?? text.pauseCodes[campaign.pause_code ?? "manual"];
}

/** Contacts done with (reached, given up on, on the do-not-call list or cancelled). */
export function finishedContacts(counts: Partial<CampaignCounts>): number {
  return FINAL_CONTACT_STATUSES.reduce((sum, status) => sum + (counts[status] ?? 0), 0);
}

/** 0..1: finished contacts of all; 0 for a campaign without contacts. */
export function progressOf(counts: Partial<CampaignCounts>): number {
  const total = counts.total ?? 0;
  return total > 0 ? Math.min(1, finishedContacts(counts) / total) : 0;
}

/** Counts as the dashboard writes them ("1,234"). */
export { formatCount } from "../dashboard/dashboard-format";

export const formatPercent = (fraction: number): string => `${Math.round(fraction * 100)}%`;

/** "Mon–Fri", "Mon, Wed, Fri", "Every day": consecutive weekdays as a range. */
export function formatDays(days: readonly string[]): string {
  const picked = WEEKDAYS.filter((day) => days.includes(day));
  if (picked.length === 7) return text.everyDay;
  const runs: Weekday[][] = [];
  for (const day of picked) {
    const last = runs.at(-1);
    if (last && WEEKDAYS.indexOf(last.at(-1)!) === WEEKDAYS.indexOf(day) - 1) last.push(day);
    else runs.push([day]);
  }
  return runs
    .map((run) => (run.length >= 3 ? `${text.weekdays[run[0]!]}–${text.weekdays[run.at(-1)!]}` : run.map((day) => text.weekdays[day]).join(", ")))
    .join(", ");
}

/** "Mon–Fri 09:00–17:00; Sat 10:00–14:00". */
export function formatWindows(windows: ReadonlyArray<{ days: readonly string[]; start: string; end: string }>): string {
  return windows.map((window) => `${formatDays(window.days)} ${window.start}–${window.end}`).join("; ");
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "in 3 hours", "in 2 days", "5 minutes ago"; under a minute "now". */
export function formatRelative(iso: string, now = Date.now()): string {
  const diff = Date.parse(iso) - now;
  if (!Number.isFinite(diff)) return iso;
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size) return relative.format(Math.round(diff / size), unit);
  }
  return text.now;
}

const absolute = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });

/** "Thu, 5 Mar 2026, 09:00 GMT+1": the browser's own time, its zone named. */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return "—";
  const time = Date.parse(iso);
  return Number.isFinite(time) ? absolute.format(time) : iso;
}
