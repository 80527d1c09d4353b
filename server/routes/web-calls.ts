import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import {
  ERROR_CODES,
  INSUFFICIENT_BALANCE_DETAIL,
  SANDBOX_WEB_CALL_END_REASONS,
  WEB_CALL_NOT_FOUND,
  WEB_CALL_SANDBOX_CALL_NOT_FOUND,
  WEB_CALL_SANDBOX_ONLY,
  can,
  errorBodySchema,
  webCallCreateSchema,
  webCallDeleteResponseSchema,
  webCallDetailsResponseSchema,
  webCallIdParamsSchema,
  webCallLinkResponseSchema,
  webCallListQuerySchema,
  webCallListResponseSchema,
  webCallPaths,
  webCallSandboxCallParamsSchema,
  webCallSandboxEndSchema,
  webCallSandboxStartSchema,
  webCallSlugParamsSchema,
  type Action,
} from "../../contract";
import { findAgent } from "../agents/repository";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { calls, webCallLinks } from "../db/schema";
import { ApiError } from "../plugins/errors";
import {
  sandboxInProgressEvent,
  sandboxProviderCallId,
  sandboxWebCallEnd,
  sandboxWebCallLatestEnd,
  sandboxWebCallSeconds,
  sandboxWebProviderCallId,
  type SandboxRunningCall,
} from "../voice/sandbox-calls";
import { orgScope } from "../data/orgScope";
import type { VoiceProvider } from "../voice/types";
import { gateCall } from "../billing/call-gate";
import { planSettings } from "../billing/plan-limits";
import { reserveCall, walletPolicy } from "../wallet/wallet";
import { findLinkBySlug, insertLink, linkVariables, listLinks, toApiLink, toWebCallDetails, type LinkAgent, type WebCallLinkRow } from "../web-calls/links";

export interface WebCallRoutesOptions {
  db: Db;
  voice: VoiceProvider;
  /** Requests per minute per IP on the public lookup (default 120). */
  publicRateLimitPerMinute?: number;
  /** Sandbox web calls a minute per IP (default PUBLIC_CALL_PER_IP_PER_MINUTE, like public phone calls). */
  sandboxCallsPerMinute?: number;
}

const sandboxStartBodySchema = z.strictObject({}).optional();
const sandboxEndBodySchema = z
  .strictObject({
    reason: z
      .enum(SANDBOX_WEB_CALL_END_REASONS, { error: `reason must be ${SANDBOX_WEB_CALL_END_REASONS.join(" or ")}` })
      .default("customer-ended-call"),
  })
  .optional();

function runningWebCall(link: WebCallLinkRow, agent: LinkAgent, callId: string, startedAt: number): SandboxRunningCall {
  return {
    callId,
    orgId: agent.orgId,
    agentId: agent.id,
    config: agent.config,
    type: "web",
    providerCallId: sandboxWebProviderCallId(callId),
    phoneNumberId: null,
    customerNumber: null,
    customerName: link.recipientName,
    variableValues: linkVariables(link),
    startedAt,
  };
}

const tags = ["webcall"];
const security = [{ bearerAuth: [] }];

/**
 * A link is a way of sharing an agent, so the agent permissions decide: whoever may see the
 * organisation's agents sees its links; whoever may edit agents makes and removes links (members too).
 */
const PERMISSION: Record<"list" | "read" | "create" | "delete", Action> = { list: "list", read: "show", create: "edit", delete: "edit" };

/**
 * /webcall routes: POST /webcall/ (create), GET /webcall/ (list), GET and DELETE /webcall/{id} (spec §7),
 * and, without sign-in, what the /web-call/:callSlug page needs under /webcall/public/{slug}: its details
 * and, in sandbox mode, starting and ending its simulated call (recorded like any call: the sandbox posts
 * the signed webhook events that fill the record, and the wallet is debited when it ends).
 */
