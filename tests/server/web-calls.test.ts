/**
 * /api/webcall: links made for an agent (create, list scoping, delete), the public page's lookup by slug
 * (no sign-in; exactly the spec's fields), validation (icons, limits, agents of the organisation), and
 * the assistant id the browser starts the call with in each voice mode.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEB_CALL_ICONS, type Agent, type WebCallLink } from "../../contract";
import type { Database } from "../../server/db/client";
import { webCallLinks } from "../../server/db/schema";
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { addMember, bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;
let adminToken: string;
let memberToken: string;
let otherToken: string;
let agent: Agent;
let otherAgent: Agent;

type Method = "GET" | "POST" | "DELETE";
const call = (token: string | null, method: Method, path: string, payload?: unknown, on = app): Promise<LightMyRequestResponse> =>
  on.inject({ method, url: `/api${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const INSTRUCTIONS = [
  { icon: "headphones", title: "Use headphones", description: "It keeps the echo away." },
  { icon: "quiet", title: "Find a quiet place", description: "" },
  { icon: "microphone", title: "Allow the microphone", description: "Your browser will ask once.\nSay yes." },
];

const body = (extra: Record<string, unknown> = {}) => ({
  agent_id: agent.id,
  call_title: "Your onboarding call",
  recipient_name: "Ada",
  sub_title: "A five-minute chat with our assistant",
  instructions: INSTRUCTIONS,
  ...extra,
});

async function createLink(token = adminToken, extra: Record<string, unknown> = {}): Promise<WebCallLink> {
  const response = await call(token, "POST", "/webcall/", body(extra));
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: WebCallLink }).data;
}

async function createAgent(token: string, on = app): Promise<Agent> {
  const response = await call(token, "POST", "/agent/", { agent_name: "Greeter" }, on);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as Agent;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  adminToken = (await signUp(app)).token;
  const orgId = await createOrganisation(app, adminToken, "Web Calls Co");
  memberToken = (await addMember(app, adminToken, orgId)).token;
  otherToken = (await signUp(app)).token;
  await createOrganisation(app, otherToken, "Other Web Calls");
  agent = await createAgent(adminToken);
  otherAgent = await createAgent(otherToken);
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("POST /webcall/", () => {
  it("answers the link: a random URL-safe slug, the page path, the texts and the instructions in order with ids", async () => {
    const link = await createLink();
    expect(link).toEqual({
      id: expect.any(String),
      slug: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      url: `/web-call/${link.slug}`,
      agent_id: agent.id,
      call_title: "Your onboarding call",
      recipient_name: "Ada",
      sub_title: "A five-minute chat with our assistant",
      instructions: INSTRUCTIONS.map((instruction) => ({ id: expect.any(String), ...instruction })),
      created_at: expect.any(String),
    });
    expect(new Set(link.instructions.map((instruction) => instruction.id)).size).toBe(3);
    const again = await createLink();
    expect(again.slug).not.toBe(link.slug);
  });

  it("a member may create one; sub_title and instructions may be left out; text is trimmed and kept as plain text", async () => {
    const link = await createLink(memberToken, { sub_title: undefined, instructions: undefined, call_title: "  <b>Hello</b> & welcome  " });
    expect(link).toMatchObject({ sub_title: "", instructions: [], call_title: "<b>Hello</b> & welcome" });
  });

  it("validates icons, lengths, the number of instructions and the agent", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ instructions: [{ icon: "rocket", title: "Go" }] }, new RegExp(`^instructions\\.0\\.icon: must be one of ${WEB_CALL_ICONS.join(", ")}`)],
      [{ instructions: Array.from({ length: 11 }, () => ({ icon: "info", title: "Hi" })) }, /^instructions: .*at most 10/],
      [{ instructions: [{ icon: "info", title: "" }] }, /^instructions\.0\.title: is required/],
      [{ instructions: [{ icon: "info", title: "t".repeat(81) }] }, /^instructions\.0\.title: must be at most 80 characters/],
      [{ instructions: [{ icon: "info", title: "Ok", colour: "red" }] }, /instructions\.0\.colour: is not a known field/],
      [{ call_title: "" }, /^call_title: is required/],
      [{ call_title: "x".repeat(121) }, /^call_title: must be at most 120 characters/],
      [{ recipient_name: "Ada\u0000" }, /^recipient_name: must be plain text without control characters/],
      [{ sub_title: "s".repeat(301) }, /^sub_title: must be at most 300 characters/],
      [{ agent_id: "nope" }, /^agent_id: /],
      [{ agent_id: otherAgent.id }, new RegExp(`^agent_id: ${otherAgent.id} is not an agent of this organisation`)],
      [{ agent_id: randomUUID() }, /is not an agent of this organisation/],
    ];
    for (const [extra, detail] of cases) {
      const response = await call(adminToken, "POST", "/webcall/", body(extra));
      expect({ extra, status: response.statusCode }).toEqual({ extra, status: 400 });
      expect(response.json().detail).toMatch(detail);
    }
  });

  it("needs a token", async () => {
    expect((await call(null, "POST", "/webcall/", body())).statusCode).toBe(401);
    expect((await call(null, "GET", "/webcall/")).statusCode).toBe(401);
    expect((await call(null, "DELETE", `/webcall/${randomUUID()}`)).statusCode).toBe(401);
  });
});

describe("GET /webcall/ (list)", () => {
  it("lists the organisation's links, newest first, and never another organisation's", async () => {
    const theirs = (await call(otherToken, "POST", "/webcall/", body({ agent_id: otherAgent.id }))).json().data as WebCallLink;
    const mine = await createLink(adminToken, { call_title: "Newest" });
    const list = (await call(adminToken, "GET", "/webcall/?limit=100")).json() as { data: WebCallLink[]; total: number; page: number; limit: number };
    expect(list.data[0]!.id).toBe(mine.id);
    expect(list.data.map((link) => link.id)).not.toContain(theirs.id);
    expect(list).toMatchObject({ total: list.data.length, page: 1, limit: 100 });
    const theirList = (await call(otherToken, "GET", "/webcall/")).json() as { data: WebCallLink[] };
    expect(theirList.data.map((link) => link.id)).toEqual([theirs.id]);
    // Members see the organisation's links too.
    expect((await call(memberToken, "GET", "/webcall/")).json().total).toBe(list.total);
  });
});

describe("GET /webcall/public/{slug} (public)", () => {
  it("answers exactly {callTitle, name, subTitle, assistantId, instructions, firstMessage} without a token; the sandbox gives our agent id", async () => {
    const link = await createLink();
    const response = await call(null, "GET", `/webcall/public/${link.slug}`);
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(Object.keys(response.json())).toEqual(["data"]);
    expect(Object.keys(data).sort()).toEqual(["assistantId", "callTitle", "firstMessage", "instructions", "name", "subTitle"]);
    expect(data).toEqual({
      callTitle: "Your onboarding call",
      name: "Ada",
      subTitle: "A five-minute chat with our assistant",
      assistantId: agent.id,
      instructions: link.instructions,
      firstMessage: agent.agent_welcome_message,
    });
    for (const instruction of data.instructions) expect(Object.keys(instruction).sort()).toEqual(["description", "icon", "id", "title"]);
  });

  it("carries the agent's own first message, with {{name}} as the link's recipient", async () => {
    const welcoming = await call(adminToken, "POST", "/agent/", { agent_name: "Welcomer", agent_welcome_message: "Hi {{name}}, thanks for joining the Acme call!" });
    expect(welcoming.statusCode, welcoming.body).toBe(201);
    const link = await createLink(adminToken, { agent_id: welcoming.json().data.id, recipient_name: "Grace" });
    const details = (await call(null, "GET", `/webcall/public/${link.slug}`)).json().data;
    expect(details.firstMessage).toBe("Hi Grace, thanks for joining the Acme call!");
  });

  it("an unknown slug is a 404", async () => {
    for (const slug of ["AAAAAAAAAAAAAAAAAAAAAA", randomUUID(), "x"]) {
      const response = await call(null, "GET", `/webcall/public/${slug}`);
      expect({ slug, status: response.statusCode }).toEqual({ slug, status: 404 });
      expect(response.json().code).toBe("not_found");
    }
  });

  it("in Vapi mode the assistant id is the agent's Vapi assistant", async () => {
    const vapiLike = { ...createSandboxVoiceProvider(), mode: "vapi" as const, saveAssistant: async () => ({ assistantId: "asst_web_123" }) };
    const { app: vapiApp } = await buildTestApp(database, {}, undefined, vapiLike);
    try {
      const token = (await signUp(vapiApp)).token;
      await createOrganisation(vapiApp, token, "Vapi Web");
      const synced = await createAgent(token, vapiApp);
      const created = await call(token, "POST", "/webcall/", body({ agent_id: synced.id }), vapiApp);
      const details = await call(null, "GET", `/webcall/public/${created.json().data.slug}`, undefined, vapiApp);
      expect(details.json().data.assistantId).toBe("asst_web_123");
    } finally {
      await vapiApp.close();
    }
  });

  it("is rate-limited per IP (120 a minute)", async () => {
    const { app: limited } = await buildTestApp(database);
    try {
      const statuses: number[] = [];
      for (let index = 0; index < 121; index++) statuses.push((await limited.inject({ method: "GET", url: "/api/webcall/public/AAAAAAAAAAAAAAAAAAAAAA" })).statusCode);
      expect(statuses.slice(0, 120).every((status) => status === 404)).toBe(true);
      expect(statuses[120]).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe("GET /webcall/{id} (spec §7)", () => {
  it("answers the organisation's link by its id, to admins and members", async () => {
    const link = await createLink();
    for (const token of [adminToken, memberToken]) {
      const response = await call(token, "GET", `/webcall/${link.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ data: link });
    }
  });

  it("another organisation's link and an unknown id are 404; without a token 401", async () => {
    const link = await createLink();
    const theirs = await call(otherToken, "GET", `/webcall/${link.id}`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual({ detail: "Web call not found: the link may have been deleted.", code: "not_found" });
    expect((await call(adminToken, "GET", `/webcall/${randomUUID()}`)).statusCode).toBe(404);
    expect((await call(null, "GET", `/webcall/${link.id}`)).statusCode).toBe(401);
  });

  it("the slug is not an id: GET /webcall/{slug} is no longer the public lookup", async () => {
    const link = await createLink();
    expect((await call(null, "GET", `/webcall/${link.slug}`)).statusCode).toBe(401);
    expect((await call(adminToken, "GET", `/webcall/${link.slug}`)).statusCode).toBe(400);
  });
});

describe("DELETE /webcall/{id}", () => {
  it("removes the link; its public page answers 404 from then on", async () => {
    const link = await createLink(memberToken);
    const response = await call(memberToken, "DELETE", `/webcall/${link.id}`);
    expect(response.json()).toEqual({ data: { id: link.id } });
    expect((await call(null, "GET", `/webcall/public/${link.slug}`)).statusCode).toBe(404);
    expect((await call(adminToken, "DELETE", `/webcall/${link.id}`)).statusCode).toBe(404);
  });

  it("another organisation's link cannot be deleted (404) and keeps working", async () => {
    const link = await createLink();
    const response = await call(otherToken, "DELETE", `/webcall/${link.id}`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "Web call not found: the link may have been deleted.", code: "not_found" });
    expect((await call(null, "GET", `/webcall/public/${link.slug}`)).statusCode).toBe(200);
  });

  it("deleting the agent deletes its links", async () => {
    const doomed = await createAgent(adminToken);
    const link = await createLink(adminToken, { agent_id: doomed.id });
    expect((await call(adminToken, "DELETE", `/agent/${doomed.id}`)).statusCode).toBe(200);
    expect((await call(null, "GET", `/webcall/public/${link.slug}`)).statusCode).toBe(404);
    const rows = await database.db.select().from(webCallLinks);
    expect(rows.map((row) => row.id)).not.toContain(link.id);
  });
});
