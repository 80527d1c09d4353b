import { useMany } from "@refinedev/core";
import { Alert, Skeleton, Tag, Typography } from "antd";
import { Link } from "react-router";
import type { Appointment } from "../../../contract/calendar";
import { APPOINTMENT_STATUS_LABELS } from "../../../contract/calendar-shared";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { appointmentLink } from "../calendar/calendar-link";

/** The section's words (the calendar's strings stay in the calendar's chunk; these are all Call Logs needs). */
export const callAppointmentsText = {
  title: "Appointments booked on this call",
  loading: "Loading the appointments",
  failed: "The appointments could not be loaded",
  open: (title: string) => `Open ${title} in the calendar`,
  openId: (id: string) => `Open appointment ${id} in the calendar`,
};

const text = callAppointmentsText;

/** "Thu 10 Dec 2026, 10:00–10:30 (America/New_York)": the appointment's own calendar's zone. */
function formatWhen(appointment: Appointment): string {
  const zone = appointment.timezone;
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", year: "numeric" });
  const time = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const start = Date.parse(appointment.start);
  const end = Date.parse(appointment.end);
  return `${day.format(start).replace(",", "")}, ${time.format(start)}–${time.format(end)} (${zone})`;
}

/**
 * The appointments a call booked (GET /call/{id}'s `appointment_ids`, each read with GET
 * /appointment/{id}): time, title and status, each a link to /calendar on its day with it open.
 */
export function CallAppointments({ ids }: { ids: string[] }) {
  const { result, query } = useMany<Appointment, ApiError>({
    resource: "appointment",
    ids,
    queryOptions: { enabled: ids.length > 0 },
    errorNotification: false,
  });

  if (query.isError) {
    // The ids are still worth a link: the calendar opens each one.
    return (
      <>
        <Alert type="warning" showIcon message={text.failed} description={query.error?.message} style={{ marginBottom: 8 }} />
        <ul className="call-appointments">
          {ids.map((id) => (
            <li key={id}>
              <Link to={`/calendar?appointment=${encodeURIComponent(id)}`}>{text.openId(id)}</Link>
            </li>
          ))}
        </ul>
      </>
    );
  }
  if (query.isPending)
    return (
      <div role="status" aria-label={text.loading}>
        <Skeleton active paragraph={{ rows: 1 }} title={false} />
      </div>
    );
  return (
    <ul className="call-appointments">
      {result.data.map((appointment) => (
        <li key={appointment.id} className="call-appointments__item">
          <Typography.Text type="secondary">{formatWhen(appointment)}</Typography.Text>
          <span>
            <Link to={appointmentLink(appointment, appointment.timezone)} aria-label={text.open(appointment.title)}>
              {appointment.title}
            </Link>{" "}
            <Tag>{APPOINTMENT_STATUS_LABELS[appointment.status] ?? appointment.status}</Tag>
          </span>
        </li>
      ))}
    </ul>
  );
}
