/**
 * The response serializer (server/plugins/serializer.ts): the compiled writer answers exactly what the
 * zod schema encodes (same JSON, any text, nulls, records of any JSON), leaves out what the contract
 * does not name, fails an answer missing a required field, and — outside production — still fails an
 * answer zod refuses. Real answers of the app (agents from every template) come out the same too.
 */
import fc from "fast-check";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AGENT_TEMPLATE_KEYS, CALL_OUTCOMES, SUCCESS_OUTCOMES, agentSchema, apiPaths, callListResponseSchema, callResponseSchema, errorBodySchema } from "../../contract";
import type { Database } from "../../server/db/client";
import { registerErrorHandler } from "../../server/plugins/errors";
import { compileFastSerializer, responseSerializerCompiler } from "../../server/plugins/serializer";
import { createAgent, newOrganisation } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

/** What zod's serializer answered before: the schema's encoding, through JSON.stringify. */
const zodJson = (schema: z.ZodType, data: unknown) => JSON.parse(JSON.stringify(z.encode(schema, data)));

function writer(schema: z.ZodType): (data: unknown) => string {
  const write = compileFastSerializer(schema);
  if (!write) throw new Error("expected a compiled writer");
  return write;
}

const uuid = fc.uuid();
const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.constantFrom('"quoted"\n\\', "</script><b>x</b>", "\u2028\u2029", "\ud800"));
const json = fc.jsonValue();
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const callArbitrary = fc.record({
  id: uuid,
  type: fc.constantFrom("web", "inbound", "outbound"),
  status: fc.constantFrom("queued", "ringing", "in-progress", "forwarding", "ended"),
  agent_id: nullable(uuid),
  agent_name: fc.option(nullable(text), { nil: undefined }),
  phone_number_id: nullable(uuid),
  customer_number: nullable(text),
  customer_name: nullable(text),
  started_at: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  ended_at: nullable(fc.date({ noInvalidDate: true }).map((date) => date.toISOString())),
  duration_seconds: nullable(fc.integer({ min: 0, max: 1e9 })),
  ended_reason: nullable(text),
  cost: nullable(fc.double({ noNaN: true, noDefaultInfinity: true })),
  cost_breakdown: nullable(fc.dictionary(text, json)),
  transcript: nullable(text),
  messages: fc.array(fc.record({ role: fc.constantFrom("assistant", "user"), message: text, time: fc.integer(), seconds_from_start: fc.double({ noNaN: true, noDefaultInfinity: true }) })),
  recording_url: nullable(text),
  stereo_recording_url: nullable(text),
  summary: nullable(text),
  structured_data: nullable(fc.dictionary(text, json)),
  success_evaluation: nullable(text),
  outcome: fc.constantFrom(...CALL_OUTCOMES),
  success: nullable(fc.constantFrom(...SUCCESS_OUTCOMES)),
  campaign_id: nullable(uuid),
  campaign_contact_id: nullable(uuid),
  provider_call_id: nullable(text),
  is_sandbox: fc.boolean(),
  created_at: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
});

describe("compiled response writers", () => {
  it("write the same JSON as zod for any call (text of any kind, nulls, records of any JSON)", () => {
    const write = writer(callResponseSchema);
    fc.assert(
      fc.property(callArbitrary, (call) => {
        expect(JSON.parse(write({ data: call }))).toEqual(zodJson(callResponseSchema, { data: call }));
      }),
      { numRuns: 300, seed: 20_261_121 },
    );
  });

  it("write the same JSON as zod for a page of the call list", () => {
    const write = writer(callListResponseSchema);
    const item = callArbitrary.map(({ messages: _m, transcript: _t, cost_breakdown: _c, structured_data: _s, ...rest }) => rest);
    fc.assert(
      fc.property(fc.array(item, { maxLength: 20 }), fc.nat(), fc.boolean(), (data, total, estimate) => {
        const page = { data, total, page: 1, limit: 20, total_is_estimate: estimate };
        expect(JSON.parse(write(page))).toEqual(zodJson(callListResponseSchema, page));
      }),
      { numRuns: 100, seed: 20_261_121 },
    );
  });

  it("leave out properties the contract does not name, at every level", () => {
    const write = writer(errorBodySchema);
    expect(JSON.parse(write({ detail: "No.", code: "not_found", stack: "at secret.ts:1", password: "x" }))).toEqual({ detail: "No.", code: "not_found" });
    const list = writer(callListResponseSchema);
    const answer = JSON.parse(list({ data: [], total: 0, page: 1, limit: 20, total_is_estimate: false, org_id: "other" }));
    expect(answer).not.toHaveProperty("org_id");
  });

  it("fail an answer that lacks a required property", () => {
    expect(() => writer(errorBodySchema)({ detail: "No." })).toThrow(/code/);
  });
});

describe("the serializer compiler on a route", () => {
  async function answerOf(checkResponses: boolean, body: unknown) {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    app.setSerializerCompiler(responseSerializerCompiler({ checkResponses }));
    app.get("/thing", { schema: { response: { 200: z.object({ count: z.number().int(), name: z.string() }) } } }, async () => body);
    try {
      return await app.inject({ method: "GET", url: "/thing" });
    } finally {
      await app.close();
    }
  }

  it("answers with the compiled writer", async () => {
    const response = await answerOf(false, { count: 2, name: "two", extra: true });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ count: 2, name: "two" });
  });

  it("outside production, refuses an answer zod refuses (a 500 in {detail, code}), as the zod serializer did", async () => {
    const response = await answerOf(true, { count: 2.5, name: "two" });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
    expect((await answerOf(true, { count: 2, name: "two" })).statusCode).toBe(200);
  });
});

describe("real answers", () => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>["app"];
  beforeAll(async () => {
    database = await migratedDatabase();
    ({ app } = await buildTestApp(database));
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it("an agent from every template comes out as zod encodes it", async () => {
    const org = await newOrganisation(app);
    const write = writer(agentSchema);
    for (const template of AGENT_TEMPLATE_KEYS) {
      const response = await app.inject({ method: "POST", url: `/api${apiPaths.agentFromTemplate}`, headers: bearer(org.token), payload: { template } });
      expect(response.statusCode, response.body).toBe(201);
      const agent = (response.json() as { data: unknown }).data;
      expect(JSON.parse(write(agent)), template).toEqual(zodJson(agentSchema, agent));
    }
    const blank = await createAgent(app, org.token, {});
    expect(JSON.parse(write(blank))).toEqual(zodJson(agentSchema, blank));
  });
});
