/**
 * The dialler in Vapi mode against the local fake: a campaign call's POST /call (the contact's variables,
 * our ids, the opt-out tool) checked against Vapi's CreateCallDTO; Vapi refusing (402) pauses the
 * campaign with Vapi's words; lookupCall by Vapi's id, by our metadata in the list, unknown, and gone;
 * the reaper settling a call from GET /call/{id}.
 */
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { campaignContacts } from "../../server/db/schema";
import { VAPI_CALL_GONE_ENDED_REASON } from "../../server/voice/vapi-calls";
import { WEBHOOK_SECRET, addPhoneNumber, createAgent, endOfCallReport, newOrganisation, postWebhook, serverMessage, statusUpdate } from "./calls-fixtures";
import { addContacts, campaignRow, contactsOf, createCampaign, diallerFor, callsOf, type CampaignWorld } from "./dialler-fixtures";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { buildTestApp, migratedDatabase } from "./helpers";

const vapi = loadVapiOpenApi();
let fake: FakeVapi;
let database: Database;
let app: FastifyInstance;
let world: CampaignWorld;

beforeAll(async () => {
  fake = await startFakeVapi();
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, {
    VAPI_PRIVATE_KEY: FAKE_VAPI_KEY,
    VAPI_API_URL: fake.url,
    VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PUBLIC_URL: "https://voice.example.com",
    DIALLER_LEASE_SECONDS: "5",
  }));
  const org = await newOrganisation(app, "Vapi Campaigns");
  const agent = await createAgent(app, org.token, { agent_name: "Vapi outbound", agent_welcome_message: "Hi {{name}}, about {{plan}}." });
  const phoneNumberId = await addPhoneNumber(database.db, org.orgId, { providerNumberId: "vapi-number-campaign" });
  world = { app, db: database.db, org, agentId: agent.id, phoneNumberId };
});
afterAll(async () => {
  await app.close();
  await database.close();
  await fake.close();
});
beforeEach(() => fake.reset());

const postCalls = () => fake.requests.filter((request) => request.method === "POST" && request.path === "/call");

describe("placing", () => {
  it("POST /call carries the contact's variables and name, our ids and the opt-out tool: a valid CreateCallDTO; its webhooks settle the contact", async () => {
    const campaignId = await createCampaign(world);
    const [contactId] = await addContacts(world, campaignId, [{ number: "+14155557000", name: "Grace", variables: { plan: "Gold" } }]);
    await diallerFor(app).tick();
    const [sent] = postCalls();
    expect(vapi.problems("CreateCallDTO", sent!.json)).toEqual([]);
    const [call] = await callsOf(database.db, campaignId);
    expect(sent!.json).toMatchObject({
      phoneNumberId: "vapi-number-campaign",
      customer: { number: "+14155557000", name: "Grace" },
      assistantOverrides: {
        variableValues: { plan: "Gold", name: "Grace" },
        metadata: { callId: call!.id, orgId: world.org.orgId, agentId: world.agentId },
        "tools:append": [{ type: "function", function: { name: "do_not_call" } }],
      },
    });
    expect(call!.providerCallId).toBe([...fake.calls.keys()].at(-1));

    const ref = { providerCallId: call!.providerCallId!, callId: call!.id, orgId: world.org.orgId };
    await postWebhook(app, statusUpdate(ref, "in-progress"));
    await postWebhook(app, endOfCallReport(ref, { cost: 0.2 }));
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ id: contactId, status: "answered", attempts: 1, lastEndedReason: "customer-ended-call" });
  });

  it("the opt-out tool's webhook lists the number and the contact ends dnc when its call ends", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155557001"]);
    await diallerFor(app).tick();
    const [call] = await callsOf(database.db, campaignId);
    const ref = { providerCallId: call!.providerCallId!, callId: call!.id, orgId: world.org.orgId };
    const toolCall = { id: "call_optout_1", type: "function", function: { name: "do_not_call", arguments: '{"reason":"stop calling me"}' } };
    const answer = await postWebhook(
      app,
      serverMessage({
        type: "tool-calls",
        timestamp: Date.now(),
        toolCallList: [toolCall],
        toolWithToolCallList: [{ type: "function", toolCall, function: { name: "do_not_call" } }],
        call: { id: ref.providerCallId, orgId: "vapi-org", createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), type: "outboundPhoneCall", assistantOverrides: { metadata: { callId: call!.id, orgId: world.org.orgId } } },
      }),
    );
    expect(answer.json()).toEqual({ results: [{ toolCallId: "call_optout_1", name: "do_not_call", result: expect.stringContaining("do-not-call list") }] });
    // Still on the line: it keeps its place until the call ends.
    expect((await contactsOf(database.db, campaignId))[0]!.status).toBe("in_progress");
    await postWebhook(app, endOfCallReport(ref));
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "dnc", outcome: "answered" });
  });

  it("Vapi refusing for the account (402) pauses the campaign with Vapi's words; nothing is left dialled", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155557002"]);
    fake.fail({ status: 402, match: "POST /call", message: "Insufficient credits. Please add credits to your account.", times: Infinity });
    await diallerFor(app).tick();
    fake.reset();
    expect(await campaignRow(database.db, campaignId)).toMatchObject({ status: "paused", pauseCode: "provider", pauseReason: expect.stringContaining("Insufficient credits") });
    expect(await callsOf(database.db, campaignId)).toEqual([]);
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "queued", attempts: 0 });
  });
});

