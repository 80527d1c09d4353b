/**
 * What the booking tools answer the agent's model (server/calendar/tools.ts): short plain text the model
 * reads and then says in its own words. Every time is given twice: spoken ("Tuesday, December 1 at
 * 9:00 AM Eastern Time", in the caller's zone) and exact (`start: 2026-12-01T09:00:00-05:00`, to pass
 * back unchanged). "No" is said plainly ("No open times on Tuesday, December 1"), with what to offer
 * instead, so the model has no gap to fill with invented times. Pure: no I/O, no clock.
 */
import { localDate, localIso, spokenClock, spokenDate, spokenTime, spokenZoneName } from "./spoken-time";

export interface Slot {
  start: Date;
  end: Date;
}

/** Whose clock the caller hears and what "today" is there. */
export interface Speaking {
  zone: string;
  whose: "caller" | "calendar";
  now: Date;
}

/** An appointment as the answers describe it. */
export interface SpokenAppointment {
  id: string;
  title: string;
  start: Date;
  end: Date;
  customerName: string | null;
}

/** How many open times one day's answer lists (a longer list is hard to listen to; `after` pages on). */
export const SLOTS_PER_DAY_LISTED = 16;
/** Without a date: this many days with open times, this many times each. */
export const NEXT_DAYS_LISTED = 3;
export const SLOTS_PER_NEXT_DAY = 4;

const minutesOf = (slot: Slot) => Math.round((slot.end.getTime() - slot.start.getTime()) / 60_000);

function duration(minutes: number): string {
  if (minutes % 60 === 0) return minutes === 60 ? "1 hour" : `${minutes / 60} hours`;
  if (minutes > 60) return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return `${minutes} minutes`;
}

/** The first line of every calendar answer: today's date and the zone of the times that follow. */
export function preamble(speaking: Speaking): string {
  const today = spokenDate(localDate(speaking.now, speaking.zone), speaking.zone, new Date(0));
  const whose = speaking.whose === "caller" ? "the caller's time zone" : "the calendar's time zone";
  return `Today is ${today}. Times are in ${spokenZoneName(speaking.zone, speaking.now)} (${whose}).`;
}

const exact = (slot: Slot, zone: string) => `start: ${localIso(slot.start, zone)}`;

/** Slots grouped by their local date in `zone`, in order. */
export function byDay(slots: readonly Slot[], zone: string): { date: string; slots: Slot[] }[] {
  const days: { date: string; slots: Slot[] }[] = [];
  for (const slot of slots) {
    const date = localDate(slot.start, zone);
    const last = days.at(-1);
    if (last?.date === date) last.slots.push(slot);
    else days.push({ date, slots: [slot] });
  }
  return days;
}

const HOW_TO_BOOK = "Offer two or three of these in words; to book or move to one, pass its start exactly as written.";

/** check_availability for a day that has open times. `more`: how many more there are that day after the last listed. */
export function daySlotsAnswer(speaking: Speaking, date: string, slots: readonly Slot[], more: number, after: Date | null): string {
  const { zone, now } = speaking;
  const lines = [preamble(speaking), `Open times on ${spokenDate(date, zone, now)}${after ? ` after ${spokenClock(after, zone)}` : ""}:`];
  for (const slot of slots) lines.push(`- ${spokenClock(slot.start, zone)} (${exact(slot, zone)})`);
  if (more > 0) {
    const last = slots.at(-1)!;
    lines.push(`And ${more} more open ${more === 1 ? "time" : "times"} later that day: to hear them, call check_availability again with this date and after set to ${localIso(last.start, zone)}.`);
  }
  lines.push(`Each appointment lasts ${duration(minutesOf(slots[0]!))}. ${HOW_TO_BOOK}`);
  return lines.join("\n");
}

function nextDaysLines(days: { date: string; slots: Slot[] }[], speaking: Speaking): string[] {
  const { zone, now } = speaking;
  return days.map((day) => {
    const shown = day.slots.slice(0, SLOTS_PER_NEXT_DAY);
    const rest = day.slots.length - shown.length;
    return `- ${spokenDate(day.date, zone, now)}: ${shown.map((slot) => `${spokenClock(slot.start, zone)} (${exact(slot, zone)})`).join(", ")}${rest > 0 ? `, and ${rest} more that day` : ""}`;
  });
}

/**
 * check_availability for a day with no open times: said plainly, then the next days that have some
 * (`next`: slots from the day after on, possibly none), or why there are none (`beyond`: the last day
 * that can be booked, when the asked day is past it).
 */
export function noSlotsAnswer(speaking: Speaking, date: string, next: readonly Slot[], reason: string | null, horizonDays: number): string {
  const { zone, now } = speaking;
  const lines = [preamble(speaking), `No open times on ${spokenDate(date, zone, now)}${reason ? `: ${reason}` : "."}`];
  const days = byDay(next, zone).slice(0, NEXT_DAYS_LISTED);
  if (days.length > 0) {
    lines.push("The next days with open times:", ...nextDaysLines(days, speaking));
    lines.push(`Each appointment lasts ${duration(minutesOf(days[0]!.slots[0]!))}. ${HOW_TO_BOOK}`);
  } else {
    lines.push(`There are no open times after it either, within the ${horizonDays} days ahead that can be booked. Do not offer any time; offer to take a message instead.`);
  }
  return lines.join("\n");
}

