/**
 * A campaign pauses itself, saying why (pause_code, pause_reason and an `auto_paused` event): the wallet
 * cannot cover calls, the provider refuses for an account or configuration reason, most recent calls
 * failed (the circuit breaker), the agent or the caller number was deleted. And what is not a pause:
 * calls in progress holding the balance (it waits), 429 (the attempt is given back for a while), 5xx (a
 * failed attempt).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLACING_FAILED_ENDED_REASON, THROTTLE_RETRY_MS } from "../../server/campaigns/dialler";
import { recordCampaignEvent } from "../../server/campaigns/events";
import type { Database } from "../../server/db/client";
import { agents, campaigns, phoneNumbers } from "../../server/db/schema";
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import { VoiceProviderError, type PhoneCallRequest, type VoiceProvider } from "../../server/voice/types";
import { WEBHOOK_SECRET, postWebhook, serverMessage, statusUpdate, vapiCall } from "./calls-fixtures";
import { addContacts, allSettled, callsInProgress, callsOf, campaignRow, campaignWorld, contactsOf, createCampaign, diallerFor, eventsOf, numbers, sampler, tickUntil } from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await database.close();
});

/** An app on this file's database with its own settings and voice provider, and an organisation ready to dial. */
async function worldWith(env: Record<string, string>, voice?: (app: () => FastifyInstance) => VoiceProvider) {
  let built: FastifyInstance | null = null;
  const provider = voice?.(() => built!);
  const { app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, ...env }, undefined, provider);
  built = app;
  apps.push(app);
  return campaignWorld(app, database.db, `Pause Co ${randomUUID().slice(0, 4)}`);
}

/** A sandbox whose placing requests fail with this provider error. */
const refusingWith = (error: VoiceProviderError) => () => ({
  ...createSandboxVoiceProvider({ callSeconds: 0.05 }),
  async startPhoneCall(): Promise<never> {
    throw error;
  },
});


describe("the wallet", () => {
  it("a balance below MIN_BALANCE_USD pauses the campaign (wallet) before any call", async () => {
    const world = await worldWith({ STARTING_CREDIT_USD: "0.4", MIN_BALANCE_USD: "0.5" });
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, numbers(3, "00", "401"));
    const report = await diallerFor(world.app).tick();
    expect(report.paused).toEqual([campaignId]);
    const campaign = await campaignRow(database.db, campaignId);
    expect(campaign).toMatchObject({ status: "paused", pauseCode: "wallet" });
    expect(campaign.pauseReason).toBe(
      "Paused automatically: the wallet's balance ($0.40) is below the minimum needed to place calls ($0.50). Top up the wallet, then resume the campaign.",
    );
    expect((await eventsOf(database.db, campaignId)).at(-1)).toMatchObject({ kind: "auto_paused", detail: campaign.pauseReason, actor: null });
    expect(await callsOf(database.db, campaignId)).toEqual([]);
    expect((await contactsOf(database.db, campaignId)).every((contact) => contact.status === "queued" && contact.attempts === 0)).toBe(true);
    // Paused stays paused: only a person resumes.
    expect((await diallerFor(world.app).tick()).claimed).toBe(0);
  });

  it("calls in progress holding the balance make it wait, not pause: never more calls than the balance covers", async () => {
    // $2.50 - $0.50 minimum, $1 held per call on the line: three calls at a time.
    const world = await worldWith({ STARTING_CREDIT_USD: "2.5", MIN_BALANCE_USD: "0.5", CALL_HOLD_USD: "1", ORG_CONCURRENT_CALLS: "20" });
    const campaignId = await createCampaign(world, { maxConcurrency: 10 });
    await addContacts(world, campaignId, numbers(12, "02", "402"));
    const watch = sampler(() => callsInProgress(database.db, { campaignId }));
    await tickUntil(diallerFor(world.app), () => allSettled(database.db, campaignId), 30_000);
    const { highest } = await watch.stop();
    expect(highest).toBe(3);
    expect((await campaignRow(database.db, campaignId)).status).toBe("completed");
  });
});

