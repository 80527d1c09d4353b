/**
 * How an appointment is coloured: its fill by status (calendar.css, `cal-event--<status>`), and a stripe
 * on its left edge by agent. An agent keeps its colour across visits and screens: the colour follows
 * from its id, not from where it sits in a list. The palette avoids the status fills' own hues.
 */
import type { AppointmentStatus } from "../../../contract/calendar-shared";

export const AGENT_COLOURS = ["#722ed1", "#13c2c2", "#eb2f96", "#fa8c16", "#2f54eb", "#a0d911", "#8c8c8c", "#d4380d"] as const;
/** The stripe of an appointment with no agent (booked for the organisation). */
export const NO_AGENT_COLOUR = "#d9d9d9";

/** A small stable hash (FNV-1a) of the id: the agent's place in the palette. */
function hash(value: string): number {
  let result = 0x811c9dc5;
  for (let index = 0; index < value.length; index++) {
    result ^= value.charCodeAt(index);
    result = Math.imul(result, 0x01000193);
  }
  return result >>> 0;
}

export function agentColour(agentId: string | null | undefined): string {
  if (!agentId) return NO_AGENT_COLOUR;
  return AGENT_COLOURS[hash(agentId) % AGENT_COLOURS.length]!;
}

/** The status fills (kept in step with calendar.css): the legend shows the same swatches. */
export const STATUS_COLOURS: Readonly<Record<AppointmentStatus, string>> = {
  booked: "#1677ff",
  completed: "#389e0d",
  no_show: "#d46b08",
  cancelled: "#bfbfbf",
};
