/**
 * POST /api/webhooks/vapi: signature and bearer verification over the raw body, stale and replayed
 * deliveries, each event processed once (also concurrently), status that never moves back, records
 * created for inbound and web calls first seen, end-of-call reports completing the record and debiting
 * the wallet once, tool-calls answered in Vapi's shape, other types acknowledged. Every payload is
 * built to Vapi's ServerMessage schemas (checked with the OpenAPI document).
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { agents, calls } from "../../server/db/schema";
import { signWebhook, timestampMs, verifyWebhook } from "../../server/webhooks/signature";
import {
  WEBHOOK_SECRET,
  addPhoneNumber,
  callRow,
  createAgent,
  endOfCallReport,
  getCall,
  ledgerOf,
  newOrganisation,
  postWebhook,
  rowCounts,
  serverMessage,
  statusUpdate,
  walletRow,
  type TestOrg,
} from "./calls-fixtures";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { buildTestApp, migratedDatabase } from "./helpers";
import { eq } from "drizzle-orm";

let database: Database;
let app: FastifyInstance;
let org: TestOrg;
let agentId: string;
let phoneNumberId: string;

/** An outbound call row as POST /call/ leaves it (queued, with our id), for events to find. */
async function queuedCall(options: { providerCallId?: string | null } = {}) {
  const id = randomUUID();
  await orgScope(database.db, org.orgId).insert(calls, {
    id,
    type: "outbound",
    status: "queued",
    agentId,
    phoneNumberId,
    customerNumber: "+14155550100",
    customerName: "Ada",
    providerCallId: options.providerCallId ?? null,
  });
  return id;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, STARTING_CREDIT_USD: "10" }));
  org = await newOrganisation(app, "Webhooks Ltd");
  agentId = (await createAgent(app, org.token, { agent_name: "Reception" })).id;
  phoneNumberId = await addPhoneNumber(database.db, org.orgId);
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("verifyWebhook", () => {
  const body = '{"message":{"type":"hang"}}';
  const now = Date.parse("2026-03-01T12:00:00Z");
  const seconds = String(Math.floor(now / 1000));

  it("accepts a hex HMAC over {timestamp}.{body} with the timestamp in seconds or milliseconds", () => {
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now, headers: { "x-timestamp": seconds, "x-signature": signWebhook("s3cret", seconds, body) } })).toEqual({
      ok: true,
      method: "hmac",
    });
    const ms = String(now);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now, headers: { "x-timestamp": ms, "x-signature": signWebhook("s3cret", ms, body) } }).ok).toBe(true);
    expect(timestampMs(seconds)).toBe(now);
    expect(timestampMs(ms)).toBe(now);
  });

  it("refuses another body, another secret, a stale or future timestamp, a missing timestamp", () => {
    const signature = signWebhook("s3cret", seconds, body);
    expect(verifyWebhook({ secret: "s3cret", rawBody: `${body} `, now, headers: { "x-timestamp": seconds, "x-signature": signature } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "other", rawBody: body, now, headers: { "x-timestamp": seconds, "x-signature": signature } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now: now + 5 * 60_000 + 1000, headers: { "x-timestamp": seconds, "x-signature": signature } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("5 minutes"),
    });
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now: now - 6 * 60_000, headers: { "x-timestamp": seconds, "x-signature": signature } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now, headers: { "x-signature": signature } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, now, headers: { "x-timestamp": "yesterday", "x-signature": signature } }).ok).toBe(false);
  });

  it("accepts the bearer credential; a signature, when present, must verify on its own", () => {
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, headers: { authorization: "Bearer s3cret" } })).toEqual({ ok: true, method: "bearer" });
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, headers: { authorization: "Bearer s3cre" } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, headers: { authorization: "Bearer s3cret", "x-timestamp": seconds, "x-signature": "00" } }).ok).toBe(false);
    expect(verifyWebhook({ secret: "s3cret", rawBody: body, headers: {} }).ok).toBe(false);
  });
});