describe("the provider's refusals", () => {
  it("a 4xx for the account (402) gives the attempt back, removes the call and pauses the campaign (provider) with the provider's sentence", async () => {
    const detail = "Vapi could not place the call (HTTP 402): Your account has no credits left. Add credits at dashboard.vapi.ai";
    const world = await worldWith({ STARTING_CREDIT_USD: "100" }, refusingWith(new VoiceProviderError(detail, 402)));
    const campaignId = await createCampaign(world, { maxConcurrency: 2 });
    await addContacts(world, campaignId, numbers(4, "00", "403"));
    const report = await diallerFor(world.app).tick();
    expect(report).toMatchObject({ claimed: 2, placed: 0, refused: 2, paused: [campaignId] });
    const campaign = await campaignRow(database.db, campaignId);
    expect(campaign).toMatchObject({ status: "paused", pauseCode: "provider" });
    expect(campaign.pauseReason).toBe(`Paused automatically: the voice provider refused to place the campaign's calls. ${detail}. Fix what it names, then resume the campaign.`);
    expect(await callsOf(database.db, campaignId)).toEqual([]);
    expect((await contactsOf(database.db, campaignId)).map((contact) => [contact.status, contact.attempts, contact.lastCallId])).toEqual(Array(4).fill(["queued", 0, null]));
    expect((await eventsOf(database.db, campaignId)).filter((event) => event.kind === "auto_paused")).toHaveLength(1);
  });

  it("a 400 for the configuration pauses it too", async () => {
    const world = await worldWith({}, refusingWith(new VoiceProviderError("Vapi could not place the call (HTTP 400): assistant.voice.voiceId is not valid", 400)));
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155554000"]);
    await diallerFor(world.app).tick();
    expect(await campaignRow(database.db, campaignId)).toMatchObject({ status: "paused", pauseCode: "provider", pauseReason: expect.stringContaining("voiceId is not valid") });
  });

  it("429 gives the attempt back for a while, without pausing", async () => {
    const world = await worldWith({}, refusingWith(new VoiceProviderError("Vapi is rate-limiting requests (HTTP 429). Wait a moment and try again.", 429)));
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155554100"]);
    const before = Date.now();
    await diallerFor(world.app).tick();
    expect((await campaignRow(database.db, campaignId)).status).toBe("running");
    const [contact] = await contactsOf(database.db, campaignId);
    expect(contact).toMatchObject({ status: "queued", attempts: 0 });
    expect(contact!.readyAt!.getTime()).toBeGreaterThanOrEqual(before + THROTTLE_RETRY_MS);
    expect(await callsOf(database.db, campaignId)).toEqual([]);
  });

  it("5xx is a failed attempt: the call ends with a call.start.error reason and the retry rules apply", async () => {
    const world = await worldWith({}, refusingWith(new VoiceProviderError("The voice provider failed to place the call (Vapi answered 503). Try again later.", 503)));
    const campaignId = await createCampaign(world, { retry: { max_attempts: 2, delay_minutes: 0, on: ["failed"] } });
    await addContacts(world, campaignId, ["+14155554200"]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, () => allSettled(database.db, campaignId));
    await dialler.tick();
    const [contact] = await contactsOf(database.db, campaignId);
    expect(contact).toMatchObject({ status: "failed", outcome: "failed", attempts: 2, lastEndedReason: PLACING_FAILED_ENDED_REASON });
    const placed = await callsOf(database.db, campaignId);
    expect(placed.map((call) => [call.status, call.outcome, call.endedReason])).toEqual(Array(2).fill(["ended", "failed", PLACING_FAILED_ENDED_REASON]));
    expect((await campaignRow(database.db, campaignId)).status).toBe("completed");
  });
});

