import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { eq } from "drizzle-orm";
import { z } from "zod";
import {
  calendarConnectionIdParamsSchema,
  calendarConnectionResponseSchema,
  calendarConnectionsResponseSchema,
  calendarDisconnectResponseSchema,
  calendarFeedResponseSchema,
  calendarPaths,
  can,
  errorBodySchema,
  googleCallbackSchema,
  urlResponseSchema,
  type Action,
} from "../../contract";
import { createFeedCache, feedAddress, feedOwner, FEED_NOT_FOUND, FEED_REFRESH_SECONDS, rotateFeed } from "../calendar/feed";
import { CalendarFlowError, GOOGLE_MESSAGES, redirectUriFor, type GoogleCalendar } from "../calendar/google";
import { GOOGLE_SCOPES } from "../calendar/google/client";
import { deleteConnection, listConnections, toApiConnection } from "../calendar/google/connections";
import type { AppConfig } from "../config";
import type { SecretBox } from "../crypto/credentials";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { calendarConnections } from "../db/schema";
import { ApiError } from "../plugins/errors";

export interface CalendarRoutesOptions {
  db: Db;
  config: AppConfig;
  /** Seals the Google tokens, the PKCE verifiers and the feed's token (the carrier credentials' key). */
  box: SecretBox;
  /** Google Calendar, or null when GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET are not set. */
  google: GoogleCalendar | null;
  /** GET /calendar/feed/{token}.ics: requests a minute per client address and feed (default 60). */
  feedPerMinute?: number;
}

const tags = ["calendar"];
const security = [{ bearerAuth: [] }];
const emptyBodySchema = z.strictObject({}).optional();

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", manage: "change" };

/**
 * /calendar/... (issue 14): outside calendars and the ICS feed. Members see the connections; admins
 * connect Google, disconnect it, and see and rotate the feed's secret address (contract/permissions.ts:
 * calendar `manage`). The ICS feed itself is public, opened by its secret token alone.
 */
