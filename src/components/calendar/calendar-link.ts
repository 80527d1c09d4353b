/**
 * Links into /calendar from other screens (the dashboard's card, a call's detail). No imports on purpose:
 * those screens' chunks take this file and nothing of the calendar's.
 */

/** The day (YYYY-MM-DD) an instant falls on in `zone`. */
export function dayInZone(instant: string, zone: string): string {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
  for (const part of format.formatToParts(Date.parse(instant))) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** /calendar on the day of one appointment (in `zone`, the calendar's), with that appointment open. */
export function appointmentLink(appointment: { id: string; start: string }, zone: string): string {
  const params = new URLSearchParams({ date: dayInZone(appointment.start, zone), appointment: appointment.id });
  return `/calendar?${params.toString()}`;
}
