import { PLAN_LIMIT_KEYS, type PlanLimitKey, type PlanLimits } from "../../../contract/plans";
import type { PlanUsage } from "../../../contract/subscription";

const whole = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const cents = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2 });

/** "$49", "$12.50". */
export function formatPrice(usd: number): string {
  return (Number.isInteger(usd) ? whole : cents).format(usd);
}

/** "+$150", "−$49". */
export function formatPriceChange(usd: number): string {
  return `${usd < 0 ? "\u2212" : "+"}${formatPrice(Math.abs(usd))}`;
}

export { formatCount } from "../dashboard/dashboard-format";

/** "2 Dec 2026". */
export function formatDay(instant: string): string {
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric" }).format(Date.parse(instant));
}

/** "14:05", in the browser's zone. */
export function formatTime(instant: string): string {
  return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit" }).format(Date.parse(instant));
}

/** "a minute", "5 minutes", "2 hours": a sweep interval in seconds, rounded up. */
export function formatInterval(seconds: number): string {
  if (seconds <= 60) return "a minute";
  if (seconds < 3600) return `${Math.ceil(seconds / 60)} minutes`;
  const hours = Math.ceil(seconds / 3600);
  return hours === 1 ? "an hour" : `${hours} hours`;
}

/** One limit's usage: `used` null when nothing is "used" of it (retention_days: the plan's own figure). */
export interface UsageRow {
  limit: PlanLimitKey;
  used: number | null;
  allowed: number | null;
}

/** The subscription's usage, a row per limit in the contract's order. */
export function usageRows(limits: PlanLimits, usage: PlanUsage): UsageRow[] {
  return PLAN_LIMIT_KEYS.map((limit) => ({ limit, used: limit === "retention_days" ? null : usage[limit], allowed: limits[limit] }));
}

export function isOver(row: UsageRow): boolean {
  return row.used !== null && row.allowed !== null && row.used > row.allowed;
}
