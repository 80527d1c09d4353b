/**
 * The `vapi` voice provider against a local fake of Vapi's API: method, path, headers and bodies (which
 * must validate against Vapi's OpenAPI document), error mapping, DELETE 404 as done, file uploads; and the
 * whole path through the app (agent create/update/delete, file upload) with VAPI_PRIVATE_KEY set.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentConfigSchema } from "../../contract/agent";
import type { Database } from "../../server/db/client";
import { createVoiceProvider } from "../../server/voice";
import { VoiceProviderError, type AgentForSync, type VoiceProvider } from "../../server/voice/types";
import { createVapiVoiceProvider, VAPI_UNREACHABLE, vapiErrorMessage } from "../../server/voice/vapi";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { loadVapiOpenApi, type VapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, signUp, testConfig } from "./helpers";

let fake: FakeVapi;
let vapi: VapiOpenApi;
let provider: VoiceProvider;

const agent: AgentForSync = {
  id: randomUUID(),
  orgId: "org_provider_test",
  config: agentConfigSchema.parse({ endCallFunctionEnabled: true, forward_phone_number: "+442071838750" }),
  knowledgeBase: [{ id: randomUUID(), name: "menu.pdf", providerFileId: "file-123" }],
};

beforeAll(async () => {
  fake = await startFakeVapi();
  vapi = loadVapiOpenApi();
  provider = createVapiVoiceProvider({ privateKey: FAKE_VAPI_KEY, apiUrl: `${fake.url}/`, publicUrl: "http://localhost:3000", timeoutMs: 2000 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

async function providerError(promise: Promise<unknown>): Promise<VoiceProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(VoiceProviderError);
    return error as VoiceProviderError;
  }
  throw new Error("expected a VoiceProviderError");
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("vapi provider: assistants", () => {
  it("creates with POST /assistant: bearer key, JSON, a body Vapi's CreateAssistantDTO accepts; answers Vapi's id", async () => {
    const { assistantId } = await provider.saveAssistant(agent, null);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: "POST", path: "/assistant" });
    expect(request!.headers.authorization).toBe(`Bearer ${FAKE_VAPI_KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(vapi.problems("CreateAssistantDTO", request!.json)).toEqual([]);
    expect(request!.json).toMatchObject({ name: "Purchase Completion Agent", metadata: { agentId: agent.id, orgId: agent.orgId } });
    expect(assistantId).toBeTruthy();
    expect(fake.assistants.has(assistantId!)).toBe(true);
  });

  it("updates with PATCH /assistant/{id} and a body UpdateAssistantDTO accepts", async () => {
    const { assistantId } = await provider.saveAssistant(agent, null);
    fake.reset();
    const changed = { ...agent, config: { ...agent.config, agent_name: "Renamed", voice: { ...agent.config.voice, voice_mail: null } } };
    const result = await provider.saveAssistant(changed, assistantId);
    expect(result).toEqual({ assistantId });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`PATCH /assistant/${assistantId}`]);
    expect(vapi.problems("UpdateAssistantDTO", fake.requests[0]!.json)).toEqual([]);
    expect(fake.assistants.get(assistantId!)).toMatchObject({ name: "Renamed", voicemailMessage: "" });
  });

  it("a PATCH that finds no assistant (deleted at Vapi) creates a new one", async () => {
    const { assistantId } = await provider.saveAssistant(agent, "00000000-0000-4000-8000-000000000000");
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "PATCH /assistant/00000000-0000-4000-8000-000000000000",
      "POST /assistant",
    ]);
    expect(assistantId).not.toBe("00000000-0000-4000-8000-000000000000");
    expect(fake.assistants.has(assistantId!)).toBe(true);
  });

  it("deletes with DELETE /assistant/{id}; one already gone (404) counts as deleted", async () => {
    const { assistantId } = await provider.saveAssistant(agent, null);
    await provider.deleteAssistant(assistantId!);
    expect(fake.assistants.has(assistantId!)).toBe(false);
    await expect(provider.deleteAssistant(assistantId!)).resolves.toBeUndefined();
    expect(fake.requests.slice(-2).map((request) => `${request.method} ${request.path}`)).toEqual([
      `DELETE /assistant/${assistantId}`,
      `DELETE /assistant/${assistantId}`,
    ]);
  });
});

describe("vapi provider: errors", () => {
  it("a 400 becomes VoiceProviderError carrying Vapi's messages (a list) and the status", async () => {
    fake.fail({ status: 400, message: ["model.toolIds.0 must be a UUID", "voice.voiceId must be one of the following values: angus"] });
    const error = await providerError(provider.saveAssistant(agent, null));
    expect(error.providerStatus).toBe(400);
    expect(error.detail).toBe("Vapi could not save the agent (HTTP 400): model.toolIds.0 must be a UUID; voice.voiceId must be one of the following values: angus");
  });

  it("a message given as a string, and a 500 that says to try later", async () => {
    fake.fail({ status: 400, message: "Couldn't Find Tool." });
    expect((await providerError(provider.saveAssistant(agent, null))).detail).toBe("Vapi could not save the agent (HTTP 400): Couldn't Find Tool.");
    fake.fail({ status: 500, message: "Internal server error" });
    const error = await providerError(provider.saveAssistant(agent, null));
    expect(error.providerStatus).toBe(500);
    expect(error.detail).toBe("The voice provider failed to save the agent (Vapi answered 500): Internal server error. Try again later.");
  });

  it("a wrong key names VAPI_PRIVATE_KEY; an HTML error page is not shown to people", async () => {
    const wrongKey = createVapiVoiceProvider({ privateKey: "not-the-key", apiUrl: fake.url, publicUrl: "http://localhost:3000" });
    const error = await providerError(wrongKey.saveAssistant(agent, null));
    expect(error.providerStatus).toBe(401);
    expect(error.detail).toMatch(/^Vapi refused the API key \(HTTP 401\): Invalid Key.*Check VAPI_PRIVATE_KEY\.$/);
    fake.fail({ status: 503, rawBody: "<html><body>Bad gateway</body></html>" });
    expect((await providerError(provider.deleteAssistant("a1"))).detail).toBe("The voice provider failed to delete the agent (Vapi answered 503). Try again later.");
  });

  it("a DELETE that fails otherwise than 404 is an error", async () => {
    fake.fail({ status: 409, message: "Assistant is pinned by a squad", match: "DELETE /assistant" });
    const error = await providerError(provider.deleteAssistant("pinned"));
    expect(error.detail).toBe("Vapi could not delete the agent (HTTP 409): Assistant is pinned by a squad");
  });

  it("network failure: 'The voice provider could not be reached'; no answer: a timeout", async () => {
    const offline = createVapiVoiceProvider({ privateKey: FAKE_VAPI_KEY, apiUrl: `http://127.0.0.1:${await closedPort()}`, publicUrl: "http://localhost:3000" });
    const error = await providerError(offline.saveAssistant(agent, null));
    expect(error.detail).toBe(VAPI_UNREACHABLE);
    expect(error.detail).toMatch(/^The voice provider could not be reached/);
    expect(error.providerStatus).toBeNull();

    const impatient = createVapiVoiceProvider({ privateKey: FAKE_VAPI_KEY, apiUrl: fake.url, publicUrl: "http://localhost:3000", timeoutMs: 300 });
    fake.hang("POST /assistant");
    expect((await providerError(impatient.saveAssistant(agent, null))).detail).toBe("The voice provider did not answer within 0.3 seconds. Try again.");
  });

  it("vapiErrorMessage reads NestJS bodies, plain text and long lists", () => {
    expect(vapiErrorMessage(JSON.stringify({ message: ["a", "b"], error: "Bad Request", statusCode: 400 }))).toBe("a; b");
    expect(vapiErrorMessage(JSON.stringify({ error: "Forbidden", statusCode: 403 }))).toBe("Forbidden");
    expect(vapiErrorMessage("upstream timed out")).toBe("upstream timed out");
    expect(vapiErrorMessage("")).toBeNull();
    expect(vapiErrorMessage(JSON.stringify({ message: ["1", "2", "3", "4", "5", "6", "7"] }))).toBe("1; 2; 3; 4; 5; and 2 more");
  });
});

describe("vapi provider: knowledge-base files", () => {
  it("uploads with POST /file as multipart/form-data: one `file` part with name, type and bytes; answers Vapi's file id", async () => {
    const bytes = Buffer.from("Opening hours: 9 to 5.\n");
    const { providerFileId } = await provider.uploadFile({ name: "hours.txt", mimeType: "text/plain", bytes });
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: "POST", path: "/file" });
    expect(request!.headers.authorization).toBe(`Bearer ${FAKE_VAPI_KEY}`);
    expect(request!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(request!.form!.fields).toEqual({});
    expect(request!.form!.files).toHaveLength(1);
    expect(request!.form!.files[0]).toMatchObject({ field: "file", filename: "hours.txt", contentType: "text/plain" });
    expect(request!.form!.files[0]!.bytes.equals(bytes)).toBe(true);
    expect(providerFileId).toBeTruthy();
    expect(fake.files.has(providerFileId!)).toBe(true);
    // Every part we send is one Vapi's CreateFileDTO declares.
    const createFile = vapi.schemas.CreateFileDTO as { properties: Record<string, unknown>; required: string[] };
    expect(createFile.required).toEqual(["file"]);
    for (const field of [...Object.keys(request!.form!.fields), ...request!.form!.files.map((file) => file.field)]) expect(createFile.properties).toHaveProperty(field);
  });

  it("deletes with DELETE /file/{id}; 404 counts as deleted; a refused upload is an error with Vapi's message", async () => {
    const { providerFileId } = await provider.uploadFile({ name: "a.md", mimeType: "text/markdown", bytes: Buffer.from("# A") });
    await provider.deleteFile(providerFileId!);
    await provider.deleteFile(providerFileId!);
    expect(fake.requests.slice(1).map((request) => `${request.method} ${request.path}`)).toEqual([`DELETE /file/${providerFileId}`, `DELETE /file/${providerFileId}`]);
    fake.fail({ status: 400, message: "Unsupported file type" });
    const error = await providerError(provider.uploadFile({ name: "a.md", mimeType: "text/markdown", bytes: Buffer.from("# A") }));
    expect(error.detail).toBe("Vapi could not upload the file (HTTP 400): Unsupported file type");
  });
});

describe("choosing the provider", () => {
  it("vapi when VAPI_PRIVATE_KEY is set, the sandbox otherwise", () => {
    expect(createVoiceProvider(testConfig()).mode).toBe("sandbox");
    expect(createVoiceProvider(testConfig({ VAPI_PRIVATE_KEY: "key", VAPI_API_URL: fake.url })).mode).toBe("vapi");
  });
});

describe("through the app with VAPI_PRIVATE_KEY set (end to end against the fake)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await migratedDatabase();
  });
  afterAll(() => database.close());

  it("creating, updating and deleting an agent creates, patches and deletes the Vapi assistant with valid bodies", async () => {
    const { app } = await buildTestApp(database, { VAPI_PRIVATE_KEY: FAKE_VAPI_KEY, VAPI_API_URL: fake.url });
    try {
      const { token } = await signUp(app);
      await createOrganisation(app, token);
      const headers = bearer(token);

      const created = await app.inject({ method: "POST", url: "/api/agent/", headers, payload: { agent_name: "Front desk" } });
      expect(created.statusCode, created.body).toBe(201);
      const agentBody = created.json() as { data: { id: string; provider_assistant_id: string | null } };
      const assistantId = agentBody.data.provider_assistant_id;
      expect(assistantId).toBeTruthy();
      const post = fake.requests.find((request) => request.method === "POST" && request.path === "/assistant")!;
      expect(vapi.problems("CreateAssistantDTO", post.json)).toEqual([]);
      expect(post.json).toMatchObject({ name: "Front desk", metadata: { agentId: agentBody.data.id } });

      const updated = await app.inject({
        method: "PUT",
        url: `/api/agent/${agentBody.data.id}`,
        headers,
        payload: { voice: { voice_stop_number_of_words: 0 }, endCallFunctionEnabled: true },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      const patch = fake.requests.find((request) => request.method === "PATCH")!;
      expect(patch.path).toBe(`/assistant/${assistantId}`);
      expect(vapi.problems("UpdateAssistantDTO", patch.json)).toEqual([]);
      expect(patch.json).toMatchObject({ stopSpeakingPlan: { numWords: 0, voiceSeconds: 0.5 }, model: { tools: [{ type: "endCall" }] } });

      // Vapi refusing an update: the API answers 502 with Vapi's message and the agent is unchanged.
      fake.fail({ status: 400, message: ["voice.voiceId must be one of the following values"], match: "PATCH" });
      const refused = await app.inject({ method: "PUT", url: `/api/agent/${agentBody.data.id}`, headers, payload: { agent_name: "Refused" } });
      expect(refused.statusCode, refused.body).toBe(502);
      expect(refused.json()).toMatchObject({ code: "upstream_error", detail: expect.stringContaining("voice.voiceId must be one of the following values") });
      const unchanged = await app.inject({ method: "GET", url: `/api/agent/${agentBody.data.id}`, headers });
      expect((unchanged.json() as { data: { agent_name: string } }).data.agent_name).toBe("Front desk");

      const deleted = await app.inject({ method: "DELETE", url: `/api/agent/${agentBody.data.id}`, headers });
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(fake.requests.some((request) => request.method === "DELETE" && request.path === `/assistant/${assistantId}`)).toBe(true);
      expect(fake.assistants.has(assistantId!)).toBe(false);
    } finally {
      await app.close();
    }
  });
});
