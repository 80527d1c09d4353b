import dayjs from "dayjs";
import type { Call } from "../../../contract/call";

/** A row of GET /call/: the call without its long parts (messages, transcript, breakdowns). */
export type CallListItem = Omit<Call, "messages" | "transcript" | "cost_breakdown" | "structured_data">;

/** Seconds as m:ss (or h:mm:ss for an hour and more), e.g. 75 → "1:15"; nothing → "—". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** A transcript time: always mm:ss from the start of the call, e.g. 5.4 → "00:05". */
export function formatOffset(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${String(Math.floor(whole / 60)).padStart(2, "0")}:${String(whole % 60).padStart(2, "0")}`;
}

/** USD with cents, or four decimals under a cent (per-call costs are often fractions of a cent). */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return "—";
  return `$${cost.toFixed(cost !== 0 && Math.abs(cost) < 0.01 ? 4 : 2)}`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const value = dayjs(iso);
  return value.isValid() ? value.format("YYYY-MM-DD HH:mm:ss") : iso;
}
