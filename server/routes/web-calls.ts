import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  ERROR_CODES,
  WEB_CALL_NOT_FOUND,
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
  webCallSlugParamsSchema,
  type Action,
} from "../../contract";
import { findAgent } from "../agents/repository";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { webCallLinks } from "../db/schema";
import { ApiError } from "../plugins/errors";
import type { VoiceProvider } from "../voice/types";
import { findLinkBySlug, insertLink, listLinks, toApiLink, toWebCallDetails } from "../web-calls/links";
import { eq } from "drizzle-orm";

export interface WebCallRoutesOptions {
  db: Db;
  voice: VoiceProvider;
  /** Requests per minute per IP on the public lookup (default 120). */
  publicRateLimitPerMinute?: number;
}

const tags = ["webcall"];
const security = [{ bearerAuth: [] }];

/**
 * A link is a way of sharing an agent, so the agent permissions decide: whoever may see the
 * organisation's agents sees its links; whoever may edit agents makes and removes links (members too).
 */
const PERMISSION: Record<"list" | "create" | "delete", Action> = { list: "list", create: "edit", delete: "edit" };

/**
 * /webcall routes: POST /webcall/ (create), GET /webcall/ (list), DELETE /webcall/{id}, and the public
 * GET /webcall/{slug} the /web-call/:callSlug page reads. There is no GET by id, so a slug never clashes
 * with an id (DELETE takes the id, GET the slug).
 */
export const webCallRoutes: FastifyPluginAsyncZod<WebCallRoutesOptions> = async (app, { db, voice, publicRateLimitPerMinute = 120 }) => {
  function allowed(request: FastifyRequest, action: keyof typeof PERMISSION): { scope: OrgScope; userId: string } {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "agent", PERMISSION[action])) {
      throw ApiError.forbidden(action === "list" ? "Your role may not view web-call links." : "Your role may not change web-call links.");
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
    "/webcall/:slug",
    {
      config: { public: true, rateLimit: { max: publicRateLimitPerMinute, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "A web-call page's details (no sign-in)",
        description:
          "What the /web-call/:callSlug page shows. `assistantId` starts the browser call: the agent's Vapi assistant id in Vapi mode, " +
          "our agent id in the sandbox.",
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
};