/** check_availability without a date: the next days with open times. */
export function nextSlotsAnswer(speaking: Speaking, slots: readonly Slot[], horizonDays: number): string {
  const lines = [preamble(speaking)];
  const days = byDay(slots, speaking.zone).slice(0, NEXT_DAYS_LISTED);
  if (days.length === 0) {
    lines.push(`No open times in the next ${horizonDays} days. Do not offer any time; offer to take a message instead.`);
    return lines.join("\n");
  }
  lines.push("The next open times:", ...nextDaysLines(days, speaking));
  lines.push(`Each appointment lasts ${duration(minutesOf(days[0]!.slots[0]!))}. ${HOW_TO_BOOK} For another day, call check_availability with its date.`);
  return lines.join("\n");
}

/** Alternatives as a list, or the plain fact that there are none. */
function alternatives(speaking: Speaking, slots: readonly Slot[]): string[] {
  if (slots.length === 0) return ["There are no other open times near it: ask the caller for another day and check it with check_availability."];
  return [
    "The nearest open times instead:",
    ...slots.map((slot) => `- ${spokenTime(slot.start, speaking.zone, speaking.now)} (${exact(slot, speaking.zone)})`),
    "Offer these; book the one the caller chooses with its start exactly as written.",
  ];
}

/** A booking or a move that lost its time to someone else a moment ago. */
export function takenAnswer(speaking: Speaking, slots: readonly Slot[]): string {
  return [`Not booked: that time was just taken.`, ...alternatives(speaking, slots)].join("\n");
}

/** A booking or a move outside the calendar's rules (`why`: the core's sentence). */
export function refusedAnswer(speaking: Speaking, why: string, slots: readonly Slot[]): string {
  const reason = why.trim().replace(/\.$/, "");
  return [`Not booked: ${reason}.`, ...alternatives(speaking, slots)].join("\n");
}

export function bookedAnswer(speaking: Speaking, appointment: SpokenAppointment): string {
  const minutes = Math.round((appointment.end.getTime() - appointment.start.getTime()) / 60_000);
  return [
    `Booked: ${spokenTime(appointment.start, speaking.zone, speaking.now)}, for ${duration(minutes)}${appointment.customerName ? `, for ${appointment.customerName}` : ""} (${appointment.title}).`,
    `Appointment id: ${appointment.id}.`,
    "Tell the caller the day and time it is booked for.",
  ].join("\n");
}

export function movedAnswer(speaking: Speaking, before: SpokenAppointment, after: SpokenAppointment): string {
  return [
    `Moved: the appointment is now on ${spokenTime(after.start, speaking.zone, speaking.now)} (it was ${spokenTime(before.start, speaking.zone, speaking.now)}).`,
    `Appointment id: ${after.id}.`,
    "Tell the caller the new day and time.",
  ].join("\n");
}

export function cancelledAnswer(speaking: Speaking, appointment: SpokenAppointment): string {
  return [`Cancelled: the appointment on ${spokenTime(appointment.start, speaking.zone, speaking.now)} (${appointment.title}) is cancelled.`, "Tell the caller it is cancelled and ask whether they want to book another time."].join("\n");
}

/** find_appointment, and reschedule/cancel when the caller has several and did not say which. */
export function appointmentsAnswer(speaking: Speaking, appointments: readonly SpokenAppointment[], ask: string | null): string {
  const lines = [preamble(speaking)];
  if (appointments.length === 0) {
    lines.push("The caller has no upcoming appointments booked from the number they are calling from (or earlier in this call).");
    return lines.join("\n");
  }
  lines.push(`The caller has ${appointments.length === 1 ? "1 upcoming appointment" : `${appointments.length} upcoming appointments`}:`);
  for (const appointment of appointments) {
    lines.push(`- ${spokenTime(appointment.start, speaking.zone, speaking.now)}: ${appointment.title} (appointment_id: ${appointment.id})`);
  }
  if (ask) lines.push(ask);
  return lines.join("\n");
}


// The sandbox plays the model (server/voice/sandbox-calls.ts): it reads these answers as a model would,
// so their shape and its reading stay side by side here.

/** An open time as an answer lists it: its exact start and how it is said. */
export interface OpenTime {
  start: string;
  spoken: string;
}

/** The first open time a check_availability answer lists (without a date: "- Tuesday, December 1: 9:00 AM (start: …)"), or null. */
export function firstOpenTime(answer: string): OpenTime | null {
  const zone = /Times are in (.+?) \(/.exec(answer)?.[1];
  const listed = /^- (.+?): (\d{1,2}:\d{2}\s[AP]M) \(start: ([^)\s]+)\)/m.exec(answer);
  if (!listed) return null;
  return { start: listed[3]!, spoken: `${listed[1]} at ${listed[2]}${zone ? ` ${zone}` : ""}` };
}

/** When a book_appointment answer says it booked ("Tuesday, December 1 at 9:00 AM Eastern Time"), or null when it did not book. */
export function bookedWhen(answer: string | null): string | null {
  return answer ? (/^Booked: (.+?), for \d/m.exec(answer)?.[1] ?? null) : null;
}
