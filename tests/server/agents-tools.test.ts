/**
 * Saving an agent checks `model_tool_id` (issue 11, item 9): every entry must be a tool id (a UUID) and,
 * in Vapi mode, a tool that exists there (GET /tool/{id}). A bad id is a 400 `{detail, code}` naming it
 * and nothing is written; before, it was accepted and every later call of the agent failed.
 * And the tools the server gives an agent itself: PUT /agent/{id}/appointment-toggle adds the booking
 * tools to its assistant at Vapi and removes them again (issue 14 §3).
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Agent } from "../../contract";
import type { Database } from "../../server/db/client";
import { agents } from "../../server/db/schema";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

const EXISTING_TOOL = "3b9f2c1d-5e6a-4b7c-8d9e-0f1a2b3c4d5e";
const MISSING_TOOL = "7c2e4a10-1b2c-4d3e-9f40-5a6b7c8d9e0f";

let database: Database;
const allRows = () => database.db.select().from(agents);

function client(app: FastifyInstance, token: string) {
  return (method: "POST" | "PUT", path: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method, url: `/api${path}`, headers: bearer(token), payload });
}

/** 400 validation_error whose detail names every id in `named`, with no row written or changed. */
async function refused(send: () => Promise<LightMyRequestResponse>, named: string[]) {
  const before = await allRows();
  const response = await send();
  expect(response.statusCode, response.body).toBe(400);
  const body = response.json() as { detail: string; code: string };
  expect(Object.keys(body).sort()).toEqual(["code", "detail"]);
  expect(body.code).toBe("validation_error");
  expect(body.detail).toMatch(/^model_tool_id: /);
  for (const id of named) expect(body.detail).toContain(`"${id}"`);
  expect(await allRows()).toEqual(before);
  return body.detail;
}

beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => {
  await database.close();
});

describe("sandbox mode: tool ids must be tool ids (UUIDs)", () => {
  let app: FastifyInstance;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    ({ app } = await buildTestApp(database));
    const { token } = await signUp(app);
    await createOrganisation(app, token, "Tools Sandbox");
    call = client(app, token);
  });
  afterAll(() => app.close());

  it("create: 400 naming each id that is not a UUID", async () => {
    const detail = await refused(() => call("POST", "/agent/", { model_tool_id: [EXISTING_TOOL, "book-appointment", "x"] }), ["book-appointment", "x"]);
    expect(detail).not.toContain(EXISTING_TOOL);
  });

  it("update: 400 naming the id; well-formed ids are accepted (the sandbox has no tools to look up)", async () => {
    const created = await call("POST", "/agent/", { model_tool_id: [EXISTING_TOOL] });
    expect(created.statusCode, created.body).toBe(201);
    const agent = created.json().data as Agent;
    expect(agent.model_tool_id).toEqual([EXISTING_TOOL]);
    await refused(() => call("PUT", `/agent/${agent.id}`, { model_tool_id: ["tool_123"] }), ["tool_123"]);
    const cleared = await call("PUT", `/agent/${agent.id}`, { model_tool_id: [] });
    expect(cleared.statusCode).toBe(200);
  });
});

