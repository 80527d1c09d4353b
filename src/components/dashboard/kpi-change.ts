import { formatPercent, formatPoints } from "./dashboard-format";

/**
 * A figure against the previous period, and whether the change is good news.
 *
 * Which way is good (the colour): more calls, minutes, answered and successful calls is good (up is
 * green, down red); a higher cost per minute is bad (the same talk for more money: up red, down
 * green). Cost and average duration are neutral (grey): cost rises with the calls it bought, which is
 * the point, and whether longer calls are better depends on the agent's job. The arrow and the words
 * say the direction whatever the colour, so colour is never the only signal.
 */
export type Better = "up" | "down" | "neither";
export type Trend = "good" | "bad" | "neutral";

export interface Change {
  direction: "up" | "down" | "same";
  /** What the card shows after the arrow: "12.5%", "4.2 pts", "from 0". */
  text: string;
  /** The same for a screen reader: "up 12.5%". */
  spoken: string;
  trend: Trend;
}

function trendOf(direction: Change["direction"], better: Better): Trend {
  if (direction === "same" || better === "neither") return "neutral";
  return (direction === "up") === (better === "up") ? "good" : "bad";
}

function change(direction: Change["direction"], text: string, better: Better): Change {
  const spoken = direction === "same" ? "no change" : `${direction} ${text}`;
  return { direction, text: direction === "same" ? "no change" : text, spoken, trend: trendOf(direction, better) };
}

/** A count or an amount: the change in percent of the previous value. Null when either is missing. */
export function relativeChange(current: number | null, previous: number | null, better: Better): Change | null {
  if (current === null || previous === null) return null;
  if (current === previous) return change("same", "", better);
  const direction = current > previous ? "up" : "down";
  if (previous === 0) return change(direction, "from 0", better);
  const percent = (Math.abs(current - previous) / Math.abs(previous)) * 100;
  // A change that rounds to 0.0% is still shown as one (its direction), not as "no change".
  return change(direction, formatPercent(Math.max(percent, 0.1)), better);
}

/** A rate (0–1): the change in percentage points. Null when either period has no rate. */
export function pointsChange(current: number | null, previous: number | null, better: Better): Change | null {
  if (current === null || previous === null) return null;
  const points = Math.round((current - previous) * 1000) / 10;
  if (points === 0) return change("same", "", better);
  return change(points > 0 ? "up" : "down", formatPoints(Math.abs(points)), better);
}
