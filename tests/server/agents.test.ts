/**
 * /api/agent: CRUD with the spec's defaults, validation, nested merges, organisation isolation,
 * permissions, templates and the appointment toggle (sandbox voice provider; see agents-sync.test.ts
 * for what is sent to the provider and agents-sharing.test.ts for clone and the public profile).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_TEMPLATE_KEYS,
  BLANK_AGENT_PROMPT,
  DEFAULT_AGENT_CONFIG,
  DEFAULT_SUMMARY_PROMPT,
  agentConfigSchema,
  type Agent,
  type AgentTemplate,
} from "../../contract";
import type { Database } from "../../server/db/client";
import { agents, knowledgeBaseFiles } from "../../server/db/schema";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, organisationCast, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;
let adminToken: string;
let memberToken: string;
let orgId: string;
let otherToken: string;
let otherOrgId: string;
let noOrgToken: string;

type Method = "GET" | "POST" | "PUT" | "DELETE";
const call = (token: string | null, method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse> =>
  app.inject({ method, url: `/api${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function create(token: string, body: object = {}): Promise<Agent> {
  const response = await call(token, "POST", "/agent/", body);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Agent }).data;
}

/** The agent's editable settings: the API shape without the fields the server sets. */
function settingsOf(agent: Agent) {
  const { id: _id, agent_id: _agentId, is_public: _isPublic, clone_enabled: _cloneEnabled, clone_key: _cloneKey, provider_assistant_id: _assistant, sync_status: _sync, cloned_from: _clonedFrom, created_at: _created, updated_at: _updated, ...settings } = agent;
  return settings;
}

const allAgentRows = () => database.db.select().from(agents);
const rowOf = async (id: string) => (await database.db.select().from(agents).where(eq(agents.id, id)))[0];

