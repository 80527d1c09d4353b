/** How the dashboard writes its figures (en-US digits, as the rest of the console). */

const count = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const upToOneDecimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usdFine = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4 });
const usdPerMinute = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 3 });
const shortDay = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
const longDay = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

export const NO_FIGURE = "—";

export const formatCount = (value: number) => count.format(value);
/** Minutes to 0.1, as the answer rounds them. */
export const formatMinutes = (value: number) => oneDecimal.format(value);
/** USD with cents; a non-zero amount under a cent keeps four decimals (a day of sandbox calls can cost $0.004). */
export const formatUsd = (value: number) => (value !== 0 && Math.abs(value) < 0.01 ? usdFine : usd).format(value);
export const formatUsdPerMinute = (value: number | null) => (value === null ? NO_FIGURE : `${usdPerMinute.format(value)}/min`);
/** A rate (0–1) as a percentage to 0.1, or — when it has no denominator. */
export const formatRate = (value: number | null) => (value === null ? NO_FIGURE : `${upToOneDecimal.format(value * 100)}%`);
export const formatPercent = (value: number) => `${upToOneDecimal.format(value)}%`;
export const formatPoints = (value: number) => `${upToOneDecimal.format(value)} pts`;

const dayDate = (day: string) => new Date(`${day}T00:00:00.000Z`);
/** A YYYY-MM-DD day as "12 Mar" (the day itself, whatever the browser's zone). */
export const formatDay = (day: string) => shortDay.format(dayDate(day));
export const formatLongDay = (day: string) => longDay.format(dayDate(day));
/** "1 Mar – 30 Mar 2026", or one day alone. */
export function formatPeriod(start: string, end: string): string {
  if (start === end) return formatLongDay(start);
  return start.slice(0, 4) === end.slice(0, 4) ? `${formatDay(start)} – ${formatLongDay(end)}` : `${formatLongDay(start)} – ${formatLongDay(end)}`;
}
