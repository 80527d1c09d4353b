/**
 * Agents and the voice provider (ARCHITECTURE.md §6): every save goes to the provider first with the
 * right arguments; a refusal answers 502 and changes nothing; a database failure after the provider
 * said yes is undone at the provider.
 */
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_AGENT_CONFIG, type Agent, type AgentConfig } from "../../contract";
import type { Database } from "../../server/db/client";
import { agents, knowledgeBaseFiles, organizations } from "../../server/db/schema";
import { VoiceProviderError, type AgentForSync, type VoiceProvider } from "../../server/voice/types";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

/** A provider that records every call and can be told to refuse the next one. */
function recordingProvider() {
  const calls: ({ method: "saveAssistant"; agent: AgentForSync; assistantId: string | null } | { method: "deleteAssistant"; assistantId: string })[] = [];
  let next = 0;
  const state = {
    calls,
    /** Thrown by the next save or delete (then cleared). */
    failNext: null as Error | null,
    /** Runs inside the next save, before it answers. */
    duringNextSave: null as (() => Promise<void>) | null,
  };
  const takeFailure = () => {
    const failure = state.failNext;
    state.failNext = null;
    if (failure) throw failure;
  };
  const provider: VoiceProvider = {
    // Calls and numbers as the sandbox does them; the assistant side is what these tests watch.
    ...createSandboxVoiceProvider(),
    mode: "vapi",
    async saveAssistant(agent, assistantId) {
      calls.push({ method: "saveAssistant", agent: structuredClone(agent), assistantId });
      takeFailure();
      const during = state.duringNextSave;
      state.duringNextSave = null;
      if (during) await during();
      return { assistantId: assistantId ?? `asst_${++next}` };
    },
    async deleteAssistant(assistantId) {
      calls.push({ method: "deleteAssistant", assistantId });
      takeFailure();
    },
    async uploadFile() {
      return { providerFileId: null };
    },
    async deleteFile() {},
  };
  return { provider, state };
}

let database: Database;
let app: FastifyInstance;
let fake: ReturnType<typeof recordingProvider>;
let token: string;
let orgId: string;

const call = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, payload?: object, as = token): Promise<LightMyRequestResponse> =>
  app.inject({ method, url: `/api${path}`, headers: bearer(as), ...(payload ? { payload } : {}) });
const rowOf = async (id: string) => (await database.db.select().from(agents).where(eq(agents.id, id)))[0];
const allRows = () => database.db.select().from(agents);

