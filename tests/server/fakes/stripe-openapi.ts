/**
 * Stripe's request document (../shared/vendor/stripe/openapi-requests.json, API version 2023-08-16) as a
 * checker for what the server sends to Stripe:
 *
 * - `operation(method, path)`: the document's operation whose path template matches, or null;
 * - `validate(method, path, body)`: ajv over the operation's form-encoded requestBody schema, with every
 *   object schema CLOSED (additionalProperties: false at every depth, unless the document says what extra
 *   properties may be, as for metadata) so an unknown parameter fails, and form strings coerced to the
 *   schema's integers and booleans (a form body has only strings).
 *
 * Parameters newer than the document that the stripe package (API 2026-10-28.endive) sends must be allowed
 * by name in NEWER_THAN_DOCUMENT with a comment saying why (see the folder's README).
 */
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { readStripeVendorFile } from "./stripe";

type Schema = Record<string, unknown>;

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface StripeRequestDocument {
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Parameters the server sends that the 2023-08-16 document does not list, by operation and dotted path
 * (`[]` for an array's items). Each needs a reason. None today: everything the billing feature sends
 * existed in 2023-08-16, and the stripe package adds nothing to bodies itself.
 */
export const NEWER_THAN_DOCUMENT: Record<string, string[]> = {};

/** Closes every object schema (additionalProperties: false) at every depth, on a copy. */
export function closeSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeSchema);
  if (!node || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === "properties" && value && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value as Schema).map(([name, child]) => [name, closeSchema(child)]));
    } else if (key === "enum" || key === "required" || key === "description") {
      out[key] = value;
    } else {
      out[key] = closeSchema(value);
    }
  }
  const isObjectSchema = out.type === "object" || "properties" in out;
  if (isObjectSchema && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Adds the allowed newer parameters (dotted paths) to a closed schema as "anything". */
function allow(schema: Schema, dotted: string): void {
  const [head, ...rest] = dotted.split(".");
  const targets: Schema[] = [];
  const collect = (node: Schema) => {
    if (Array.isArray(node.anyOf)) (node.anyOf as Schema[]).forEach(collect);
    if (head === "[]") {
      if (node.items) targets.push(node.items as Schema);
    } else if (node.type === "object" || node.properties) {
      targets.push(node);
    }
  };
  collect(schema);
  for (const target of targets) {
    if (head === "[]") {
      if (rest.length) allow(target, rest.join("."));
      continue;
    }
    const properties = (target.properties ??= {}) as Schema;
    if (rest.length === 0) properties[head!] = {};
    else if (properties[head!]) allow(properties[head!] as Schema, rest.join("."));
    else throw new Error(`cannot allow ${dotted}: ${head} is not in the document`);
  }
}

export interface StripeContract {
  document: StripeRequestDocument;
  /** The operation (and its path template) for a method and a concrete path, or null when the document has none. */
  operation(method: string, path: string): { template: string; operation: Operation } | null;
  /** ajv's errors as "path: message" lines for the operation's form body; empty when valid. */
  validate(method: string, path: string, body: unknown): string[];
}

let cached: StripeContract | null = null;

export function loadStripeContract(): StripeContract {
  if (cached) return cached;
  const document = readStripeVendorFile("openapi-requests.json") as StripeRequestDocument;
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: true, logger: false });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();

  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));

  const operation: StripeContract["operation"] = (method, path) => {
    const found = templates.find(({ pattern }) => pattern.test(path));
    const op = found ? document.paths[found.template]?.[method.toLowerCase()] : undefined;
    return found && op ? { template: found.template, operation: op } : null;
  };

  return (cached = {
    document,
    operation,
    validate(method, path, body) {
      const found = operation(method, path);
      if (!found) return [`${method} ${path} is not an operation of openapi-requests.json`];
      const key = `${method.toUpperCase()} ${found.template}`;
      let validator = validators.get(key);
      if (!validator) {
        const raw = found.operation.requestBody?.content?.["application/x-www-form-urlencoded"]?.schema ?? { type: "object", properties: {} };
        const closed = closeSchema(raw) as Schema;
        for (const dotted of NEWER_THAN_DOCUMENT[key] ?? []) allow(closed, dotted);
        validator = ajv.compile(closed);
        validators.set(key, validator);
      }
      // ajv coerces in place: validate a copy, never the recorded body.
      if (validator(structuredClone(body))) return [];
      return (validator.errors ?? []).map((error) => `${error.instancePath || "(body)"}: ${error.message}${error.params && "additionalProperty" in error.params ? ` (${String(error.params.additionalProperty)})` : ""}`);
    },
  });
}