async function addKnowledgeBaseFile(organisation: string, name = "faq.pdf") {
  const id = randomUUID();
  await database.db.insert(knowledgeBaseFiles).values({ id, orgId: organisation, name, mimeType: "application/pdf", sizeBytes: 1234, providerFileId: null });
  return id;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  ({ adminToken, orgId, memberToken, otherToken, otherOrgId, noOrgToken } = await organisationCast(app, "Agents Inc"));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("POST /api/agent/ (create)", () => {
  it("an empty body answers exactly the spec's defaults", async () => {
    const agent = await create(adminToken);
    expect(settingsOf(agent)).toEqual(DEFAULT_AGENT_CONFIG);
    // Every default the spec names (§3), spelt as the spec spells it.
    expect(agent).toMatchObject({
      agent_type: "agent",
      agent_name: "Purchase Completion Agent",
      agent_welcome_message: "Hello! How are you doing today?",
      agent_end_call_message: "Thank you for calling. Have a great day!",
      agent_prompt: BLANK_AGENT_PROMPT,
      silence_timeout_seconds: 10,
      max_duration_seconds: 240,
      max_token: 500,
      model: "gpt-4o",
      model_provider: "openai",
      model_tool_id: [],
      emotion_recoginition: true,
      knowledge_base_files: [],
      forward_phone_number: null,
      endCallFunctionEnabled: false,
      endCallPhrases: [],
      appointment_enable: false,
      analysis_plan: { summary_prompt: DEFAULT_SUMMARY_PROMPT, success_evaluation_rubric: "PercentageScale", server_url: null },
      transcriber: { transcriber_model: "nova-3", transcriber_language: "en", transcriber_provider: "deepgram" },
      voice: {
        voice_provider: "deepgram",
        voice_providerId: "angus",
        voice_name: "angus",
        temprature: 0.5,
        speed: 1,
        voice_model: null,
        audio_recording: true,
        video_recording: false,
        background_denoising: false,
        background_sound: "off",
        voice_mail: null,
        voice_start_wait_seconds: 2,
        voice_start_smart_endpointing_enabled: false,
        voice_start_punctuation_seconds: 0.8,
        voice_start_no_punctuation_seconds: 1.8,
        voice_start_number_seconds: 1.1,
        voice_stop_number_of_words: 3,
        voice_stop_voice_seconds: 1.1,
        voice_stop_back_off_seconds: 1.1,
      },
    });
    expect(DEFAULT_SUMMARY_PROMPT.toLowerCase()).toContain("bullet points");
    expect(agent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(agent).toMatchObject({ agent_id: agent.id, is_public: false, provider_assistant_id: null, sync_status: "local", cloned_from: null });
    expect(new Date(agent.created_at).toISOString()).toBe(agent.created_at);
    expect(await rowOf(agent.id)).toMatchObject({ orgId, name: "Purchase Completion Agent", isPublic: false, providerAssistantId: null });
  });

  it("takes any subset of the settings; nested plans get the defaults for what is not given", async () => {
    const agent = await create(adminToken, {
      agent_name: "Renewals",
      max_token: 800,
      forward_phone_number: "+14155550123",
      endCallPhrases: ["goodbye"],
      is_public: true,
      voice: { speed: 1.5, voice_providerId: "asteria", voice_name: "asteria" },
      analysis_plan: { server_url: "https://hooks.example.com/vapi" },
    });
    expect(agent).toMatchObject({ agent_name: "Renewals", max_token: 800, forward_phone_number: "+14155550123", endCallPhrases: ["goodbye"], is_public: true });
    expect(agent.voice).toEqual({ ...DEFAULT_AGENT_CONFIG.voice, speed: 1.5, voice_providerId: "asteria", voice_name: "asteria" });
    expect(agent.analysis_plan).toEqual({ ...DEFAULT_AGENT_CONFIG.analysis_plan, server_url: "https://hooks.example.com/vapi" });
    expect(agent.transcriber).toEqual(DEFAULT_AGENT_CONFIG.transcriber);
    expect((await rowOf(agent.id))?.isPublic).toBe(true);
  });

  it("accepts the organisation's knowledge-base files and drops repeated ids", async () => {
    const fileId = await addKnowledgeBaseFile(orgId);
    const agent = await create(adminToken, { knowledge_base_files: [fileId, fileId] });
    expect(agent.knowledge_base_files).toEqual([fileId]);
  });

  it("a member may create, edit and delete agents (contract/permissions.ts)", async () => {
    const agent = await create(memberToken, { agent_name: "Member's agent" });
    expect((await call(memberToken, "PUT", `/agent/${agent.id}`, { max_token: 900 })).json().data.max_token).toBe(900);
    expect((await call(memberToken, "PUT", `/agent/${agent.id}/appointment-toggle`, { appointment_enable: true })).statusCode).toBe(200);
    expect((await call(memberToken, "DELETE", `/agent/${agent.id}`)).statusCode).toBe(200);
  });

  it("someone with no active organisation gets 403 organization_required and nothing is written", async () => {
    const before = await allAgentRows();
    const response = await call(noOrgToken, "POST", "/agent/", {});
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: "organization_required" });
    expect((await call(noOrgToken, "GET", "/agent/")).statusCode).toBe(403);
    expect(await allAgentRows()).toEqual(before);
  });
});