async function created(payload: object = {}): Promise<Agent> {
  const response = await call("POST", "/agent/", payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as Agent;
}

beforeAll(async () => {
  database = await migratedDatabase();
  fake = recordingProvider();
  ({ app } = await buildTestApp(database, {}, undefined, fake.provider));
  token = (await signUp(app)).token;
  orgId = await createOrganisation(app, token, "Synced Co");
});
afterAll(async () => {
  await app.close();
  await database.close();
});
beforeEach(() => {
  fake.state.calls.length = 0;
  fake.state.failNext = null;
});

describe("what the provider is sent", () => {
  it("create: saves a new assistant (id null) with the agent's id, organisation, settings and resolved files, then stores its id", async () => {
    const fileId = randomUUID();
    await database.db.insert(knowledgeBaseFiles).values({ id: fileId, orgId, name: "prices.pdf", mimeType: "application/pdf", sizeBytes: 10, providerFileId: "file_abc" });
    const agent = await created({ agent_name: "Synced", knowledge_base_files: [fileId] });
    const expectedConfig: AgentConfig = { ...DEFAULT_AGENT_CONFIG, agent_name: "Synced", knowledge_base_files: [fileId] };
    expect(fake.state.calls).toEqual([
      {
        method: "saveAssistant",
        agent: { id: agent.id, orgId, config: expectedConfig, knowledgeBase: [{ id: fileId, name: "prices.pdf", providerFileId: "file_abc" }] },
        assistantId: null,
      },
    ]);
    const assistantId = agent.provider_assistant_id;
    expect(assistantId).toMatch(/^asst_\d+$/);
    expect(agent.sync_status).toBe("synced");
    expect((await rowOf(agent.id))?.providerAssistantId).toBe(assistantId);
  });

  it("update and appointment toggle: save the merged settings to the agent's existing assistant", async () => {
    const agent = await created();
    fake.state.calls.length = 0;
    const response = await call("PUT", `/agent/${agent.id}`, { voice: { speed: 1.3 } });
    expect(response.statusCode).toBe(200);
    expect(fake.state.calls).toEqual([
      {
        method: "saveAssistant",
        agent: { id: agent.id, orgId, config: { ...DEFAULT_AGENT_CONFIG, voice: { ...DEFAULT_AGENT_CONFIG.voice, speed: 1.3 } }, knowledgeBase: [] },
        assistantId: agent.provider_assistant_id,
      },
    ]);
    fake.state.calls.length = 0;
    expect((await call("PUT", `/agent/${agent.id}/appointment-toggle`, { appointment_enable: true })).statusCode).toBe(200);
    expect(fake.state.calls).toMatchObject([{ method: "saveAssistant", agent: { config: { appointment_enable: true } }, assistantId: agent.provider_assistant_id }]);
    // Turning it off saves the assistant again too (its booking tools go: tests/server/agents-tools.test.ts).
    fake.state.calls.length = 0;
    expect((await call("PUT", `/agent/${agent.id}/appointment-toggle`, { appointment_enable: false })).statusCode).toBe(200);
    expect(fake.state.calls).toMatchObject([{ method: "saveAssistant", agent: { config: { appointment_enable: false } }, assistantId: agent.provider_assistant_id }]);
  });

  it("delete: deletes the assistant, then the agent", async () => {
    const agent = await created();
    fake.state.calls.length = 0;
    expect((await call("DELETE", `/agent/${agent.id}`)).statusCode).toBe(200);
    expect(fake.state.calls).toEqual([{ method: "deleteAssistant", assistantId: agent.provider_assistant_id }]);
    expect(await rowOf(agent.id)).toBeUndefined();
  });

  it("an agent kept locally (sandbox: no assistant id) is synced as new on its next save and deleted without the provider", async () => {
    const id = randomUUID();
    await database.db.insert(agents).values({ id, orgId, name: "Local", config: DEFAULT_AGENT_CONFIG });
    expect((await call("GET", `/agent/${id}`)).json().data).toMatchObject({ sync_status: "local", provider_assistant_id: null });
    const updated = (await call("PUT", `/agent/${id}`, { max_token: 600 })).json().data as Agent;
    expect(fake.state.calls).toMatchObject([{ method: "saveAssistant", assistantId: null }]);
    expect(updated).toMatchObject({ sync_status: "synced", provider_assistant_id: expect.stringMatching(/^asst_/) });

    const local = randomUUID();
    await database.db.insert(agents).values({ id: local, orgId, name: "Local 2", config: DEFAULT_AGENT_CONFIG });
    fake.state.calls.length = 0;
    expect((await call("DELETE", `/agent/${local}`)).statusCode).toBe(200);
    expect(fake.state.calls).toEqual([]);
  });

  it("a template agent gets its own assistant", async () => {
    const response = await call("POST", "/agent/template", { template: "appointment-setter" });
    expect(response.statusCode).toBe(201);
    expect(fake.state.calls).toMatchObject([{ method: "saveAssistant", agent: { id: response.json().data.id, config: { appointment_enable: true } }, assistantId: null }]);
  });
});

describe("the provider refuses: 502 and nothing changes", () => {
  const refusal = () => new VoiceProviderError("voice.voiceId must be one of the provider's voices");
  const expectedBody = { detail: "voice.voiceId must be one of the provider's voices", code: "upstream_error" };

  it("on create and on create from a template", async () => {
    const before = await allRows();
    for (const [path, payload] of [
      ["/agent/", { agent_name: "Refused" }],
      ["/agent/template", { template: "purchase-completion" }],
    ] as const) {
      fake.state.failNext = refusal();
      const response = await call("POST", path, payload);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual(expectedBody);
    }
    expect(await allRows()).toEqual(before);
  });

  it("on update and on the appointment toggle", async () => {
    const agent = await created();
    const before = await rowOf(agent.id);
    for (const [path, payload] of [
      [`/agent/${agent.id}`, { agent_name: "Changed", is_public: true }],
      [`/agent/${agent.id}/appointment-toggle`, { appointment_enable: true }],
    ] as const) {
      fake.state.failNext = refusal();
      const response = await call("PUT", path, payload);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual(expectedBody);
    }
    expect(await rowOf(agent.id)).toEqual(before);
  });

  it("on delete: the agent stays", async () => {
    const agent = await created();
    fake.state.failNext = refusal();
    const response = await call("DELETE", `/agent/${agent.id}`);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual(expectedBody);
    expect(await rowOf(agent.id)).toBeDefined();
  });

  it("an unexpected provider failure is a 500 without internals, and nothing is written", async () => {
    const before = await allRows();
    fake.state.failNext = new TypeError("socket hang up at 10.0.0.3");
    const response = await call("POST", "/agent/", {});
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ detail: expect.any(String), code: "internal_error" });
    expect(response.body).not.toContain("10.0.0.3");
    expect(await allRows()).toEqual(before);
  });
});

describe("the database fails after the provider said yes", () => {
  it("create: the new assistant is deleted again", async () => {
    // The organisation disappears while the provider saves: the insert then fails its foreign key.
    const doomedToken = (await signUp(app)).token;
    const doomedOrg = await createOrganisation(app, doomedToken, "Doomed Co");
    fake.state.calls.length = 0;
    fake.state.duringNextSave = async () => {
      await database.db.delete(organizations).where(eq(organizations.id, doomedOrg));
    };
    const response = await call("POST", "/agent/", {}, doomedToken);
    expect(response.statusCode).toBe(500);
    const saved = fake.state.calls[0];
    expect(saved?.method).toBe("saveAssistant");
    const [, undone] = fake.state.calls;
    expect(undone).toMatchObject({ method: "deleteAssistant", assistantId: expect.stringMatching(/^asst_/) });
    expect((await allRows()).filter((row) => row.orgId === doomedOrg)).toEqual([]);
  });
});
