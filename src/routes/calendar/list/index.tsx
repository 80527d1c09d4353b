import { useCalendarController } from "@fullcalendar/react";
import { Alert, Button, Skeleton, Spin, Typography } from "antd";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Appointment } from "../../../../contract/calendar";
import type { AppointmentDraft } from "../../../components/calendar/appointment-create-drawer";
import { CalendarEmpty } from "../../../components/calendar/calendar-empty";
import { CalendarLegend } from "../../../components/calendar/calendar-legend";
import { CalendarOverlays } from "../../../components/calendar/calendar-overlays";
import { browserZone, dayIn, daysCovering } from "../../../components/calendar/calendar-time";
import { CalendarActions, CalendarFilters, CalendarNavigation } from "../../../components/calendar/calendar-toolbar";
import { CALENDAR_VIEWS, ORGANISATION_CALENDAR, useCalendarUrl, type CalendarViewName } from "../../../components/calendar/calendar-url";
import CalendarView, { type VisibleRange } from "../../../components/calendar/calendar-view";
import { draftForNow, draftForSelection, gridRowMinutes } from "../../../components/calendar/create-draft";
import { calendarText } from "../../../components/calendar/strings";
import { useAppointments, useAvailability, useCalendarPermissions, useFreeSlots, useHasAppointments, useRefreshAvailability } from "../../../components/calendar/use-calendar-data";
import { useReschedule } from "../../../components/calendar/use-reschedule";
import "../../../components/calendar/calendar.css";
import { useShell } from "../../../components/layout/shell-context";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";
import { useAgentList } from "../../../hooks/use-agent-list";
import { DEFAULT_AVAILABILITY } from "../../../../contract/calendar-shared";

const text = calendarText;

/** The earliest hour of the weekly ranges, an hour before (the week and day views scroll there). */
function scrollTimeOf(weekly: ReadonlyArray<{ start: string }> | undefined): string {
  const earliest = (weekly ?? []).reduce((min, range) => (range.start < min ? range.start : min), "08:00");
  const hour = Math.max(0, Number(earliest.slice(0, 2)) - 1);
  return `${String(hour).padStart(2, "0")}:00:00`;
}

/**
 * The calendar (spec §2 /calendar): the organisation's appointments by month, week, day or as a list, in
 * the calendar's zone or another chosen one, the free times agents may book as a background, and the
 * availability rules. What is shown (view, day, zone, filters, the open appointment) is in the URL.
 */
