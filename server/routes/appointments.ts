/**
 * /appointment routes (issue 14 §2): the organisation's appointments, for the console's calendar.
 * Members and admins list, show, book, change and cancel them (DELETE cancels: nothing is destroyed);
 * another organisation's appointment answers 404.
 *
 * Decisions a user notices:
 * - A person may book outside the calendar's hours (the appointment says outside_hours: true), but
 *   never over another appointment of the same calendar, buffers included: that answers 409
 *   `{detail, code: "slot_taken", slots}` with up to 3 nearest free slots from the asked time on (the
 *   asked length when the rules allow it). Two requests for the same time at once: one wins.
 * - An appointment belongs to its agent's calendar (the agent's own rules, else the organisation's).
 * - PUT moves an appointment with start and end together; status goes booked ⇄ completed / no_show (and
 *   between those two), booked → cancelled, and a cancelled one back to booked only while its time is
 *   free; any other change answers 409 naming the current status.
 * - DELETE cancels (status cancelled, cancelled_at); cancelling a cancelled appointment answers it as it
 *   is; a completed or no-show appointment is not cancelled (409).
 * - The list's startDate/endDate are dates in the calendar's zone (agentId's calendar, else the
 *   organisation's), endDate included; it is ordered by start. An agentId that is not the
 *   organisation's lists nothing (as GET /call/).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, type Action } from "../../contract";
import {
  APPOINTMENT_LIST_MAX_LIMIT,
  CALENDAR_RANGE_MAX_DAYS,
  SLOT_TAKEN_CODE,
  appointmentInputSchema,
  appointmentListQuerySchema,
  appointmentListResponseSchema,
  appointmentSchema,
  appointmentUpdateSchema,
  calendarPaths,
  slotSchema,
} from "../../contract/calendar";
import {
  OutsideAvailabilityError,
  SlotTakenError,
  appointmentViews,
  bookAppointment,
  cancelAppointment,
  findAppointment,
  listAppointments,
  updateAppointment,
  type AppointmentActor,
  type AppointmentChanges,
  type AppointmentRow,
} from "../calendar/appointments";
import { noCalendarSync, type CalendarSync } from "../calendar/sync";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";

export interface AppointmentRoutesOptions {
  db: Db;
  calendarSync?: CalendarSync;
}

const tags = ["appointment"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
/** A 409: slot_taken carries the nearest free slots; a status change that does not apply is a plain conflict. */
const conflictSchema = errorBodySchema.extend({ slots: z.array(slotSchema).optional() });
const appointmentResponseSchema = z.object({ data: appointmentSchema });
const appointmentIdParamsSchema = z.object({ id: z.uuid({ error: "the appointment id must be a UUID" }) });

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", create: "book", edit: "change", delete: "cancel" };

const SLOT_TAKEN_DETAIL = "That time overlaps another appointment of this calendar (buffers included). Choose another time: the nearest free ones are offered.";

/** The 409 of a refused time, with its alternatives as ISO instants. */
function sendRefusal(reply: FastifyReply, error: SlotTakenError | OutsideAvailabilityError) {
  const slots = error.slots.map((slot) => ({ start: slot.start.toISOString(), end: slot.end.toISOString() }));
  if (error instanceof SlotTakenError) return reply.status(409).send({ detail: SLOT_TAKEN_DETAIL, code: SLOT_TAKEN_CODE, slots });
  return reply.status(409).send({ detail: error.message, code: "conflict", slots });
}

/** Runs a write; a refused time becomes its 409. */
async function refusalsAs409<T>(reply: FastifyReply, write: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof SlotTakenError || error instanceof OutsideAvailabilityError) return sendRefusal(reply, error);
    throw error;
  }
}

const dateOrUndefined = (value: string | undefined) => (value === undefined ? undefined : new Date(value));

