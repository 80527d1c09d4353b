import type { Slot } from "../../../contract/calendar";
import { dayIn, instantAt, wallClock } from "./calendar-time";
import type { AppointmentDraft } from "./appointment-create-drawer";

const MINUTE = 60_000;

/** The week and day grids' rows: the slot length when it divides an hour, else half hours. */
export const gridRowMinutes = (slotMinutes: number): number => (slotMinutes >= 5 && slotMinutes <= 60 && 60 % slotMinutes === 0 ? slotMinutes : 30);

const within = (slot: Slot, start: number, end: number) => Date.parse(slot.start) <= start && end <= Date.parse(slot.end);

/** A draft from two instants, on the wall clock of `zone` (an end at the next midnight reads 24:00). */
function draftOf(start: number, end: number, zone: string, slots: Slot[] | null, agentId: string | undefined): AppointmentDraft {
  const from = wallClock(start, zone);
  const until = wallClock(end, zone);
  const endTime = until.date !== from.date && until.time === "00:00" ? "24:00" : until.time;
  return { date: from.date, start: from.time, end: endTime, agentId, outsideFree: slots !== null && !slots.some((slot) => within(slot, start, end)) };
}

/**
 * Where a new appointment starts when a person clicks the calendar:
 * - a click in the week or day grid (one row selected) inside a free slot takes that slot, elsewhere one
 *   slot length from the time clicked; a longer drag takes what was dragged over;
 * - a day clicked in the month view takes that day's first free slot still ahead, else 09:00;
 * - New appointment takes the first free slot ahead, else the next whole hour.
 * `slots` null: the free times are not known (the draft then says nothing about them).
 */
export function draftForSelection(
  selection: { start: number; end: number; allDay: boolean },
  { zone, slots, slotMinutes, rowMinutes, agentId, now = Date.now() }: { zone: string; slots: Slot[] | null; slotMinutes: number; rowMinutes: number; agentId: string | undefined; now?: number },
): AppointmentDraft {
  const length = slotMinutes * MINUTE;
  if (selection.allDay) {
    const day = dayIn(selection.start, zone);
    const first = slots?.find((slot) => dayIn(slot.start, zone) === day && Date.parse(slot.start) >= now);
    if (first) return draftOf(Date.parse(first.start), Date.parse(first.end), zone, slots, agentId);
    const nine = instantAt(day, "09:00", zone);
    return draftOf(nine, nine + length, zone, slots, agentId);
  }
  if (selection.end - selection.start > rowMinutes * MINUTE) return draftOf(selection.start, selection.end, zone, slots, agentId);
  const inside = slots?.find((slot) => Date.parse(slot.start) <= selection.start && selection.start < Date.parse(slot.end));
  if (inside) return draftOf(Date.parse(inside.start), Date.parse(inside.end), zone, slots, agentId);
  return draftOf(selection.start, selection.start + length, zone, slots, agentId);
}

export function draftForNow({ zone, slots, slotMinutes, agentId, now = Date.now() }: { zone: string; slots: Slot[] | null; slotMinutes: number; agentId: string | undefined; now?: number }): AppointmentDraft {
  const next = slots?.find((slot) => Date.parse(slot.start) >= now);
  if (next) return draftOf(Date.parse(next.start), Date.parse(next.end), zone, slots, agentId);
  const hour = 60 * MINUTE;
  const start = Math.ceil(now / hour) * hour;
  return draftOf(start, start + slotMinutes * MINUTE, zone, slots, agentId);
}
