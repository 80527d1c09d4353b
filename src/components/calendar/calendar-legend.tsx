import type { Appointment } from "../../../contract/calendar";
import { APPOINTMENT_STATUS_LABELS, APPOINTMENT_STATUSES } from "../../../contract/calendar-shared";
import { agentColour, STATUS_COLOURS } from "./calendar-colours";
import { calendarText } from "./strings";

const text = calendarText.legend;

/** What the colours mean: the status fills, the free time, and the stripe of each agent shown. */
export function CalendarLegend({ appointments }: { appointments: Appointment[] }) {
  const agents = new Map<string, string>();
  for (const appointment of appointments) {
    const key = appointment.agent_id ?? "";
    if (!agents.has(key)) agents.set(key, appointment.agent_name ?? calendarText.drawer.noAgent);
  }
  return (
    <div className="cal-legend" aria-label={text.label} role="group">
      <ul className="cal-legend__list">
        {APPOINTMENT_STATUSES.map((status) => (
          <li key={status}>
            <span className="cal-swatch" style={{ background: STATUS_COLOURS[status] }} aria-hidden="true" />
            {APPOINTMENT_STATUS_LABELS[status]}
          </li>
        ))}
        <li>
          <span className="cal-swatch cal-swatch--free" aria-hidden="true" />
          {text.free}
        </li>
      </ul>
      {agents.size > 0 && (
        <ul className="cal-legend__list" aria-label={text.agentsLabel}>
          {[...agents].map(([id, name]) => (
            <li key={id}>
              <span className="cal-swatch cal-swatch--stripe" style={{ background: agentColour(id || null) }} aria-hidden="true" />
              {name}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
