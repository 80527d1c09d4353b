/**
 * Outside calendars as the calendar core sees them (issue 14). The core (slots, appointments, the
 * agent's tools) asks `busy` for the busy times that block slots, and tells `appointmentChanged` after
 * every committed change of an appointment so it is written to (or removed from) the connected calendar.
 * The embedded default connects nothing. server/calendar/google/ implements it for Google Calendar.
 */
export interface BusyInterval {
  start: Date;
  end: Date;
}

export interface CalendarSync {
  /**
   * The organisation's outside busy times overlapping [from, to). [] when nothing is connected. Must be
   * fast (the agent's tools wait on it: cached) and must not throw: a failure is recorded on the
   * connection (its status and last_error) and answers what is known (possibly []).
   */
  busy(orgId: string, from: Date, to: Date): Promise<BusyInterval[]>;
  /**
   * Called after a change of an appointment was committed (booked, moved, edited, cancelled, deleted).
   * Fire and forget: never throws, never delays the caller's answer; idempotent (an event id derived from
   * the appointment's id, so a retry writes the same event).
   */
  appointmentChanged(orgId: string, appointmentId: string): void;
  /** Waits for writes under way (tests, shutdown). */
  settle?(): Promise<void>;
}

export const noCalendarSync: CalendarSync = {
  async busy() {
    return [];
  },
  appointmentChanged() {},
};
