import { useId } from "react";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import { appointmentLink } from "../calendar/calendar-link";
import { formatCount } from "./dashboard-format";
import "./appointments-card.css";

/**
 * The card's words. Here rather than in src/config/strings.ts: the calendar's strings stay out of the
 * shell's chunk, and this card is the dashboard's only calendar text.
 */
const text = {
  title: "Upcoming appointments",
  counts: (today: number, week: number) => `${formatCount(today)} today · ${formatCount(week)} in the next 7 days`,
  all: "Open calendar",
  empty: "No upcoming appointments.",
  emptyHint: "Agents book appointments during calls once \u201cBook appointments during calls\u201d is on in an agent's settings; you can also add one in the calendar.",
  open: (title: string, when: string) => `Open ${title}, ${when}`,
  noCustomer: "No customer named",
  noAgent: "No agent",
};

/** GET /dashboard/'s `appointments`: counts and the next few booked ones. */
export type DashboardAppointments = Dashboard["appointments"];

/** "Thu 10 Dec, 10:00" in the organisation's zone. */
function formatWhen(instant: string, zone: string): string {
  const format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return format.format(Date.parse(instant)).replace(",", "");
}

/**
 * The booked appointments coming up, on the landing page: how many today and in the next 7 days, and
 * the next few (time in the organisation's zone, customer, agent), each opening in the calendar. Plain
 * elements, as the rest of the landing chunk. Absent from the answer (an older server): no card.
 */
export function AppointmentsCard({ appointments, zone }: { appointments: DashboardAppointments | undefined; zone: string }) {
  const titleId = useId();
  if (!appointments) return null;
  return (
    <section aria-labelledby={titleId} className="dash-panel dash-panel--wide dash-appointments">
      <div className="dash-panel__head">
        <h2 id={titleId} className="dash-panel__title">
          {text.title}
        </h2>
        <span className="dash-appointments__counts">{text.counts(appointments.today, appointments.next_7_days)}</span>
        <Link to="/calendar" className="dash-appointments__all">
          {text.all}
        </Link>
      </div>
      {appointments.upcoming.length === 0 ? (
        <div className="dash-appointments__empty">
          <p>{text.empty}</p>
          <p className="dash-appointments__hint">{text.emptyHint}</p>
        </div>
      ) : (
        <ul className="dash-appointments__list">
          {appointments.upcoming.map((appointment) => {
            const when = formatWhen(appointment.start, zone);
            return (
              <li key={appointment.id} className="dash-appointments__item">
                <time dateTime={appointment.start} className="dash-appointments__when">
                  {when}
                </time>
                <Link to={appointmentLink(appointment, zone)} aria-label={text.open(appointment.title, when)} className="dash-appointments__name">
                  {appointment.title}
                </Link>
                <span className="dash-appointments__meta">
                  {appointment.customer_name ?? text.noCustomer} · {appointment.agent_name ?? text.noAgent}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
