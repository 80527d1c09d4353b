/**
 * Every write route (POST/PUT/PATCH/DELETE, public ones included) fuzzed with fast-check, and every
 * route with an id parameter fed bad ids. The request bodies are built from the route's own OpenAPI
 * schema (GET /api/docs/json, generated from the same route table), and are invalid by construction:
 * wrong JSON types (arrays for objects, null, numbers for text…), a value out of its range, pattern or
 * enum, text over its maximum (unicode, up to ~1 MB), unknown or missing fields, malformed JSON, the
 * wrong content type, bodies over the 1 MB limit. Each answer must be a 4xx with a JSON {detail, code}
 * body, never a 5xx, and the database must be unchanged (snapshot() in world.ts; after each request the
 * change counter of installChangeCounter() says whether the snapshot must be taken again, and each route's
 * cases end with a full snapshot compared with the one they started from).
 *
 * Reproducible: SECURITY_FUZZ_SEED (printed) and SECURITY_FUZZ_RUNS (runs per route and kind).
 *
 * This file holds the generators and the runner; fuzz-bodies.test.ts and fuzz-ids.test.ts use them
 * (two files, so the two halves run in parallel).
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import type { RouteTableEntry } from "../../server/plugins/auth";
import { afterAll, beforeAll } from "vitest";
import { tally } from "./tally";
import { buildWorld, installChangeCounter, isErrorBody, paramsOf, pathFor, routeKey, snapshot, type OrgRecords, type Snapshot, type World } from "./world";

export const SEED = Number(process.env.SECURITY_FUZZ_SEED ?? 20_261_121);
export const RUNS = Number(process.env.SECURITY_FUZZ_RUNS ?? 40);

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxItems?: number;
};

export interface FuzzCase {
  kind: string;
  /** Replaces the route's real ids, parameter by parameter. */
  params?: Record<string, string>;
  contentType?: string;
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** A query string to append (already encoded). */
  query?: string;
}

/** Wherever a value is wanted that a schema would refuse, and the route's parameters fed bad ids. */
const odd = fc.constantFrom(
  "",
  " ",
  "null",
  "undefined",
  "0",
  "-1",
  "1e309",
  "NaN",
  "true",
  "[]",
  "{}",
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "\u0000",
  "' OR 1=1 --",
  "'; drop table agents; --",
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "𝕳𝖊𝖑𝖑𝖔 🎉",
  "\u202e\u2066evil",
  "ＡＢＣ",
  "a".repeat(5000),
  "00000000-0000-0000-0000-00000000000G",
  "00000000-0000-4000-8000-000000000000 ",
  "{00000000-0000-4000-8000-000000000000}",
);
export const anyText = fc.oneof(fc.string(), fc.string({ unit: "grapheme", maxLength: 60 }), fc.string({ unit: "binary", maxLength: 60 }), odd);
export const json = fc.jsonValue({ maxDepth: 3 });
/** Never matches a pattern, format or enum of the contract: no whitespace to trim, an inverted question mark and angle brackets. */
const unmatchable = fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => `¿${s.replace(/\s/g, "")}<>`);
/** Text longer than `min` characters even after trimming (unicode, no surrounding whitespace). */
const tooLong = (min: number) =>
  fc.tuple(fc.constantFrom("a", "é", "😀", "中", "<", '"', "\\", "\u200b"), fc.integer({ min: min + 1, max: Math.max(min + 1, Math.min(min * 2 + 10, 900_000)) })).map(
    ([char, length]) => `x${char.repeat(length)}x`,
  );

function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  for (const branch of branches) for (const type of typesOf(branch)) types.add(type);
  if (schema.type) for (const type of [schema.type].flat()) types.add(type);
  if (schema.const !== undefined) types.add(schema.const === null ? "null" : typeof schema.const);
  return types;
}

/** A value of a JSON type the schema does not accept at all. */
function wrongType(types: Set<string>): fc.Arbitrary<unknown> | null {
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!types.has("string")) candidates.push(anyText);
  if (!types.has("number") && !types.has("integer")) candidates.push(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })));
  if (types.has("integer") && !types.has("number")) candidates.push(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)));
  if (!types.has("boolean")) candidates.push(fc.boolean());
  if (!types.has("null")) candidates.push(fc.constant(null));
  if (!types.has("array")) candidates.push(fc.array(json, { maxLength: 4 }));
  if (!types.has("object")) candidates.push(fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 }));
  return candidates.length > 0 ? fc.oneof(...candidates) : null;
}