describe("Vapi mode: tool ids must name tools that exist at Vapi", () => {
  let fake: FakeVapi;
  let app: FastifyInstance;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    fake = await startFakeVapi();
    fake.tools.set(EXISTING_TOOL, { id: EXISTING_TOOL, type: "function", orgId: "org", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" });
    ({ app } = await buildTestApp(database, { VAPI_PRIVATE_KEY: FAKE_VAPI_KEY, VAPI_API_URL: fake.url }));
    const { token } = await signUp(app);
    await createOrganisation(app, token, "Tools Vapi");
    call = client(app, token);
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const assistantRequests = () => fake.requests.filter((request) => request.path.startsWith("/assistant"));

  it("create: an existing tool is accepted; a missing one is a 400 naming it, and no assistant is made", async () => {
    const ok = await call("POST", "/agent/", { model_tool_id: [EXISTING_TOOL] });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toContain(`GET /tool/${EXISTING_TOOL}`);
    fake.reset();

    const detail = await refused(() => call("POST", "/agent/", { model_tool_id: [EXISTING_TOOL, MISSING_TOOL] }), [MISSING_TOOL]);
    expect(detail).not.toContain(EXISTING_TOOL);
    expect(detail).toMatch(/voice provider/);
    expect(assistantRequests()).toEqual([]);
  });

  it("update: a missing tool is a 400 naming it, and the assistant is not touched", async () => {
    const agent = (await call("POST", "/agent/", {})).json().data as Agent;
    fake.reset();
    await refused(() => call("PUT", `/agent/${agent.id}`, { model_tool_id: [MISSING_TOOL] }), [MISSING_TOOL]);
    expect(assistantRequests()).toEqual([]);
  });

  it("Vapi failing to answer about a tool is a 502, not a 400, and nothing is written", async () => {
    const before = await allRows();
    fake.fail({ status: 500, match: "GET /tool/" });
    const response = await call("POST", "/agent/", { model_tool_id: [EXISTING_TOOL] });
    expect(response.statusCode, response.body).toBe(502);
    expect(response.json()).toMatchObject({ code: "upstream_error", detail: expect.stringMatching(/tools/) });
    expect(await allRows()).toEqual(before);
  });
});

describe("Vapi mode: the appointment toggle adds and removes the booking tools at Vapi", () => {
  let fake: FakeVapi;
  let app: FastifyInstance;
  let token: string;
  beforeAll(async () => {
    fake = await startFakeVapi();
    ({ app } = await buildTestApp(database, { VAPI_PRIVATE_KEY: FAKE_VAPI_KEY, VAPI_API_URL: fake.url, PUBLIC_URL: "https://voice.example.com" }));
    token = (await signUp(app)).token;
    await createOrganisation(app, token, "Tools Booking");
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  type Tool = { type: string; function?: { name: string }; server?: { url: string; credentialId?: string } };
  const BOOKING = ["check_availability", "book_appointment", "reschedule_appointment", "cancel_appointment", "find_appointment"];
  const functionNames = (assistant: Record<string, unknown> | undefined) =>
    (((assistant?.model as { tools?: Tool[] } | undefined)?.tools ?? []) as Tool[]).filter((tool) => tool.type === "function").map((tool) => tool.function!.name);
  const toggle = (id: string, on: boolean) => app.inject({ method: "PUT", url: `/api/agent/${id}/appointment-toggle`, headers: bearer(token), payload: { appointment_enable: on } });

  it("on: the assistant is patched with the five function tools, each pointed at our webhook with its credential; off: patched without them", async () => {
    const created = await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(token), payload: { agent_name: "Front desk", endCallFunctionEnabled: true } });
    expect(created.statusCode, created.body).toBe(201);
    const agent = created.json().data as Agent;
    const assistantId = agent.provider_assistant_id!;
    expect(functionNames(fake.assistants.get(assistantId))).toEqual([]);

    fake.reset();
    const on = await toggle(agent.id, true);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.appointment_enable).toBe(true);
    const patch = fake.requests.find((request) => request.method === "PATCH" && request.path === `/assistant/${assistantId}`)!;
    expect(loadVapiOpenApi().problems("UpdateAssistantDTO", patch.json)).toEqual([]);
    const sent = (patch.json as { model: { tools: Tool[] } }).model.tools;
    expect(sent.filter((tool) => tool.type === "function").map((tool) => tool.function!.name)).toEqual(BOOKING);
    const credentialId = [...fake.credentials.keys()][0];
    expect(credentialId).toBeTruthy();
    for (const tool of sent.filter((candidate) => candidate.type === "function")) {
      expect(tool.server).toEqual({ url: "https://voice.example.com/api/webhooks/vapi", credentialId });
    }
    // What Vapi now holds: the booking tools beside the agent's own endCall.
    expect(functionNames(fake.assistants.get(assistantId))).toEqual(BOOKING);
    expect((fake.assistants.get(assistantId)!.model as { tools: Tool[] }).tools).toContainEqual({ type: "endCall" });

    fake.reset();
    const off = await toggle(agent.id, false);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data.appointment_enable).toBe(false);
    const removal = fake.requests.find((request) => request.method === "PATCH" && request.path === `/assistant/${assistantId}`)!;
    expect((removal.json as { model: { tools: Tool[] } }).model.tools).toEqual([{ type: "endCall" }]);
    expect(functionNames(fake.assistants.get(assistantId))).toEqual([]);
  });

  it("Vapi refusing the patch: 502, and the agent keeps its setting", async () => {
    const agent = (await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(token), payload: {} })).json().data as Agent;
    fake.fail({ status: 400, message: ["model.tools.0.function.name must match the pattern"], match: "PATCH /assistant/" });
    const response = await toggle(agent.id, true);
    expect(response.statusCode).toBe(502);
    expect(functionNames(fake.assistants.get(agent.provider_assistant_id!))).toEqual([]);
    const stored = (await app.inject({ method: "GET", url: `/api/agent/${agent.id}`, headers: bearer(token) })).json().data as Agent;
    expect(stored.appointment_enable).toBe(false);
  });
});
