import { createHash } from "node:crypto";
import { planSettings } from "../billing/plan-limits";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  PUBLIC_AGENT_DEFAULT_DESCRIPTION,
  PUBLIC_AGENT_DEFAULT_GREETING,
  agentCloneConflictSchema,
  agentCloneQuerySchema,
  agentCreateSchema,
  agentIdParamsSchema,
  agentListQuerySchema,
  agentSchema,
  agentTemplateCreateSchema,
  agentTemplateSchema,
  agentUpdateSchema,
  apiPaths,
  appointmentToggleSchema,
  can,
  errorBodySchema,
  publicAgentFallbackName,
  publicAgentProfileSchema,
  type Action,
  deletedResponseSchema,
} from "../../contract";
import { AgentAnswers, findAgent, findAgentInAnyOrganisation, listAgents, storedConfig, toApiAgent } from "../agents/repository";
import { agentNotFound, cloneAgent, createAgent, deleteAgent, updateAgent, type AgentContext } from "../agents/service";
import type { AgentRow } from "../agents/repository";
import { listTemplates, templateConfig } from "../agents/templates";
import type { SecretBox } from "../crypto/credentials";
import type { Db } from "../db/client";
import { repointAgentNumbers } from "../phone-numbers/service";
import { ApiError } from "../plugins/errors";
import { compileFastSerializer } from "../plugins/serializer";
import type { VoiceProvider } from "../voice/types";