/** A value the property's schema refuses, or null when the schema accepts anything. */
function invalidValue(schema: JsonSchema): fc.Arbitrary<unknown> | null {
  const types = typesOf(schema);
  if (types.size === 0 && !schema.enum) return null;
  const options: fc.Arbitrary<unknown>[] = [];
  const wrong = wrongType(types);
  if (wrong) options.push(wrong);
  const only = (type: string) => types.size === 1 && types.has(type);
  if (schema.enum && schema.enum.every((value) => typeof value === "string")) options.push(unmatchable);
  if (only("string")) {
    if (schema.maxLength !== undefined) options.push(tooLong(schema.maxLength));
    if ((schema.minLength ?? 0) >= 1) options.push(fc.constantFrom("", "   "));
    if (schema.pattern || schema.format === "uuid" || schema.format === "email") options.push(unmatchable);
    // PostgreSQL cannot store the NUL character: refused up front (server/plugins/errors.ts registerInputGuards).
    options.push(fc.string({ unit: "grapheme", maxLength: 10 }).map((text) => `${text}\u0000${text}`));
  }
  if (only("number") || only("integer")) {
    const out = [schema.minimum !== undefined ? schema.minimum - 1 : null, schema.maximum !== undefined ? schema.maximum + 1 : null, -1e308, 1e308].filter(
      (n): n is number => n !== null && ((schema.minimum !== undefined && n < schema.minimum) || (schema.maximum !== undefined && n > schema.maximum)),
    );
    if (out.length > 0) options.push(fc.constantFrom(...out));
  }
  if (only("array") && schema.maxItems !== undefined) {
    options.push(fc.array(json, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 5 }));
  }
  if (only("object")) {
    const nested = invalidObject(schema);
    if (nested) options.push(nested);
  }
  return options.length > 0 ? fc.oneof(...options) : null;
}

/** An object the object schema refuses: an unknown field, a missing required one, or one invalid property. */
function invalidObject(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> | null {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const base = names.length > 0 ? fc.record(Object.fromEntries(names.map((name) => [name, json])), { requiredKeys: [] }) : fc.constant({});
  const options: fc.Arbitrary<Record<string, unknown>>[] = [];
  if (schema.additionalProperties === false) {
    const unknownKey = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((key) => !names.includes(key) && key !== "__proto__");
    options.push(fc.tuple(base, unknownKey, json).map(([object, key, value]) => ({ ...object, [key]: value })));
  }
  for (const name of schema.required ?? []) {
    options.push(base.map((object) => Object.fromEntries(Object.entries(object).filter(([key]) => key !== name))));
  }
  for (const name of names) {
    const bad = invalidValue(properties[name]!);
    if (bad) options.push(fc.tuple(base, bad).map(([object, value]) => ({ ...object, [name]: value })));
  }
  return options.length > 0 ? fc.oneof(...options) : null;
}

/** Bodies for a JSON route, whatever its schema: none of them is an object. */
const notAnObject = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), anyText, fc.array(json, { maxLength: 5 }));
const malformedJson = fc.oneof(
  fc.constantFrom("", "{", "}", "{'a': 1}", '{"a":', '{"a" 1}', "[1,2", "nul", "{\"a\":1}}", "\u0000", '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'),
  fc.string({ unit: "grapheme" }).map((s) => `{${s}`),
);
const ONE_MEGABYTE = 1024 * 1024;

