import { isCalendarDate } from "../../../contract/paging";
export { formatCount, formatMinutes, formatUsd, formatUsdPerMinute, formatDay, formatLongDay, formatPeriod, NO_FIGURE } from "../dashboard/dashboard-format";
export { addDays, todayIn } from "../dashboard/dashboard-period";

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

/** A YYYY-MM-DD calendar day (the contract's check), typed for the URL's possibly-absent values. */
export const isDay = (value: string | null | undefined): value is string => typeof value === "string" && isCalendarDate(value);
