/**
 * How an order reads: money (numbers in the currency's major unit on the wire, 59.9 for $59.90), the
 * items in a line, durations, and when its screen should ask again. No antd: the dashboard's card
 * imports this file too.
 */
import type { Order } from "../../../contract/order";
import { ordersText } from "./strings";

/** While an order on screen may change by itself (a call placed or on the line), the screen asks again this often. */
export const ORDER_POLL_MS = 5_000;

/** An order whose state moves on its own: calling, or open with its first call queued. */
export const isOrderLive = (order: Pick<Order, "status" | "next_call_at">): boolean =>
  order.status === "calling" || (order.status === "open" && order.next_call_at !== null);

const FORMATS = new Map<string, Intl.NumberFormat>();

/** "$59.90", "¥1,200", "KWD 1.250": an amount in the currency's major unit. */
export function formatMoney(amount: number, currency: string): string {
  let format = FORMATS.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency });
    } catch {
      return `${amount} ${currency}`;
    }
    FORMATS.set(currency, format);
  }
  return format.format(amount);
}

/** "2 × Blue mug, 1 × Tote bag" (the first `shown` items; the rest as a count). */
export function itemsSummary(items: Order["items"], shown = 2): { text: string; more: number } {
  if (items.length === 0) return { text: ordersText.noItems, more: 0 };
  const text = items
    .slice(0, shown)
    .map((item) => `${item.quantity} × ${item.name}`)
    .join(", ");
  return { text, more: Math.max(0, items.length - shown) };
}

/** "45 min", "3 h 20 min", "2 d 4 h": a duration in seconds, in its two largest units. */
export function formatDuration(seconds: number): string {
  const minutes = Math.max(0, Math.round(seconds / 60));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

const dateTime = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
const dateTimeThisYear = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
const dateTimeZone = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });

/** "5 Mar, 09:00" (this year) or "5 Mar 2025, 09:00" in the browser's time; with its zone named "Thu, 5 Mar 2026, 09:00 UTC"; "—" without a time. */
export function formatWhen(iso: string | null | undefined, withZone = false): string {
  if (!iso) return ordersText.drawer.none;
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return iso;
  if (withZone) return dateTimeZone.format(time);
  return (new Date(time).getFullYear() === new Date().getFullYear() ? dateTimeThisYear : dateTime).format(time);
}

/** "42%"; null (nothing to divide by) reads "—". */
export const formatRate = (rate: number | null): string => (rate === null ? ordersText.kpis.none : `${Math.round(rate * 1000) / 10}%`);
