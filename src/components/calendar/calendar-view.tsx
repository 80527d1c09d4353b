/**
 * The calendar itself: FullCalendar 7 (MIT) with its month, week, day and list views, in the zone the
 * screen shows (FullCalendar places everything by that named zone, whatever the browser's). The only
 * module that imports FullCalendar: it and its stylesheets travel in the /calendar screen's lazy chunk.
 *
 * Appointments are filled by status and striped by agent; the free slots agents may book are a
 * background. Clicking or dragging over a time asks to create; dragging or resizing an appointment asks to
 * move it (the screen answers, and calls `revert` when the server refuses).
 */
import FullCalendar, { type CalendarController, type EventDisplayInfo, type EventInput } from "@fullcalendar/react";
import dayGridPlugin from "@fullcalendar/react/daygrid";
import interactionPlugin from "@fullcalendar/react/interaction";
import listPlugin from "@fullcalendar/react/list";
import timeGridPlugin from "@fullcalendar/react/timegrid";
import enGb from "@fullcalendar/react/locales/en-gb";
import classicTheme from "@fullcalendar/react/themes/classic";
import "@fullcalendar/react/skeleton.css";
import "@fullcalendar/react/themes/classic/theme.css";
import "@fullcalendar/react/themes/classic/palette.css";
import { useMemo } from "react";
import type { Appointment, Slot } from "../../../contract/calendar";
import { APPOINTMENT_STATUS_LABELS } from "../../../contract/calendar-shared";
import { agentColour, STATUS_COLOURS } from "./calendar-colours";
import { wallClock } from "./calendar-time";
import { CALENDAR_VIEWS, viewNameOf, type CalendarViewName } from "./calendar-url";
import { gridRowMinutes } from "./create-draft";
import { calendarText } from "./strings";

export interface VisibleRange {
  /** The first and last instant shown (ms; end excluded). */
  start: number;
  end: number;
  view: CalendarViewName;
  /** The day the period starts on (a month's first day, a week's Monday), in the zone shown. */
  currentStart: number;
  title: string;
}

export interface CalendarViewProps {
  controller: CalendarController;
  initialView: CalendarViewName;
  initialDate: string;
  zone: string;
  appointments: Appointment[];
  slots: Slot[];
  /** Whether booked appointments may be dragged and resized. */
  editable: boolean;
  /** Whether a time may be clicked or dragged over to create. */
  selectable: boolean;
  slotMinutes: number;
  /** The earliest hour the calendar opens (the week view scrolls there). */
  scrollTime: string;
  onRange: (range: VisibleRange) => void;
  onSelectTime: (selection: { start: number; end: number; allDay: boolean }) => void;
  onOpen: (id: string) => void;
  onMove: (appointment: Appointment, start: string, end: string, revert: () => void) => void;
}

const TIME_FORMAT = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const;
/** Titles that name the days shown ("7 – 13 Dec 2026", "Wednesday 9 December 2026"), not only the month. */
/** The week and day grids scroll inside this height (opening at the calendar's first hour); month and list grow. */
const GRID_HEIGHT = 620;
const VIEW_OPTIONS = {
  [CALENDAR_VIEWS.week]: { titleFormat: { day: "numeric", month: "short", year: "numeric" }, contentHeight: GRID_HEIGHT },
  [CALENDAR_VIEWS.list]: { titleFormat: { day: "numeric", month: "short", year: "numeric" }, height: "auto" },
  [CALENDAR_VIEWS.month]: { height: "auto" },
  [CALENDAR_VIEWS.day]: { titleFormat: { weekday: "long", day: "numeric", month: "long", year: "numeric" }, contentHeight: GRID_HEIGHT },
} as const;

const slotDuration = (slotMinutes: number) => `00:${String(gridRowMinutes(slotMinutes)).padStart(2, "0")}:00`;

/** "10:00–10:30" on the zone's wall clock (the month view: the start alone). */
function timesOf(appointment: Appointment, zone: string, startOnly: boolean): string {
  const start = wallClock(appointment.start, zone).time;
  if (startOnly) return start;
  const end = wallClock(appointment.end, zone).time;
  return `${start}–${end === "00:00" ? "24:00" : end}`;
}