export const appointmentRoutes: FastifyPluginAsyncZod<AppointmentRoutesOptions> = async (app, { db, calendarSync = noCalendarSync }) => {
  function allowed(request: FastifyRequest, action: Action): { scope: OrgScope; by: AppointmentActor } {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "appointment", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} appointments.`);
    return { scope, by: { source: "console", userId: identity.userId } };
  }

  const answer = async (orgId: string, row: AppointmentRow) => ({ data: (await appointmentViews(db, orgId, [row]))[0]! });

  app.get(
    calendarPaths.appointments,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's appointments, by start",
        description:
          `startDate/endDate: dates YYYY-MM-DD in the calendar's zone (agentId's calendar, else the organisation's), endDate included, at most ${CALENDAR_RANGE_MAX_DAYS} days ` +
          "when both are given; status: one status; agentId: that agent's appointments; search: a part of the title, the customer's name or email, or digits of the number. " +
          `At most ${APPOINTMENT_LIST_MAX_LIMIT} a page.`,
        querystring: appointmentListQuerySchema,
        response: { 200: appointmentListResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "list");
      const { page, limit } = request.query;
      const { rows, total } = await listAppointments(db, scope.orgId, request.query);
      return { data: await appointmentViews(db, scope.orgId, rows), total, page, limit };
    },
  );

  app.post(
    calendarPaths.appointments,
    {
      schema: {
        tags,
        security,
        summary: "Book an appointment",
        description:
          "In agent_id's calendar (the agent's own rules, else the organisation's). It may lie outside the hours (outside_hours: true) but never overlaps another " +
          "appointment of the calendar, buffers included: 409 {detail, code: slot_taken, slots} with up to 3 nearest free slots from the asked time on.",
        body: appointmentInputSchema,
        response: { 201: appointmentResponseSchema, ...errors, 409: conflictSchema },
      },
    },
    async (request, reply) => {
      const { scope, by } = allowed(request, "create");
      const body = request.body;
      return refusalsAs409(reply, async () => {
        const row = await bookAppointment(
          db,
          calendarSync,
          scope.orgId,
          {
            title: body.title,
            start: new Date(body.start),
            end: new Date(body.end),
            customerName: body.customer_name ?? null,
            customerNumber: body.customer_number ?? null,
            customerEmail: body.customer_email ?? null,
            notes: body.notes ?? null,
            agentId: body.agent_id ?? null,
          },
          by,
        );
        return reply.status(201).send(await answer(scope.orgId, row));
      });
    },
  );

  app.get(
    "/appointment/:id",
    { schema: { tags, security, summary: "One appointment", params: appointmentIdParamsSchema, response: { 200: appointmentResponseSchema, ...errors } } },
    async (request) => {
      const { scope } = allowed(request, "show");
      return answer(scope.orgId, await findAppointment(db, scope.orgId, request.params.id));
    },
  );

  app.put(
    "/appointment/:id",
    {
      schema: {
        tags,
        security,
        summary: "Change an appointment",
        description:
          "Any of the fields; start and end together move it (the same overlap rule: 409 slot_taken with the nearest free slots). status: booked ⇄ completed / no_show, " +
          "booked → cancelled, cancelled → booked while its time is free; any other change answers 409.",
        params: appointmentIdParamsSchema,
        body: appointmentUpdateSchema,
        response: { 200: appointmentResponseSchema, ...errors, 409: conflictSchema },
      },
    },
    async (request, reply) => {
      const { scope, by } = allowed(request, "edit");
      const body = request.body;
      const changes: AppointmentChanges = {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.start !== undefined ? { start: dateOrUndefined(body.start)! } : {}),
        ...(body.end !== undefined ? { end: dateOrUndefined(body.end)! } : {}),
        ...(body.customer_name !== undefined ? { customerName: body.customer_name } : {}),
        ...(body.customer_number !== undefined ? { customerNumber: body.customer_number } : {}),
        ...(body.customer_email !== undefined ? { customerEmail: body.customer_email } : {}),
        ...(body.notes !== undefined ? { notes: body.notes } : {}),
        ...(body.agent_id !== undefined ? { agentId: body.agent_id } : {}),
        ...(body.status !== undefined ? { status: body.status } : {}),
      };
      return refusalsAs409(reply, async () => answer(scope.orgId, await updateAppointment(db, calendarSync, scope.orgId, request.params.id, changes, by)));
    },
  );

  app.delete(
    "/appointment/:id",
    {
      schema: {
        tags,
        security,
        summary: "Cancel an appointment",
        description: "Status cancelled, cancelled_at set; the appointment is kept and answered. Cancelling a cancelled one answers it as it is; a completed or no-show one answers 409.",
        params: appointmentIdParamsSchema,
        response: { 200: appointmentResponseSchema, ...errors, 409: conflictSchema },
      },
    },
    async (request) => {
      const { scope, by } = allowed(request, "delete");
      return answer(scope.orgId, await cancelAppointment(db, calendarSync, scope.orgId, request.params.id, by));
    },
  );
};
