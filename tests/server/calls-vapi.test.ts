/**
 * Vapi mode against the local fake: what is sent (CreateCallDTO for POST /call, the HMAC webhook
 * credential, the assistant's server URL and credential) is checked against Vapi's OpenAPI document
 * including the unknown-field walk; Vapi's answers map to our records and errors (a toolId refusal is
 * a 400 about tools, other failures 502), and a refused call writes nothing.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentConfigSchema, type Call } from "../../contract";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { agents } from "../../server/db/schema";
import { toVapiCall } from "../../server/voice/vapi-calls";
import { resolveWebhookSecret } from "../../server/webhooks/secret";
import { CREDENTIAL_FILE, webhookCredentialPayload } from "../../server/webhooks/vapi-credential";
import { WEBHOOK_SECRET, addPhoneNumber, createAgent, endOfCallReport, getCall, newOrganisation, postWebhook, rowCounts, statusUpdate, type TestOrg } from "./calls-fixtures";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, migratedDatabase, testConfig } from "./helpers";

const vapi = loadVapiOpenApi();
let fake: FakeVapi;
let database: Database;
let app: FastifyInstance;
let org: TestOrg;
let env: Record<string, string>;

const routes = () => fake.requests.map((request) => `${request.method} ${request.path}`);

beforeAll(async () => {
  fake = await startFakeVapi();
  database = await migratedDatabase();
  env = {
    VAPI_PRIVATE_KEY: FAKE_VAPI_KEY,
    VAPI_API_URL: fake.url,
    VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PUBLIC_URL: "https://voice.example.com",
    PUBLIC_CALL_PER_IP_PER_MINUTE: "1000",
    PUBLIC_CALL_PER_NUMBER_PER_HOUR: "1000",
  };
  ({ app } = await buildTestApp(database, env));
  org = await newOrganisation(app, "Vapi Calls");
});
afterAll(async () => {
  await app.close();
  await database.close();
  await fake.close();
});
beforeEach(() => fake.reset());

describe("the CreateCallDTO", () => {
  it("carries the assistant, Vapi's phone-number id, the customer and our ids as assistantOverrides metadata — nothing Vapi does not know", () => {
    const agentId = randomUUID();
    const callId = randomUUID();
    const payload = toVapiCall({
      callId,
      orgId: "org_1",
      agent: { id: agentId, orgId: "org_1", config: agentConfigSchema.parse({}), knowledgeBase: [] },
      assistantId: "asst-1",
      phoneNumber: { id: randomUUID(), number: "+14155550000", providerNumberId: "pn-1" },
      customer: { number: "+14155550100", name: "An unusually long customer name that Vapi would refuse" },
      variableValues: { name: "Grace" },
    });
    expect(vapi.problems("CreateCallDTO", payload)).toEqual([]);
    expect(payload).toEqual({
      assistantId: "asst-1",
      phoneNumberId: "pn-1",
      customer: { number: "+14155550100", name: "An unusually long customer name that Vap" },
      assistantOverrides: { variableValues: { name: "Grace" }, metadata: { callId, orgId: "org_1", agentId } },
    });
  });
});

describe("the webhook credential and the assistant's server", () => {
  it("registers an HMAC credential (CreateWebhookCredentialDTO) once, and every assistant points at our webhook with it — even one with its own server_url", async () => {
    const first = await createAgent(app, org.token, { agent_name: "First" });
    const second = await createAgent(app, org.token, { agent_name: "Second", analysis_plan: { server_url: "https://hooks.example.com/mine" } });
    expect(routes()).toEqual(["POST /credential", "POST /assistant", "POST /assistant"]);
    const credentialRequest = fake.requests[0]!;
    expect(vapi.problems("CreateWebhookCredentialDTO", credentialRequest.json)).toEqual([]);
    expect(credentialRequest.json).toEqual(webhookCredentialPayload(WEBHOOK_SECRET));
    const [credentialId] = [...fake.credentials.keys()];
    for (const [index, request] of fake.requests.slice(1).entries()) {
      expect(vapi.problems("CreateAssistantDTO", request.json)).toEqual([]);
      expect((request.json as { server: unknown }).server).toEqual({ url: "https://voice.example.com/api/webhooks/vapi", credentialId });
      expect((request.json as { metadata: { agentId: string } }).metadata.agentId).toBe([first, second][index]!.id);
    }
    // Kept in DATA_DIR: another start with the same key and secret does not register again.
    const saved = JSON.parse(readFileSync(join(testConfig().dataDir, CREDENTIAL_FILE), "utf8")) as { credentialId: string };
    expect(saved.credentialId).toBe(credentialId);
    const { app: restarted } = await buildTestApp(database, env);
    try {
      fake.reset();
      await createAgent(restarted, org.token);
      expect(routes()).toEqual(["POST /assistant"]);
    } finally {
      await restarted.close();
    }
  });

  it("VAPI_WEBHOOK_CREDENTIAL_ID is used as given, with nothing registered", async () => {
    const { app: configured } = await buildTestApp(database, { ...env, VAPI_WEBHOOK_SECRET: "another-secret-0123456789", VAPI_WEBHOOK_CREDENTIAL_ID: "cred-from-dashboard" });
    try {
      await createAgent(configured, org.token);
      expect(routes()).toEqual(["POST /assistant"]);
      expect((fake.requests[0]!.json as { server: unknown }).server).toEqual({ url: "https://voice.example.com/api/webhooks/vapi", credentialId: "cred-from-dashboard" });
    } finally {
      await configured.close();
    }
  });

  it("without VAPI_WEBHOOK_SECRET the secret is derived from the private key: stable, and different for another key", () => {
    const a = resolveWebhookSecret(testConfig({ VAPI_PRIVATE_KEY: "key-a" }));
    expect(a.source).toBe("derived");
    expect(resolveWebhookSecret(testConfig({ VAPI_PRIVATE_KEY: "key-a" })).secret).toBe(a.secret);
    expect(resolveWebhookSecret(testConfig({ VAPI_PRIVATE_KEY: "key-b" })).secret).not.toBe(a.secret);
    expect(a.secret).not.toContain("key-a");
    const sandbox = resolveWebhookSecret(testConfig());
    expect(sandbox.source).toBe("generated");
    expect(resolveWebhookSecret(testConfig()).secret).not.toBe(sandbox.secret);
    expect(resolveWebhookSecret(testConfig({ VAPI_WEBHOOK_SECRET: "chosen-secret-0123456789" }))).toEqual({ secret: "chosen-secret-0123456789", source: "configured" });
  });
});

describe("placing calls through Vapi", () => {
  let agentId: string;
  let assistantId: string;
  let phoneNumberId: string;
  beforeAll(async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Vapi desk", is_public: true });
    agentId = agent.id;
    assistantId = agent.provider_assistant_id!;
    phoneNumberId = await addPhoneNumber(database.db, org.orgId, { providerNumberId: "vapi-number-1" });
  });

  it("POST /call/ sends a valid CreateCallDTO and keeps Vapi's call id; its webhooks complete the record", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/call/",
      headers: bearer(org.token),
      payload: { agent_id: agentId, phone_number_id: phoneNumberId, customer_number: "+14155550123", customer_name: "Ada" },
    });
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json() as { data: Call };
    expect(routes()).toEqual(["POST /call"]);
    const sent = fake.requests[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${FAKE_VAPI_KEY}`);
    expect(vapi.problems("CreateCallDTO", sent.json)).toEqual([]);
    expect(sent.json).toEqual({
      assistantId,
      phoneNumberId: "vapi-number-1",
      customer: { number: "+14155550123", name: "Ada" },
      assistantOverrides: { variableValues: { name: "Ada" }, metadata: { callId: data.id, orgId: org.orgId, agentId } },
    });
    const [providerCallId] = [...fake.calls.keys()];
    expect(data).toMatchObject({ status: "queued", provider_call_id: providerCallId, is_sandbox: false });

    const ref = { providerCallId: providerCallId!, callId: data.id, orgId: org.orgId };
    await postWebhook(app, statusUpdate(ref, "in-progress"));
    await postWebhook(app, endOfCallReport(ref, { cost: 0.25 }));
    const ended = (await getCall(app, org.token, data.id)).json().data as Call;
    expect(ended).toMatchObject({ status: "ended", cost: 0.25, summary: "The customer was fine.", duration_seconds: 42 });
  });

  it("POST /call/public: Vapi refusing the agent's tools (toolId) is a 400 about tools, and nothing is written", async () => {
    const before = await rowCounts(database.db);
    fake.fail({ status: 400, match: "POST /call", message: ["assistant.model.toolIds.0: Couldn't Find Tool 2f1d7a3c-0000-4000-8000-000000000000"] });
    const response = await app.inject({
      method: "POST",
      url: "/api/call/public",
      payload: { assistantId: agentId, assistantOverrides: { variableValues: { name: "" } }, customer: { number: "+14155550123" }, phoneNumberId },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: "bad_request", detail: expect.stringMatching(/tools \(toolId\).*Couldn't Find Tool/) });
    expect(vapi.problems("CreateCallDTO", fake.requests[0]!.json)).toEqual([]);
    expect((fake.requests[0]!.json as { assistantOverrides: { variableValues: unknown } }).assistantOverrides.variableValues).toEqual({ name: "Sir" });
    expect(await rowCounts(database.db)).toEqual(before);
  });

  it("Vapi failing (500) is a 502 with its message, and nothing is written", async () => {
    const before = await rowCounts(database.db);
    fake.fail({ status: 500, match: "POST /call", message: "Internal server error" });
    const response = await app.inject({ method: "POST", url: "/api/call/public", payload: { assistantId: agentId, customer: { number: "+14155550123" }, phoneNumberId } });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ code: "upstream_error", detail: expect.stringContaining("place the call") });
    expect(await rowCounts(database.db)).toEqual(before);
  });

  it("a number not set up at Vapi is a 400 before anything is sent", async () => {
    const localNumber = await addPhoneNumber(database.db, org.orgId);
    const response = await app.inject({ method: "POST", url: "/api/call/public", payload: { assistantId: agentId, customer: { number: "+14155550123" }, phoneNumberId: localNumber } });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toContain("not set up at Vapi");
    expect(routes()).toEqual([]);
  });

  it("an agent never saved at Vapi (made in sandbox mode) is saved first, then called", async () => {
    const legacy = await createAgent(app, org.token, { agent_name: "Legacy" });
    await orgScope(database.db, org.orgId).update(agents, { providerAssistantId: null }, eq(agents.id, legacy.id));
    fake.reset();
    const response = await app.inject({
      method: "POST",
      url: "/api/call/",
      headers: bearer(org.token),
      payload: { agent_id: legacy.id, phone_number_id: phoneNumberId, customer_number: "+14155550123" },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(routes()).toEqual(["POST /assistant", "POST /call"]);
    const saved = (await orgScope(database.db, org.orgId).first(agents, eq(agents.id, legacy.id)))!.providerAssistantId;
    expect((fake.requests[1]!.json as { assistantId: string }).assistantId).toBe(saved);
  });
});