describe("lookupCall", () => {
  const ref = (callId: string, providerCallId: string | null) => ({
    callId,
    orgId: world.org.orgId,
    providerCallId,
    placedAt: new Date(),
    phoneNumber: { id: world.phoneNumberId, providerNumberId: "vapi-number-campaign" },
  });

  it("by Vapi's id, by our id in GET /call, unknown, and gone (404); the ended messages are Vapi's ServerMessages", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155557003"]);
    await diallerFor(app).tick();
    const [call] = await callsOf(database.db, campaignId);
    const providerCallId = call!.providerCallId!;
    fake.reset();

    expect(await app.voice.lookupCall(ref(call!.id, providerCallId))).toEqual({ state: "active", providerCallId });
    expect(await app.voice.lookupCall(ref(call!.id, null))).toEqual({ state: "active", providerCallId });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET /call/${providerCallId}`, "GET /call"]);
    expect(await app.voice.lookupCall(ref(crypto.randomUUID(), null))).toEqual({ state: "unknown" });

    fake.calls.set(providerCallId, { ...fake.calls.get(providerCallId)!, status: "ended", endedReason: "customer-busy", endedAt: new Date().toISOString(), cost: 0 });
    const ended = await app.voice.lookupCall(ref(call!.id, providerCallId));
    expect(ended).toMatchObject({ state: "ended", providerCallId, endedReason: "customer-busy" });
    if (ended.state !== "ended") throw new Error(ended.state);
    expect(ended.messages.map((message) => message.type)).toEqual(["status-update", "end-of-call-report"]);
    for (const message of ended.messages) serverMessage(message);

    fake.calls.delete(providerCallId);
    expect(await app.voice.lookupCall(ref(call!.id, providerCallId))).toMatchObject({ state: "ended", endedReason: VAPI_CALL_GONE_ENDED_REASON });
  });

  it("the reaper settles a call whose end never came from GET /call/{id}", async () => {
    const campaignId = await createCampaign(world, { retry: { max_attempts: 1, delay_minutes: 0, on: [] } });
    await addContacts(world, campaignId, ["+14155557004"]);
    const dialler = diallerFor(app);
    await dialler.tick();
    const [call] = await callsOf(database.db, campaignId);
    fake.calls.set(call!.providerCallId!, { ...fake.calls.get(call!.providerCallId!)!, status: "ended", endedReason: "customer-did-not-answer", endedAt: new Date().toISOString(), cost: 0 });
    await database.db.update(campaignContacts).set({ leaseUntil: new Date(Date.now() - 1) }).where(eq(campaignContacts.campaignId, campaignId));
    expect((await dialler.tick()).settled).toBe(1);
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "no_answer", outcome: "no_answer", attempts: 1 });
    expect((await callsOf(database.db, campaignId))[0]).toMatchObject({ status: "ended", endedReason: "customer-did-not-answer" });
  });
});
