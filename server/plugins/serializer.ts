/**
 * Response serialization from the contract's zod schemas.
 *
 * fastify-type-provider-zod's serializer checks every answer with zod and then runs JSON.stringify: a
 * bench:calls profile of GET /call/ put that at about 0.3 ms a request, a fifth of the API's own
 * cost on a first page. Fastify's usual way is fast-json-stringify: a function compiled from the
 * response's JSON Schema that writes only the schema's properties. So each route's zod schema is
 * turned into JSON Schema once (zod's own toJSONSchema, the output side) and compiled:
 * - what is written is still the contract's shape: properties outside the schema are left out, and a
 *   missing required property fails the answer (a 500), as zod did;
 * - with `checkResponses` (every mode but production, so the whole test suite) zod also checks the
 *   answer first, and an answer outside the contract fails as before;
 * - a schema JSON Schema cannot express (a transform, a custom check) keeps the zod serializer.
 * Formats are dropped from the compiled schema: fast-json-stringify writes a date-time string without
 * escaping it, and our strings are already what the contract says (zod checks them in tests).
 */
import fastJson from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify";
import { ResponseSerializationError, serializerCompiler as zodSerializerCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { $ZodType, safeEncode } from "zod/v4/core";

type JsonSchema = { [key: string]: unknown };

/** Keys fast-json-stringify has no use for, or would act on wrongly (see the file comment). */
const DROPPED_KEYS = new Set(["format", "pattern", "$schema", "description", "title", "examples", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "propertyNames"]);

/**
 * The schema as fast-json-stringify reads it best: `anyOf: [X, {type: "null"}]` (zod's nullable)
 * becomes X with "null" added to its types, so no branch has to be chosen at run time.
 */
function simplify(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(simplify);
  if (!schema || typeof schema !== "object") return schema;
  const source = schema as JsonSchema;
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED_KEYS.has(key)) continue;
    // properties/definitions map names to schemas: keep every name.
    if (key === "properties" || key === "definitions" || key === "$defs") {
      result[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, sub]) => [name, simplify(sub)]));
    } else result[key] = simplify(value);
  }
  const anyOf = result.anyOf as JsonSchema[] | undefined;
  if (anyOf && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((option) => option.type === "null" && Object.keys(option).length === 1);
    const other = anyOf[1 - nullIndex];
    if (nullIndex !== -1 && other && typeof other.type === "string" && !("$ref" in other)) {
      delete result.anyOf;
      return { ...result, ...other, type: [other.type, "null"] };
    }
  }
  return result;
}

/** The compiled writer for `schema`, or null when JSON Schema cannot express it. */
export function compileFastSerializer(schema: z.ZodType): ((data: unknown) => string) | null {
  let json: unknown;
  try {
    json = z.toJSONSchema(schema, { io: "output", target: "draft-7", unrepresentable: "throw" });
  } catch {
    return null;
  }
  try {
    return fastJson(simplify(json) as Parameters<typeof fastJson>[0]);
  } catch {
    return null;
  }
}

/**
 * Fastify's serializer compiler for zod response schemas (see the file comment). Fastify asks for a
 * writer for every route and status when the app starts; compiling all of them (about 240) took
 * 0.11 s of every start, mostly for answers a process may never give, so each is compiled on its
 * first use instead.
 */
export function responseSerializerCompiler({ checkResponses }: { checkResponses: boolean }): FastifySerializerCompiler<unknown> {
  return (route) => {
    const { schema, method, url } = route;
    const fallback = () => (zodSerializerCompiler as unknown as FastifySerializerCompiler<unknown>)(route);
    if (!(schema instanceof $ZodType)) return fallback();
    let write: ((data: unknown) => string) | undefined;
    const writer = () => (write ??= compileFastSerializer(schema as unknown as z.ZodType) ?? fallback());
    if (!checkResponses) return (data: unknown) => writer()(data);
    return (data: unknown) => {
      const checked = safeEncode(schema, data);
      if (checked.error) throw new ResponseSerializationError(method, url, { cause: checked.error });
      return writer()(data);
    };
  };
}