export const calendarRoutes: FastifyPluginAsyncZod<CalendarRoutesOptions> = async (app, { db, config, box, google, feedPerMinute = 60 }) => {
  function allowed(request: FastifyRequest, action: Action) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "calendar", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} the calendar's connections and feed: ask an admin.`);
    return { identity, scope };
  }

  // The feeds made, kept while nothing in them changed (calendar apps poll the same text again and again).
  const feeds = createFeedCache();

  function configured(): GoogleCalendar {
    if (!google) throw ApiError.conflict(GOOGLE_MESSAGES.notConfigured);
    return google;
  }

  app.get(
    calendarPaths.connections,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's outside-calendar connections",
        description: "`google_configured` says whether this server has GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (the page explains how to set them when not). Tokens are never answered.",
        response: { 200: calendarConnectionsResponseSchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "list");
      return { data: (await listConnections(scope)).map(toApiConnection), google_configured: google !== null };
    },
  );

  app.delete(
    "/calendar/connections/:id",
    {
      schema: {
        tags,
        security,
        summary: "Disconnect an outside calendar (admins)",
        description:
          "Revokes the permission at Google, then deletes the connection and its tokens, even when Google does not confirm: `revoked` " +
          "false and `revoke_error` say so (the person can remove the access in their Google account). Events already written stay in " +
          "the Google calendar; busy times stop blocking slots at once in this process.",
        params: calendarConnectionIdParamsSchema,
        response: { 200: calendarDisconnectResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "manage");
      const row = await scope.first(calendarConnections, eq(calendarConnections.id, request.params.id));
      if (!row) throw ApiError.notFound(GOOGLE_MESSAGES.notFound);
      if (google) {
        const result = await google.disconnect(scope, row);
        return { data: { id: row.id, revoked: result.revoked, revoke_error: result.revokeError } };
      }
      await deleteConnection(scope, row);
      return {
        data: {
          id: row.id,
          revoked: false,
          revoke_error: "Google Calendar is not set up on this server, so the permission could not be revoked: remove it in the Google account (myaccount.google.com/permissions).",
        },
      };
    },
  );

  app.post(
    calendarPaths.googleConnect,
    {
      schema: {
        tags,
        security,
        summary: "Start connecting Google Calendar (admins)",
        description:
          "Answers the address of Google's consent page (authorization code with offline access and PKCE; scopes " +
          `${GOOGLE_SCOPES.join(", ")}). Google sends the browser back to ${redirectUriFor(config.publicUrl)} with \`code\` and ` +
          "`state`; that page posts them to POST /calendar/google/callback within 10 minutes, once. 409 when Google is not configured.",
        body: emptyBodySchema,
        response: { 200: urlResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request) => {
      const { identity, scope } = allowed(request, "manage");
      return { data: { url: await configured().connectUrl(scope, identity.userId) } };
    },
  );

  app.post(
    calendarPaths.googleCallback,
    {
      schema: {
        tags,
        security,
        summary: "Finish connecting Google Calendar (admins)",
        description:
          "Google's `code` and the `state` from POST /calendar/google/connect, by the person who started it. The code is exchanged " +
          "(with the PKCE verifier), the tokens are stored encrypted and the account's address shown; a connection already there is " +
          "replaced. The organisation's upcoming appointments are then written to the Google calendar. A state that is forged, " +
          "another person's, expired (10 minutes) or used answers 400 and changes nothing.",
        body: googleCallbackSchema,
        response: { 200: calendarConnectionResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 409: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request) => {
      const { identity, scope } = allowed(request, "manage");
      try {
        return { data: toApiConnection(await configured().complete(scope, identity.userId, request.body)) };
      } catch (error) {
        if (error instanceof CalendarFlowError) throw error.statusCode === 400 ? ApiError.badRequest(error.message) : ApiError.upstream(error.message);
        throw error;
      }
    },
  );

  app.get(
    calendarPaths.feed,
    {
      schema: {
        tags,
        security,
        summary: "The secret address of the organisation's ICS feed (admins)",
        description:
          "Made on the first ask. Anyone holding the address can read the organisation's appointments (90 days back to a year " +
          "ahead): share it only with calendar apps you trust, and rotate it to cut everyone off.",
        response: { 200: calendarFeedResponseSchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "manage");
      return { data: { url: await feedAddress(scope, box, config.publicUrl) } };
    },
  );

  app.post(
    calendarPaths.feedRotate,
    {
      schema: {
        tags,
        security,
        summary: "Replace the ICS feed's secret address (admins)",
        description: "The old address answers 404 at once; calendars subscribed to it stop updating until they subscribe to the new one.",
        body: emptyBodySchema,
        response: { 200: calendarFeedResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "manage");
      return { data: { url: await rotateFeed(scope, box, config.publicUrl) } };
    },
  );

  app.get(
    "/calendar/feed/:token.ics",
    {
      config: {
        public: true,
        // Per client address and feed: a subscriber polls every few minutes at most; many feeds behind one
        // calendar service's address do not share a limit.
        rateLimit: {
          max: feedPerMinute,
          timeWindow: "1 minute",
          keyGenerator: (request: FastifyRequest) => `${request.ip} ${String((request.params as { token?: unknown }).token ?? "").slice(0, 64)}`,
        },
      },
      schema: {
        tags,
        summary: "The organisation's appointments as an ICS feed (no sign-in: the secret address is the key)",
        description:
          "text/calendar (RFC 5545): one VEVENT per appointment from 90 days back to a year ahead, UID from the appointment's id, " +
          "SEQUENCE from its changes, times in UTC; cancelled appointments stay 30 days as STATUS:CANCELLED so subscribers remove them. " +
          "An ETag comes with it: asked again with If-None-Match while nothing changed, it answers 304. " +
          `An unknown or replaced address answers 404. At most ${feedPerMinute} requests a minute per client and feed (429).`,
        params: z.object({ token: z.string().max(200, { error: "not a feed address" }) }),
        produces: ["text/calendar"],
        response: { 200: z.string().describe("The ICS calendar"), 304: z.null().describe("Not changed since the ETag given"), 400: errorBodySchema, 404: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request, reply) => {
      const orgId = await feedOwner(db, request.params.token);
      if (!orgId) throw ApiError.notFound(FEED_NOT_FOUND);
      const feed = await feeds.get(orgScope(db, orgId), db, config.publicUrl);
      reply.header("etag", feed.etag).header("cache-control", `private, max-age=${Math.min(300, FEED_REFRESH_SECONDS)}`).header("x-robots-tag", "noindex");
      if (request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === feed.etag)) return reply.code(304).send(null);
      return reply.header("content-type", "text/calendar; charset=utf-8").header("content-disposition", 'inline; filename="appointments.ics"').send(feed.text);
    },
  );
};
