export { formatCount, formatMinutes, formatUsd, formatUsdPerMinute, formatDay, formatLongDay, formatPeriod, NO_FIGURE } from "../dashboard/dashboard-format";

const dateTime = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
/** An instant as "12 Mar 2026, 14:05" in `zone` (the organisation's), or the browser's. */
export function formatInstant(instant: string, zone?: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  if (!zone) return dateTime.format(date);
  try {
    return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: zone }).format(date);
  } catch {
    return dateTime.format(date);
  }
}

/** A signed amount: "+$25.00" for credits, "−$0.42" for debits. */
export function formatSignedUsd(amount: number, format: (value: number) => string): string {
  if (amount > 0) return `+${format(amount)}`;
  if (amount < 0) return `−${format(-amount)}`;
  return format(0);
}

/** Today (YYYY-MM-DD) in `zone`. */
export function todayIn(zone: string, now = Date.now()): string {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
  } catch {
    return new Date(now).toISOString().slice(0, 10);
  }
}

/** `day` moved by `days` (calendar arithmetic on the date alone). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export const isDay = (value: string | null | undefined): value is string => typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value);
