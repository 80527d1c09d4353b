/**
 * /availability routes (issue 14 §1): the calendar's rules and its free slots. Members read them; only
 * admins change the rules (permission calendar:edit). Everything is the caller's organisation's: an
 * agentId that is not one of its agents answers 404.
 *
 * Decisions a user notices:
 * - Until an admin saves rules, GET answers the defaults (Mon–Fri 09:00–17:00, 30-minute slots, an
 *   hour's notice, 60 days ahead) in the organisation's time zone, with is_default: true.
 * - An agent without rules of its own answers the organisation's, with inherited: true; PUT with its
 *   agent_id gives it its own (its later bookings go to that calendar).
 * - Saving rules never moves or cancels appointments already booked: they keep the buffers they were
 *   booked with and may now lie outside the hours (the console marks them outside_hours).
 * - Slots are the agent's: every rule applies (hours, notice, how far ahead, closed dates, max per day),
 *   minus booked appointments and a connected calendar's busy times; UTC instants, with the zone named.
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, type Action } from "../../contract";
import {
  CALENDAR_RANGE_MAX_DAYS,
  availabilityInputSchema,
  availabilityQuerySchema,
  availabilitySchema,
  calendarPaths,
  calendarRangeQuerySchema,
  slotsResponseSchema,
} from "../../contract/calendar";
import { findAgent } from "../agents/repository";
import { checkRange, freeSlots } from "../calendar/appointments";
import { calendarFor, saveAvailability, toAvailabilityView } from "../calendar/calendars";
import { DAY, dayNumber, instantOfLocal } from "../calendar/slots";
import { noCalendarSync, type CalendarSync } from "../calendar/sync";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";

export interface AvailabilityRoutesOptions {
  db: Db;
  calendarSync?: CalendarSync;
}

const tags = ["calendar"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
const availabilityResponseSchema = z.object({ data: availabilitySchema });

export const agentNotFound = () => ApiError.notFound("Agent not found");

/** 404 unless the agent is the organisation's (another organisation's agent is not found either). */
export async function ownAgent(scope: OrgScope, agentId: string | undefined | null): Promise<void> {
  if (agentId && !(await findAgent(scope, agentId))) throw agentNotFound();
}

export const availabilityRoutes: FastifyPluginAsyncZod<AvailabilityRoutesOptions> = async (app, { db, calendarSync = noCalendarSync }) => {
  function allowed(request: FastifyRequest, action: Action): OrgScope {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "calendar", action)) throw ApiError.forbidden(action === "edit" ? "Only admins may change the calendar's availability." : "Your role may not view the calendar.");
    return scope;
  }

  app.get(
    calendarPaths.availability,
    {
      schema: {
        tags,
        security,
        summary: "The calendar's availability rules",
        description:
          "The organisation's rules, or with agentId the rules that apply to that agent (its own, else the organisation's with inherited: true). " +
          "Until an admin saves rules they are the defaults in the organisation's time zone (is_default: true).",
        querystring: availabilityQuerySchema,
        response: { 200: availabilityResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "show");
      await ownAgent(scope, request.query.agentId);
      return { data: toAvailabilityView(await calendarFor(db, scope.orgId, request.query.agentId ?? null)) };
    },
  );

  app.put(
    calendarPaths.availability,
    {
      schema: {
        tags,
        security,
        summary: "Save the availability rules (admins)",
        description:
          "timezone, weekly hours (several ranges a day, HH:MM, 24:00 ends the day), slot_minutes, buffers before and after, min_notice_minutes, " +
          "max_days_ahead, max_per_day (null: no limit), closed_dates and date_overrides (ranges: [] closes that date). agent_id: that agent's own rules " +
          "(absent or null: the organisation's). Appointments already booked stay as they are.",
        body: availabilityInputSchema,
        response: { 200: availabilityResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "edit");
      await ownAgent(scope, request.body.agent_id);
      return { data: toAvailabilityView(await saveAvailability(db, scope.orgId, request.body)) };
    },
  );

  app.get(
    calendarPaths.availabilitySlots,
    {
      schema: {
        tags,
        security,
        summary: "Free slots",
        description:
          `startDate and endDate: dates YYYY-MM-DD in the calendar's time zone, endDate included, at most ${CALENDAR_RANGE_MAX_DAYS} days. agentId: that agent's calendar ` +
          "(its own, else the organisation's). The slots an agent may book: the rules (hours, notice, how far ahead, closed dates, date overrides, max per day) " +
          "minus booked appointments (with buffers) minus a connected calendar's busy times, as UTC instants; `timezone` names the calendar's zone.",
        querystring: calendarRangeQuerySchema,
        response: { 200: slotsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "show");
      const { startDate, endDate, agentId } = request.query;
      checkRange(startDate, endDate);
      await ownAgent(scope, agentId);
      const { timezone } = await calendarFor(db, scope.orgId, agentId ?? null);
      const from = new Date(instantOfLocal(timezone, dayNumber(startDate) * DAY));
      const to = new Date(instantOfLocal(timezone, (dayNumber(endDate) + 1) * DAY));
      const found = await freeSlots(db, calendarSync, scope.orgId, { from, to, agentId: agentId ?? null });
      return { data: found.slots.map((slot) => ({ start: slot.start.toISOString(), end: slot.end.toISOString() })), timezone: found.timezone };
    },
  );
};
