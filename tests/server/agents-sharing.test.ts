/**
 * Sharing agents across organisations: GET /agent/{id}/clone?key= (a shared private link, spec §2 and §8
 * "Clone", only with the owner's consent) and GET /agent/{id}/public (the public agent page, no sign-in).
 */
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_AGENT_DEFAULT_DESCRIPTION, PUBLIC_AGENT_DEFAULT_GREETING, publicAgentFallbackName, type Agent } from "../../contract";
import type { Database } from "../../server/db/client";
import { agents, knowledgeBaseFiles } from "../../server/db/schema";
import type { AgentForSync, VoiceProvider } from "../../server/voice/types";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

/** Hands out assistant ids after a short wait (so simultaneous clones overlap) and records what it was asked. */
function slowProvider() {
  const saved: { agent: AgentForSync; assistantId: string | null; answered: string }[] = [];
  const deleted: string[] = [];
  let next = 0;
  const provider: VoiceProvider = {
    // Calls and numbers as the sandbox does them; the assistant side is what these tests watch.
    ...createSandboxVoiceProvider(),
    mode: "vapi",
    async saveAssistant(agent, assistantId) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const answered = assistantId ?? `asst_${++next}`;
      saved.push({ agent: structuredClone(agent), assistantId, answered });
      return { assistantId: answered };
    },
    async deleteAssistant(assistantId) {
      deleted.push(assistantId);
    },
    async uploadFile() {
      return { providerFileId: null };
    },
    async deleteFile() {},
  };
  return { provider, saved, deleted };
}

let database: Database;
let app: FastifyInstance;
let voice: ReturnType<typeof slowProvider>;
let ownerToken: string;
let ownerOrg: string;
let source: Agent;

const get = (path: string, token?: string): Promise<LightMyRequestResponse> => app.inject({ method: "GET", url: `/api${path}`, headers: token ? bearer(token) : {} });
const cloneOf = (agent: Pick<Agent, "id" | "clone_key">, token: string) => get(`/agent/${agent.id}/clone?key=${encodeURIComponent(agent.clone_key ?? "")}`, token);
const rowsOf = (orgId: string) => database.db.select().from(agents).where(eq(agents.orgId, orgId));

async function newOrganisation(name: string) {
  const { token } = await signUp(app);
  return { token, orgId: await createOrganisation(app, token, name) };
}

async function createAgent(token: string, payload: object): Promise<Agent> {
  const response = await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(token), payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as Agent;
}

