import { randomUUID } from "node:crypto";
import multipart from "@fastify/multipart";
import { desc, eq, sql } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  can,
  ERROR_CODES,
  errorBodySchema,
  FILE_FIELD,
  fileDeleteResponseSchema,
  fileIdParamsSchema,
  fileListQuerySchema,
  fileListResponseSchema,
  fileResponseSchema,
  formatByteLimit,
  type KnowledgeBaseFile,
} from "../../contract";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { agents, knowledgeBaseFiles } from "../db/schema";
import { fileStoreFor, type FileStore } from "../files/store";
import { ACCEPTED_TYPES_TEXT, checkUpload } from "../files/validate";
import { ApiError } from "../plugins/errors";
import { VoiceProviderError, type VoiceProvider } from "../voice/types";

export interface FileRoutesOptions {
  db: Db;
  voice: VoiceProvider;
  config: AppConfig;
  /** True when the database lives only in this process (tests): the bytes then go to a temporary folder. */
  inMemoryDatabase?: boolean;
  /** Replaces the store chosen from the above. */
  store?: FileStore;
}

type FileRow = typeof knowledgeBaseFiles.$inferSelect;

const toFile = (row: FileRow): KnowledgeBaseFile => ({
  id: row.id,
  name: row.name,
  mime_type: row.mimeType,
  size_bytes: row.sizeBytes,
  created_at: row.createdAt.toISOString(),
});

const MISSING_FILE = `Choose a file to upload: send it as multipart/form-data in a field named "${FILE_FIELD}" (${ACCEPTED_TYPES_TEXT}).`;

interface Upload {
  filename: string;
  mimetype: string;
  bytes: Buffer;
}

/**
 * Knowledge-base files (spec §7): POST /file/upload, GET /file/files, DELETE /file/file/{id}.
 *
 * Sandbox mode keeps the bytes under DATA_DIR/files/<orgId>/<id>; Vapi mode uploads them to Vapi (the
 * agent's query tool searches them there) and keeps only Vapi's file id. A failed upload leaves nothing
 * behind: no row, no bytes, no provider file.
 */
