/**
 * The booking tools as the agent's model sees them (issue 14 §3, issue 18): each function's name,
 * what it is for, and its arguments as a JSON Schema with descriptions and formats ("date-time" for an
 * instant with its offset, "date" for a day). Pure data: server/voice/vapi-assistant.ts puts them in the
 * assistant's model.tools; server/calendar/tools.ts answers them. The descriptions tell the model to
 * check before it offers, to pass back the exact instants check_availability wrote, and that every
 * answer says today's date, so "tomorrow" resolves right.
 */
import type { FunctionToolSpec } from "../voice/types";

/** An instant as check_availability writes it (and as the descriptions show it). */
export const EXAMPLE_START = "2026-12-01T09:00:00-05:00";

/** A start the model passes back from check_availability's answer. */
const startArgument = (what: string) => ({
  type: "string",
  format: "date-time",
  description: `${what} exactly as check_availability wrote it (ISO 8601 with its offset), e.g. ${EXAMPLE_START}.`,
});

export const CHECK_AVAILABILITY_TOOL: FunctionToolSpec = {
  name: "check_availability",
  description:
    "Finds open appointment times. Call it before offering or booking any time: when the caller asks about a day, or wants the next available time. " +
    "Its answer first says today's date and the time zone of the times (use today's date to work out 'tomorrow' or 'next Tuesday'), " +
    "then lists open times, each with its exact start in brackets. Offer a few of them in words, and pass the exact start the caller chose, " +
    "unchanged, to book_appointment or reschedule_appointment. Never offer a time it did not list; when it says there are no open times, say so.",
  parameters: {
    type: "object",
    properties: {
      date: {
        type: "string",
        format: "date",
        description: "The day the caller asks about, as YYYY-MM-DD in the caller's time zone. Leave it out for the next open times from now.",
      },
      after: {
        type: "string",
        format: "date-time",
        description: `Only times starting after this instant: ISO 8601 with its offset, e.g. ${EXAMPLE_START}. Use it to hear later times of a day than those already listed, or times after an hour the caller names.`,
      },
    },
  },
};

export const BOOK_APPOINTMENT_TOOL: FunctionToolSpec = {
  name: "book_appointment",
  description:
    "Books an appointment at one of the open times check_availability listed, once the caller has confirmed the day, the time and their name. " +
    "Answers the booked day and time, or, when the time was just taken, the nearest open times to offer instead.",
  parameters: {
    type: "object",
    properties: {
      start: startArgument("The appointment's start"),
      customer_name: { type: "string", description: "The caller's full name." },
      title: { type: "string", description: "What the appointment is for, in a few words, e.g. 'Dental check-up'." },
      customer_number: {
        type: "string",
        description: "The phone number to book under, in E.164 form (e.g. +14155550123). Leave it out to use the number the caller is calling from.",
      },
      customer_email: { type: "string", format: "email", description: "The caller's email address, only if they give one." },
      notes: { type: "string", description: "Anything the caller wants the business to know before the appointment." },
    },
    required: ["start", "customer_name"],
  },
};

export const RESCHEDULE_APPOINTMENT_TOOL: FunctionToolSpec = {
  name: "reschedule_appointment",
  description:
    "Moves the caller's appointment to another open time from check_availability, once the caller has confirmed the new day and time. " +
    "Without appointment_id it moves the caller's next appointment; when they have several, it lists them: ask which one and call again with its appointment_id.",
  parameters: {
    type: "object",
    properties: {
      start: startArgument("The new start"),
      appointment_id: { type: "string", format: "uuid", description: "Which appointment to move (from find_appointment). Leave it out for the caller's next appointment." },
    },
    required: ["start"],
  },
};

export const CANCEL_APPOINTMENT_TOOL: FunctionToolSpec = {
  name: "cancel_appointment",
  description:
    "Cancels the caller's appointment, once the caller has confirmed they want it cancelled. Without appointment_id it cancels the caller's next appointment; " +
    "when they have several, it lists them: ask which one and call again with its appointment_id.",
  parameters: {
    type: "object",
    properties: {
      appointment_id: { type: "string", format: "uuid", description: "Which appointment to cancel (from find_appointment). Leave it out for the caller's next appointment." },
    },
  },
};

export const FIND_APPOINTMENT_TOOL: FunctionToolSpec = {
  name: "find_appointment",
  description:
    "Lists the caller's upcoming appointments (those booked from the number they are calling from, or earlier in this call), each with its day, time and appointment_id. " +
    "Call it when the caller asks about an appointment they already have, or wants to move or cancel one.",
  parameters: { type: "object", properties: {} },
};

/** The tools an agent with appointment booking on carries, in this order. */
export const BOOKING_TOOLS: readonly FunctionToolSpec[] = [CHECK_AVAILABILITY_TOOL, BOOK_APPOINTMENT_TOOL, RESCHEDULE_APPOINTMENT_TOOL, CANCEL_APPOINTMENT_TOOL, FIND_APPOINTMENT_TOOL];