beforeAll(async () => {
  database = await migratedDatabase();
  voice = slowProvider();
  ({ app } = await buildTestApp(database, {}, undefined, voice.provider));
  ({ token: ownerToken, orgId: ownerOrg } = await newOrganisation("Source Org"));
  const fileId = randomUUID();
  await database.db.insert(knowledgeBaseFiles).values({ id: fileId, orgId: ownerOrg, name: "internal.pdf", mimeType: "application/pdf", sizeBytes: 1, providerFileId: "file_src" });
  source = await createAgent(ownerToken, {
    agent_name: "Shared Sales Agent",
    description: "Talks to customers.",
    agent_prompt: "Sell politely.",
    forward_phone_number: "+14155550123",
    knowledge_base_files: [fileId],
    model_tool_id: ["6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"],
    is_public: true,
    clone_enabled: true,
    analysis_plan: { server_url: "https://source.example.com/webhook", structured_data_prompt: "Extract the deal size." },
    voice: { voice_provider: "11labs", voice_providerId: "sarah", voice_name: "Sarah", speed: 1.1 },
  });
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("GET /api/agent/{id}/clone", () => {
  it("copies the agent into the caller's organisation without the source organisation's secrets and resources", async () => {
    const { token, orgId } = await newOrganisation("Cloner Org");
    const savesBefore = voice.saved.length;
    const response = await cloneOf(source, token);
    expect(response.statusCode, response.body).toBe(200);
    const clone = response.json().data as Agent;

    expect(clone.id).not.toBe(source.id);
    expect(clone).toMatchObject({ agent_id: clone.id, cloned_from: source.id, agent_name: "Shared Sales Agent", is_public: false, clone_enabled: false, clone_key: null });
    // What stays behind: webhook URL, forwarding number, knowledge-base files, provider tools.
    expect(clone.analysis_plan.server_url).toBeNull();
    expect(clone.forward_phone_number).toBeNull();
    expect(clone.knowledge_base_files).toEqual([]);
    expect(clone.model_tool_id).toEqual([]);
    // Everything else is the source's.
    expect(clone.agent_prompt).toBe("Sell politely.");
    expect(clone.description).toBe("Talks to customers.");
    expect(clone.voice).toEqual(source.voice);
    expect(clone.analysis_plan).toEqual({ ...source.analysis_plan, server_url: null });

    // Its own assistant at the provider, built without the source's files.
    expect(voice.saved.slice(savesBefore)).toMatchObject([{ agent: { id: clone.id, orgId, knowledgeBase: [] }, assistantId: null }]);
    expect(clone.provider_assistant_id).not.toBe(source.provider_assistant_id);
    expect((await rowsOf(orgId)).map((row) => row.id)).toEqual([clone.id]);
    // The source is untouched.
    expect((await get(`/agent/${source.id}`, ownerToken)).json().data).toEqual(source);
  });

  it("409 with the existing copy's id when the organisation already holds a clone", async () => {
    const { token, orgId } = await newOrganisation("Twice Org");
    const first = (await cloneOf(source, token)).json().data as Agent;
    const second = await cloneOf(source, token);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({ detail: "Your organisation already has a copy of this agent.", code: "conflict", data: { id: first.id } });
    expect(await rowsOf(orgId)).toHaveLength(1);
  });

  it("409 with the source's id when the caller's organisation owns it", async () => {
    const before = await rowsOf(ownerOrg);
    const response = await cloneOf(source, ownerToken);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ detail: "This agent is already in your organisation.", code: "conflict", data: { id: source.id } });
    expect(await rowsOf(ownerOrg)).toEqual(before);
  });

  it("simultaneous clones leave one copy; the others answer 409 with its id and their assistants are deleted", async () => {
    const { token, orgId } = await newOrganisation("Race Org");
    const deletedBefore = voice.deleted.length;
    const savesBefore = voice.saved.length;
    const responses = await Promise.all([1, 2, 3].map(() => cloneOf(source, token)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409]);
    const winner = responses.find((response) => response.statusCode === 200)!.json().data as Agent;
    for (const response of responses.filter((candidate) => candidate.statusCode === 409)) {
      expect(response.json()).toMatchObject({ code: "conflict", data: { id: winner.id } });
    }
    expect((await rowsOf(orgId)).map((row) => row.id)).toEqual([winner.id]);
    // A losing request that created an assistant before its insert hit the unique index deletes it again; one
    // that found the winner's copy first (a matter of timing) created none. Either way no assistant is left over.
    const made = voice.saved.slice(savesBefore).map((save) => save.answered);
    expect(made).toContain(winner.provider_assistant_id);
    expect([...voice.deleted.slice(deletedBefore)].sort()).toEqual(made.filter((id) => id !== winner.provider_assistant_id).sort());
  });

  it("a clone of a private agent works too, when its owner turned cloning on: the link's key is the capability", async () => {
    const privateAgent = await createAgent(ownerToken, { agent_name: "Private one", is_public: false, clone_enabled: true });
    const { token } = await newOrganisation("Link Holder Org");
    const response = await cloneOf(privateAgent, token);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ agent_name: "Private one", cloned_from: privateAgent.id });
  });

  it("404 for an agent that does not exist, 400 for an id that is not a UUID, 401 signed out", async () => {
    const { token } = await newOrganisation("Lost Org");
    const missing = await get(`/agent/${randomUUID()}/clone`, token);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: "Agent not found", code: "not_found" });
    expect((await get("/agent/abc/clone", token)).statusCode).toBe(400);
    expect((await cloneOf(source, "")).statusCode).toBe(401);
  });
});