export const fileRoutes: FastifyPluginAsyncZod<FileRoutesOptions> = async (app, options) => {
  const { voice, config } = options;
  const store = options.store ?? fileStoreFor(config, options.inMemoryDatabase ?? false);
  const maxBytes = config.fileMaxBytes;
  const tooLarge = () => new ApiError(413, ERROR_CODES.tooLarge, `The file is larger than the ${formatByteLimit(maxBytes)} limit.`);

  // Multipart only for these routes; parts beyond the limits fail instead of being buffered.
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 20, parts: 30, fieldSize: 64 * 1024 }, throwFileSizeLimit: true });
  app.addHook("onClose", async () => store.dispose());

  /** Reads the one file part; the other (non-file) fields are ignored. */
  async function readUpload(request: FastifyRequest): Promise<Upload> {
    if (!request.isMultipart()) throw ApiError.badRequest(MISSING_FILE);
    let upload: Upload | null = null;
    let otherField: string | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type !== "file") continue;
        const bytes = await part.toBuffer();
        if (part.fieldname === FILE_FIELD) upload = { filename: part.filename, mimetype: part.mimetype, bytes };
        else otherField = part.fieldname;
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "FST_REQ_FILE_TOO_LARGE") throw tooLarge();
      if (code === "FST_FILES_LIMIT") throw ApiError.badRequest(`Send one file per upload, in the field "${FILE_FIELD}".`);
      if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") throw ApiError.badRequest("The upload carries too many form fields.");
      // Malformed multipart (no or over-long boundary, cut-off body): busboy's errors carry no code.
      if (typeof code === "string" || /multipart|boundary|needle|unexpected end/i.test((error as Error).message ?? "")) {
        throw ApiError.badRequest(`The upload is not well-formed multipart/form-data: ${(error as Error).message}.`);
      }
      throw error;
    }
    if (!upload) {
      throw ApiError.badRequest(otherField ? `The file must be sent in the field "${FILE_FIELD}", not "${otherField}".` : MISSING_FILE);
    }
    return upload;
  }

  app.post(
    "/file/upload",
    {
      schema: {
        tags: ["file"],
        summary: "Upload a knowledge-base file",
        description:
          `multipart/form-data with one file in the field "${FILE_FIELD}": ${ACCEPTED_TYPES_TEXT}, at most FILE_MAX_BYTES ` +
          "(default 10 MB). Vapi mode stores the file at Vapi; sandbox mode keeps it under DATA_DIR/files.",
        consumes: ["multipart/form-data"],
        security: [{ bearerAuth: [] }],
        response: {
          201: fileResponseSchema,
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
          413: errorBodySchema,
          502: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "file", "create")) throw ApiError.forbidden("Your role cannot upload files.");

      const upload = await readUpload(request);
      const checked = checkUpload(upload.filename, upload.mimetype, upload.bytes);
      if (!checked.ok) throw ApiError.badRequest(checked.detail);

      const id = randomUUID();
      let providerFileId: string | null;
      try {
        ({ providerFileId } = await voice.uploadFile({ name: checked.name, mimeType: checked.mimeType, bytes: upload.bytes }));
      } catch (error) {
        if (error instanceof VoiceProviderError) throw ApiError.upstream(error.detail);
        throw error;
      }

      let storageKey: string | null = null;
      try {
        // The provider keeps the bytes when it gave an id; otherwise (sandbox) we do.
        if (!providerFileId) storageKey = await store.write(scope.orgId, id, upload.bytes);
        const row = await scope.insert(knowledgeBaseFiles, {
          id,
          name: checked.name,
          mimeType: checked.mimeType,
          sizeBytes: upload.bytes.length,
          storageKey,
          providerFileId,
          createdBy: identity.userId,
        });
        return reply.status(201).send({ data: toFile(row) });
      } catch (error) {
        // Nothing may outlive a failed upload.
        if (storageKey) await store.remove(storageKey).catch(() => undefined);
        if (providerFileId) {
          await voice.deleteFile(providerFileId).catch((cleanupError: unknown) => {
            request.log.warn({ err: cleanupError, providerFileId }, "could not delete the provider file of a failed upload");
          });
        }
        throw error;
      }
    },
  );

  app.get(
    "/file/files",
    {
      schema: {
        tags: ["file"],
        summary: "The organisation's knowledge-base files, newest first",
        security: [{ bearerAuth: [] }],
        querystring: fileListQuerySchema,
        response: { 200: fileListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "file", "list")) throw ApiError.forbidden("Your role cannot see files.");
      const { page, limit } = request.query;
      const [rows, total] = await Promise.all([
        scope.select(knowledgeBaseFiles, {
          orderBy: [desc(knowledgeBaseFiles.createdAt), desc(knowledgeBaseFiles.id)],
          limit,
          offset: (page - 1) * limit,
        }),
        scope.count(knowledgeBaseFiles),
      ]);
      return { data: rows.map(toFile), total, page, limit };
    },
  );

  app.delete(
    "/file/file/:id",
    {
      schema: {
        tags: ["file"],
        summary: "Delete a knowledge-base file no agent uses",
        description: "Refused (409) while an agent of the organisation lists the file in its knowledge_base_files.",
        security: [{ bearerAuth: [] }],
        params: fileIdParamsSchema,
        response: {
          200: fileDeleteResponseSchema,
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
          502: errorBodySchema,
        },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "file", "delete")) throw ApiError.forbidden("Your role cannot delete files.");
      const { id } = request.params;
      const file = await scope.first(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, id));
      if (!file) throw ApiError.notFound("File not found.");

      const users = await scope.select(agents, {
        where: sql`${agents.config}->'knowledge_base_files' ? ${id}`,
        orderBy: agents.name,
      });
      if (users.length > 0) {
        throw ApiError.conflict(`This file is used by agent(s) ${users.map((agent) => agent.name).join(", ")}: remove it from them first.`);
      }

      if (file.providerFileId) {
        try {
          await voice.deleteFile(file.providerFileId);
        } catch (error) {
          if (error instanceof VoiceProviderError) throw ApiError.upstream(error.detail);
          throw error;
        }
      }
      await scope.delete(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, id));
      if (file.storageKey) {
        await store.remove(file.storageKey).catch((error: unknown) => {
          request.log.warn({ err: error, storageKey: file.storageKey }, "could not remove the bytes of a deleted file");
        });
      }
      return { data: { id } };
    },
  );
};
