import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { APPOINTMENT_STATUSES, type AppointmentStatus } from "../../../contract/calendar-shared";
import { isTimeZoneName } from "../../../contract/time-zone-name";
import { isDay } from "./calendar-time";

/** The calendar's views, by the name the URL and the toolbar use, and FullCalendar's own view for each. */
export const CALENDAR_VIEWS = { month: "dayGridMonth", week: "timeGridWeek", day: "timeGridDay", list: "listWeek" } as const;
export type CalendarViewName = keyof typeof CALENDAR_VIEWS;

export const isCalendarView = (value: string | null): value is CalendarViewName => value !== null && Object.hasOwn(CALENDAR_VIEWS, value);
export const viewNameOf = (fullCalendarView: string): CalendarViewName | undefined =>
  (Object.keys(CALENDAR_VIEWS) as CalendarViewName[]).find((name) => CALENDAR_VIEWS[name] === fullCalendarView);

/** The organisation's own calendar in the availability drawer's `availability` parameter. */
export const ORGANISATION_CALENDAR = "organisation";

/**
 * What the calendar shows, all in the URL so a link (from the dashboard, a call, an agent) opens the
 * same view: `view`, `date` (a day of the period shown), `tz` (the zone shown, when not the calendar's),
 * the filters `agent`, `status`, `q` and `cancelled`, the open appointment (`appointment`) and the open
 * availability settings (`availability`: "organisation" or an agent's id). Unknown values are ignored.
 */
export interface CalendarUrlState {
  view?: CalendarViewName;
  date?: string;
  tz?: string;
  agent?: string;
  status?: AppointmentStatus;
  q?: string;
  cancelled: boolean;
  appointment?: string;
  availability?: string;
}

export type CalendarUrlPatch = Partial<{ [Key in keyof CalendarUrlState]: CalendarUrlState[Key] | undefined }>;

export function readCalendarUrl(params: URLSearchParams): CalendarUrlState {
  const text = (name: string) => params.get(name)?.trim() || undefined;
  const view = params.get("view");
  const date = text("date");
  const tz = text("tz");
  const status = text("status");
  return {
    view: isCalendarView(view) ? view : undefined,
    date: date && isDay(date) ? date : undefined,
    tz: tz && isTimeZoneName(tz) ? tz : undefined,
    agent: text("agent"),
    status: status && (APPOINTMENT_STATUSES as readonly string[]).includes(status) ? (status as AppointmentStatus) : undefined,
    q: text("q"),
    cancelled: params.get("cancelled") === "1",
    appointment: text("appointment"),
    availability: text("availability"),
  };
}

export function useCalendarUrl() {
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => readCalendarUrl(params), [params]);
  const update = useCallback(
    (patch: CalendarUrlPatch, options: { replace?: boolean } = {}) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(patch)) {
            if (value === undefined || value === false || value === "") next.delete(key);
            else next.set(key, value === true ? "1" : String(value));
          }
          return next;
        },
        { replace: options.replace ?? true },
      ),
    [setParams],
  );
  return [state, update] as const;
}