describe("POST /api/webhooks/vapi: verification", () => {
  it("accepts seconds and milliseconds timestamps and the bearer credential", async () => {
    const hang = serverMessage({ type: "hang", timestamp: Date.now() });
    expect((await postWebhook(app, hang)).json()).toEqual({ received: true });
    expect((await postWebhook(app, hang, { timestamp: String(Date.now()) })).statusCode).toBe(200);
    const viaBearer = await postWebhook(app, hang, { headers: { authorization: `Bearer ${WEBHOOK_SECRET}` } });
    expect(viaBearer.statusCode, viaBearer.body).toBe(200);
  });

  it("answers 401 and changes nothing for a wrong signature, a stale timestamp, a wrong bearer or none", async () => {
    const callId = await queuedCall();
    const event = statusUpdate({ providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId }, "ringing");
    const before = await rowCounts(database.db);
    const stale = String(Math.floor(Date.now() / 1000) - 6 * 60);
    for (const response of [
      await postWebhook(app, event, { secret: "not-the-secret-at-all" }),
      await postWebhook(app, event, { timestamp: stale }),
      await postWebhook(app, event, { timestamp: String(Math.floor(Date.now() / 1000) + 6 * 60) }),
      await postWebhook(app, event, { headers: { authorization: "Bearer wrong" } }),
      await postWebhook(app, event, { headers: {} }),
    ]) {
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json()).toMatchObject({ code: "unauthorized", detail: expect.any(String) });
    }
    expect(await rowCounts(database.db)).toEqual(before);
    expect((await callRow(database.db, callId))!.status).toBe("queued");
  });

  it("verifies the raw body: the same JSON re-serialised differently does not pass", async () => {
    const body = JSON.stringify(serverMessage({ type: "hang", timestamp: Date.now() }));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await postWebhook(app, body.replace("{", "{ "), { headers: { "x-timestamp": timestamp, "x-signature": signWebhook(WEBHOOK_SECRET, timestamp, body) } });
    expect(response.statusCode).toBe(401);
  });

  it("a verified body that is not a ServerMessage is a 400; an unknown type is acknowledged", async () => {
    expect((await postWebhook(app, "not json")).statusCode).toBe(400);
    expect((await postWebhook(app, { nothing: true })).statusCode).toBe(400);
    const unknown = await postWebhook(app, { message: { type: "something-new", timestamp: Date.now() } });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({ received: true });
    const speech = await postWebhook(app, serverMessage({ type: "speech-update", status: "started", role: "assistant", timestamp: Date.now() }));
    expect(speech.json()).toEqual({ received: true });
  });
});