export const webCallRoutes: FastifyPluginAsyncZod<WebCallRoutesOptions> = async (
  app,
  { db, voice, publicRateLimitPerMinute = 120, sandboxCallsPerMinute },
) => {
  const wallet = walletPolicy(app.config);
  const plans = planSettings(app.config);
  function allowed(request: FastifyRequest, action: keyof typeof PERMISSION): { scope: OrgScope; userId: string } {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "agent", PERMISSION[action])) {
      throw ApiError.forbidden(action === "list" || action === "read" ? "Your role may not view web-call links." : "Your role may not change web-call links.");
    }
    return { scope, userId: identity.userId };
  }

  app.post(
    webCallPaths.list,
    {
      schema: {
        tags,
        security,
        summary: "Create a web-call link for an agent",
        description:
          "Answers the link with its random slug and the console path of its public page (`url`, /web-call/<slug>). " +
          "At most 10 instructions; every text is plain text.",
        body: webCallCreateSchema,
        response: { 201: webCallLinkResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { scope, userId } = allowed(request, "create");
      const body = request.body;
      const agent = await findAgent(scope, body.agent_id);
      if (!agent) throw new ApiError(400, ERROR_CODES.validation, `agent_id: ${body.agent_id} is not an agent of this organisation`);
      const link = {
        agentId: agent.id,
        callTitle: body.call_title,
        recipientName: body.recipient_name,
        subTitle: body.sub_title,
        instructions: body.instructions,
        createdBy: userId,
      };
      // 128 random bits do not collide in practice; the unique index makes sure, and one retry covers it.
      for (let attempt = 1; ; attempt++) {
        try {
          return reply.status(201).send({ data: toApiLink(await insertLink(scope, link)) });
        } catch (error) {
          if (!isUniqueViolation(error) || attempt >= 3) throw error;
        }
      }
    },
  );

  app.get(
    webCallPaths.list,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's web-call links, newest first",
        querystring: webCallListQuerySchema,
        response: { 200: webCallListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const { rows, total } = await listLinks(allowed(request, "list").scope, page, limit);
      return { data: rows.map(toApiLink), total, page, limit };
    },
  );

  app.delete(
    "/webcall/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a web-call link",
        description: "Its public page stops working at once.",
        params: webCallIdParamsSchema,
        response: { 200: webCallDeleteResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "delete");
      const [deleted] = await scope.delete(webCallLinks, eq(webCallLinks.id, request.params.id));
      if (!deleted) throw ApiError.notFound(WEB_CALL_NOT_FOUND);
      return { data: { id: deleted.id } };
    },
  );

  app.get(
    "/webcall/:id",
    {
      schema: {
        tags,
        security,
        summary: "One web-call link (spec §7 GET /webcall/{id})",
        description: "The organisation's link by its id; another organisation's link answers 404. The public page reads GET /webcall/public/{slug}.",
        params: webCallIdParamsSchema,
        response: { 200: webCallLinkResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "read");
      const row = await scope.first(webCallLinks, eq(webCallLinks.id, request.params.id));
      if (!row) throw ApiError.notFound(WEB_CALL_NOT_FOUND);
      return { data: toApiLink(row) };
    },
  );

  app.get(
    "/webcall/public/:slug",
    {
      config: { public: true, rateLimit: { max: publicRateLimitPerMinute, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "A web-call page's details (no sign-in)",
        description:
          "What the /web-call/:callSlug page shows. `assistantId` starts the browser call: the agent's Vapi assistant id in Vapi mode, " +
          "our agent id in the sandbox. `firstMessage` is the agent's welcome message rendered as Vapi renders it (Liquid: `{{ name | default: \"there\" }}`, `{{ date }}`…), `name` being the link's recipient.",
        params: webCallSlugParamsSchema,
        response: { 200: webCallDetailsResponseSchema, 400: errorBodySchema, 404: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request) => {
      const found = await findLinkBySlug(db, request.params.slug);
      if (!found) throw ApiError.notFound(WEB_CALL_NOT_FOUND);
      return { data: toWebCallDetails(found.link, found.agent, voice) };
    },
  );

  /** The sandbox's engine, in sandbox mode only (in Vapi mode the browser talks to Vapi). */
  function sandboxOnly() {
    if (voice.mode !== "sandbox" || !voice.sandboxCalls) throw ApiError.conflict(WEB_CALL_SANDBOX_ONLY);
    return voice.sandboxCalls;
  }

  app.post(
    "/webcall/public/:slug/call",
    {
      config: { public: true, rateLimit: { max: sandboxCallsPerMinute ?? app.config.calls.publicPerIpPerMinute, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "Start the page's sandbox web call (no sign-in, sandbox mode)",
        description:
          "Records a call of type web for the link's agent (refused with 403 while the organisation's wallet is too low) and plays it " +
          "through the sandbox's signed webhook events: in progress now; transcript, summary and cost when the page ends it " +
          "(POST …/call/{callId}/end) or, if the page goes away, shortly after `maxDurationSeconds`. 409 in Vapi mode.",
        params: webCallSlugParamsSchema,
        body: sandboxStartBodySchema,
        response: { 201: webCallSandboxStartSchema, 400: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request, reply) => {
      const sandbox = sandboxOnly();
      const found = await findLinkBySlug(db, request.params.slug);
      if (!found) throw ApiError.notFound(WEB_CALL_NOT_FOUND);
      const { link, agent } = found;
      const callId = randomUUID();
      const startedAt = Date.now();
      const call = runningWebCall(link, agent, callId, startedAt);
      const reserved = await reserveCall(db, agent.orgId, wallet, (tx) =>
        tx.insert(calls).values({
          id: callId,
          orgId: agent.orgId,
          type: "web",
          status: "queued",
          agentId: agent.id,
          customerName: link.recipientName,
          providerCallId: sandboxProviderCallId(call),
          isSandbox: true,
          startedAt: new Date(startedAt),
        }),
        undefined,
        (tx) => gateCall(tx, { orgId: agent.orgId, agentId: agent.id }, plans, wallet),
      );
      if (!reserved) throw new ApiError(403, ERROR_CODES.insufficientBalance, INSUFFICIENT_BALANCE_DETAIL);
      await sandbox.send(sandboxInProgressEvent(call));
      // If the page never ends it (closed, offline), the sandbox does, as Vapi would at the call's limit.
      sandbox.play(callId, sandboxWebCallEnd(call, sandboxWebCallLatestEnd(startedAt, agent.config), "exceeded-max-duration", { title: link.callTitle }));
      return reply.status(201).send({ data: { id: callId, status: "in-progress", maxDurationSeconds: sandboxWebCallSeconds(agent.config) } });
    },
  );

  app.post(
    "/webcall/public/:slug/call/:callId/end",
    {
      config: { public: true, rateLimit: { max: publicRateLimitPerMinute, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "End the page's sandbox web call (no sign-in, sandbox mode)",
        description:
          "The call id from POST …/call is the capability. The record gets its transcript, summary and cost through the webhook route " +
          "before this answers; ending an ended call changes nothing. 409 in Vapi mode.",
        params: webCallSandboxCallParamsSchema,
        body: sandboxEndBodySchema,
        response: { 200: webCallSandboxEndSchema, 400: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request) => {
      const sandbox = sandboxOnly();
      const found = await findLinkBySlug(db, request.params.slug);
      if (!found) throw ApiError.notFound(WEB_CALL_SANDBOX_CALL_NOT_FOUND);
      const { link, agent } = found;
      const { callId } = request.params;
      const row = await orgScope(db, agent.orgId).first(calls, and(eq(calls.id, callId), eq(calls.agentId, agent.id), eq(calls.type, "web"), eq(calls.isSandbox, true)));
      // Only the link's own sandbox web calls: their provider id is the one POST …/call gave them.
      if (!row || row.providerCallId !== sandboxWebProviderCallId(callId)) throw ApiError.notFound(WEB_CALL_SANDBOX_CALL_NOT_FOUND);
      if (row.status === "ended") return { data: { id: callId, status: "ended" } };
      const call = runningWebCall(link, agent, callId, row.startedAt.getTime());
      const latest = sandboxWebCallLatestEnd(call.startedAt, agent.config);
      const reason = request.body?.reason ?? "customer-ended-call";
      sandbox.cancel(callId);
      for (const event of sandboxWebCallEnd(call, Math.min(Date.now(), latest), reason, { title: link.callTitle })) await sandbox.send(event.message);
      return { data: { id: callId, status: "ended" } };
    },
  );
};