describe("validation: 400 {detail, code} naming the field, and nothing written", () => {
  let existing: Agent;
  let foreignFileId: string;
  beforeAll(async () => {
    existing = await create(adminToken, { agent_name: "Validation target" });
    foreignFileId = await addKnowledgeBaseFile(otherOrgId, "their-secrets.pdf");
  });

  const unknownFileId = "0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b";
  // Each case: the request → the exact detail expected.
  const cases: { name: string; method: Method; path: () => string; body?: () => unknown; detail: () => string | RegExp }[] = [
    {
      name: "a number out of range names the field and its range",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ silence_timeout_seconds: 5 }),
      detail: () => "silence_timeout_seconds: must be between 10 and 3600 seconds",
    },
    {
      name: "a nested number out of range names the nested field",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ voice: { temprature: 2.5 } }),
      detail: () => "voice.temprature: (model temperature) must be between 0 and 2",
    },
    {
      name: "a fraction where a whole number is needed",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ max_token: 100.5 }),
      detail: () => "max_token: must be a whole number",
    },
    {
      name: "a forwarding number that is not E.164",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ forward_phone_number: "415-555-0123" }),
      detail: () => "forward_phone_number: must be in E.164 form, e.g. +14155550123",
    },
    {
      name: "an unknown field",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ agent_name: "x", colour: "red" }),
      detail: () => "colour: is not a known field",
    },
    {
      name: "an unknown nested field",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ voice: { pitch: 3 } }),
      detail: () => "voice.pitch: is not a known field",
    },
    {
      name: "a wrong type (text)",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ agent_name: 42 }),
      detail: () => "agent_name: must be text",
    },
    {
      name: "a wrong type (boolean)",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ emotion_recoginition: "yes" }),
      detail: () => "emotion_recoginition: must be true or false",
    },
    {
      name: "a value outside an enumeration",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ analysis_plan: { success_evaluation_rubric: "Stars" } }),
      detail: () => /^analysis_plan\.success_evaluation_rubric: must be one of NumericScale, .*PercentageScale/,
    },
    {
      name: "an empty agent name",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ agent_name: "" }),
      detail: () => "agent_name: is required",
    },
    {
      name: "a knowledge-base file that does not exist",
      method: "POST",
      path: () => "/agent/",
      body: () => ({ knowledge_base_files: [unknownFileId] }),
      detail: () => `knowledge_base_files: ${unknownFileId} is not a file of this organisation; upload the file first`,
    },
    {
      name: "another organisation's knowledge-base file",
      method: "PUT",
      path: () => `/agent/${existing.id}`,
      body: () => ({ knowledge_base_files: [foreignFileId] }),
      detail: () => `knowledge_base_files: ${foreignFileId} is not a file of this organisation; upload the file first`,
    },
    {
      name: "an update out of range",
      method: "PUT",
      path: () => `/agent/${existing.id}`,
      body: () => ({ voice: { voice_start_wait_seconds: 9 } }),
      detail: () => "voice.voice_start_wait_seconds: must be between 0 and 5 seconds",
    },
    {
      name: "an update with an unknown field",
      method: "PUT",
      path: () => `/agent/${existing.id}`,
      body: () => ({ org_id: otherOrgId }),
      detail: () => "org_id: is not a known field",
    },
    {
      name: "an update that sets a required setting to null",
      method: "PUT",
      path: () => `/agent/${existing.id}`,
      body: () => ({ model: null }),
      detail: () => "model: must be text",
    },
    {
      name: "a template that does not exist",
      method: "POST",
      path: () => "/agent/template",
      body: () => ({ template: "time-travel-agent" }),
      detail: () => "template: must be one of purchase-completion, blank, appointment-setter, customer-support",
    },
    {
      name: "a toggle without its boolean",
      method: "PUT",
      path: () => `/agent/${existing.id}/appointment-toggle`,
      body: () => ({ appointment_enable: "on" }),
      detail: () => "appointment_enable: must be true or false",
    },
    {
      name: "an id that is not a UUID",
      method: "PUT",
      path: () => "/agent/not-a-uuid",
      body: () => ({ max_token: 600 }),
      detail: () => "id: the agent id must be a UUID",
    },
    {
      name: "a page size above the maximum",
      method: "GET",
      path: () => "/agent/?limit=500",
      detail: () => "limit: must be between 1 and 100",
    },
  ];

  it.each(cases)("$name", async (testCase) => {
    const before = await allAgentRows();
    const response = await call(adminToken, testCase.method, testCase.path(), testCase.body?.());
    expect(response.statusCode, response.body).toBe(400);
    const body = response.json() as { detail: string; code: string };
    expect(Object.keys(body).sort()).toEqual(["code", "detail"]);
    expect(body.code).toBe("validation_error");
    const detail = testCase.detail();
    if (typeof detail === "string") expect(body.detail).toBe(detail);
    else expect(body.detail).toMatch(detail);
    expect(await allAgentRows()).toEqual(before);
  });

  it("GET and DELETE with a bad UUID are 400 too", async () => {
    for (const method of ["GET", "DELETE"] as const) {
      const response = await call(adminToken, method, "/agent/12345");
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ detail: "id: the agent id must be a UUID", code: "validation_error" });
    }
  });
});