describe("status-update", () => {
  it("moves the status forward, records the provider's call id, and never moves back", async () => {
    const callId = await queuedCall();
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId };
    expect((await postWebhook(app, statusUpdate(ref, "ringing"))).statusCode).toBe(200);
    expect(await callRow(database.db, callId)).toMatchObject({ status: "ringing", providerCallId: ref.providerCallId });
    await postWebhook(app, statusUpdate(ref, "in-progress"));
    await postWebhook(app, statusUpdate(ref, "ringing"));
    await postWebhook(app, statusUpdate(ref, "queued"));
    expect((await callRow(database.db, callId))!.status).toBe("in-progress");
    await postWebhook(app, statusUpdate(ref, "ended", { endedReason: "customer-ended-call" }));
    expect(await callRow(database.db, callId)).toMatchObject({ status: "ended", endedReason: "customer-ended-call" });
    expect((await callRow(database.db, callId))!.endedAt).toBeInstanceOf(Date);
  });

  it("finds the call by the provider's call id when the event carries no metadata", async () => {
    const providerCallId = `vapi-${randomUUID()}`;
    const callId = await queuedCall({ providerCallId });
    await postWebhook(app, statusUpdate({ providerCallId }, "ringing"));
    expect((await callRow(database.db, callId))!.status).toBe("ringing");
  });

  it("a replayed event is processed once; a call we do not know is acknowledged and leaves no trace", async () => {
    const callId = await queuedCall();
    const event = statusUpdate({ providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId }, "ringing");
    const first = await rowCounts(database.db);
    await postWebhook(app, event);
    const afterFirst = await rowCounts(database.db);
    expect(afterFirst.webhookEvents).toBe(first.webhookEvents + 1);
    const again = await postWebhook(app, event);
    expect(again.statusCode).toBe(200);
    expect(await rowCounts(database.db)).toEqual(afterFirst);

    const stranger = await postWebhook(app, statusUpdate({ providerCallId: `vapi-${randomUUID()}` }, "ringing"));
    expect(stranger.json()).toEqual({ received: true });
    expect(await rowCounts(database.db)).toEqual(afterFirst);
  });

  it("creates the record of an inbound call first seen, when the assistant is one of our agents", async () => {
    const assistantId = `asst-${randomUUID()}`;
    const providerNumberId = `pn-${randomUUID()}`;
    await orgScope(database.db, org.orgId).update(agents, { providerAssistantId: assistantId }, eq(agents.id, agentId));
    const ourNumber = await addPhoneNumber(database.db, org.orgId, { providerNumberId });
    const providerCallId = `vapi-${randomUUID()}`;
    const ref = { providerCallId, type: "inboundPhoneCall" as const, assistantId, phoneNumberId: providerNumberId, customerNumber: "+442071838750" };
    await postWebhook(app, statusUpdate(ref, "ringing"));
    await postWebhook(app, statusUpdate(ref, "in-progress"));
    const rows = await database.db.select().from(calls).where(eq(calls.providerCallId, providerCallId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ orgId: org.orgId, type: "inbound", status: "in-progress", agentId, phoneNumberId: ourNumber, customerNumber: "+442071838750", isSandbox: true });

    const unknownAssistant = { ...ref, providerCallId: `vapi-${randomUUID()}`, assistantId: "asst-somebody-else" };
    await postWebhook(app, statusUpdate(unknownAssistant, "ringing"));
    expect(await database.db.select().from(calls).where(eq(calls.providerCallId, unknownAssistant.providerCallId))).toEqual([]);
  });

  it("creates a web call named by the agent in the assistant's metadata", async () => {
    const providerCallId = `vapi-${randomUUID()}`;
    const event = serverMessage({
      type: "status-update",
      status: "in-progress",
      timestamp: Date.now(),
      call: { id: providerCallId, orgId: "vapi-org", createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), type: "webCall" },
      assistant: { metadata: { agentId, orgId: org.orgId } },
    });
    await postWebhook(app, event);
    const [row] = await database.db.select().from(calls).where(eq(calls.providerCallId, providerCallId));
    expect(row).toMatchObject({ type: "web", status: "in-progress", agentId, orgId: org.orgId });
  });
});

