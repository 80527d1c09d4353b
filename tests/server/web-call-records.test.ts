/**
 * Every web call becomes a call record of type web through the webhook route, and sandbox calls left
 * running end like any sandbox call:
 * - a Vapi web call (started by @vapi-ai/web in the browser, so our database never saw its id) is created
 *   from its end-of-call report when its assistant is one of our agents, once, and debited once;
 * - the public page's sandbox web call (POST /webcall/public/{slug}/call, …/end) is recorded with the
 *   agent's first message in its transcript, a summary and a cost, and debited;
 * - calls seeded as running (the demo) or left running by a stopped process are ended by the sandbox at
 *   start-up, with a transcript and a cost, and stop holding wallet credit; resuming twice ends them once.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call, WebCallLink } from "../../contract";
import type { Database } from "../../server/db/client";
import { agents, calls, wallets } from "../../server/db/schema";
import { generateDemoData, insertDemoData } from "../../server/seed/demo-calls";
import { createSandboxCalls, type SandboxEvent } from "../../server/voice/sandbox-calls";
import { resumeSandboxCalls } from "../../server/voice/sandbox-resume";
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { webhookDelivery } from "../../server/routes/webhooks";
import {
  WEBHOOK_SECRET,
  callRow,
  createAgent,
  endOfCallReport,
  getCall,
  ledgerOf,
  newOrganisation,
  postWebhook,
  waitFor,
  walletRow,
  type TestOrg,
} from "./calls-fixtures";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: TestOrg;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, STARTING_CREDIT_USD: "10", SANDBOX_CALL_SECONDS: "0.3" }));
  org = await newOrganisation(app, "Web Call Records");
});
afterAll(async () => {
  await app.close();
  await database.close();
});

async function link(token: string, agentId: string, recipient = "Ada"): Promise<WebCallLink> {
  const response = await app.inject({
    method: "POST",
    url: "/api/webcall/",
    headers: bearer(token),
    payload: { agent_id: agentId, call_title: "Onboarding", recipient_name: recipient },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as WebCallLink;
}

const webCallsOf = (orgId: string) => database.db.select().from(calls).where(eq(calls.orgId, orgId));

describe("a Vapi web call (the browser called Vapi directly)", () => {
  it("its end-of-call report creates one call record of type web in the agent's organisation, debited once, however often it arrives", async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Web Greeter" });
    const assistantId = `asst_${randomUUID()}`;
    await database.db.update(agents).set({ providerAssistantId: assistantId }).where(eq(agents.id, agent.id));
    const providerCallId = `vapi-web-${randomUUID()}`;
    const report = endOfCallReport({ providerCallId, type: "webCall", assistantId }, { cost: 0.25 });
    const before = (await walletRow(database.db, org.orgId))?.balanceMicros ?? 10_000_000;

    const first = await postWebhook(app, report);
    expect(first.statusCode, first.body).toBe(200);
    // A replay, and a concurrent pair: no second record, no second debit.
    await Promise.all([postWebhook(app, report), postWebhook(app, report)]);

    const rows = (await webCallsOf(org.orgId)).filter((row) => row.providerCallId === providerCallId);
    expect(rows).toHaveLength(1);
    const call = (await getCall(app, org.token, rows[0]!.id)).json().data as Call;
    expect(call).toMatchObject({
      type: "web",
      status: "ended",
      agent_id: agent.id,
      transcript: "AI: Hello! How are you doing today?\nUser: Fine, thanks.",
      summary: "The customer was fine.",
      cost: 0.25,
    });
    const debits = (await ledgerOf(database.db, org.orgId)).filter((entry) => entry.callId === rows[0]!.id);
    expect(debits).toHaveLength(1);
    expect(debits[0]).toMatchObject({ kind: "call", amountMicros: -250_000 });
    expect((await walletRow(database.db, org.orgId))!.balanceMicros).toBe(before - 250_000);
  });

  it("a report for an assistant that is not one of our agents creates nothing", async () => {
    const count = (await database.db.select().from(calls)).length;
    const response = await postWebhook(app, endOfCallReport({ providerCallId: `vapi-web-${randomUUID()}`, type: "webCall", assistantId: "asst_someone_else" }));
    expect(response.statusCode).toBe(200);
    expect((await database.db.select().from(calls)).length).toBe(count);
  });
});

describe("the public page's sandbox web call", () => {
  it("is a call record of type web: in progress when started, then the agent's welcome message, a summary and a cost when the page ends it", async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Sandbox Greeter", agent_welcome_message: "Welcome aboard, {{name}}! I'm your onboarding guide." });
    const { slug } = await link(org.token, agent.id, "Grace");

    const started = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} });
    expect(started.statusCode, started.body).toBe(201);
    const { id, maxDurationSeconds } = started.json().data as { id: string; maxDurationSeconds: number };
    expect(maxDurationSeconds).toBe(60);
    expect(await callRow(database.db, id)).toMatchObject({ type: "web", status: "in-progress", orgId: org.orgId, agentId: agent.id, isSandbox: true, customerName: "Grace" });

    // The call ran long enough for the greeting.
    await database.db.update(calls).set({ startedAt: new Date(Date.now() - 8_000) }).where(eq(calls.id, id));
    const ended = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call/${id}/end`, payload: { reason: "customer-ended-call" } });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toEqual({ data: { id, status: "ended" } });

    const call = (await getCall(app, org.token, id)).json().data as Call;
    expect(call.type).toBe("web");
    expect(call.status).toBe("ended");
    expect(call.ended_reason).toBe("customer-ended-call");
    expect(call.transcript?.split("\n")[0]).toBe("AI: Welcome aboard, Grace! I'm your onboarding guide.");
    expect(call.summary).toContain("Sandbox Greeter held a web call with Grace");
    expect(call.cost).toBeGreaterThan(0);
    expect(call.duration_seconds).toBeGreaterThanOrEqual(8);
    const debits = (await ledgerOf(database.db, org.orgId)).filter((entry) => entry.callId === id);
    expect(debits).toHaveLength(1);
    expect(debits[0]!.amountMicros).toBe(-Math.round(call.cost! * 1_000_000));

    // Ending it again changes nothing.
    const again = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call/${id}/end`, payload: {} });
    expect(again.json()).toEqual({ data: { id, status: "ended" } });
    expect((await ledgerOf(database.db, org.orgId)).filter((entry) => entry.callId === id)).toHaveLength(1);
  });

  it("is recorded with the webhook secret the route verifies with, also when none is configured (a random one per process)", async () => {
    const { app: plain } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.3" });
    try {
      const owner = await newOrganisation(plain, "No Secret Web Calls");
      const agent = await createAgent(plain, owner.token);
      const created = await plain.inject({ method: "POST", url: "/api/webcall/", headers: bearer(owner.token), payload: { agent_id: agent.id, call_title: "x", recipient_name: "Lin" } });
      const { slug } = created.json().data as WebCallLink;
      const { id } = (await plain.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} })).json().data as { id: string };
      expect((await callRow(database.db, id))!.status).toBe("in-progress");
      await plain.inject({ method: "POST", url: `/api/webcall/public/${slug}/call/${id}/end`, payload: {} });
      expect(await callRow(database.db, id)).toMatchObject({ status: "ended", type: "web" });
    } finally {
      await plain.close();
    }
  });

  it("ends only the link's own sandbox calls: another link's call or a phone call is a 404", async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Other Greeter" });
    const mine = await link(org.token, agent.id);
    const theirs = await link(org.token, (await createAgent(app, org.token)).id);
    const started = (await app.inject({ method: "POST", url: `/api/webcall/public/${theirs.slug}/call`, payload: {} })).json().data as { id: string };
    const wrong = await app.inject({ method: "POST", url: `/api/webcall/public/${mine.slug}/call/${started.id}/end`, payload: {} });
    expect(wrong.statusCode).toBe(404);
    expect((await callRow(database.db, started.id))!.status).toBe("in-progress");
    expect((await app.inject({ method: "POST", url: `/api/webcall/public/${mine.slug}/call/${randomUUID()}/end`, payload: {} })).statusCode).toBe(404);
    expect((await app.inject({ method: "POST", url: `/api/webcall/public/not-a-link/call`, payload: {} })).statusCode).toBe(404);
  });

  it("is refused (403, nothing written) while the organisation's wallet is too low", async () => {
    const poor = await newOrganisation(app, "Poor Web Calls");
    const agent = await createAgent(app, poor.token);
    const { slug } = await link(poor.token, agent.id);
    await database.db.insert(wallets).values({ orgId: poor.orgId, balanceMicros: 0 }).onConflictDoUpdate({ target: wallets.orgId, set: { balanceMicros: 0 } });
    const refused = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe("insufficient_balance");
    expect(await webCallsOf(poor.orgId)).toHaveLength(0);
  });

  it("is the sandbox's only: in Vapi mode the browser talks to Vapi (409)", async () => {
    const vapiLike = { ...createSandboxVoiceProvider(), mode: "vapi" as const, sandboxCalls: undefined, saveAssistant: async () => ({ assistantId: `asst_${randomUUID()}` }) };
    const { app: vapiApp } = await buildTestApp(database, {}, undefined, vapiLike);
    try {
      const vapiOrg = await newOrganisation(vapiApp, "Vapi Web Calls");
      const agent = await createAgent(vapiApp, vapiOrg.token);
      const created = await vapiApp.inject({ method: "POST", url: "/api/webcall/", headers: bearer(vapiOrg.token), payload: { agent_id: agent.id, call_title: "x", recipient_name: "y" } });
      const response = await vapiApp.inject({ method: "POST", url: `/api/webcall/public/${created.json().data.slug}/call`, payload: {} });
      expect(response.statusCode).toBe(409);
      expect(await webCallsOf(vapiOrg.orgId)).toHaveLength(0);
    } finally {
      await vapiApp.close();
    }
  });

  it("the events it posts are Vapi's ServerMessage shapes", async () => {
    const agent = await createAgent(app, org.token);
    const { slug } = await link(org.token, agent.id);
    const sent: unknown[] = [];
    const engine = createSandboxCalls();
    const real = webhookDelivery(app, WEBHOOK_SECRET);
    engine.connect({ ...real, post: async (body, headers) => (sent.push(JSON.parse(body)), real.post(body, headers)) });
    const original = app.voice.sandboxCalls!;
    Object.assign(app.voice, { sandboxCalls: engine });
    try {
      const { id } = (await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} })).json().data as { id: string };
      await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call/${id}/end`, payload: { reason: "assistant-ended-call" } });
    } finally {
      Object.assign(app.voice, { sandboxCalls: original });
      await engine.close();
    }
    expect(sent.map((body) => (body as { message: { type: string; status?: string } }).message).map((m) => `${m.type}:${m.status ?? ""}`)).toEqual([
      "status-update:in-progress",
      "status-update:ended",
      "end-of-call-report:",
    ]);
    for (const body of sent) expect(loadVapiOpenApi().problems("ServerMessage", body)).toEqual([]);
  });
});

describe("sandbox calls left running (seeded as running, or a process that stopped)", () => {
  it("end at start-up like any sandbox call, once, and stop holding the wallet", async () => {
    const demo = await newOrganisation(app, "Demo Resume");
    const data = generateDemoData({ orgId: demo.orgId, createdBy: demo.userId, now: new Date(), startingCreditMicros: 10_000_000, callCount: 40 });
    await insertDemoData(database.db, data);
    const running = data.calls.filter((row) => row.status === "in-progress").map((row) => row.id!);
    expect(running.length).toBe(3);
    const walletBefore = (await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(demo.token) })).json().data as { balance: number; available?: number };
    const balanceBefore = (await walletRow(database.db, demo.orgId))!.balanceMicros;

    // Two processes (or a restart while the end is on its way) resume the same calls.
    const engines = [createSandboxCalls(), createSandboxCalls()];
    const played: SandboxEvent[][] = [];
    for (const engine of engines) {
      engine.connect(webhookDelivery(app, WEBHOOK_SECRET));
      const original = engine.play.bind(engine);
      engine.play = (key, events) => (played.push(events), original(key, events));
      // (Other tests' sandbox calls may still run in this database: they are ended too.)
      expect(await resumeSandboxCalls(database.db, engine, { callSeconds: 0.3 })).toBeGreaterThanOrEqual(3);
    }
    try {
      for (const id of running) {
        const call = await waitFor(async () => {
          const row = await callRow(database.db, id);
          return row?.status === "ended" && row.costMicros !== null ? row : null;
        }, 10_000, `seeded call ${id} to end`);
        expect(call.transcript).toBeTruthy();
        expect(call.summary).toBeTruthy();
        expect(call.endedReason).toBe("assistant-ended-call");
        expect(call.durationSeconds).toBeGreaterThan(0);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
    for (const events of played) for (const event of events) expect(loadVapiOpenApi().problems("ServerMessage", { message: event.message })).toEqual([]);

    const ledger = await ledgerOf(database.db, demo.orgId);
    let debited = 0;
    for (const id of running) {
      const debits = ledger.filter((entry) => entry.callId === id);
      expect(debits).toHaveLength(1);
      debited += -debits[0]!.amountMicros;
      expect(-debits[0]!.amountMicros).toBe((await callRow(database.db, id))!.costMicros);
    }
    expect((await walletRow(database.db, demo.orgId))!.balanceMicros).toBe(balanceBefore - debited);
    // Nothing runs any more, so nothing holds the balance.
    expect((await database.db.select().from(calls).where(eq(calls.orgId, demo.orgId))).filter((row) => row.status !== "ended")).toHaveLength(0);
    const walletAfter = (await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(demo.token) })).json().data as Record<string, unknown>;
    expect(walletAfter).not.toEqual(walletBefore);

    // A later start-up finds none of them left to end.
    const left = await database.db.select().from(calls).where(eq(calls.orgId, demo.orgId));
    expect(left.filter((row) => row.status !== "ended")).toEqual([]);
  });

  it("a call past its agent's max_duration_seconds ends at that limit", async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Short calls", max_duration_seconds: 30 });
    const id = randomUUID();
    const startedAt = new Date(Date.now() - 10 * 60_000);
    await database.db.insert(calls).values({ id, orgId: org.orgId, type: "outbound", status: "in-progress", agentId: agent.id, customerNumber: "+14155550111", isSandbox: true, startedAt });
    const engine = createSandboxCalls();
    engine.connect(webhookDelivery(app, WEBHOOK_SECRET));
    try {
      await resumeSandboxCalls(database.db, engine, { callSeconds: 0.3 });
      const row = await waitFor(async () => {
        const current = await callRow(database.db, id);
        return current?.costMicros !== null && current?.status === "ended" ? current : null;
      });
      expect(row.endedReason).toBe("exceeded-max-duration");
      expect(row.durationSeconds).toBe(30);
      expect(row.endedAt!.getTime()).toBe(startedAt.getTime() + 30_000);
    } finally {
      await engine.close();
    }
  });
});
