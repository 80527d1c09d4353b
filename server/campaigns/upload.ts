/**
 * Reading one CSV upload (multipart/form-data, the file in the field `file`) for contact and
 * do-not-call imports: malformed multipart, a missing or misnamed file and a file over the limit answer
 * 400 or 413 {detail, code} (as server/routes/files.ts does for knowledge-base files). The bytes are
 * decoded as UTF-8 (a byte-order mark is dropped by the decoder).
 */
import type { FastifyRequest } from "fastify";
import { ERROR_CODES, formatByteLimit } from "../../contract";
import { CONTACT_IMPORT_MAX_BYTES } from "../../contract/campaign";
import { ApiError } from "../plugins/errors";

export const CSV_FIELD = "file";

/** @fastify/multipart's options for the CSV upload routes (contacts and do-not-call): one file of at most CONTACT_IMPORT_MAX_BYTES. */
export const CSV_UPLOAD_OPTIONS = {
  limits: { fileSize: CONTACT_IMPORT_MAX_BYTES, files: 1, fields: 10, parts: 20, fieldSize: 64 * 1024 },
  throwFileSizeLimit: true,
} as const;

export const uploadHint = (what: string) =>
  `Send ${what} as a CSV file in the multipart/form-data field "${CSV_FIELD}", or as JSON (application/json).`;

/** The uploaded CSV as text. */
export async function readCsvUpload(request: FastifyRequest, maxBytes: number, what: string): Promise<string> {
  let bytes: Buffer | null = null;
  let otherField: string | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type !== "file") continue;
      const content = await part.toBuffer();
      if (part.fieldname === CSV_FIELD) bytes = content;
      else otherField = part.fieldname;
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "FST_REQ_FILE_TOO_LARGE") throw new ApiError(413, ERROR_CODES.tooLarge, `file: the CSV is larger than the ${formatByteLimit(maxBytes)} limit: split it into several uploads.`);
    if (code === "FST_FILES_LIMIT") throw ApiError.badRequest(`Send one CSV file per upload, in the field "${CSV_FIELD}".`);
    if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") throw ApiError.badRequest("The upload carries too many form fields.");
    if (typeof code === "string" || /multipart|boundary|needle|unexpected end/i.test((error as Error).message ?? "")) {
      throw ApiError.badRequest(`The upload is not well-formed multipart/form-data: ${(error as Error).message}.`);
    }
    throw error;
  }
  if (!bytes) throw ApiError.badRequest(otherField ? `file: the CSV must be sent in the field "${CSV_FIELD}", not "${otherField}".` : `file: ${uploadHint(what)}`);
  return new TextDecoder("utf-8").decode(bytes);
}

/**
 * For routes that take JSON or an upload, declared with `attachValidation` and the JSON form's body
 * schema: a multipart request's body (Fastify gives null) is not held against that schema; any other
 * validation error (a bad id, a JSON body the schema refuses, no body at all) is thrown as usual.
 */
export function checkJsonOrUpload(request: FastifyRequest, what: string): void {
  const error = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (!error) return;
  if (error.validationContext === "body") {
    if (request.isMultipart()) return;
    if (request.body === null || request.body === undefined) throw ApiError.badRequest(uploadHint(what));
  }
  throw error;
}
