/**
 * One error shape for the whole API: `{detail, code}` (contract/errors.ts). Validation errors name
 * the field; 5xx bodies carry nothing internal (the error is logged instead).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ERROR_CODES, type ErrorBody } from "../../contract";
import { isUnknownTimeZone, isUnstorableText } from "../db/errors";

type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** Thrown by handlers and hooks for an answer the caller can act on. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    readonly detail: string,
    /** Extra facts for the caller, sent as the body's `data` (a 409 names the existing record's id). */
    readonly data?: unknown,
    /** Fields sent beside detail and code (a campaign's 409 names its current `status`). */
    readonly fields?: Record<string, unknown>,
  ) {
    super(detail);
    this.name = "ApiError";
  }

  static badRequest = (detail: string) => new ApiError(400, ERROR_CODES.badRequest, detail);
  static unauthorized = (detail = "Sign in to continue: this request needs a valid bearer token.") =>
    new ApiError(401, ERROR_CODES.unauthorized, detail);
  static forbidden = (detail: string) => new ApiError(403, ERROR_CODES.forbidden, detail);
  static notFound = (detail: string) => new ApiError(404, ERROR_CODES.notFound, detail);
  static conflict = (detail: string, data?: unknown) => new ApiError(409, ERROR_CODES.conflict, detail, data);
  static tooManyRequests = (detail: string) => new ApiError(429, ERROR_CODES.rateLimited, detail);
  static upstream = (detail: string) => new ApiError(502, ERROR_CODES.upstream, detail);
  static organizationRequired = () =>
    new ApiError(403, ERROR_CODES.organizationRequired, "Choose an organisation first: this action works inside an organisation.");
}

export const INTERNAL_ERROR_DETAIL = "Something went wrong on our side. Please try again.";

interface ValidationIssue {
  instancePath: string;
  message?: string | undefined;
  keyword: string;
  params: Record<string, unknown>;
}

/** "email_address: must be a valid email address" — one clause per problem, each naming its field. */
export function describeValidation(issues: ValidationIssue[], context?: string, input?: unknown): string {
  const clauses = issues.map((issue) => {
    const segments = issue.instancePath.split("/").filter(Boolean);
    const path = segments.join(".");
    if (issue.keyword === "unrecognized_keys" && Array.isArray(issue.params.keys)) {
      const keys = issue.params.keys.map((key) => (path ? `${path}.${key}` : String(key)));
      return `${keys.join(", ")}: ${keys.length > 1 ? "are not known fields" : "is not a known field"}`;
    }
    const field = path || context || "request";
    let message = issue.message ?? "is not valid";
    if (issue.keyword === "invalid_value" && Array.isArray(issue.params.values)) {
      message = `must be one of ${issue.params.values.join(", ")}`;
    } else if (issue.keyword === "invalid_type" && valueAt(input, segments) === undefined) {
      message = "is required";
    } else {
      // The contract's messages often start with the field's name already (a nested one with its own name).
      const named = [field, segments.at(-1)].find((name) => name && message.startsWith(`${name} `));
      if (named) message = message.slice(named.length + 1);
    }
    return `${field}: ${message}`;
  });
  return [...new Set(clauses)].join("; ");
}

function valueAt(input: unknown, segments: string[]): unknown {
  let value = input;
  for (const segment of segments) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** What was validated (body, querystring, params, headers), to tell a missing field from a wrong one. */
function validatedInput(request: FastifyRequest, context: string | undefined): unknown {
  if (context === "body") return request.body;
  if (context === "querystring") return request.query;
  if (context === "params") return request.params;
  if (context === "headers") return request.headers;
  return undefined;
}

function send(reply: FastifyReply, status: number, body: ErrorBody & { data?: unknown }) {
  return reply.status(status).type("application/json; charset=utf-8").send(body);
}

/** The API's 404 for a path no route answers. */
export function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split("?")[0];
  return send(reply, 404, { detail: `No API route ${request.method} ${path}`, code: ERROR_CODES.notFound });
}

