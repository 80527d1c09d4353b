/**
 * The sandbox's simulated calls: the events it sends match Vapi's ServerMessage schemas, outcomes are
 * chosen by the number's last digits (else by the call id), and a call placed with POST /call/public
 * runs through the signed webhook route to a complete record with one wallet debit. Timers stop when
 * the app closes, and a call whose agent or organisation is deleted mid-call does no harm.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentConfigSchema, type Call } from "../../contract";
import type { Database } from "../../server/db/client";
import { calls, organizations } from "../../server/db/schema";
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { SANDBOX_RATE_PER_MINUTE, sandboxCallScript, sandboxOutcome, type SandboxOutcome } from "../../server/voice/sandbox-calls";
import type { PhoneCallRequest } from "../../server/voice/types";
import { ORDER_OUTCOME_TOOL } from "../../server/orders/outcome";
import { verifyWebhook } from "../../server/webhooks/signature";
import { WEBHOOK_SECRET, addPhoneNumber, callRow, createAgent, getCall, ledgerOf, newOrganisation, waitFor, waitForEndedCall, type TestOrg } from "./calls-fixtures";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

const vapi = loadVapiOpenApi();

function request(overrides: Partial<PhoneCallRequest> = {}, configOverrides: Record<string, unknown> = {}): PhoneCallRequest {
  const config = agentConfigSchema.parse({
    agent_name: "Northwind desk",
    agent_welcome_message: "Hello {{name}}! This is Northwind calling.",
    voice: { voice_mail: "Sorry we missed you, {{ name }}. We'll call back." },
    analysis_plan: { structured_data_prompt: "Extract the outcome." },
    ...configOverrides,
  });
  return {
    callId: randomUUID(),
    orgId: "org_sandbox",
    agent: { id: randomUUID(), orgId: "org_sandbox", config, knowledgeBase: [] },
    assistantId: null,
    phoneNumber: { id: randomUUID(), number: "+14155550000", providerNumberId: null },
    customer: { number: "+14155550100", name: "Grace" },
    variableValues: { name: "Grace" },
    ...overrides,
  };
}

describe("the sandbox's script of a call", () => {
  it("outcomes: …00 answered, …01 busy, …02 no answer, …03 voicemail, …05 declined; otherwise stable per call id", () => {
    const id = randomUUID();
    expect(sandboxOutcome(id, "+14155550100")).toBe("answered");
    expect(sandboxOutcome(id, "+14155550101")).toBe("busy");
    expect(sandboxOutcome(id, "+14155550102")).toBe("no-answer");
    expect(sandboxOutcome(id, "+14155550103")).toBe("voicemail");
    expect(sandboxOutcome(id, "+14155550105")).toBe("declined");
    expect(sandboxOutcome(id, "+14155550177")).toBe(sandboxOutcome(id, "+14155550177"));
    const spread = new Map<SandboxOutcome, number>();
    for (let i = 0; i < 400; i++) {
      const outcome = sandboxOutcome(randomUUID(), "+14155550177");
      spread.set(outcome, (spread.get(outcome) ?? 0) + 1);
    }
    expect(spread.get("answered")).toBeGreaterThan(250);
    expect(spread.size).toBe(4);
  });

  it("…05 is answered and the customer declines; with the order-outcome tool, …00 and …05 play a purchase-completion call that reports completed or declined", () => {
    const declined = sandboxCallScript(request({ customer: { number: "+14155550105", name: "Grace" } }), "sandbox-05", Date.now(), 6);
    const report = declined.at(-1)!.message as { endedReason: string; artifact: { transcript: string } };
    expect(report.endedReason).toBe("assistant-ended-call");
    expect(report.artifact.transcript).toMatch(/not interested/);
    for (const [number, outcome, said] of [
      ["+14155550100", "completed", /finish it now/],
      ["+14155550105", "declined", /decided not to buy/],
    ] as const) {
      const variableValues = { name: "Grace", cart_items: "2 × Blue mug ($12.00)", cart_total: "$24.00", store_name: "Mug Shop", order_reference: "#1042", checkout_link: "https://shop.example.com/c/1" };
      const events = sandboxCallScript(request({ customer: { number, name: "Grace" }, variableValues, orderOutcomeTool: ORDER_OUTCOME_TOOL }), `sandbox-order-${outcome}`, Date.now(), 6);
      expect(events.map((event) => (event.message.type === "status-update" ? event.message.status : event.message.type))).toEqual(["queued", "ringing", "in-progress", "tool-calls", "ended", "end-of-call-report"]);
      for (const event of events) expect(vapi.problems("ServerMessage", { message: event.message }), event.message.type as string).toEqual([]);
      const toolCall = events[3]!.message as { toolCallList: { function: { name: string; arguments: string } }[] };
      expect(toolCall.toolCallList[0]!.function.name).toBe("record_order_outcome");
      expect(JSON.parse(toolCall.toolCallList[0]!.function.arguments)).toEqual({ outcome });
      const end = events.at(-1)!.message as { artifact: { transcript: string }; analysis: { structuredData: Record<string, unknown> } };
      expect(end.artifact.transcript).toMatch(/Mug Shop about your order #1042: you left 2 × Blue mug \(\$12\.00\) in your cart, \$24\.00 in all/);
      expect(end.artifact.transcript).toMatch(said);
      expect(end.analysis.structuredData).toMatchObject({ order_outcome: outcome });
    }
  });

  it.each([
    ["answered", "+14155550100", ["queued", "ringing", "in-progress", "ended"], "assistant-ended-call"],
    ["busy", "+14155550101", ["queued", "ringing", "ended"], "customer-busy"],
    ["no answer", "+14155550102", ["queued", "ringing", "ended"], "customer-did-not-answer"],
    ["voicemail", "+14155550103", ["queued", "ringing", "in-progress", "ended"], "voicemail"],
  ])("%s: status-updates then an end-of-call-report, every one as Vapi's ServerMessage schemas have them", (_name, number, statuses, endedReason) => {
    const events = sandboxCallScript(request({ customer: { number, name: "Grace" } }), "sandbox-1", Date.now(), 6);
    expect(events.map((event) => event.message.status ?? event.message.type)).toEqual([...statuses, "end-of-call-report"]);
    for (const event of events) {
      const schema = event.message.type === "status-update" ? "ServerMessageStatusUpdate" : "ServerMessageEndOfCallReport";
      expect({ type: event.message.type, problems: vapi.problems(schema, event.message) }).toEqual({ type: event.message.type, problems: [] });
      expect(vapi.problems("ServerMessage", { message: event.message })).toEqual([]);
    }
    expect(events.at(-1)!.message.endedReason).toBe(endedReason);
    // In time: never earlier than the event before.
    const times = events.map((event) => event.at);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times.at(-1)).toBeLessThanOrEqual(6000);
  });

  it("an answered call: the agent's own messages with variables filled in, times, a summary, an evaluation and a cost per minute", () => {
    const placedAt = Date.parse("2026-03-01T12:00:00Z");
    const events = sandboxCallScript(request(), "sandbox-2", placedAt, 60);
    const report = events.at(-1)!.message as Record<string, any>;
    const messages = report.artifact.messages as { role: string; message: string; secondsFromStart: number }[];
    expect(messages[0]).toMatchObject({ role: "bot", message: "Hello Grace! This is Northwind calling.", secondsFromStart: 0 });
    expect(messages.at(-1)).toMatchObject({ role: "bot", message: "Thank you for calling. Have a great day!" });
    expect(messages.some((message) => message.role === "user")).toBe(true);
    expect(messages.map((message) => message.secondsFromStart)).toEqual([...messages.map((message) => message.secondsFromStart)].sort((a, b) => a - b));
    expect(report.artifact.transcript).toMatch(/^AI: Hello Grace!.*\nUser: /);
    expect(report.analysis).toMatchObject({ summary: expect.stringContaining("Grace"), successEvaluation: "80", structuredData: { outcome: "answered" } });
    // 75 % of 60 s in progress = 45 s at $0.10 a minute.
    expect(report.cost).toBeCloseTo(0.075, 6);
    expect(report.call.costBreakdown).toEqual({ ...SANDBOX_RATE_PER_MINUTE, transport: 0.0075, stt: 0.0075, llm: 0.015, tts: 0.0075, vapi: 0.0375, total: 0.075 });
    expect(Date.parse(report.endedAt) - Date.parse(report.startedAt)).toBe(45_000);
  });

  it("voicemail leaves the agent's voicemail message; unanswered calls cost nothing and have no transcript", () => {
    const voicemail = sandboxCallScript(request({ customer: { number: "+14155550103", name: null } }), "s", Date.now(), 6).at(-1)!.message as Record<string, any>;
    expect(voicemail.artifact.messages).toEqual([expect.objectContaining({ role: "bot", message: "Sorry we missed you, Grace. We'll call back." })]);
    const busy = sandboxCallScript(request({ customer: { number: "+14155550101", name: null } }), "s", Date.now(), 6).at(-1)!.message as Record<string, any>;
    expect(busy).toMatchObject({ cost: 0, artifact: { transcript: "", messages: [] }, analysis: {} });
  });
});

describe("the sandbox provider's timers", () => {
  it("delivers signed events in order, and none after close()", async () => {
    const provider = createSandboxVoiceProvider({ callSeconds: 0.3 });
    const delivered: string[] = [];
    provider.connectWebhooks!({
      secret: WEBHOOK_SECRET,
      post: async (body, headers) => {
        expect(verifyWebhook({ secret: WEBHOOK_SECRET, headers, rawBody: body }).ok).toBe(true);
        const message = (JSON.parse(body) as { message: { type: string; status?: string } }).message;
        delivered.push(message.status ?? message.type);
        return { statusCode: 200, body: "{}" };
      },
    });
    await provider.startPhoneCall(request());
    await waitFor(async () => delivered.length >= 5, 5000, "all events");
    expect(delivered).toEqual(["queued", "ringing", "in-progress", "ended", "end-of-call-report"]);

    delivered.length = 0;
    const slow = createSandboxVoiceProvider({ callSeconds: 1 });
    slow.connectWebhooks!({
      secret: WEBHOOK_SECRET,
      post: async (body) => {
        delivered.push(body);
        return { statusCode: 200, body: "{}" };
      },
    });
    await slow.startPhoneCall(request());
    await waitFor(async () => delivered.length >= 1, 5000, "the first event");
    await slow.close!();
    const afterClose = delivered.length;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(delivered.length).toBe(afterClose);
    expect(afterClose).toBeLessThan(5);
  });
});

describe("through the app: POST /call/public → signed webhooks → a complete record", () => {
  let database: Database;
  let app: FastifyInstance;
  let org: TestOrg;
  let agentId: string;
  let phoneNumberId: string;

  beforeAll(async () => {
    database = await migratedDatabase();
    ({ app } = await buildTestApp(database, {
      SANDBOX_CALL_SECONDS: "0.3",
      STARTING_CREDIT_USD: "10",
      PUBLIC_CALL_PER_IP_PER_MINUTE: "1000",
      PUBLIC_CALL_PER_NUMBER_PER_HOUR: "1000",
    }));
    org = await newOrganisation(app, "Sandbox Co");
    agentId = (await createAgent(app, org.token, { agent_name: "Sandbox desk", is_public: true, agent_welcome_message: "Hi {{name}}, it's Sandbox desk." })).id;
    phoneNumberId = await addPhoneNumber(database.db, org.orgId);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const placePublic = async (number: string, name = "Linus") => {
    const response = await app.inject({
      method: "POST",
      url: "/api/call/public",
      payload: { assistantId: agentId, assistantOverrides: { variableValues: { name } }, customer: { number }, phoneNumberId },
    });
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: { id: string } }).data.id;
  };

  it("an answered call ends with transcript, messages, summary, evaluation, cost and exactly one debit of that cost", async () => {
    const id = await placePublic("+14155550100");
    const call = await waitForEndedCall(app, org.token, id);
    expect(call).toMatchObject({
      status: "ended",
      type: "outbound",
      ended_reason: "assistant-ended-call",
      is_sandbox: true,
      customer_name: "Linus",
      summary: expect.stringContaining("Linus"),
      success_evaluation: "80",
      success: "pass",
      outcome: "answered",
      recording_url: null,
    });
    expect(call.transcript).toContain("AI: Hi Linus, it's Sandbox desk.");
    expect(call.transcript).toContain("AI: Thank you for calling. Have a great day!");
    expect(call.messages[0]).toMatchObject({ role: "assistant", message: "Hi Linus, it's Sandbox desk.", seconds_from_start: 0 });
    expect(call.messages.some((message) => message.role === "user")).toBe(true);
    expect(call.duration_seconds).toBeGreaterThanOrEqual(1);
    expect(call.cost).toBeGreaterThan(0);
    expect(call.cost_breakdown).toMatchObject({ transport: expect.any(Number), stt: expect.any(Number), llm: expect.any(Number), tts: expect.any(Number), vapi: expect.any(Number), total: call.cost });

    // The report was the last event; give any straggler a moment, then count debits.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ledger = await ledgerOf(database.db, org.orgId);
    const debits = ledger.filter((entry) => entry.callId === id);
    expect(debits).toHaveLength(1);
    expect(debits[0]!.amountMicros).toBe(-Math.round(call.cost! * 1_000_000));
    const wallet = (await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(org.token) })).json().data;
    expect(wallet.balance).toBeCloseTo(10 - call.cost!, 6);
    expect(wallet.ledger.map((entry: { kind: string }) => entry.kind)).toEqual(["call", "starting-credit"]);
  });

  it.each([
    ["+14155550101", "customer-busy"],
    ["+14155550102", "customer-did-not-answer"],
  ])("%s ends %s, costs nothing and debits nothing", async (number, endedReason) => {
    const id = await placePublic(number);
    const call = await waitForEndedCall(app, org.token, id);
    expect(call).toMatchObject({ ended_reason: endedReason, cost: 0, transcript: "", messages: [], summary: null, success: null });
    expect(call.outcome).toBe(endedReason === "customer-busy" ? "busy" : "no_answer");
    expect((await ledgerOf(database.db, org.orgId)).some((entry) => entry.callId === id)).toBe(false);
  });

  it("voicemail ends 'voicemail'", async () => {
    const call = await waitForEndedCall(app, org.token, await placePublic("+14155550103"));
    expect(call).toMatchObject({ ended_reason: "voicemail", outcome: "voicemail" });
  });

  it("the agent deleted mid-call: the call still completes, without its agent", async () => {
    const doomed = await createAgent(app, org.token, { is_public: true });
    const response = await app.inject({
      method: "POST",
      url: "/api/call/public",
      payload: { assistantId: doomed.id, customer: { number: "+14155550100" }, phoneNumberId },
    });
    const { id } = (response.json() as { data: { id: string } }).data;
    expect((await app.inject({ method: "DELETE", url: `/api/agent/${doomed.id}`, headers: bearer(org.token) })).statusCode).toBe(200);
    const call: Call = await waitForEndedCall(app, org.token, id);
    expect(call).toMatchObject({ agent_id: null, ended_reason: "assistant-ended-call" });
  });

  it("the organisation deleted mid-call: the events are acknowledged and ignored, the server carries on", async () => {
    const doomed = await newOrganisation(app, "Short Lived");
    const agent = await createAgent(app, doomed.token, { is_public: true });
    const number = await addPhoneNumber(database.db, doomed.orgId);
    const response = await app.inject({ method: "POST", url: "/api/call/public", payload: { assistantId: agent.id, customer: { number: "+14155550100" }, phoneNumberId: number } });
    expect(response.statusCode, response.body).toBe(201);
    const { id } = (response.json() as { data: { id: string } }).data;
    await database.db.delete(organizations).where(eq(organizations.id, doomed.orgId));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await callRow(database.db, id)).toBeUndefined();
    expect((await app.inject({ method: "GET", url: "/api/health" })).statusCode).toBe(200);
    expect((await getCall(app, org.token, id)).statusCode).toBe(404);
  });

  it("closing the app stops the calls under way (no events after close)", async () => {
    const { app: shortLived } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "1" });
    const response = await shortLived.inject({
      method: "POST",
      url: "/api/call/public",
      payload: { assistantId: agentId, customer: { number: "+14155550100" }, phoneNumberId },
    });
    const { id } = (response.json() as { data: { id: string } }).data;
    await waitFor(async () => (await callRow(database.db, id))?.providerCallId, 5000, "the call to be placed");
    const started = Date.now();
    await shortLived.close();
    expect(Date.now() - started).toBeLessThan(1000);
    const atClose = await callRow(database.db, id);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const later = (await database.db.select().from(calls).where(eq(calls.id, id)))[0];
    expect(later!.status).toBe(atClose!.status);
    expect(later!.status).not.toBe("ended");
  });
});