describe("end-of-call-report", () => {
  it("completes the record and debits the wallet once, however often and however concurrently it arrives", async () => {
    const callId = await queuedCall();
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId };
    const report = endOfCallReport(ref, { cost: 0.1234, startedAt: "2026-03-01T12:00:00.000Z", endedAt: "2026-03-01T12:00:42.300Z" });
    const balanceBefore = (await walletRow(database.db, org.orgId))?.balanceMicros ?? 10_000_000;

    const responses = await Promise.all([postWebhook(app, report), postWebhook(app, report), postWebhook(app, report)]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    await postWebhook(app, report);

    const debits = (await ledgerOf(database.db, org.orgId)).filter((entry) => entry.callId === callId);
    expect(debits).toHaveLength(1);
    expect(debits[0]).toMatchObject({ kind: "call", amountMicros: -123_400 });
    expect((await walletRow(database.db, org.orgId))!.balanceMicros).toBe(balanceBefore - 123_400);

    const call = (await getCall(app, org.token, callId)).json().data;
    expect(call).toMatchObject({
      id: callId,
      type: "outbound",
      status: "ended",
      agent_id: agentId,
      agent_name: "Reception",
      ended_reason: "customer-ended-call",
      cost: 0.1234,
      cost_breakdown: { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.01, vapi: 0.02, total: 0.1234 },
      transcript: "AI: Hello! How are you doing today?\nUser: Fine, thanks.",
      recording_url: "https://storage.vapi.ai/mono.wav",
      stereo_recording_url: "https://storage.vapi.ai/stereo.wav",
      summary: "The customer was fine.",
      structured_data: { mood: "fine" },
      success_evaluation: "true",
      outcome: "answered",
      success: "pass",
      started_at: "2026-03-01T12:00:00.000Z",
      ended_at: "2026-03-01T12:00:42.300Z",
      duration_seconds: 43,
      provider_call_id: ref.providerCallId,
    });
    // The spoken turns only: Vapi's "bot" as "assistant", the system prompt left out.
    expect(call.messages).toEqual([
      { role: "assistant", message: "Hello! How are you doing today?", time: expect.any(Number), seconds_from_start: 0.5 },
      { role: "user", message: "Fine, thanks.", time: expect.any(Number), seconds_from_start: 3 },
    ]);
  });

  it("a report that arrives before the ended status still ends the call; the late status changes nothing", async () => {
    const callId = await queuedCall();
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId };
    await postWebhook(app, endOfCallReport(ref, { cost: 0 }));
    await postWebhook(app, statusUpdate(ref, "in-progress"));
    expect((await callRow(database.db, callId))!.status).toBe("ended");
    // A free call writes no ledger entry.
    expect((await ledgerOf(database.db, org.orgId)).some((entry) => entry.callId === callId)).toBe(false);
  });

  it("counts the evaluation as pass or fail under the agent's rubric when it arrives; a later rubric change leaves past calls as they were", async () => {
    const scored = (await createAgent(app, org.token, { agent_name: "Scored", analysis_plan: { success_evaluation_rubric: "NumericScale" } })).id;
    const reportWith = (callId: string, evaluation: string | null) => {
      const report = endOfCallReport({ providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId });
      const analysis = report.message.analysis as Record<string, unknown>;
      if (evaluation === null) delete analysis.successEvaluation;
      else analysis.successEvaluation = evaluation;
      return report;
    };
    const placed = async () => {
      const id = randomUUID();
      await orgScope(database.db, org.orgId).insert(calls, { id, type: "outbound", status: "queued", agentId: scored });
      return id;
    };
    const success = async (id: string) => (await getCall(app, org.token, id)).json().data.success;

    // "8" is 8 out of 10 under NumericScale: a pass.
    const first = await placed();
    await postWebhook(app, reportWith(first, "8"));
    expect(await success(first)).toBe("pass");
    expect((await callRow(database.db, first))!.successOutcome).toBe("pass");

    // Under PercentageScale the same "8" is 8 %: a fail; the first call keeps its pass.
    const rubric = await app.inject({ method: "PUT", url: `/api/agent/${scored}`, headers: { authorization: `Bearer ${org.token}` }, payload: { analysis_plan: { success_evaluation_rubric: "PercentageScale" } } });
    expect(rubric.statusCode, rubric.body).toBe(200);
    const second = await placed();
    await postWebhook(app, reportWith(second, "8"));
    expect(await success(second)).toBe("fail");
    expect(await success(first)).toBe("pass");

    // An answer that is neither counts as nothing; no evaluation at all leaves success null.
    const third = await placed();
    await postWebhook(app, reportWith(third, "All items were covered."));
    expect(await success(third)).toBeNull();
    const fourth = await placed();
    await postWebhook(app, reportWith(fourth, null));
    expect((await getCall(app, org.token, fourth)).json().data).toMatchObject({ success_evaluation: null, success: null, outcome: "answered" });
  });

  it("a report for a call whose organisation is gone is acknowledged and ignored", async () => {
    const other = await newOrganisation(app, "Gone Soon");
    const otherAgent = await createAgent(app, other.token);
    const id = randomUUID();
    await orgScope(database.db, other.orgId).insert(calls, { id, type: "outbound", status: "in-progress", agentId: otherAgent.id });
    await database.db.delete(calls).where(eq(calls.id, id));
    const response = await postWebhook(app, endOfCallReport({ providerCallId: `vapi-${randomUUID()}`, callId: id, orgId: other.orgId }));
    expect(response.json()).toEqual({ received: true });
  });
});

describe("tool-calls", () => {
  it("answers an unknown tool with an error in Vapi's tool-calls response shape", async () => {
    const event = serverMessage({
      type: "tool-calls",
      timestamp: Date.now(),
      toolCallList: [{ id: "call_abc", type: "function", function: { name: "bookAppointment", arguments: '{"date":"2026-03-02"}' } }],
      toolWithToolCallList: [
        {
          // (`function`, the tool's definition, is left out: the document's name pattern is written with slashes and matches nothing.)
          type: "function",
          toolCall: { id: "call_abc", type: "function", function: { name: "bookAppointment", arguments: '{"date":"2026-03-02"}' } },
        },
      ],
    });
    const response = await postWebhook(app, event);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({ results: [{ toolCallId: "call_abc", name: "bookAppointment", error: expect.stringContaining("bookAppointment") }] });
    expect(loadVapiOpenApi().problems("ServerMessageResponseToolCalls", body)).toEqual([]);
  });
});