describe("GET /api/agent/ and /api/agent/{id}", () => {
  let token: string;
  beforeAll(async () => {
    // A fresh organisation, so the list holds only what this block creates.
    token = (await signUp(app)).token;
    await createOrganisation(app, token, "Listing Co");
  });

  it("lists the organisation's agents, most recently edited first, with paging", async () => {
    const first = await create(token, { agent_name: "First" });
    const second = await create(token, { agent_name: "Second" });
    const third = await create(token, { agent_name: "Third" });
    let list = (await call(token, "GET", "/agent/")).json();
    expect(list).toMatchObject({ total: 3, page: 1, limit: 100 });
    expect(list.data.map((agent: Agent) => agent.agent_name)).toEqual(["Third", "Second", "First"]);

    // Editing the oldest puts it on top.
    expect((await call(token, "PUT", `/agent/${first.id}`, { max_token: 700 })).statusCode).toBe(200);
    list = (await call(token, "GET", "/agent")).json();
    expect(list.data.map((agent: Agent) => agent.id)).toEqual([first.id, third.id, second.id]);

    const page2 = (await call(token, "GET", "/agent/?page=2&limit=2")).json();
    expect(page2).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page2.data.map((agent: Agent) => agent.id)).toEqual([second.id]);
  });

  it("never shows another organisation's agents", async () => {
    const theirs = await create(otherToken, { agent_name: "Not yours" });
    const list = (await call(adminToken, "GET", "/agent/")).json() as { data: Agent[]; total: number };
    expect(list.data.map((agent) => agent.id)).not.toContain(theirs.id);
    const rows = (await allAgentRows()).filter((row) => row.orgId === orgId);
    expect(list.total).toBe(rows.length);
    expect(new Set(list.data.map((agent) => agent.id))).toEqual(new Set(rows.map((row) => row.id)));
  });

  it("GET /agent/{id} answers one agent", async () => {
    const agent = await create(adminToken, { agent_name: "Fetch me" });
    const response = await call(adminToken, "GET", `/agent/${agent.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: agent });
  });
});

describe("PUT /api/agent/{id}", () => {
  it("replaces the fields given and merges analysis_plan, transcriber and voice field by field", async () => {
    const agent = await create(adminToken, {
      agent_name: "Before",
      endCallPhrases: ["bye", "goodbye"],
      voice: { voice_provider: "11labs", voice_providerId: "sarah", voice_name: "Sarah", speed: 1.1 },
      analysis_plan: { structured_data_prompt: "Extract the order number." },
    });
    const response = await call(adminToken, "PUT", `/agent/${agent.id}`, {
      agent_name: "After",
      endCallPhrases: ["see you"],
      voice: { speed: 0.9 },
      analysis_plan: { server_url: "https://hooks.example.com/x" },
      transcriber: { transcriber_language: "es" },
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = (response.json() as { data: Agent }).data;
    expect(settingsOf(updated)).toEqual({
      ...settingsOf(agent),
      agent_name: "After",
      endCallPhrases: ["see you"],
      voice: { ...agent.voice, speed: 0.9 },
      analysis_plan: { ...agent.analysis_plan, server_url: "https://hooks.example.com/x" },
      transcriber: { ...agent.transcriber, transcriber_language: "es" },
    });
    expect(updated.voice).toMatchObject({ voice_provider: "11labs", voice_providerId: "sarah" });
    expect(updated.analysis_plan.structured_data_prompt).toBe("Extract the order number.");
    expect(updated.created_at).toBe(agent.created_at);
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    const row = await rowOf(agent.id);
    expect(row?.name).toBe("After");
    expect(row?.config).toEqual(settingsOf(updated));
  });

  it("null clears a nullable setting; is_public is set here too", async () => {
    const agent = await create(adminToken, { forward_phone_number: "+442071234567", voice: { voice_mail: "Please call back." } });
    const updated = (await call(adminToken, "PUT", `/agent/${agent.id}`, { forward_phone_number: null, voice: { voice_mail: null }, is_public: true })).json().data as Agent;
    expect(updated).toMatchObject({ forward_phone_number: null, is_public: true });
    expect(updated.voice.voice_mail).toBeNull();
    const again = (await call(adminToken, "PUT", `/agent/${agent.id}`, { is_public: false })).json().data as Agent;
    expect(again.is_public).toBe(false);
  });

  it("an empty body changes nothing but the edit time", async () => {
    const agent = await create(adminToken);
    const updated = (await call(adminToken, "PUT", `/agent/${agent.id}`, {})).json().data as Agent;
    expect(settingsOf(updated)).toEqual(settingsOf(agent));
  });
});

describe("PUT /api/agent/{id}/appointment-toggle", () => {
  it("turns appointment booking on and off", async () => {
    const agent = await create(adminToken);
    expect(agent.appointment_enable).toBe(false);
    const on = await call(adminToken, "PUT", `/agent/${agent.id}/appointment-toggle`, { appointment_enable: true });
    expect(on.statusCode).toBe(200);
    expect(settingsOf(on.json().data)).toEqual({ ...settingsOf(agent), appointment_enable: true });
    const off = await call(adminToken, "PUT", `/agent/${agent.id}/appointment-toggle`, { appointment_enable: false });
    expect(off.json().data.appointment_enable).toBe(false);
    expect((await rowOf(agent.id))?.config.appointment_enable).toBe(false);
  });
});

describe("DELETE /api/agent/{id}", () => {
  it("answers the deleted id; the agent is gone", async () => {
    const agent = await create(adminToken);
    const response = await call(adminToken, "DELETE", `/agent/${agent.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { id: agent.id } });
    expect(await rowOf(agent.id)).toBeUndefined();
    expect((await call(adminToken, "GET", `/agent/${agent.id}`)).statusCode).toBe(404);
    expect((await call(adminToken, "DELETE", `/agent/${agent.id}`)).statusCode).toBe(404);
  });
});