/**
 * Fastify's router answers some URLs before any route or error handler runs: a malformed %-encoding
 * (FST_ERR_BAD_URL) and a path parameter over maxParamLength (FST_ERR_MAX_PARAM_LENGTH). Its own
 * bodies are {error, code, message}; this gives them the API's {detail, code} (the Fastify option
 * `frameworkErrors`).
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // These answers skip every hook, helmet's too: give them the headers the app's other answers carry.
  if (reply.server.hasDecorator("applySecurityHeaders")) reply.server.applySecurityHeaders(request.raw, reply.raw);
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return send(reply, 414, { detail: "A part of the URL is too long: check the id in the path.", code: ERROR_CODES.badRequest });
  }
  if (error.code === "FST_ERR_BAD_URL") {
    return send(reply, 400, { detail: "The URL is not valid: it contains a malformed %-encoded character.", code: ERROR_CODES.badRequest });
  }
  const status = typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  return send(reply, status, status === 500 ? { detail: INTERNAL_ERROR_DETAIL, code: ERROR_CODES.internal } : { detail: error.message, code: ERROR_CODES.badRequest });
}

/** Where in `value` a string holds the NUL character (PostgreSQL cannot store it), as a field path; null if nowhere. */
export function nulCharacterAt(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path ? `${path}.` : ""}${key}`;
    if (key.includes("\u0000")) return at;
    const found = nulCharacterAt(item, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Text with the NUL character (\u0000) in a JSON body, the query string or a path parameter answers
 * 400 before any handler runs: PostgreSQL cannot store it, and a handler that saved to the voice
 * provider first would otherwise fail half-way with a 500. After validation (preHandler), so a field
 * that already refuses control characters keeps its own message.
 */
export function registerInputGuards(app: FastifyInstance): void {
  app.addHook("preHandler", async (request) => {
    for (const [context, value] of [["params", request.params], ["querystring", request.query], ["body", request.body]] as const) {
      const at = nulCharacterAt(value);
      if (at !== null) {
        throw new ApiError(400, ERROR_CODES.validation, `${at || context}: must be text without the NUL character (\\u0000)`);
      }
    }
  });
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError | Error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.statusCode >= 500) request.log.warn({ err: error }, error.detail);
      const data = error.data === undefined ? {} : { data: error.data };
      return send(reply, error.statusCode, { ...error.fields, detail: error.detail, code: error.code, ...data });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const input = validatedInput(request, error.validationContext);
      return send(reply, 400, { detail: describeValidation(error.validation, error.validationContext, input), code: ERROR_CODES.validation });
    }
    if (isUnstorableText(error)) {
      // A safety net behind registerInputGuards (e.g. text that reached the database another way).
      return send(reply, 400, { detail: "The request carries text the database cannot store (the NUL character).", code: ERROR_CODES.validation });
    }
    if (isUnknownTimeZone(error)) {
      // A zone name the runtime knows and the database does not (the call list's `timezone`).
      return send(reply, 400, { detail: "timezone: the database does not know this time zone; use a name such as Europe/Berlin, America/New_York or UTC.", code: ERROR_CODES.validation });
    }
    const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
    if ("validation" in error && Array.isArray(error.validation)) {
      const input = validatedInput(request, error.validationContext);
      return send(reply, 400, { detail: describeValidation(error.validation, error.validationContext, input), code: ERROR_CODES.validation });
    }
    if (status === 413) {
      return send(reply, 413, { detail: "The request body is too large.", code: ERROR_CODES.tooLarge });
    }
    if (status === 429) {
      return send(reply, 429, { detail: "Too many requests: wait a moment and try again.", code: ERROR_CODES.rateLimited });
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, empty body, unsupported media type) say what to fix.
      return send(reply, status, { detail: error.message, code: status === 404 ? ERROR_CODES.notFound : ERROR_CODES.badRequest });
    }
    request.log.error({ err: error }, "request failed");
    return send(reply, 500, { detail: INTERNAL_ERROR_DETAIL, code: ERROR_CODES.internal });
  });
}