describe("the owner's consent to cloning (clone_enabled)", () => {
  const notFound = { detail: "Agent not found", code: "not_found" };
  const setCloning = async (agent: Agent, on: boolean): Promise<Agent> => {
    const response = await app.inject({ method: "PUT", url: `/api/agent/${agent.id}`, headers: bearer(ownerToken), payload: { clone_enabled: on } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as Agent;
  };

  it("is off for a new agent, and then the clone answers 404 like a missing agent and writes nothing", async () => {
    const agent = await createAgent(ownerToken, { agent_name: "Not shared", description: "Keep out." });
    expect(agent).toMatchObject({ clone_enabled: false, clone_key: null });
    const { token, orgId } = await newOrganisation("Curious Org");
    const savesBefore = voice.saved.length;
    for (const path of [`/agent/${agent.id}/clone`, `/agent/${agent.id}/clone?key=`, `/agent/${agent.id}/clone?key=${source.clone_key}`]) {
      const response = await get(path, token);
      expect(response.statusCode, path).toBe(404);
      expect(response.json()).toEqual(notFound);
    }
    expect(await rowsOf(orgId)).toEqual([]);
    expect(voice.saved.length).toBe(savesBefore);
  });

  it("when on, only the link's own key clones: the bare id (as public pages show it) or another key answers 404", async () => {
    expect(source).toMatchObject({ clone_enabled: true, clone_key: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    const { token, orgId } = await newOrganisation("Id Holder Org");
    for (const path of [`/agent/${source.id}/clone`, `/agent/${source.id}/clone?key=${"x".repeat(32)}`, `/agent/${source.id}/clone?key=${source.clone_key!.slice(1)}`]) {
      const response = await get(path, token);
      expect(response.statusCode, path).toBe(404);
      expect(response.json()).toEqual(notFound);
    }
    expect(await rowsOf(orgId)).toEqual([]);
  });

  it("turning it off revokes the link for good: turning it on again makes a new key, the old one stays dead", async () => {
    const agent = await createAgent(ownerToken, { agent_name: "Revocable", clone_enabled: true });
    const oldLink = { id: agent.id, clone_key: agent.clone_key };
    // Saving other settings keeps the link that was handed out.
    const renamed = (await app.inject({ method: "PUT", url: `/api/agent/${agent.id}`, headers: bearer(ownerToken), payload: { description: "Renamed" } })).json().data as Agent;
    expect(renamed.clone_key).toBe(agent.clone_key);
    expect((await setCloning(agent, true)).clone_key).toBe(agent.clone_key);

    const off = await setCloning(agent, false);
    expect(off).toMatchObject({ clone_enabled: false, clone_key: null });
    const { token, orgId } = await newOrganisation("Late Org");
    expect((await cloneOf(oldLink, token)).statusCode).toBe(404);

    const on = await setCloning(agent, true);
    expect(on.clone_enabled).toBe(true);
    expect(on.clone_key).not.toBe(oldLink.clone_key);
    expect((await cloneOf(oldLink, token)).statusCode).toBe(404);
    expect(await rowsOf(orgId)).toEqual([]);
    const response = await cloneOf(on, token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ cloned_from: agent.id, clone_enabled: false });
  });

  it("400 for a clone_enabled that is not true or false", async () => {
    const response = await app.inject({ method: "PUT", url: `/api/agent/${source.id}`, headers: bearer(ownerToken), payload: { clone_enabled: "yes" } });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/clone_enabled.*must be true or false/);
  });
});

describe("GET /api/agent/{id}/public (no sign-in)", () => {
  it("answers a public agent's name, description, greeting and closing message, and nothing else", async () => {
    const response = await get(`/agent/${source.id}/public`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        id: source.id,
        name: "Shared Sales Agent",
        description: "Talks to customers.",
        firstMessage: source.agent_welcome_message,
        endCallMessage: source.agent_end_call_message,
      },
    });
  });

  it("falls back to the spec's name, description and greeting when the agent leaves them empty", async () => {
    const agent = await createAgent(ownerToken, { agent_name: "   ", description: "", agent_welcome_message: "", is_public: true });
    const response = await get(`/agent/${agent.id}/public`);
    expect(response.json()).toEqual({
      data: {
        id: agent.id,
        name: publicAgentFallbackName(agent.id),
        description: PUBLIC_AGENT_DEFAULT_DESCRIPTION,
        firstMessage: PUBLIC_AGENT_DEFAULT_GREETING,
        endCallMessage: "Thank you for calling. Have a great day!",
      },
    });
    expect(publicAgentFallbackName(agent.id)).toBe(`AI Agent ${agent.id.slice(0, 8)}`);
  });

  it("404 for a private agent and for one that does not exist, with the same body", async () => {
    const privateAgent = await createAgent(ownerToken, { agent_name: "Hidden", is_public: false });
    const expected = { detail: "Agent not found or not accessible.", code: "not_found" };
    for (const id of [privateAgent.id, randomUUID()]) {
      const response = await get(`/agent/${id}/public`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(expected);
    }
    // A signed-in member of the owning organisation sees the same: public means public.
    expect((await get(`/agent/${privateAgent.id}/public`, ownerToken)).json()).toEqual(expected);
  });

  it("is cheap to reload: cached 30 s (+30 s stale) with an ETag, and a matching If-None-Match is a 304 without a body", async () => {
    const first = await get(`/agent/${source.id}/public`);
    expect(first.statusCode).toBe(200);
    expect(first.headers["cache-control"]).toBe("public, max-age=30, stale-while-revalidate=30");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await app.inject({ method: "GET", url: `/api/agent/${source.id}/public`, headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(etag);
    // Another agent's tag, or the profile changed since: the whole answer.
    const other = await app.inject({ method: "GET", url: `/api/agent/${source.id}/public`, headers: { "if-none-match": 'W/"stale"' } });
    expect(other.statusCode).toBe(200);
    expect(other.json().data.name).toBe("Shared Sales Agent");
    // A 404 (private or unknown) is not cached.
    expect((await get(`/agent/${randomUUID()}/public`)).headers["cache-control"]).toBeUndefined();
  });

  it("a popular page keeps its profile: well past the old 60 a minute from one address (default 600)", async () => {
    const { app: fresh } = await buildTestApp(database);
    try {
      const url = `/api/agent/${source.id}/public`;
      const statuses = new Set<number>();
      for (let i = 0; i < 200; i++) statuses.add((await fresh.inject({ method: "GET", url, remoteAddress: "203.0.113.20" })).statusCode);
      expect(statuses).toEqual(new Set([200]));
    } finally {
      await fresh.close();
    }
  });

  it("is limited per address by PUBLIC_PROFILE_PER_IP_PER_MINUTE, with Retry-After", async () => {
    const { app: limited } = await buildTestApp(database, { PUBLIC_PROFILE_PER_IP_PER_MINUTE: "5" });
    try {
      const url = `/api/agent/${randomUUID()}/public`;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.inject({ method: "GET", url, remoteAddress: "203.0.113.9" })).statusCode);
      expect(new Set(statuses)).toEqual(new Set([404]));
      const blocked = await limited.inject({ method: "GET", url, remoteAddress: "203.0.113.9" });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toMatchObject({ code: "rate_limited" });
      expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
      // Another address is not affected.
      expect((await limited.inject({ method: "GET", url, remoteAddress: "198.51.100.7" })).statusCode).toBe(404);
    } finally {
      await limited.close();
    }
  });
});