describe("another organisation's agent answers 404, as if it did not exist", () => {
  let theirs: Agent;
  beforeAll(async () => {
    theirs = await create(otherToken, { agent_name: "Their agent" });
  });

  const requests: { method: Method; path: (id: string) => string; body?: object }[] = [
    { method: "GET", path: (id) => `/agent/${id}` },
    { method: "PUT", path: (id) => `/agent/${id}`, body: { agent_name: "Hijacked" } },
    { method: "DELETE", path: (id) => `/agent/${id}` },
    { method: "PUT", path: (id) => `/agent/${id}/appointment-toggle`, body: { appointment_enable: true } },
  ];

  it.each(requests)("$method $path", async ({ method, path, body }) => {
    const before = await rowOf(theirs.id);
    const response = await call(adminToken, method, path(theirs.id), body);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "Agent not found", code: "not_found" });
    // A made-up id answers exactly the same.
    const madeUp = await call(adminToken, method, path(randomUUID()), body);
    expect({ status: madeUp.statusCode, body: madeUp.json() }).toEqual({ status: 404, body: response.json() });
    expect(await rowOf(theirs.id)).toEqual(before);
  });
});

describe("templates", () => {
  it("GET /agent/templates lists every template with a description and a whole, valid configuration", async () => {
    const response = await call(memberToken, "GET", "/agent/templates");
    expect(response.statusCode).toBe(200);
    const templates = (response.json() as { data: AgentTemplate[] }).data;
    expect(templates.map((template) => template.key)).toEqual([...AGENT_TEMPLATE_KEYS]);
    for (const template of templates) {
      expect(template.description.length, template.key).toBeGreaterThan(20);
      expect(template.name).toBe(template.config.agent_name);
      expect(agentConfigSchema.parse(template.config)).toEqual(template.config);
    }
    const byKey = Object.fromEntries(templates.map((template) => [template.key, template])) as Record<string, AgentTemplate>;

    // The default template: the spec's purchase-completion agent, with a real prompt and analysis.
    const purchase = byKey["purchase-completion"]!.config;
    expect(purchase.agent_name).toBe("Purchase Completion Agent");
    expect(purchase.agent_welcome_message).toContain("{{ name");
    expect(purchase.agent_prompt).toContain("{{name}}");
    for (const topic of [/cart/i, /price/i, /shipping/i, /trust|secure/i, /payment failed/i, /checkout/i, /never pressure/i, /not to be called again/i]) {
      expect(purchase.agent_prompt).toMatch(topic);
    }
    expect(purchase.endCallPhrases.length).toBeGreaterThan(0);
    expect(purchase.analysis_plan.success_evaluation_prompt).toMatch(/complete the purchase/i);
    expect(purchase.analysis_plan.structured_data_prompt).toMatch(/completed_purchase/);
    expect(purchase.analysis_plan.summary_prompt).toMatch(/bullet points/i);

    // Blank: the spec's defaults exactly, under a name of its own.
    expect(byKey.blank!.config).toEqual({ ...DEFAULT_AGENT_CONFIG, agent_name: "New Agent" });

    const appointments = byKey["appointment-setter"]!.config;
    expect(appointments.appointment_enable).toBe(true);
    for (const topic of [/name/i, /date/i, /time/i, /confirm/i]) expect(appointments.agent_prompt).toMatch(topic);

    const support = byKey["customer-support"]!.config;
    expect(support.agent_prompt).toMatch(/troubleshoot/i);
    expect(support.agent_prompt).toMatch(/forwarding number/i);
  });

  it.each([...AGENT_TEMPLATE_KEYS])("POST /agent/template creates an agent from %s", async (key) => {
    const templates = (await call(adminToken, "GET", "/agent/templates")).json().data as AgentTemplate[];
    const template = templates.find((candidate) => candidate.key === key)!;
    const response = await call(adminToken, "POST", "/agent/template", { template: key });
    expect(response.statusCode, response.body).toBe(201);
    const agent = (response.json() as { data: Agent }).data;
    expect(settingsOf(agent)).toEqual(template.config);
    expect(agent).toMatchObject({ is_public: false, cloned_from: null });
    expect((await rowOf(agent.id))?.orgId).toBe(orgId);
  });

  it("agent_name renames the agent made from a template", async () => {
    const response = await call(memberToken, "POST", "/agent/template", { template: "customer-support", agent_name: "Helpdesk" });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.agent_name).toBe("Helpdesk");
    expect((await rowOf(response.json().data.id))?.name).toBe("Helpdesk");
  });
});

