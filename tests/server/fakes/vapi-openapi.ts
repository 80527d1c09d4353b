/**
 * Vapi's published OpenAPI document (../shared/vendor/vapi/openapi.json, kept outside the project) as a
 * checker for what the server sends to Vapi (ARCHITECTURE.md §6):
 *
 * - `validate(name, payload)`: ajv over every `components.schemas` entry (strict off, ajv-formats), with
 *   `oneOf` read as `anyOf` (the document puts an enum beside a free string), empty `enum` arrays dropped
 *   and the `/…/` delimiters some `pattern`s are written with stripped (their README says so);
 * - `unknownFields(name, payload)`: JSON Schema lets undeclared properties through, so this walks the
 *   payload along the schema (following $ref, allOf, anyOf/oneOf — choosing the branches the value
 *   validates against) and lists every property no branch declares, at any depth.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const VAPI_OPENAPI_PATH = join(ROOT, "..", "shared", "vendor", "vapi", "openapi.json");

type Schema = Record<string, unknown>;

export interface VapiOpenApi {
  /** The transformed `components.schemas` (oneOf → anyOf, empty enums dropped). */
  schemas: Record<string, Schema>;
  /** The untouched document. */
  document: { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Schema> } };
  /** ajv's errors as "path: message" lines; empty when valid. */
  validate(name: string, value: unknown): string[];
  /** Paths of properties that no schema branch declares. */
  unknownFields(name: string, value: unknown): string[];
  /** Both of the above. */
  problems(name: string, value: unknown): string[];
}

function transform(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(transform);
  if (node && typeof node === "object") {
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" && Array.isArray(value) && value.length === 0) continue;
      // A few patterns are written with JavaScript's /…/ delimiters (the function tool's name among them).
      if (key === "pattern" && typeof value === "string" && value.length > 1 && value.startsWith("/") && value.endsWith("/")) {
        out[key] = value.slice(1, -1);
        continue;
      }
      out[key === "oneOf" ? "anyOf" : key] = transform(value);
    }
    return out;
  }
  return node;
}

const escapePointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, "~0").replace(/\//g, "~1"));
const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === "object" && !Array.isArray(value);

let cached: VapiOpenApi | null = null;

export function loadVapiOpenApi(): VapiOpenApi {
  if (cached) return cached;
  if (!existsSync(VAPI_OPENAPI_PATH)) {
    throw new Error(
      `Vapi's OpenAPI document is expected at ${VAPI_OPENAPI_PATH} (shared/vendor/vapi/openapi.json beside the project folder). ` +
        "It is not copied into the project; put it back there to run the Vapi contract tests.",
    );
  }
  const document = JSON.parse(readFileSync(VAPI_OPENAPI_PATH, "utf8")) as VapiOpenApi["document"];
  const schemas = transform(document.components.schemas) as Record<string, Schema>;
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: "vapi", components: { schemas } });

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let validator = validators.get(pointer);
    if (!validator) {
      validator = ajv.getSchema(`vapi#${pointer}`);
      if (!validator) throw new Error(`no schema at ${pointer}`);
      validators.set(pointer, validator);
    }
    return validator;
  };
  const schemaAt = (pointer: string): Schema => {
    let node: unknown = { components: { schemas } };
    for (const segment of pointer.split("/").slice(1)) {
      const key = decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
      node = (node as Record<string, unknown>)[key];
    }
    if (!isObject(node)) throw new Error(`no schema at ${pointer}`);
    return node;
  };
  const refPointer = (ref: string) => {
    if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
    return ref.slice(1);
  };

  /** One way the value can be read: the properties each branch declares (pointers), items, extra props. */
  interface View {
    props: Map<string, string[]>;
    items: string[];
    extra: string[] | "any" | null;
    /** Whether any branch says what the object's properties are (else it is a free-form object). */
    shaped: boolean;
  }
  const merge = (a: View, b: View): View => {
    const props = new Map(a.props);
    for (const [key, pointers] of b.props) props.set(key, [...(props.get(key) ?? []), ...pointers]);
    const extra = a.extra === "any" || b.extra === "any" ? "any" : a.extra || b.extra ? [...(a.extra ?? []), ...(b.extra ?? [])] : null;
    return { props, items: [...a.items, ...b.items], extra, shaped: a.shaped || b.shaped };
  };
  const cross = (left: View[], right: View[]) => left.flatMap((a) => right.map((b) => merge(a, b)));

  function views(value: unknown, pointer: string, depth = 0): View[] {
    if (depth > 50) throw new Error(`schema nesting too deep at ${pointer}`);
    const schema = schemaAt(pointer);
    const base: View = { props: new Map(), items: [], extra: null, shaped: false };
    if (isObject(schema.properties)) {
      base.shaped = true;
      for (const key of Object.keys(schema.properties)) base.props.set(key, [`${pointer}/properties/${escapePointer(key)}`]);
    }
    // Declared by `required` only (a schema that forgot to list it under properties) still counts as known.
    if (Array.isArray(schema.required)) {
      for (const key of schema.required as string[]) if (!base.props.has(key)) base.props.set(key, []);
    }
    if (schema.additionalProperties === true) base.extra = "any";
    else if (isObject(schema.additionalProperties)) base.extra = [`${pointer}/additionalProperties`];
    if (schema.additionalProperties !== undefined) base.shaped = true;
    if (isObject(schema.items)) base.items.push(`${pointer}/items`);

    let result: View[] = [base];
    if (typeof schema.$ref === "string") result = cross(result, views(value, refPointer(schema.$ref), depth + 1));
    if (Array.isArray(schema.allOf)) {
      schema.allOf.forEach((_, index) => {
        result = cross(result, views(value, `${pointer}/allOf/${index}`, depth + 1));
      });
    }
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf.map((_, index) => `${pointer}/anyOf/${index}`);
      const matching = branches.filter((branch) => validatorAt(branch)(value));
      result = cross(result, (matching.length > 0 ? matching : branches).flatMap((branch) => views(value, branch, depth + 1)));
    }
    return result;
  }

  function unknownAt(value: unknown, pointer: string, path: string): string[] {
    if (!isObject(value) && !Array.isArray(value)) return [];
    let best: string[] | null = null;
    for (const view of views(value, pointer)) {
      const found: string[] = [];
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          for (const itemPointer of view.items) found.push(...unknownAt(item, itemPointer, `${path}[${index}]`));
        });
      } else if (view.shaped) {
        for (const [key, child] of Object.entries(value)) {
          const childPath = path ? `${path}.${key}` : key;
          const pointers = view.props.get(key);
          if (pointers) {
            for (const childPointer of pointers) found.push(...unknownAt(child, childPointer, childPath));
          } else if (view.extra === "any") {
            continue;
          } else if (view.extra) {
            for (const extraPointer of view.extra) found.push(...unknownAt(child, extraPointer, childPath));
          } else {
            found.push(childPath);
          }
        }
      }
      if (found.length === 0) return [];
      if (!best || found.length < best.length) best = found;
    }
    return [...new Set(best ?? [])];
  }

  const pointerOf = (name: string) => {
    if (!schemas[name]) throw new Error(`Vapi's OpenAPI document has no schema ${name}`);
    return `/components/schemas/${escapePointer(name)}`;
  };

  const api: VapiOpenApi = {
    schemas,
    document,
    validate(name, value) {
      const validator = validatorAt(pointerOf(name));
      if (validator(value)) return [];
      return (validator.errors ?? []).map((error) => `${error.instancePath || "(root)"}: ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
    },
    unknownFields: (name, value) => unknownAt(value, pointerOf(name), ""),
    problems(name, value) {
      const invalid = api.validate(name, value);
      return [...invalid.map((line) => `invalid ${line}`), ...api.unknownFields(name, value).map((path) => `unknown field ${path}`)];
    },
  };
  cached = api;
  return api;
}