export function jsonBodyCases(schema: JsonSchema | undefined): CaseSource[] {
  const cases: fc.Arbitrary<FuzzCase>[] = [
    notAnObject.map((value) => ({ kind: "wrong JSON type for the body", payload: JSON.stringify(value), contentType: "application/json" })),
    malformedJson.map((payload) => ({ kind: "malformed JSON", payload, contentType: "application/json" })),
    fc
      .tuple(fc.constantFrom("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data", "application/json; charset=latin-7", "image/png"), anyText)
      .map(([contentType, payload]) => ({ kind: "wrong content type", payload, contentType })),
  ];
  const huge: CaseSource[] = [
    [fc.constantFrom(ONE_MEGABYTE + 1, 2 * ONE_MEGABYTE).map((size) => ({ kind: "body over 1 MB", payload: `{"x":"${"é".repeat(size / 2)}"}`, contentType: "application/json" })), 4],
  ];
  if (schema?.type === "object") {
    const invalid = invalidObject(schema);
    if (invalid) cases.push(invalid.map((value) => ({ kind: "invalid field (from the OpenAPI schema)", payload: JSON.stringify(value), contentType: "application/json" })));
    // Near the 1 MB limit but under it: ~0.9 MB of unicode in each text field, over every maxLength the contract sets.
    const texts = Object.entries(schema.properties ?? {})
      .filter(([, property]) => typesOf(property).has("string") && property.maxLength !== undefined)
      .map(([name]) => name);
    if (texts.length > 0) {
      huge.push([
        fc.tuple(fc.constantFrom(...texts), fc.constantFrom("é", "😀", "<b>")).map(([name, unit]) => ({
          kind: "~0.9 MB text in a field",
          payload: JSON.stringify({ [name]: `x${unit.repeat(Math.floor(300_000 / unit.length))}x` }),
          contentType: "application/json",
        })),
        4,
      ]);
    }
  }
  return [...cases, ...huge];
}