export default function CalendarPage() {
  const [state, setUrl] = useCalendarUrl();
  const permissions = useCalendarPermissions();
  const { agents } = useAgentList();
  const controller = useCalendarController();
  const refreshAvailability = useRefreshAvailability();
  const { narrow } = useShell();

  // The calendar shown: the agent filtered on (its own rules, else the organisation's), or the organisation's.
  const calendar = useAvailability(state.agent, { keepPrevious: true });
  const calendarZone = calendar.availability?.timezone;
  const zone = state.tz ?? calendarZone ?? (calendar.query.isError ? browserZone() : undefined);
  const slotMinutes = calendar.availability?.slot_minutes ?? DEFAULT_AVAILABILITY.slot_minutes;

  const [range, setRange] = useState<VisibleRange | null>(null);
  const days = useMemo(() => (range && zone ? daysCovering(range.start, range.end, calendarZone ?? zone) : null), [range, zone, calendarZone]);
  const slotsWanted = range !== null && range.view !== "list";
  const free = useFreeSlots(slotsWanted ? days : null, state.agent);
  const list = useAppointments(days, { agentId: state.agent, status: state.status, search: state.q });
  const appointments = useMemo(
    () => (state.status || state.cancelled ? list.appointments : list.appointments.filter((appointment) => appointment.status !== "cancelled")),
    [list.appointments, state.status, state.cancelled],
  );
  const filtered = Boolean(state.agent || state.status || state.q);
  const periodEmpty = list.query.isSuccess && list.appointments.length === 0;
  const { hasAny } = useHasAppointments(periodEmpty && !filtered);

  const [draft, setDraft] = useState<AppointmentDraft | null>(null);
  // After a write: Refine asks for the appointments again itself; the free slots change with them.
  const refresh = refreshAvailability;
  const reschedule = useReschedule(zone ?? "UTC", refresh);

  useEffect(() => {
    document.title = `${strings.screens.calendar} · ${strings.appName}`;
  }, []);

  // A link to another day (a dashboard card, a call) while the screen is open: go there.
  useEffect(() => {
    const view = controller.view;
    if (!state.date || !view || !zone) return;
    const shown = dayIn(view.currentStart.getTime(), zone) <= state.date && state.date < dayIn(view.currentEnd.getTime(), zone);
    if (!shown) controller.gotoDate(state.date);
  }, [state.date, controller, zone]);

  const onRange = useCallback(
    (next: VisibleRange) => {
      setRange((current) => (current && current.start === next.start && current.end === next.end && current.view === next.view && current.title === next.title ? current : next));
      if (zone) setUrl({ view: next.view, date: dayIn(next.currentStart, zone) });
    },
    [setUrl, zone],
  );

  const freeSlots = slotsWanted && free.query.isSuccess ? free.slots : null;
  const openCreate = (selection?: { start: number; end: number; allDay: boolean }) => {
    if (!zone || !permissions.canCreate) return;
    const context = { zone, slots: freeSlots, slotMinutes, agentId: state.agent };
    setDraft(selection ? draftForSelection(selection, { ...context, rowMinutes: gridRowMinutes(slotMinutes) }) : draftForNow(context));
  };
  const onCreated = (created: Appointment) => {
    refresh();
    if (zone) controller.gotoDate(dayIn(created.start, zone));
  };

  // A phone: the day view first (a week of columns does not fit 390 px).
  const initialView: CalendarViewName = state.view ?? (narrow ? "day" : "week");
  const initialDate = state.date ?? (zone ? dayIn(Date.now(), zone) : undefined);

  return (
    <section className="cal-screen">
      <header className="cal-screen__header">
        <h1 className="cal-screen__title">{strings.screens.calendar}</h1>
        <CalendarActions canCreate={permissions.canCreate} onAvailability={() => setUrl({ availability: state.agent ?? ORGANISATION_CALENDAR }, { replace: false })} onCreate={() => openCreate()} />
      </header>
      {calendar.query.isError && (
        <Alert type="error" showIcon className="cal-screen__alert" message={text.availabilityFailed} description={calendar.query.error?.message} action={<Button size="small" onClick={() => void calendar.query.refetch()}>{text.retry}</Button>} />
      )}
      <ListLoadError query={list.query} title={text.loadFailed} retryLabel={text.retry} />
      {free.query.isError && slotsWanted && (
        <Alert type="warning" showIcon className="cal-screen__alert" message={text.slotsFailed} description={free.query.error?.message} action={<Button size="small" onClick={() => void free.query.refetch()}>{text.retry}</Button>} />
      )}
      {!zone || !initialDate ? (
        <div role="status" aria-label={text.loading}>
          <Skeleton active paragraph={{ rows: 8 }} />
        </div>
      ) : (
        <div className="cal-screen__panel">
          <CalendarNavigation
            title={range?.title ?? ""}
            view={range?.view ?? initialView}
            onToday={() => controller.today()}
            onPrevious={() => controller.prev()}
            onNext={() => controller.next()}
            onView={(view) => controller.changeView(CALENDAR_VIEWS[view])}
          />
          <CalendarFilters state={state} agents={agents} zone={zone} calendarZone={calendarZone} onChange={(patch) => setUrl(patch)} />
          <Typography.Paragraph type="secondary" className="cal-screen__zone">
            {text.toolbar.timezoneShown(zone)}
            {calendarZone && calendarZone !== zone ? ` ${text.toolbar.calendarZone(calendarZone)}` : ""}
          </Typography.Paragraph>
          {list.total > list.appointments.length && <Alert type="warning" showIcon className="cal-screen__alert" message={text.truncated(list.appointments.length, list.total)} />}
          {hasAny === false && !filtered && <CalendarEmpty canCreate={permissions.canCreate} onCreate={() => openCreate()} />}
          {periodEmpty && filtered && <Typography.Paragraph className="cal-screen__none">{text.empty.noneMatching}</Typography.Paragraph>}
          <div className="cal-screen__calendar" aria-busy={list.query.isFetching || free.query.isFetching}>
            {(list.query.isFetching || free.query.isFetching) && (
              <div className="cal-screen__busy" role="status" aria-label={text.loading}>
                <Spin size="small" /> {text.loading}
              </div>
            )}
            <CalendarView
              controller={controller}
              initialView={initialView}
              initialDate={initialDate}
              zone={zone}
              appointments={appointments}
              slots={slotsWanted ? free.slots : []}
              editable={permissions.canEdit}
              selectable={permissions.canCreate}
              slotMinutes={slotMinutes}
              scrollTime={scrollTimeOf(calendar.availability?.weekly)}
              onRange={onRange}
              onSelectTime={openCreate}
              onOpen={(id) => setUrl({ appointment: id }, { replace: false })}
              onMove={(appointment, start, end, revert) => void reschedule.move(appointment, start, end, revert)}
            />
          </div>
          <CalendarLegend appointments={appointments} />
        </div>
      )}
      <CalendarOverlays
        zone={zone}
        agents={agents}
        permissions={permissions}
        appointmentId={state.appointment}
        draft={draft}
        availability={state.availability}
        reschedule={reschedule}
        onCloseAppointment={() => setUrl({ appointment: undefined }, { replace: false })}
        onCloseDraft={() => setDraft(null)}
        onCreated={onCreated}
        onChanged={refresh}
        onAvailabilityTarget={(target) => setUrl({ availability: target })}
        onCloseAvailability={() => setUrl({ availability: undefined }, { replace: false })}
        onAvailabilitySaved={refreshAvailability}
      />
    </section>
  );
}
