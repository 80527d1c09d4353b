/**
 * An appointment as a Google Calendar event. The event id is ours, derived from the appointment's id,
 * so a retried insert finds its own event (409) instead of writing a second one, and a deleted
 * appointment's event can be removed without remembering anything.
 */
import { APPOINTMENT_SOURCE_LABELS, APPOINTMENT_STATUS_LABELS, type AppointmentSource, type AppointmentStatus } from "../../../contract/calendar";
import type { GoogleEventBody } from "./client";

/** Google's event ids: base32hex characters (0-9, a-v), 5 to 1024 of them. A UUID's hex digits are all base32hex. */
const EVENT_ID_PATTERN = /^[0-9a-v]{5,1024}$/;
/** Marks the events we wrote ("va", both base32hex letters). */
const EVENT_ID_PREFIX = "va";

export function googleEventId(appointmentId: string): string {
  const id = `${EVENT_ID_PREFIX}${appointmentId.toLowerCase().replace(/-/g, "")}`;
  if (!EVENT_ID_PATTERN.test(id)) throw new Error(`an appointment id that makes no Google event id: ${appointmentId}`);
  return id;
}

export interface AppointmentForEvent {
  id: string;
  title: string;
  startAt: Date;
  endAt: Date;
  status: string;
  source: string;
  customerName: string | null;
  customerNumber: string | null;
  customerEmail: string | null;
  notes: string | null;
  /** The calendar's zone: Google shows the event in it. */
  timezone: string;
}

/** Where a person opens the appointment in the console. */
export const appointmentLink = (publicUrl: string, appointmentId: string) => `${publicUrl}/calendar?appointment=${encodeURIComponent(appointmentId)}`;

/** The event's text: who the customer is, the notes, where it came from and a link back. Shared with the ICS feed. */
export function appointmentDescription(appointment: Omit<AppointmentForEvent, "timezone" | "startAt" | "endAt" | "title">, publicUrl: string, agentName?: string | null): string {
  const lines = [
    appointment.customerName ? `Customer: ${appointment.customerName}` : null,
    appointment.customerNumber ? `Phone: ${appointment.customerNumber}` : null,
    appointment.customerEmail ? `Email: ${appointment.customerEmail}` : null,
    `Status: ${APPOINTMENT_STATUS_LABELS[appointment.status as AppointmentStatus] ?? appointment.status}`,
    `Booked by: ${APPOINTMENT_SOURCE_LABELS[appointment.source as AppointmentSource] ?? appointment.source}`,
    agentName ? `Agent: ${agentName}` : null,
  ].filter((line): line is string => line !== null);
  const notes = appointment.notes?.trim();
  return [...lines, ...(notes ? ["", notes] : []), "", `Open in Voice Agents: ${appointmentLink(publicUrl, appointment.id)}`].join("\n");
}

export function googleEventBody(appointment: AppointmentForEvent, publicUrl: string): GoogleEventBody {
  return {
    id: googleEventId(appointment.id),
    summary: appointment.title,
    description: appointmentDescription(appointment, publicUrl),
    start: { dateTime: appointment.startAt.toISOString(), timeZone: appointment.timezone },
    end: { dateTime: appointment.endAt.toISOString(), timeZone: appointment.timezone },
    // "confirmed" also brings back an event deleted earlier (an appointment booked again after a cancel).
    status: "confirmed",
    extendedProperties: { private: { voiceAgentsAppointmentId: appointment.id } },
    source: { title: "Voice Agents", url: appointmentLink(publicUrl, appointment.id) },
  };
}