describe("OpenAPI", () => {
  it("documents every agent route with a summary", async () => {
    const document = (await app.inject({ method: "GET", url: "/api/docs/json" })).json() as { paths: Record<string, Record<string, { summary?: string }>> };
    const expected: [string, string][] = [
      ["/api/agent/", "get"],
      ["/api/agent/", "post"],
      ["/api/agent/templates", "get"],
      ["/api/agent/template", "post"],
      ["/api/agent/{id}", "get"],
      ["/api/agent/{id}", "put"],
      ["/api/agent/{id}", "delete"],
      ["/api/agent/{id}/appointment-toggle", "put"],
      ["/api/agent/{id}/clone", "get"],
      ["/api/agent/{id}/public", "get"],
    ];
    for (const [path, method] of expected) expect(document.paths[path]?.[method]?.summary, `${method} ${path}`).toEqual(expect.any(String));
  });

  it("only the public profile is public (route-guard.test.ts checks the 401 of all the others)", () => {
    const agentRoutes = app.routeTable.filter((route) => route.url.startsWith("/api/agent"));
    expect(agentRoutes.filter((route) => route.public).map((route) => `${route.method} ${route.url}`)).toEqual(["GET /api/agent/:id/public"]);
    expect(agentRoutes.length).toBe(10);
  });
});
