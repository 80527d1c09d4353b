import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  PUBLIC_AGENT_NOT_ACCESSIBLE_DETAIL,
  callCreateSchema,
  callExportPath,
  callExportQuerySchema,
  callListQuerySchema,
  callListResponseSchema,
  callIdParamsSchema,
  callDetailResponseSchema,
  callPaths,
  callResponseSchema,
  can,
  errorBodySchema,
  publicCallRecipientName,
  publicCallRequestSchema,
  publicCallResponseSchema,
} from "../../contract";
import { findAgent, findAgentInAnyOrganisation } from "../agents/repository";
import { DAY_MS, tooManyForAgent, tooManyFromClient } from "../calls/limits";
import { callsCsvStream, exportFileName } from "../calls/export";
import { callQuery, countCallsExactly, listCalls } from "../calls/list";
import { CallListAnswers } from "../calls/list-cache";
import { appointmentIdsOfCall } from "../calendar/appointments";
import { agentNameOf, countAgentCallsSince, findCall, toApiCall, toApiCallListItem } from "../calls/repository";
import { planSettings } from "../billing/plan-limits";
import { assertToolsValid, placeOutboundCall, type CallContext } from "../calls/service";
import type { AppConfig } from "../config";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { phoneNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { compileFastSerializer } from "../plugins/serializer";
import type { VoiceProvider } from "../voice/types";
import { walletPolicy } from "../wallet/wallet";
import { eq } from "drizzle-orm";
import { z } from "zod";

const tags = ["call"];
const security = [{ bearerAuth: [] }];

const callNotFound = () => ApiError.notFound("Call not found");

/**
 * /call routes (spec §7): GET /call/ (the call log), GET /call/export (it as CSV), GET /call/{id},
 * POST /call/ (a member places a call), POST /call/public (anyone asks a public agent to ring them).
 */
export const callRoutes: FastifyPluginAsyncZod<{ db: Db; voice: VoiceProvider; config: AppConfig }> = async (app, { db, voice, config }) => {
  const limits = config.calls;
  const wallet = walletPolicy(config);
  const plans = planSettings(config);

  function context(request: FastifyRequest): CallContext {
    return { db, voice, log: request.log, wallet, plans };
  }

  const filtersDescription =
    "startDate/endDate: days YYYY-MM-DD in `timezone` (an IANA name such as Europe/Berlin; default UTC), endDate included " +
    "whole; a call counts on the day it started there, as on the dashboard. search: the customer number (any spelling, or a " +
    "part of it), customer name, agent name, call id, or words of the transcript and summary. status, type, endedReason, " +
    "successEvaluation, outcome (answered, busy, no_answer, voicemail, failed, in_progress) and success (pass, fail: the " +
    "success evaluation counted under the agent's rubric) take one value or several separated by commas; durationMin/Max " +
    "are seconds, costMin/Max USD. sortBy startedAt (default) | duration | cost, sortOrder desc (default) | asc. Unknown " +
    "parameters answer 400.";

  // GET /call/'s answers, kept per organisation and request until its calls change (CallListAnswers);
  // zod checks each new one outside production, as the response schema would.
  const writeList = compileFastSerializer(callListResponseSchema) ?? JSON.stringify;
  const checkAnswers = config.nodeEnv !== "production";
  const listAnswers = new CallListAnswers();

  app.get(
    callPaths.calls,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's calls, newest first",
        description:
          `${filtersDescription} Items are calls without messages, transcript, cost_breakdown and structured_data. ` +
          "`total` is exact up to 10,000 matching calls; above that it is an estimate and `total_is_estimate` is true.",
        querystring: callListQuerySchema,
        response: { 200: callListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "call", "list")) throw ApiError.forbidden("Your role may not view calls.");
      const body = await listAnswers.answer(db, scope, request.query, async () => {
        const { page, limit, ...filters } = request.query;
        const result = await listCalls(db, scope, filters, page, limit);
        const answer = { data: result.rows.map(toApiCallListItem), total: result.total, page, limit, total_is_estimate: result.totalIsEstimate };
        return writeList(checkAnswers ? callListResponseSchema.parse(answer) : answer);
      });
      // Already the JSON text of the answer: Fastify sends a string with a JSON content type as it is.
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );

  app.get(
    callExportPath,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's calls as CSV",
        description:
          `The list's filters and order, every matching call (no page/limit), streamed as text/csv. ${filtersDescription} ` +
          "`x-total-count` says how many rows follow. Cells that could start a spreadsheet formula (= + - @) begin with '.",
        querystring: callExportQuerySchema,
        produces: ["text/csv"],
        response: {
          200: z.string().describe("CSV: a header row, then one row per call"),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "call", "list")) throw ApiError.forbidden("Your role may not export calls.");
      const filters = request.query;
      const query = await callQuery(db, scope, filters);
      const total = await countCallsExactly(db, query);
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${exportFileName()}"`)
        .header("x-total-count", String(total))
        .header("cache-control", "no-store")
        // A stream skips the response serializer; the 200 schema above documents the CSV for OpenAPI.
        .send(callsCsvStream(db, query, filters) as unknown as string);
    },
  );

  app.get(
    "/call/:id",
    {
      schema: {
        tags,
        security,
        summary: "One call",
        description: "Another organisation's call answers 404, as if it did not exist. appointment_ids: the appointments the call booked, oldest first.",
        params: callIdParamsSchema,
        response: { 200: callDetailResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "call", "show")) throw ApiError.forbidden("Your role may not view calls.");
      const row = await findCall(scope, request.params.id);
      if (!row) throw callNotFound();
      const [agentName, appointmentIds] = await Promise.all([agentNameOf(scope, row.agentId), appointmentIdsOfCall(db, scope.orgId, row.id)]);
      return { data: { ...toApiCall(row, agentName), appointment_ids: appointmentIds } };
    },
  );

  app.post(
    callPaths.calls,
    {
      schema: {
        tags,
        security,
        summary: "Place an outbound call",
        description:
          "The organisation's agent calls `customer_number` (E.164) from one of the organisation's numbers. " +
          "403 `insufficient_balance` while the wallet is below MIN_BALANCE_USD; 400 when the agent's tools are not valid. " +
          "The call answers queued; its life arrives through the voice provider's webhooks.",
        body: callCreateSchema,
        response: { 201: callResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "call", "create")) throw ApiError.forbidden("Your role may not place calls.");
      const body = request.body;
      const agent = await findAgent(scope, body.agent_id);
      if (!agent) throw ApiError.notFound("Agent not found");
      const phoneNumber = await scope.first(phoneNumbers, eq(phoneNumbers.id, body.phone_number_id));
      if (!phoneNumber) throw ApiError.notFound("Phone number not found: phone_number_id must be one of the organisation's numbers.");
      const name = body.customer_name?.trim() || null;
      const row = await placeOutboundCall(context(request), {
        agent,
        phoneNumber,
        customer: { number: body.customer_number, name },
        variableValues: name ? { name } : {},
      });
      return reply.status(201).send({ data: toApiCall(row, agent.name) });
    },
  );

  app.post(
    callPaths.publicCall,
    {
      config: {
        public: true,
        rateLimit: {
          max: limits.publicPerIpPerMinute,
          timeWindow: 60_000,
          errorResponseBuilder: () => ApiError.tooManyRequests(tooManyFromClient(limits.publicPerIpPerMinute)),
        },
      },
      schema: {
        tags,
        summary: "A public agent calls someone (no sign-in)",
        description:
          "Spec §3 public call payload. The agent must be public and the phone number one of its organisation's; the recipient " +
          `name falls back to 'Sir'. Limits: ${limits.publicPerIpPerMinute} requests a minute per client, ` +
          `${limits.publicPerNumberPerHour} calls an hour to one number, ${limits.publicPerAgentPerDay} calls a day per agent (429). ` +
          "403 `insufficient_balance` when the organisation's wallet is too low. A refused request writes nothing.",
        body: publicCallRequestSchema,
        response: {
          201: publicCallResponseSchema,
          400: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          429: errorBodySchema,
          502: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const agent = await findAgentInAnyOrganisation(db, body.assistantId);
      if (!agent?.isPublic) throw ApiError.notFound(PUBLIC_AGENT_NOT_ACCESSIBLE_DETAIL);
      const scope = orgScope(db, agent.orgId);
      const phoneNumber = await scope.first(phoneNumbers, eq(phoneNumbers.id, body.phoneNumberId));
      if (!phoneNumber) throw ApiError.notFound("Phone number not found: phoneNumberId must be one of this agent's organisation's phone numbers.");
      assertToolsValid(agent);

      const ctx = context(request);
      const number = body.customer.number;
      if ((await countAgentCallsSince(scope, agent.id, new Date(Date.now() - DAY_MS))) >= limits.publicPerAgentPerDay) {
        throw ApiError.tooManyRequests(tooManyForAgent(limits.publicPerAgentPerDay));
      }
      const name = publicCallRecipientName(body.assistantOverrides?.variableValues?.name);
      const row = await placeOutboundCall(ctx, {
        agent,
        phoneNumber,
        customer: { number, name },
        variableValues: { name },
        publicRequest: { perNumberPerHour: limits.publicPerNumberPerHour },
      });
      return reply.status(201).send({ data: { id: row.id, status: toApiCall(row).status } });
    },
  );
};