describe("the circuit breaker", () => {
  /** A provider whose every call ends at once, never connected (call.start.error-…), through the signed webhook route. */
  const failingCalls = (app: () => FastifyInstance) => ({
    ...createSandboxVoiceProvider({ callSeconds: 0.05 }),
    async startPhoneCall(request: PhoneCallRequest) {
      const providerCallId = `failing-${randomUUID()}`;
      const fields = { providerCallId, callId: request.callId, orgId: request.orgId, customerNumber: request.customer.number };
      setTimeout(() => {
        void (async () => {
          const endedReason = "call.start.error-get-transport";
          await postWebhook(app(), statusUpdate(fields, "ended", { endedReason }));
          await postWebhook(app(), serverMessage({ type: "end-of-call-report", endedReason, cost: 0, artifact: {}, analysis: {}, call: vapiCall(fields, { status: "ended", endedReason }) }));
        })().catch(() => undefined);
      }, 5);
      return { providerCallId, status: "queued" as const };
    },
  });

  it("8 of the last 10 calls failing pauses the campaign (circuit_breaker); after a person resumes, only later calls count", async () => {
    const world = await worldWith({}, failingCalls);
    const campaignId = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 1, delay_minutes: 0, on: [] } });
    await addContacts(world, campaignId, numbers(20, "00", "405"));
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, async () => (await campaignRow(database.db, campaignId)).status === "paused");
    const campaign = await campaignRow(database.db, campaignId);
    expect(campaign.pauseCode).toBe("circuit_breaker");
    expect(campaign.pauseReason).toMatch(/^Paused automatically: (8|9|10) of the last (8|9|10) calls failed to connect \(the last ended with "call\.start\.error-get-transport"\)\. Check the agent/);
    await tickUntil(dialler, async () => (await callsInProgress(database.db, { campaignId })) === 0);
    const failed = (await contactsOf(database.db, campaignId)).filter((contact) => contact.status === "failed").length;
    expect(failed).toBeGreaterThanOrEqual(8);
    expect(failed).toBeLessThanOrEqual(9);

    // A person resumes it (what POST /campaign/{id}/resume leaves): the breaker starts counting afresh.
    await database.db.update(campaigns).set({ status: "running", pauseCode: null, pauseReason: null }).where(eq(campaigns.id, campaignId));
    await recordCampaignEvent(database.db, { orgId: world.org.orgId, campaignId, kind: "resumed", detail: "Resumed (test).", actor: world.org.userId });
    const report = await dialler.tick();
    expect(report.claimed).toBe(2);
    await tickUntil(dialler, async () => (await callsInProgress(database.db, { campaignId })) === 0);
  });
});

describe("the agent or the caller number deleted", () => {
  it("pauses it with agent_missing, or number_missing", async () => {
    const world = await worldWith({});
    const withoutAgent = await createCampaign(world);
    const withoutNumber = await createCampaign(world);
    await addContacts(world, withoutAgent, ["+14155554300"]);
    await addContacts(world, withoutNumber, ["+14155554301"]);
    const otherAgent = (await database.db.insert(agents).values({ id: randomUUID(), orgId: world.org.orgId, name: "Spare", config: (await database.db.select().from(agents).where(eq(agents.id, world.agentId)))[0]!.config }).returning())[0]!;
    await database.db.update(campaigns).set({ agentId: otherAgent.id }).where(eq(campaigns.id, withoutAgent));
    await database.db.delete(agents).where(eq(agents.id, otherAgent.id));
    const spareNumber = randomUUID();
    await database.db.insert(phoneNumbers).values({ id: spareNumber, orgId: world.org.orgId, name: "Spare", number: "+14155558888", provider: "vapi" });
    await database.db.update(campaigns).set({ phoneNumberId: spareNumber }).where(eq(campaigns.id, withoutNumber));
    await database.db.delete(phoneNumbers).where(eq(phoneNumbers.id, spareNumber));

    await diallerFor(world.app).tick();
    expect(await campaignRow(database.db, withoutAgent)).toMatchObject({
      status: "paused",
      agentId: null,
      pauseCode: "agent_missing",
      pauseReason: "Paused automatically: the campaign's agent was deleted. Choose another agent for the campaign, then resume it.",
    });
    expect(await campaignRow(database.db, withoutNumber)).toMatchObject({
      status: "paused",
      phoneNumberId: null,
      pauseCode: "number_missing",
      pauseReason: "Paused automatically: the campaign's caller number was deleted. Choose another phone number for the campaign, then resume it.",
    });
    expect(await callsOf(database.db, withoutAgent)).toEqual([]);
    expect(await callsOf(database.db, withoutNumber)).toEqual([]);
  });
});
