/**
 * GET /api/agent/{id} answers from AgentAnswers (server/agents/repository.ts): JSON text remembered by the
 * content of the agent's row. These tests hold it to the route's contract: the same answer the agent's
 * other routes give, never a stale one (even after a change that leaves updated_at alone), another
 * organisation's agent 404, and a bounded memory.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSchema, type Agent } from "../../contract";
import { AgentAnswers, toApiAgent } from "../../server/agents/repository";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { agents } from "../../server/db/schema";
import { bearer, buildTestApp, migratedDatabase, organisationCast } from "./helpers";

let database: Database;
let app: FastifyInstance;
let adminToken: string;
let otherToken: string;
let orgId: string;

const get = (token: string, id: string) => app.inject({ method: "GET", url: `/api/agent/${id}`, headers: bearer(token) });

async function create(token: string, body: object): Promise<Agent> {
  const response = await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(token), payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Agent }).data;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  ({ adminToken, otherToken, orgId } = await organisationCast(app, "Answers Inc"));
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe("GET /agent/{id}", () => {
  it("answers the agent as its other routes do, as JSON, the same again when asked again", async () => {
    const created = await create(adminToken, { agent_name: "Quoted \"Q\" \u00e9\u{1F600}", agent_prompt: "Line one\nline two\t\\ done" });
    for (let round = 0; round < 3; round++) {
      const response = await get(adminToken, created.id);
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.json()).toEqual({ data: created });
      expect(agentSchema.parse((response.json() as { data: Agent }).data)).toEqual(created);
    }
    const listed = (await app.inject({ method: "GET", url: "/api/agent/", headers: bearer(adminToken) })).json() as { data: Agent[] };
    expect(listed.data.find((agent) => agent.id === created.id)).toEqual(created);
  });

  it("answers every change at once, through the API or straight in the database, updated_at untouched included", async () => {
    const created = await create(adminToken, { agent_name: "Before" });
    expect((await get(adminToken, created.id)).json()).toMatchObject({ data: { agent_name: "Before" } });

    const put = await app.inject({ method: "PUT", url: `/api/agent/${created.id}`, headers: bearer(adminToken), payload: { agent_name: "After" } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await get(adminToken, created.id)).json()).toEqual(put.json());

    // A write that leaves updated_at as it was still changes the answer: the row's content is the key.
    const [before] = await database.db.select().from(agents).where(eq(agents.id, created.id));
    await database.db
      .update(agents)
      .set({ isPublic: true, providerAssistantId: "asst_direct", config: sql`${agents.config} || '{"agent_name": "Direct"}'::jsonb` })
      .where(eq(agents.id, created.id));
    const [after] = await database.db.select().from(agents).where(eq(agents.id, created.id));
    expect(after?.updatedAt).toEqual(before?.updatedAt);
    const answered = (await get(adminToken, created.id)).json() as { data: Agent };
    expect(answered.data).toMatchObject({ agent_name: "Direct", is_public: true, provider_assistant_id: "asst_direct", sync_status: "synced" });
    expect(answered.data).toEqual(toApiAgent(after!));

    // Back to no assistant (null, not an empty string): answered as such.
    await database.db.update(agents).set({ providerAssistantId: null }).where(eq(agents.id, created.id));
    expect((await get(adminToken, created.id)).json()).toMatchObject({ data: { provider_assistant_id: null, sync_status: "local" } });

    await app.inject({ method: "DELETE", url: `/api/agent/${created.id}`, headers: bearer(adminToken) });
    expect((await get(adminToken, created.id)).statusCode).toBe(404);
  });

  it("answers 404 for another organisation's agent, asked before or after its own organisation", async () => {
    const theirs = await create(otherToken, { agent_name: "Theirs" });
    expect((await get(otherToken, theirs.id)).statusCode).toBe(200);
    const response = await get(adminToken, theirs.id);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "Agent not found", code: "not_found" });
    expect((await get(adminToken, randomUUID())).json()).toEqual(response.json());
    expect((await get(otherToken, theirs.id)).statusCode).toBe(200);
  });

  it("keeps at most its number of answers, the least recently used dropped first", async () => {
    const written: string[] = [];
    const answers = new AgentAnswers((body) => (written.push(body.data.agent_name), JSON.stringify(body)), 2);
    const scope = orgScope(database.db, orgId);
    const [a, b, c] = [await create(adminToken, { agent_name: "A" }), await create(adminToken, { agent_name: "B" }), await create(adminToken, { agent_name: "C" })];
    for (const agent of [a, b, a, c, a, b]) expect(JSON.parse((await answers.find(database.db, scope, agent.id))!)).toEqual({ data: agent });
    expect(answers.size).toBe(2);
    // a was kept (used again before c came), b was dropped for c and written again.
    expect(written).toEqual(["A", "B", "C", "B"]);
    expect(await answers.find(database.db, orgScope(database.db, randomUUID()), a.id)).toBeNull();
  });
});