function AppointmentContent({ arg, zone }: { arg: EventDisplayInfo; zone: string }) {
  const appointment = arg.event.extendedProps.appointment as Appointment | undefined;
  if (!appointment) return null;
  const status = APPOINTMENT_STATUS_LABELS[appointment.status];
  const month = arg.view.type === CALENDAR_VIEWS.month;
  const grid = !month && arg.view.type !== CALENDAR_VIEWS.list;
  const time = timesOf(appointment, zone, month);
  // An hour or more in the week and day grids has room for a line each. A shorter one has a single line, about
  // 150 px wide in a week at 1440 px: its title comes first and its time is the start alone, so "QA audit 09:00"
  // shows instead of "09:00–09:30 QA audi…"; the whole of it is in the tooltip and the accessible name.
  const tall = grid && Date.parse(appointment.end) - Date.parse(appointment.start) >= 60 * 60_000;
  const short = grid && !tall;
  const label = calendarText.eventLabel(appointment.title, time, status);
  const title = <span className="cal-event__title">{appointment.title}</span>;
  return (
    <span className={tall ? "cal-event__body cal-event__body--tall" : "cal-event__body"} aria-label={label} title={short ? label : undefined}>
      <span className="cal-event__stripe" style={{ background: agentColour(appointment.agent_id) }} aria-hidden="true" />
      <span className="cal-event__text">
        {short ? (
          <>
            {title}
            <span className="cal-event__time">{timesOf(appointment, zone, true)}</span>
          </>
        ) : (
          <>
            {arg.view.type !== CALENDAR_VIEWS.list && <span className="cal-event__time">{time}</span>}
            {title}
          </>
        )}
        {appointment.customer_name && <span className="cal-event__customer">{appointment.customer_name}</span>}
      </span>
    </span>
  );
}

export default function CalendarView(props: CalendarViewProps) {
  const { appointments, slots, editable } = props;
  const events = useMemo<EventInput[]>(
    () => [
      ...slots.map((slot) => ({ start: slot.start, end: slot.end, display: "background", className: "cal-free", groupId: "free" })),
      ...appointments.map((appointment) => ({
        id: appointment.id,
        title: appointment.title,
        start: appointment.start,
        end: appointment.end,
        color: STATUS_COLOURS[appointment.status],
        className: `cal-event cal-event--${appointment.status}`,
        // Only what still holds a future: completed, no-show and cancelled ones stay where they were.
        editable: editable && appointment.status === "booked",
        extendedProps: { appointment },
      })),
    ],
    [appointments, slots, editable],
  );

  return (
    <FullCalendar
      controller={props.controller}
      plugins={[classicTheme, dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin]}
      initialView={CALENDAR_VIEWS[props.initialView]}
      initialDate={props.initialDate}
      timeZone={props.zone}
      locale={enGb}
      views={VIEW_OPTIONS}
      headerToolbar={false}
      firstDay={1}
      nowIndicator
      events={events}
      eventTimeFormat={TIME_FORMAT}
      slotHeaderFormat={TIME_FORMAT}
      slotDuration={slotDuration(props.slotMinutes)}
      snapDuration="00:15:00"
      scrollTime={props.scrollTime}
      allDaySlot={false}
      dayMaxEvents
      eventInteractive
      selectable={props.selectable}
      selectMirror
      editable={editable}
      eventContent={(arg) => <AppointmentContent arg={arg} zone={props.zone} />}
      noEventsText={calendarText.empty.noneInPeriod}
      datesSet={(info) =>
        props.onRange({
          start: info.start.getTime(),
          end: info.end.getTime(),
          view: viewNameOf(info.view.type) ?? "week",
          currentStart: info.view.currentStart.getTime(),
          title: info.view.title,
        })
      }
      select={(info) => {
        info.view.calendar.unselect();
        props.onSelectTime({ start: info.start.getTime(), end: info.end.getTime(), allDay: info.allDay });
      }}
      eventClick={(info) => {
        info.jsEvent.preventDefault();
        if (info.event.id) props.onOpen(info.event.id);
      }}
      eventDrop={(info) => {
        const appointment = info.event.extendedProps.appointment as Appointment;
        if (!info.event.start || !info.event.end) return info.revert();
        props.onMove(appointment, info.event.start.toISOString(), info.event.end.toISOString(), info.revert);
      }}
      eventResize={(info) => {
        const appointment = info.event.extendedProps.appointment as Appointment;
        if (!info.event.start || !info.event.end) return info.revert();
        props.onMove(appointment, info.event.start.toISOString(), info.event.end.toISOString(), info.revert);
      }}
    />
  );
}
