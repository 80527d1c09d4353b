import type { FastifyRequest } from "fastify";
import { planSettings } from "../billing/plan-limits";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  NO_DEFAULT_PHONE_NUMBER,
  can,
  errorBodySchema,
  phoneNumberCreateSchema,
  phoneNumberDeleteResponseSchema,
  phoneNumberIdParamsSchema,
  phoneNumberListQuerySchema,
  phoneNumberListResponseSchema,
  phoneNumberPaths,
  phoneNumberResponseSchema,
  phoneNumberUpdateSchema,
  type Action,
} from "../../contract";
import type { AppConfig } from "../config";
import { createSecretBox, credentialsKey } from "../crypto/credentials";
import type { Database, Db } from "../db/client";
import { ApiError } from "../plugins/errors";
import { findDefaultPhoneNumber, findPhoneNumber, listPhoneNumbers, toApiPhoneNumber } from "../phone-numbers/repository";
import { createPhoneNumber, deletePhoneNumber, phoneNumberNotFound, updatePhoneNumber, type PhoneNumberContext } from "../phone-numbers/service";
import type { VoiceProvider } from "../voice/types";

export interface PhoneNumberRoutesOptions {
  db: Db;
  voice: VoiceProvider;
  config: AppConfig;
  /** Which database (the credentials key falls back to a per-process secret for an in-memory one). */
  database: Pick<Database, "inMemory" | "kind">;
}

const tags = ["phonenumber"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", create: "add", edit: "edit", delete: "delete" };

/**
 * /phonenumber routes (spec §7): list, default, create, fetch, update, delete. Every read and write is
 * scoped to the caller's organisation (another organisation's number answers 404). Credentials are
 * write-only. Deleting is for admins (contract/permissions.ts).
 */
export const phoneNumberRoutes: FastifyPluginAsyncZod<PhoneNumberRoutesOptions> = async (app, { db, voice, config, database }) => {
  const { key, source } = credentialsKey(config, database);
  const box = createSecretBox(key);
  if (config.isProduction && source === "DATA_DIR/auth-secret") {
    app.log.warn("carrier credentials are encrypted with a key derived from DATA_DIR/auth-secret: set CREDENTIALS_ENCRYPTION_KEY when several processes or machines share the database");
  }

  const plans = planSettings(config);
  function allowed(request: FastifyRequest, action: Action): PhoneNumberContext {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "phonenumber", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} phone numbers.`);
    return { db, scope, voice, box, log: request.log, plans };
  }

  async function ownNumber(ctx: PhoneNumberContext, id: string) {
    const row = await findPhoneNumber(ctx.scope, id);
    if (!row) throw phoneNumberNotFound();
    return row;
  }

  app.get(
    phoneNumberPaths.list,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's phone numbers: the default first, then newest first",
        querystring: phoneNumberListQuerySchema,
        response: { 200: phoneNumberListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const { rows, total } = await listPhoneNumbers(allowed(request, "list").scope, page, limit);
      return { data: rows.map(toApiPhoneNumber), total, page, limit };
    },
  );

  app.get(
    phoneNumberPaths.default,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's default phone number",
        description: `404 "${NO_DEFAULT_PHONE_NUMBER}" until the organisation has a number (the first one becomes the default).`,
        response: { 200: phoneNumberResponseSchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const row = await findDefaultPhoneNumber(allowed(request, "show").scope);
      if (!row) throw ApiError.notFound(NO_DEFAULT_PHONE_NUMBER);
      return { data: toApiPhoneNumber(row) };
    },
  );

  app.post(
    phoneNumberPaths.list,
    {
      schema: {
        tags,
        security,
        summary: "Add a phone number",
        description:
          "`provider` vapi: Vapi assigns a number in `area_code` (sandbox: a made-up 555-01xx number unless `number` is given). " +
          "`provider` twilio: imports `number` with `credentials: {twilio_account_sid, twilio_auth_token}` (stored encrypted, never answered). " +
          "vonage, telnyx and byo are local only for now (400 in Vapi mode). The first number becomes the default; `isDefault: true` " +
          "moves the default here. In Vapi mode the number is created at Vapi first: when Vapi refuses, nothing is stored (502).",
        body: phoneNumberCreateSchema,
        response: { 201: phoneNumberResponseSchema, ...errors, 409: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const row = await createPhoneNumber(allowed(request, "create"), request.body);
      return reply.status(201).send({ data: toApiPhoneNumber(row) });
    },
  );

  app.get(
    "/phonenumber/:id",
    { schema: { tags, security, summary: "One phone number", params: phoneNumberIdParamsSchema, response: { 200: phoneNumberResponseSchema, ...errors } } },
    async (request) => {
      const ctx = allowed(request, "show");
      return { data: toApiPhoneNumber(await ownNumber(ctx, request.params.id)) };
    },
  );

  app.put(
    "/phonenumber/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a phone number",
        description:
          "Changes the name, the answering agent (`agent_id`, null for none), Twilio credentials, or makes it the default (`isDefault: true`). " +
          "`number` and `provider` cannot change. The provider's number is updated first: when it refuses, nothing changes (502).",
        params: phoneNumberIdParamsSchema,
        body: phoneNumberUpdateSchema,
        response: { 200: phoneNumberResponseSchema, ...errors, 502: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "edit");
      const row = await updatePhoneNumber(ctx, await ownNumber(ctx, request.params.id), request.body);
      return { data: toApiPhoneNumber(row) };
    },
  );

  app.delete(
    "/phonenumber/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a phone number (admins)",
        description: "Releases the provider's number, then deletes ours; a deleted default hands over to the oldest remaining number.",
        params: phoneNumberIdParamsSchema,
        response: { 200: phoneNumberDeleteResponseSchema, ...errors, 502: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "delete");
      const row = await ownNumber(ctx, request.params.id);
      await deletePhoneNumber(ctx, row);
      return { data: { id: row.id } };
    },
  );
};