const agentResponse = z.object({ data: agentSchema });
const agentListResponse = z.object({ data: z.array(agentSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
const deletedResponse = deletedResponseSchema;
const templatesResponse = z.object({ data: z.array(agentTemplateSchema) });
const publicProfileResponse = z.object({ data: publicAgentProfileSchema });

const tags = ["agent"];
const security = [{ bearerAuth: [] }];
/** The error answers every route with an agent id can give. */
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
/** Routes that save to the voice provider can also answer 502. */
const savingErrors = { ...errors, 502: errorBodySchema };

/**
 * GET /agent/{id}/public is cheap to reload: browsers (and any shared cache) keep the profile 30 s and
 * may show it 30 s more while they fetch it again, so an agent turned private stops being shown within
 * a minute; after that an ETag makes the check a 304 without a body.
 */
export const PUBLIC_PROFILE_CACHE_CONTROL = "public, max-age=30, stale-while-revalidate=30";

/** Whether an If-None-Match header names `etag` (a list, weak or strong, or `*`). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", create: "create", edit: "edit", delete: "delete" };

/** /agent routes (spec §7): CRUD, templates, appointment toggle, clone, public profile. */
export const agentRoutes: FastifyPluginAsyncZod<{ db: Db; voice: VoiceProvider; box: SecretBox }> = async (app, { db, voice, box }) => {
  /** The numbers that answer with this agent follow its assistant (server/phone-numbers/service.ts). */
  const plans = planSettings(app.config);
  const numbersOf = (ctx: AgentContext) => ({ db, scope: ctx.scope, voice, box, log: ctx.log, plans });

  /** Saves, then re-points the provider's numbers when the provider gave the agent a new assistant. */
  async function save(ctx: AgentContext, before: AgentRow, changes: Parameters<typeof updateAgent>[2]): Promise<AgentRow> {
    const row = await updateAgent(ctx, before, changes);
    if (row.providerAssistantId && row.providerAssistantId !== before.providerAssistantId) {
      // The agent is saved either way; a number left on the old assistant is logged for the admin to re-save.
      await repointAgentNumbers(numbersOf(ctx), row.id, row).catch((error: unknown) =>
        ctx.log.warn({ err: error, agentId: row.id }, "the agent has a new assistant but a phone number could not be pointed at it"),
      );
    }
    return row;
  }

  /** The caller's organisation and the voice provider, once the role may do `action` on agents (403 otherwise). */
  function allowed(request: FastifyRequest, action: Action): AgentContext & { userId: string } {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "agent", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} agents.`);
    return { db, scope, voice, log: request.log, plans, userId: identity.userId };
  }

  /** One of the caller's organisation's agents; another organisation's answers as if it did not exist. */
  async function ownAgent(ctx: AgentContext, id: string) {
    const row = await findAgent(ctx.scope, id);
    if (!row) throw agentNotFound();
    return row;
  }

  app.get(
    apiPaths.agents,
    {
      schema: {
        tags,
        security,
        summary: "List the organisation's agents, most recently edited first",
        querystring: agentListQuerySchema,
        response: { 200: agentListResponse, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const { rows, total } = await listAgents(allowed(request, "list").scope, page, limit);
      return { data: rows.map(toApiAgent), total, page, limit };
    },
  );

  app.get(
    apiPaths.agentTemplates,
    {
      schema: { tags, security, summary: "The agent templates", response: { 200: templatesResponse, 401: errorBodySchema, 403: errorBodySchema } },
    },
    async (request) => {
      allowed(request, "list");
      return { data: listTemplates() };
    },
  );

  app.post(
    apiPaths.agentFromTemplate,
    {
      schema: {
        tags,
        security,
        summary: "Create an agent from a template",
        description: "`agent_name` renames the new agent; every other setting comes from the template.",
        body: agentTemplateCreateSchema,
        response: { 201: agentResponse, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const ctx = allowed(request, "create");
      const row = await createAgent(ctx, { config: templateConfig(request.body.template, request.body.agent_name), isPublic: false, createdBy: ctx.userId });
      return reply.status(201).send({ data: toApiAgent(row) });
    },
  );

  app.post(
    apiPaths.agents,
    {
      schema: {
        tags,
        security,
        summary: "Create an agent",
        description: "Any subset of the settings; the spec's defaults fill the rest. The agent is saved to the voice provider first.",
        body: agentCreateSchema,
        response: { 201: agentResponse, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const ctx = allowed(request, "create");
      const { is_public: isPublic, clone_enabled: cloneEnabled, ...config } = request.body;
      const row = await createAgent(ctx, { config, isPublic, cloneEnabled, createdBy: ctx.userId });
      return reply.status(201).send({ data: toApiAgent(row) });
    },
  );

  // GET /agent/{id}'s answers, remembered by the row's content (AgentAnswers); zod checks each new one outside production.
  const writeAgent = compileFastSerializer(agentResponse) ?? JSON.stringify;
  const checkAnswers = app.config.nodeEnv !== "production";
  const answers = new AgentAnswers((body) => writeAgent(checkAnswers ? agentResponse.parse(body) : body));

  app.get(
    "/agent/:id",
    { schema: { tags, security, summary: "One agent", params: agentIdParamsSchema, response: { 200: agentResponse, ...errors } } },
    async (request, reply) => {
      const ctx = allowed(request, "show");
      const body = await answers.find(db, ctx.scope, request.params.id);
      if (body === null) throw agentNotFound();
      // Already the JSON text of {data: agent}: Fastify sends a string with a JSON content type as it is.
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );

  app.put(
    "/agent/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update an agent",
        description:
          "The fields given replace the stored ones; `analysis_plan`, `transcriber` and `voice` merge field by field. " +
          "The voice provider is updated first: when it refuses, nothing changes (502).",
        params: agentIdParamsSchema,
        body: agentUpdateSchema,
        response: { 200: agentResponse, ...savingErrors },
      },
    },
    async (request) => {
      const ctx = allowed(request, "edit");
      const row = await save(ctx, await ownAgent(ctx, request.params.id), request.body);
      return { data: toApiAgent(row) };
    },
  );

  app.delete(
    "/agent/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete an agent",
        description:
          "Takes the agent off the provider's phone numbers that answer with it, deletes the provider's assistant, then the agent; " +
          "answers the deleted agent's id.",
        params: agentIdParamsSchema,
        response: { 200: deletedResponse, ...savingErrors },
      },
    },
    async (request) => {
      const ctx = allowed(request, "delete");
      const row = await ownAgent(ctx, request.params.id);
      // Numbers first: Vapi must not keep routing calls to an assistant about to be deleted.
      await repointAgentNumbers(numbersOf(ctx), row.id, null);
      await deleteAgent(ctx, row);
      return { data: { id: row.id } };
    },
  );

  app.put(
    "/agent/:id/appointment-toggle",
    {
      schema: {
        tags,
        security,
        summary: "Turn appointment booking on or off for an agent",
        params: agentIdParamsSchema,
        body: appointmentToggleSchema,
        response: { 200: agentResponse, ...savingErrors },
      },
    },
    async (request) => {
      const ctx = allowed(request, "edit");
      const row = await save(ctx, await ownAgent(ctx, request.params.id), request.body);
      return { data: toApiAgent(row) };
    },
  );

  app.get(
    "/agent/:id/clone",
    {
      schema: {
        tags,
        security,
        summary: "Copy a shared agent into the caller's organisation",
        description:
          "Only with the owner's consent: the agent's `clone_enabled` is on and `key` is its `clone_key` (the private link " +
          "`/agent/private/{id}?key=…`). Otherwise 404, as for an agent that does not exist; turning cloning off revokes the key. " +
          "The copy keeps the name and settings but not the source organisation's webhook URL, forwarding number, knowledge-base " +
          "files or tools, and is not public. 409 with `data.id` when the agent is already the organisation's own or the " +
          "organisation already holds a copy.",
        params: agentIdParamsSchema,
        querystring: agentCloneQuerySchema,
        response: { 200: agentResponse, ...savingErrors, 409: agentCloneConflictSchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "create");
      const source = await findAgentInAnyOrganisation(db, request.params.id);
      if (!source) throw agentNotFound();
      return { data: toApiAgent(await cloneAgent(ctx, source, ctx.userId, request.query.key)) };
    },
  );

  app.get(
    "/agent/:id/public",
    {
      config: { public: true, rateLimit: { max: app.config.publicProfilePerIpPerMinute, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "A public agent's profile (no sign-in)",
        description:
          "Only for agents marked public; reveals the name, description, greeting and closing message, nothing else. " +
          `Cached: \`Cache-Control: ${PUBLIC_PROFILE_CACHE_CONTROL}\` and an ETag (304 to a matching If-None-Match). ` +
          `${app.config.publicProfilePerIpPerMinute} requests a minute per client (PUBLIC_PROFILE_PER_IP_PER_MINUTE), then 429 with Retry-After.`,
        params: agentIdParamsSchema,
        response: { 200: publicProfileResponse, 304: z.null().describe("Not modified: the cached profile is current"), 400: errorBodySchema, 404: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request, reply) => {
      const row = await findAgentInAnyOrganisation(db, request.params.id);
      if (!row?.isPublic) throw ApiError.notFound("Agent not found or not accessible.");
      const config = storedConfig(row);
      const data = {
        id: row.id,
        name: config.agent_name.trim() || publicAgentFallbackName(row.id),
        description: config.description.trim() || PUBLIC_AGENT_DEFAULT_DESCRIPTION,
        firstMessage: config.agent_welcome_message.trim() || PUBLIC_AGENT_DEFAULT_GREETING,
        endCallMessage: config.agent_end_call_message,
      };
      const etag = `W/"${createHash("sha256").update(JSON.stringify(data)).digest("base64url").slice(0, 22)}"`;
      reply.header("cache-control", PUBLIC_PROFILE_CACHE_CONTROL).header("etag", etag);
      if (matchesEtag(request.headers["if-none-match"], etag)) return reply.code(304).send(null);
      return { data };
    },
  );
};
