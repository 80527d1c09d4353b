/**
 * /dnc routes (issue 13): the organisation's do-not-call list. Members list and add numbers (the
 * permission table's campaign list and create), admins also remove them (campaign delete).
 *
 * - POST takes one number as JSON {number, reason?} or a CSV (multipart field `file`) with a number
 *   column and an optional reason column. A number already listed is not an error: it is counted in
 *   `already_listed` and keeps its first entry. 201 when a number was added, 200 when none was.
 * - Adding a number stops that number's waiting contacts (queued, needs_timezone) in every campaign of
 *   the organisation (status dnc) in the same transaction (server/campaigns/dnc.ts).
 * - Removing a number does not bring its contacts back.
 */
import multipart from "@fastify/multipart";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { can, ERROR_CODES, errorBodySchema, type Action } from "../../contract";
import { CAMPAIGN_PATHS, CONTACT_IMPORT_MAX_BYTES, dncCreateResponseSchema, dncCreateSchema, dncIdParamsSchema, dncListQuerySchema, dncListResponseSchema } from "../../contract/campaign";
import { deletedResponseSchema } from "../../contract/list";
import { contactNumber } from "../campaigns/contact-number";
import { addManyToDnc, addToDnc, dncEntriesFromCsv, listDnc, toApiDncEntry } from "../campaigns/dnc";
import { checkJsonOrUpload, CSV_UPLOAD_OPTIONS, readCsvUpload } from "../campaigns/upload";
import type { Db } from "../db/client";
import { dncNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";

const tags = ["dnc"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

const REFUSED: Partial<Record<Action, string>> = {
  list: "Your role may not view the do-not-call list.",
  create: "Your role may not add numbers to the do-not-call list.",
  delete: "Your role may not remove numbers from the do-not-call list: ask an admin.",
};

export const dncRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  function allowed(request: FastifyRequest, action: Action) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    // The list belongs to campaigns in the permission table.
    if (!can(identity.role, "campaign", action)) throw ApiError.forbidden(REFUSED[action] ?? "Your role may not do this.");
    return { scope, userId: identity.userId };
  }

  app.get(
    CAMPAIGN_PATHS.dnc,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's do-not-call list, newest first",
        description: "search: digits of the number (any spelling) or a part of the reason.",
        querystring: dncListQuerySchema,
        response: { 200: dncListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "list");
      const { page, limit } = request.query;
      const { rows, total } = await listDnc(scope, request.query);
      return { data: rows.map(toApiDncEntry), total, page, limit };
    },
  );

  await app.register(async (uploads) => {
    await uploads.register(multipart, CSV_UPLOAD_OPTIONS);
    uploads.withTypeProvider<ZodTypeProvider>().post(
      CAMPAIGN_PATHS.dnc,
      {
        bodyLimit: CONTACT_IMPORT_MAX_BYTES,
        // The body schema is the JSON form's: a multipart request's (null) body is not held against it (checkJsonOrUpload).
        attachValidation: true,
        schema: {
          tags,
          security,
          summary: "Add numbers to the do-not-call list",
          description:
            "JSON {number, reason?} for one number (answered in `entry`), or a CSV in the multipart/form-data field \"file\" with a number column (number, phone, phone_number, …) " +
            "and an optional reason column. Numbers may be written with spaces, dashes, dots and brackets and must then be E.164. A number already listed is counted in " +
            "already_listed, not refused. Listed numbers' waiting contacts in every campaign become dnc at once. 201 when something was added, else 200.",
          body: dncCreateSchema,
          response: { 200: dncCreateResponseSchema, 201: dncCreateResponseSchema, ...errors, 413: errorBodySchema },
        },
      },
      async (request, reply) => {
        checkJsonOrUpload(request, "numbers");
        const { scope, userId } = allowed(request, "create");
        if (request.isMultipart()) {
          const { entries, invalid } = dncEntriesFromCsv(await readCsvUpload(request, CONTACT_IMPORT_MAX_BYTES, "numbers"));
          const result = await db.transaction((tx) => addManyToDnc(tx, scope.orgId, entries.map((entry) => ({ ...entry, source: "import" as const, createdBy: userId }))));
          return reply.status(result.added > 0 ? 201 : 200).send({ data: { added: result.added, already_listed: result.alreadyListed, invalid, entry: null } });
        }
        const number = contactNumber(request.body.number);
        if (!number) throw new ApiError(400, ERROR_CODES.validation, "number: must be a phone number in E.164 form, e.g. +14155550123");
        const reason = request.body.reason?.trim() || null;
        const result = await db.transaction((tx) => addToDnc(tx, scope.orgId, { number, reason, source: "manual", createdBy: userId }));
        return reply
          .status(result.added ? 201 : 200)
          .send({ data: { added: result.added ? 1 : 0, already_listed: result.added ? 0 : 1, invalid: [], entry: toApiDncEntry(result.entry) } });
      },
    );
  });

  app.delete(
    "/dnc/:id",
    {
      schema: {
        tags,
        security,
        summary: "Remove a number from the do-not-call list (admins)",
        description: "Campaign contacts stopped by it stay dnc.",
        params: dncIdParamsSchema,
        response: { 200: deletedResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "delete");
      const [deleted] = await scope.delete(dncNumbers, eq(dncNumbers.id, request.params.id));
      if (!deleted) throw ApiError.notFound("Do-not-call entry not found");
      return { data: { id: deleted.id } };
    },
  );
};