export function uploadCases(): CaseSource[] {
  const multipart = (name: string, filename: string, type: string, content: Buffer | string, cut = false) => {
    const boundary = `----fuzz${randomUUID().replace(/-/g, "")}`;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename.replace(/["\r\n]/g, "_")}"\r\nContent-Type: ${type}\r\n\r\n`;
    const body = Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(cut ? "" : `\r\n--${boundary}--\r\n`)]);
    return { payload: body, contentType: `multipart/form-data; boundary=${boundary}` };
  };
  const bytes = fc.uint8Array({ maxLength: 200 }).map((array) => Buffer.from(array));
  return [
    ...jsonBodyCases(undefined),
    fc
      .tuple(anyText, fc.constantFrom(".exe", ".html", ".svg", ".js", ".sh", ".php", "", ".", ".txt.exe"), fc.constantFrom("text/html", "application/octet-stream", "image/svg+xml", "text/plain"), bytes)
      .map(([stem, extension, type, content]) => ({ kind: "upload: a type not accepted", ...multipart("file", `${stem.replace(/[\\/]/g, "")}${extension}`, type, content) })),
    fc
      .tuple(fc.constantFrom(".pdf", ".docx", ".json"), bytes)
      .map(([extension, content]) => ({ kind: "upload: bytes unlike the type", ...multipart("file", `notes${extension}`, "application/octet-stream", Buffer.concat([Buffer.from("{{not"), content])) })),
    fc.tuple(anyText, bytes).map(([field, content]) => ({ kind: "upload: wrong field", ...multipart(`x${field.replace(/["\r\n]/g, "")}`, "notes.txt", "text/plain", content) })),
    bytes.map((content) => ({ kind: "upload: cut-off multipart", ...multipart("file", "notes.txt", "text/plain", content, true) })),
    fc.constant({ kind: "upload: no boundary", payload: "--x\r\n\r\n", contentType: "multipart/form-data" }),
    fc.integer({ min: 257, max: 600 }).map((length) => {
      const boundary = "b".repeat(length);
      return { kind: "upload: over-long boundary", payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhi\r\n--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
    }),
    fc.constantFrom("multipart/mixed; boundary=x", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"", "multipart/form-data; charset=utf-8").map((contentType) => ({ kind: "upload: odd multipart header", payload: "--x\r\n\r\n--x--", contentType })),
    fc.constant({ kind: "upload: empty file", ...multipart("file", "empty.txt", "text/plain", "") }),
  ];
}

export function webhookCases(): CaseSource[] {
  const credentials = fc.oneof(
    fc.constant({}),
    fc.tuple(anyText, anyText).map(([timestamp, signature]) => ({ "x-timestamp": timestamp.replace(/[\r\n]/g, ""), "x-signature": `x${signature.replace(/[\r\n]/g, "")}` })),
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }).map((signature) => ({ "x-timestamp": String(Math.floor(Date.now() / 1000)), "x-signature": signature })),
    anyText.map((token) => ({ authorization: `Bearer x${token.replace(/[\s]/g, "")}` })),
  );
  return [
    fc.tuple(fc.oneof(json.map((value) => JSON.stringify(value)), malformedJson), credentials).map(([payload, headers]) => ({
      kind: "webhook: unsigned or forged",
      payload,
      contentType: "application/json",
      headers: Object.fromEntries(Object.entries(headers as Record<string, string>).map(([key, value]) => [key, encodeURIComponent(value).slice(0, 2000)])),
    })),
  ];
}

/** Path segments sent as they are (not %-encoded): malformed %-encodings and traversal. */
const rawSegment = fc.constantFrom("%", "%zz", "%E0%A4%A", "%C0%AF", "%ED%A0%80", "%2e%2e", "a%00b", "%FF%FE", "%u002e");

/**
 * Bad values for each of the route's parameters (the body, if any, is a valid one so the id is what is
 * judged). Never empty: "/api/agent/" is another route (the list), not a bad id.
 */
export function paramCases(route: RouteTableEntry): fc.Arbitrary<FuzzCase> {
  const names = paramsOf(route.url);
  return fc.tuple(fc.boolean(), ...names.map(() => fc.oneof(anyText, fc.uuid(), odd).filter((value) => value !== ""))).chain(([raw, ...values]) =>
    (raw ? fc.tuple(...names.map(() => rawSegment)) : fc.constant(values.map((value) => encodeURIComponent(value)))).map((segments) => ({ segments, raw })),
  ).map(({ segments, raw }) => ({
    kind: raw ? "malformed URL in the path" : "bad id in the path",
    params: Object.fromEntries(names.map((name, index) => [name, segments[index]!])),
    payload: VALID_BODIES[routeKey(route)],
    contentType: VALID_BODIES[routeKey(route)] === undefined ? undefined : "application/json",
  }));
}

/** Valid bodies, for the bad-id cases of routes that take one. */
const VALID_BODIES: Record<string, string> = {
  "PUT /api/agent/:id": JSON.stringify({ description: "fuzz" }),
  "PUT /api/agent/:id/appointment-toggle": JSON.stringify({ appointment_enable: true }),
  "PUT /api/phonenumber/:id": JSON.stringify({ name: "fuzz" }),
  "POST /api/organization/:organizationId/invite": JSON.stringify({ email_address: "fuzz@example.com" }),
  "PUT /api/campaign/:id": JSON.stringify({ name: "fuzz" }),
  "POST /api/campaign/:id/start": JSON.stringify({}),
  "POST /api/campaign/:id/pause": JSON.stringify({}),
  "POST /api/campaign/:id/resume": JSON.stringify({}),
  "POST /api/campaign/:id/cancel": JSON.stringify({}),
  "POST /api/campaign/:id/contacts": JSON.stringify({ contacts: [{ number: "+12125550123" }] }),
  "PUT /api/order/:id": JSON.stringify({ customer_name: "fuzz" }),
  "POST /api/order/:id/call": JSON.stringify({}),
  "POST /api/order/:id/stop": JSON.stringify({}),
  "POST /api/order/:id/paid": JSON.stringify({}),
};

/** A case generator, or one with its own number of runs (for cases that barely vary, like the over-1 MB bodies). */
export type CaseSource = fc.Arbitrary<FuzzCase> | [fc.Arbitrary<FuzzCase>, number];

type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> }; parameters?: Array<{ name: string; in: string }> }>> };

export interface Fuzzer {
  openapi: OpenApi;
  /** The world database's change counter (installChangeCounter in world.ts). */
  changeCount(): Promise<number>;
  bodySchema(route: RouteTableEntry): JsonSchema | undefined;
  /** Runs the cases against the route as `token`: an answer `expectStatus` accepts ({detail, code} when 4xx), and the database unchanged. */
  fuzzRoute(
    route: RouteTableEntry,
    token: string | null,
    cases: CaseSource[],
    expectStatus?: (status: number) => boolean,
    options?: { errorBody?: (response: LightMyRequestResponse) => boolean },
  ): Promise<void>;
}

export async function createFuzzer(world: World, counter: ReturnType<typeof tally>): Promise<Fuzzer> {
  const openapi = (await world.app.inject({ method: "GET", url: "/api/docs/json" })).json() as OpenApi;
  const changeCount = await installChangeCounter(world.db);
  console.log(`fuzz seed ${SEED}, ${RUNS} runs per route and case kind (SECURITY_FUZZ_SEED, SECURITY_FUZZ_RUNS)`);

  function bodySchema(route: RouteTableEntry): JsonSchema | undefined {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    return openapi.paths[path]?.[route.method.toLowerCase()]?.requestBody?.content["application/json"]?.schema;
  }

  function describeAnswer(response: LightMyRequestResponse) {
    return `${response.statusCode} ${String(response.headers["content-type"])} ${response.body.slice(0, 300)}`;
  }

  async function send(route: RouteTableEntry, records: OrgRecords, token: string | null, fuzz: FuzzCase) {
    let url = pathFor(route, records);
    if (fuzz.params) url = route.url.replace(/:([A-Za-z0-9_]+)/g, (_whole, name: string) => fuzz.params![name] ?? "");
    if (fuzz.query) url += `?${fuzz.query}`;
    const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...fuzz.headers };
    if (fuzz.contentType) headers["content-type"] = fuzz.contentType;
    const response = await world.app.inject({ method: route.method as "POST", url, headers, ...(fuzz.payload === undefined ? {} : { payload: fuzz.payload }) });
    // Dot-segments ("..", "%2e%2e", ".") are removed by the client before sending (WHATWG URL: browsers, and
    // light-my-request here), so GET /billing/top-up/%2e%2e is sent as GET /billing/: the request left this route.
    const leftRoute = url.split("?")[0]!.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
    return { response, leftRoute };
  }

  async function fuzzRoute(
    route: RouteTableEntry,
    token: string | null,
    cases: CaseSource[],
    expectStatus = (status: number) => status >= 400 && status < 500,
    { errorBody = isErrorBody }: { errorBody?: (response: LightMyRequestResponse) => boolean } = {},
  ) {
    let before: Snapshot = await snapshot(world.db);
    let counted = await changeCount();
    for (const source of cases) {
      const [arbitrary, runs] = Array.isArray(source) ? source : [source, RUNS];
      await fc.assert(
        fc.asyncProperty(arbitrary, async (fuzz) => {
          const { response, leftRoute } = await send(route, world.b, token, fuzz);
          counter.count(`fuzz: ${fuzz.kind}`, routeKey(route));
          // A request whose path the client normalises onto another path (see send) is not a request to this route: it
          // may be another route of ours read with the same token and answer 200. It must still change nothing.
          if (!(leftRoute && response.statusCode < 400) && (!expectStatus(response.statusCode) || (response.statusCode >= 400 && !errorBody(response)))) {
            before = await snapshot(world.db);
            throw new Error(`${routeKey(route)} [${fuzz.kind}] answered ${describeAnswer(response)}`);
          }
          const count = await changeCount();
          if (count === counted) return;
          counted = count;
          const after = await snapshot(world.db);
          if (JSON.stringify(after) !== JSON.stringify(before)) {
            const changed = Object.keys(after).filter((table) => JSON.stringify(after[table]) !== JSON.stringify(before[table]));
            before = after;
            throw new Error(`${routeKey(route)} [${fuzz.kind}] answered ${response.statusCode} but changed ${changed.join(", ")}`);
          }
        }),
        { seed: SEED, numRuns: Math.min(runs, RUNS) },
      );
    }
    // The counter's word checked against the full snapshot once per route: unchanged means unchanged.
    const end = await snapshot(world.db);
    if (JSON.stringify(end) !== JSON.stringify(before)) {
      const changed = Object.keys(end).filter((table) => JSON.stringify(end[table]) !== JSON.stringify(before[table]));
      throw new Error(`${routeKey(route)}: ${changed.join(", ")} changed, and the change counter did not see it (installChangeCounter misses a kind of write)`);
    }
  }

  return { openapi, changeCount, bodySchema, fuzzRoute };
}

/**
 * The world and a fuzzer for one test file: built before its tests, closed after them, counted under
 * the file's name. Read `fuzzing.world` and `fuzzing.fuzzer` inside the tests.
 */
export function fuzzingForThisFile(file: string): { readonly world: World; readonly fuzzer: Fuzzer } {
  const counter = tally(file);
  const state = {} as { world: World; fuzzer: Fuzzer };
  beforeAll(async () => {
    state.world = await buildWorld();
    state.fuzzer = await createFuzzer(state.world, counter);
  });
  afterAll(() => state.world?.close());
  return state;
}
