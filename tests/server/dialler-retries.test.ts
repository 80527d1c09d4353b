/**
 * What a call's end means for its contact (server/campaigns/settle.ts): retries by outcome (the sandbox's
 * …00 answered, …01 busy, …02 no answer, …03 voicemail), after retry.delay_minutes and inside the calling
 * window, at most max_attempts calls; the do-not-call list checked again at every dial; and the opt-out
 * tool (…04: the customer asks not to be called again during the call).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextOpening } from "../../contract/campaign-schedule";
import type { Database } from "../../server/db/client";
import { calls, campaignContacts, dncNumbers, sandboxProviderCalls, webhookEvents } from "../../server/db/schema";
import { callsOf, contactsOf } from "./dialler-fixtures";
import { addContacts, allSettled, campaignWorld, createCampaign, diallerFor, expectNoDoubleDial, listDnc, tickUntil, type CampaignWorld } from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";
import { OPT_OUT_TOOL } from "../../server/campaigns/opt-out";
import { sandboxCallScript } from "../../server/voice/sandbox-calls";
import { serverMessage } from "./calls-fixtures";

let database: Database;
let world: CampaignWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", STARTING_CREDIT_USD: "1000", ORG_CONCURRENT_CALLS: "20" });
  world = await campaignWorld(app, database.db, "Retry Co");
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

describe("retries by outcome", () => {
  it("busy, no answer and voicemail are called again up to max_attempts; answered once", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 4, retry: { max_attempts: 3, delay_minutes: 0, on: ["busy", "no-answer", "voicemail"] } });
    await addContacts(world, campaignId, ["+14155550500", "+14155550501", "+14155550502", "+14155550503"]);
    await tickUntil(diallerFor(world.app), () => allSettled(world.db, campaignId), 30_000);
    const contacts = await contactsOf(world.db, campaignId);
    expect(contacts.map((contact) => [contact.number.slice(-2), contact.status, contact.outcome, contact.attempts])).toEqual([
      ["00", "answered", "answered", 1],
      ["01", "busy", "busy", 3],
      ["02", "no_answer", "no_answer", 3],
      ["03", "voicemail", "voicemail", 3],
    ]);
    expect(contacts.map((contact) => contact.lastEndedReason)).toEqual(["assistant-ended-call", "customer-busy", "customer-did-not-answer", "voicemail"]);
    const placed = await callsOf(world.db, campaignId);
    expect(placed).toHaveLength(10);
    // Each contact's last call is its newest.
    for (const contact of contacts) {
      const own = placed.filter((call) => call.campaignContactId === contact.id);
      expect(own).toHaveLength(contact.attempts);
      expect(own.some((call) => call.id === contact.lastCallId)).toBe(true);
    }
    await expectNoDoubleDial(world.db, campaignId, 3);
  });

  it("an outcome not in retry.on, or max_attempts 1, is final after one call", async () => {
    const noVoicemail = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 3, delay_minutes: 0, on: ["busy"] } });
    await addContacts(world, noVoicemail, ["+14155550603", "+14155550602"]);
    const once = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 1, delay_minutes: 0, on: ["busy", "no-answer", "voicemail"] } });
    await addContacts(world, once, ["+14155550701"]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, async () => (await allSettled(world.db, noVoicemail)) && (await allSettled(world.db, once)));
    expect((await contactsOf(world.db, noVoicemail)).map((contact) => [contact.status, contact.attempts])).toEqual([
      ["voicemail", 1],
      ["no_answer", 1],
    ]);
    expect((await contactsOf(world.db, once)).map((contact) => [contact.status, contact.attempts])).toEqual([["busy", 1]]);
  });

  it("a retry waits delay_minutes after the call's end, then for the contact's next calling window", async () => {
    // A window open now for a quarter of an hour, every day (UTC): an hour's delay falls outside it.
    const nowMinutes = new Date().getUTCHours() * 60 + new Date().getUTCMinutes();
    const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
    const start = Math.min(nowMinutes, 23 * 60 + 44);
    const windows = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const, start: hhmm(start), end: hhmm(start + 15) }].map((window) => ({ ...window, days: [...window.days] }));
    const withWindow = await createCampaign(world, { windows, retry: { max_attempts: 2, delay_minutes: 60, on: ["busy"] } });
    const always = await createCampaign(world, { retry: { max_attempts: 2, delay_minutes: 60, on: ["busy"] } });
    await addContacts(world, withWindow, [{ number: "+14155550801", timezone: "UTC" }]);
    await addContacts(world, always, [{ number: "+14155551101", timezone: "UTC" }]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, async () => (await contactsOf(world.db, withWindow))[0]!.attempts === 1 && (await contactsOf(world.db, withWindow))[0]!.status === "queued" && (await contactsOf(world.db, always))[0]!.status === "queued");

    for (const campaignId of [withWindow, always]) {
      const [contact] = await contactsOf(world.db, campaignId);
      const [call] = await callsOf(world.db, campaignId);
      expect(contact).toMatchObject({ status: "queued", outcome: "busy", attempts: 1, leaseUntil: null });
      expect(contact!.notBefore!.getTime()).toBe(call!.endedAt!.getTime() + 60 * 60_000);
    }
    const [windowed] = await contactsOf(world.db, withWindow);
    expect(windowed!.readyAt!.getTime()).toBe(nextOpening(windows, ["UTC"], windowed!.notBefore!.getTime()));
    expect(windowed!.readyAt!.getTime()).toBeGreaterThan(windowed!.notBefore!.getTime());
    const [plain] = await contactsOf(world.db, always);
    expect(plain!.readyAt!.getTime()).toBe(plain!.notBefore!.getTime());
    // Not dialled again before then.
    const report = await dialler.tick();
    expect(report.claimed).toBe(0);
  });
});

describe("the do-not-call list", () => {
  it("is read again at every dial: a listed number ends as dnc without a call", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 1, retry: { max_attempts: 3, delay_minutes: 1, on: ["busy"] } });
    const [listedAtImport, listedLater] = await addContacts(world, campaignId, ["+14155550900", "+14155550901"]);
    await world.db.insert(dncNumbers).values({ id: crypto.randomUUID(), orgId: world.org.orgId, number: "+14155550900", source: "manual" });
    const dialler = diallerFor(world.app);
    // The busy one is called once, then listed while it waits for its retry (a minute: made now here).
    const later = async () => (await contactsOf(world.db, campaignId)).find((contact) => contact.id === listedLater)!;
    await tickUntil(dialler, async () => (await later()).attempts === 1 && (await later()).status === "queued");
    await world.db.insert(dncNumbers).values({ id: crypto.randomUUID(), orgId: world.org.orgId, number: "+14155550901", source: "manual" });
    await world.db.update(campaignContacts).set({ readyAt: new Date(Date.now() - 1) }).where(eq(campaignContacts.id, listedLater!));
    await tickUntil(dialler, () => allSettled(world.db, campaignId));
    const contacts = await contactsOf(world.db, campaignId);
    expect(contacts.find((contact) => contact.id === listedAtImport)).toMatchObject({ status: "dnc", attempts: 0 });
    expect(contacts.find((contact) => contact.id === listedLater)).toMatchObject({ status: "dnc", attempts: 1, outcome: "busy" });
    expect(await callsOf(world.db, campaignId)).toHaveLength(1);
  });

  it("…04: the customer asks not to be called again; the opt-out tool lists the number (source call, with the call) and the contact ends dnc", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 3, delay_minutes: 0, on: ["busy", "no-answer", "voicemail"] } });
    const [optedOut] = await addContacts(world, campaignId, [{ number: "+14155551004", name: "Grace" }]);
    // Settled by the ended status; the end-of-call report (transcript) follows it.
    await tickUntil(diallerFor(world.app), async () => (await allSettled(world.db, campaignId)) && (await callsOf(world.db, campaignId))[0]?.transcript != null);
    const [call] = await callsOf(world.db, campaignId);
    const [contact] = await contactsOf(world.db, campaignId);
    expect(contact).toMatchObject({ id: optedOut, status: "dnc", outcome: "answered", attempts: 1 });
    expect(call).toMatchObject({ status: "ended", outcome: "answered", endedReason: "assistant-ended-call" });
    expect(call!.transcript).toContain("I don't want to be called again.");
    const entries = (await listDnc(world.db, world.org.orgId)).filter((entry) => entry.number === "+14155551004");
    expect(entries).toEqual([expect.objectContaining({ source: "call", callId: call!.id, reason: expect.stringContaining("Asked not to be called again") })]);
    // The tool-calls message went through the webhook route once.
    const keys = await world.db.select().from(webhookEvents);
    expect(keys.filter((key) => key.eventKey.startsWith(`${call!.providerCallId}:end-of-call-report`))).toHaveLength(1);
    const [placed] = await world.db.select().from(sandboxProviderCalls).where(eq(sandboxProviderCalls.callId, call!.id));
    expect(placed!.request).toMatchObject({ optOutTool: { name: "do_not_call" } });
    expect((await world.db.select().from(calls).where(eq(calls.campaignContactId, optedOut!))).length).toBe(1);
  });
});

describe("the sandbox's …04 script", () => {
  it("a tool-calls message for the opt-out tool, between in-progress and the end, every event one of Vapi's ServerMessages; none without the tool", async () => {
    const config = (await database.db.query.agents.findFirst({ where: (agents, { eq: equals }) => equals(agents.id, world.agentId) }))!.config;
    const request = {
      callId: crypto.randomUUID(),
      orgId: world.org.orgId,
      agent: { id: world.agentId, orgId: world.org.orgId, config, knowledgeBase: [] },
      assistantId: null,
      phoneNumber: { id: world.phoneNumberId, number: "+14155550000", providerNumberId: null },
      customer: { number: "+14155551204", name: "Grace" },
      variableValues: { name: "Grace" },
    };
    const events = sandboxCallScript({ ...request, optOutTool: OPT_OUT_TOOL }, "sandbox-optout", Date.now(), 6);
    expect(events.map((event) => (event.message.type === "status-update" ? event.message.status : event.message.type))).toEqual([
      "queued",
      "ringing",
      "in-progress",
      "tool-calls",
      "ended",
      "end-of-call-report",
    ]);
    for (const event of events) serverMessage(event.message);
    const toolCall = events[3]!.message as { toolCallList: { function: { name: string; arguments: string } }[] };
    expect(toolCall.toolCallList[0]!.function.name).toBe("do_not_call");
    expect(JSON.parse(toolCall.toolCallList[0]!.function.arguments)).toEqual({ reason: expect.stringContaining("don't want to be called again") });
    expect(sandboxCallScript(request, "sandbox-plain", Date.now(), 6).some((event) => event.message.type === "tool-calls")).toBe(false);
  });
});
