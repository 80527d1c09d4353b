/**
 * Calls whose end never came (their process died): the reaper asks the provider by our call id once the
 * lease runs out. The sandbox answers from its ledger for calls placed by a "dead" provider — a second
 * sandbox on the same database whose webhooks go nowhere, as if its process had been killed:
 * - never placed (died between the claim and the request): the call row is removed and the attempt
 *   given back, then dialled once;
 * - ended: its end goes through the ordinary ingest (record, debit, settle; an opt-out said on the call
 *   is kept);
 * - still on: the lease is extended.
 * Also: a call that ended without settling its contact is settled by the next tick, and the sandbox's
 * start-up resume leaves campaign calls to the reaper and replays a ledger call's own script.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimCampaign } from "../../server/campaigns/claim";
import { createDialler } from "../../server/campaigns/dialler";
import type { Database } from "../../server/db/client";
import { calls, campaignContacts, sandboxProviderCalls, walletLedger } from "../../server/db/schema";
import { createSandboxVoiceProvider } from "../../server/voice/sandbox";
import type { SandboxCalls, SandboxEvent } from "../../server/voice/sandbox-calls";
import { resumeSandboxCalls } from "../../server/voice/sandbox-resume";
import { walletPolicy } from "../../server/wallet/wallet";
import { settleOnCallEnded } from "../../server/campaigns/settle";
import { ingestEndOfCallReport, ingestStatusUpdate } from "../../server/webhooks/ingest";
import { addContacts, allSettled, callsOf, campaignWorld, contactsOf, createCampaign, diallerFor, listDnc, tickUntil, type CampaignWorld } from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let world: CampaignWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.2", STARTING_CREDIT_USD: "100", DIALLER_LEASE_SECONDS: "5" });
  world = await campaignWorld(app, database.db, "Reaper Co");
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

/** A sandbox on the same database whose events go nowhere: its process "died" after placing. */
function deadSandbox(callSeconds: number) {
  const voice = createSandboxVoiceProvider({ callSeconds });
  voice.useDatabase!(database.db);
  voice.connectWebhooks!({ secret: "nobody-listens-0123456789", post: async () => ({ statusCode: 200, body: "{}" }) });
  const dialler = createDialler({ db: database.db, voice, config: world.app.config, log: world.app.log, id: "dead-process" });
  return { voice, dialler };
}

const expireLeases = (campaignId: string) => database.db.update(campaignContacts).set({ leaseUntil: new Date(Date.now() - 1000) }).where(eq(campaignContacts.campaignId, campaignId));
const ledgerOf = async (contactId: string) =>
  (await database.db.select().from(sandboxProviderCalls)).filter((row) => (row.request as { campaign?: { contactId?: string } }).campaign?.contactId === contactId);

describe("the reaper", () => {
  it("unknown (the placer died between its claim and its request): the call is removed and the attempt given back; dialled once after", async () => {
    const campaignId = await createCampaign(world);
    const [contactId] = await addContacts(world, campaignId, ["+14155556000"]);
    const settings = { diallerId: "dead-process", leaseMs: 5000, orgConcurrentCalls: 10, wallet: walletPolicy(world.app.config), isSandbox: true };
    const claim = await claimCampaign(database.db, { id: campaignId, orgId: world.org.orgId }, settings, Date.now());
    if (claim.kind !== "claimed") throw new Error(claim.kind);
    expect(claim.calls).toHaveLength(1);
    const claimedCallId = claim.calls[0]!.callId;
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "in_progress", attempts: 1, lastCallId: claimedCallId, leasedBy: "dead-process" });

    const dialler = diallerFor(world.app);
    // Before the lease runs out nothing happens to it.
    expect((await dialler.tick()).givenBack).toBe(0);
    await expireLeases(campaignId);
    expect((await dialler.tick()).givenBack).toBe(1);
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "queued", attempts: 0, lastCallId: null, leaseUntil: null, leasedBy: null });
    expect(await database.db.select().from(calls).where(eq(calls.id, claimedCallId))).toEqual([]);

    await tickUntil(dialler, () => allSettled(database.db, campaignId));
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "answered", attempts: 1 });
    expect(await callsOf(database.db, campaignId)).toHaveLength(1);
    expect(await ledgerOf(contactId!)).toHaveLength(1);
  });

  it("ended (the placer died during the call): its end is ingested from the provider's record, the contact settled, the call debited once; an opt-out kept", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 2 });
    const [answered, optedOut] = await addContacts(world, campaignId, ["+14155556100", "+14155556104"]);
    const dead = deadSandbox(0.2);
    expect((await dead.dialler.tick()).placed).toBe(2);
    await dead.voice.close!();
    const placed = await callsOf(database.db, campaignId);
    expect(placed.map((call) => call.status)).toEqual(["queued", "queued"]);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const dialler = diallerFor(world.app);
    expect((await dialler.tick()).settled).toBe(0);
    await expireLeases(campaignId);
    const report = await dialler.tick();
    expect(report.settled).toBe(2);

    const contacts = await contactsOf(database.db, campaignId);
    expect(contacts.find((contact) => contact.id === answered)).toMatchObject({ status: "answered", attempts: 1, leaseUntil: null });
    expect(contacts.find((contact) => contact.id === optedOut)).toMatchObject({ status: "dnc", outcome: "answered", attempts: 1 });
    const ended = await callsOf(database.db, campaignId);
    for (const call of ended) {
      expect(call).toMatchObject({ status: "ended", endedReason: "assistant-ended-call", outcome: "answered" });
      expect(call.transcript).toBeTruthy();
      expect(call.costMicros).toBeGreaterThan(0);
      expect(await database.db.select().from(walletLedger).where(eq(walletLedger.callId, call.id))).toHaveLength(1);
    }
    const optOutCall = ended.find((call) => call.campaignContactId === optedOut)!;
    expect((await listDnc(database.db, world.org.orgId)).find((entry) => entry.number === "+14155556104")).toMatchObject({ source: "call", callId: optOutCall.id });
    // Asked again, nothing changes.
    await expireLeases(campaignId);
    expect((await dialler.tick()).settled).toBe(0);
  });

  it("active (the call is still on): the lease is extended, and the provider's id recorded", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155556200"]);
    const dead = deadSandbox(60);
    await dead.dialler.tick();
    await dead.voice.close!();
    const [call] = await callsOf(database.db, campaignId);
    const [ledger] = await database.db.select().from(sandboxProviderCalls).where(eq(sandboxProviderCalls.callId, call!.id));
    await database.db.update(calls).set({ providerCallId: null }).where(eq(calls.id, call!.id));
    await expireLeases(campaignId);
    const dialler = diallerFor(world.app);
    const before = Date.now();
    await dialler.tick();
    const [contact] = await contactsOf(database.db, campaignId);
    expect(contact).toMatchObject({ status: "in_progress", attempts: 1, leasedBy: dialler.id });
    expect(contact!.leaseUntil!.getTime()).toBeGreaterThanOrEqual(before + 5000);
    expect((await callsOf(database.db, campaignId))[0]!.providerCallId).toBe(ledger!.providerCallId);
  });

  it("a call that ended without settling its contact is settled by the next tick", async () => {
    const campaignId = await createCampaign(world, { retry: { max_attempts: 1, delay_minutes: 0, on: ["busy"] } });
    await addContacts(world, campaignId, ["+14155556300"]);
    const dead = deadSandbox(60);
    await dead.dialler.tick();
    await dead.voice.close!();
    const [call] = await callsOf(database.db, campaignId);
    await database.db.update(calls).set({ status: "ended", endedReason: "customer-busy", endedAt: new Date() }).where(eq(calls.id, call!.id));
    expect((await diallerFor(world.app).tick()).settled).toBe(1);
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "busy", outcome: "busy", lastEndedReason: "customer-busy", leaseUntil: null });
  });
});

describe("a call whose end-of-call report never came", () => {
  it("is completed from the provider's record a lease after its end: cost, transcript, one debit; asked again, nothing changes", async () => {
    const campaignId = await createCampaign(world);
    const [contactId] = await addContacts(world, campaignId, ["+14155556500"]);
    // Placed by a process that then died: only its status-update (ended) got through, its report died with it.
    const dead = deadSandbox(0.2);
    await dead.dialler.tick();
    await dead.voice.close!();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [placed] = await callsOf(database.db, campaignId);
    const answer = await dead.voice.lookupCall({ callId: placed!.id, orgId: world.org.orgId, providerCallId: placed!.providerCallId, placedAt: placed!.startedAt, phoneNumber: null });
    if (answer.state !== "ended") throw new Error(answer.state);
    const status = answer.messages.find((message) => message.type === "status-update")!;
    const report = answer.messages.find((message) => message.type === "end-of-call-report")!;
    const ingest = { db: database.db, wallet: walletPolicy(world.app.config), isSandbox: true, onCallEnded: settleOnCallEnded };
    expect(await ingestStatusUpdate(ingest, status)).toBe("applied");
    // The contact settled on the status-update: the reaper has nothing to ask about. The call has no cost.
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ id: contactId, status: "answered" });
    expect((await callsOf(database.db, campaignId))[0]).toMatchObject({ status: "ended", costMicros: null, transcript: null });

    const dialler = diallerFor(world.app);
    // Within a lease (5 s) of its end the report may still come: not asked about yet.
    expect((await dialler.tick()).reports).toBe(0);
    await database.db.update(calls).set({ endedAt: new Date(Date.now() - 6000) }).where(eq(calls.id, placed!.id));
    expect((await dialler.tick()).reports).toBe(1);
    const [completed] = await callsOf(database.db, campaignId);
    expect(completed!.costMicros).toBeGreaterThan(0);
    expect(completed!.transcript).toBeTruthy();
    const debits = await database.db.select().from(walletLedger).where(eq(walletLedger.callId, placed!.id));
    expect(debits.map((row) => row.amountMicros)).toEqual([-completed!.costMicros!]);
    expect((await contactsOf(database.db, campaignId))[0]).toMatchObject({ status: "answered", attempts: 1 });

    // The real report arriving late, and the next ticks: nothing more.
    expect(await ingestEndOfCallReport(ingest, report)).toBe("duplicate");
    expect((await diallerFor(world.app).tick()).reports).toBe(0);
    expect(await database.db.select().from(walletLedger).where(eq(walletLedger.callId, placed!.id))).toHaveLength(1);
  });
});

describe("the sandbox's start-up resume", () => {
  /** A SandboxCalls that records what it is asked to play. */
  function recordingSandbox(): SandboxCalls & { played: Map<string, SandboxEvent[]> } {
    const played = new Map<string, SandboxEvent[]>();
    return {
      played,
      callSeconds: 0.2,
      connect() {},
      start: () => ({ providerCallId: "x", status: "queued" }),
      send: async () => {},
      play: (key, events) => void played.set(key, events),
      cancel() {},
      close: async () => {},
    };
  }

  it("leaves campaign calls to the reaper, replays a ledger call's own script, and ends a call it has no record of as before", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, ["+14155556400"]);
    const dead = deadSandbox(60);
    await dead.dialler.tick();
    const [campaignCall] = await callsOf(database.db, campaignId);

    // A call placed by hand to a …01 number (busy), in the ledger; and one with no ledger record.
    const inLedger = crypto.randomUUID();
    const noRecord = crypto.randomUUID();
    const base = { orgId: world.org.orgId, type: "outbound", agentId: world.agentId, phoneNumberId: world.phoneNumberId, isSandbox: true };
    await database.db.insert(calls).values([
      { ...base, id: inLedger, status: "queued", customerNumber: "+14155556401" },
      { ...base, id: noRecord, status: "in-progress", customerNumber: "+14155556402" },
    ]);
    const config = (await database.db.query.agents.findFirst({ where: (agents, { eq: equals }) => equals(agents.id, world.agentId) }))!.config;
    await dead.voice.startPhoneCall({
      callId: inLedger,
      orgId: world.org.orgId,
      agent: { id: world.agentId, orgId: world.org.orgId, config, knowledgeBase: [] },
      assistantId: null,
      phoneNumber: { id: world.phoneNumberId, number: "+14155550000", providerNumberId: null },
      customer: { number: "+14155556401", name: null },
      variableValues: {},
    });
    await dead.voice.close!();

    const sandbox = recordingSandbox();
    await resumeSandboxCalls(database.db, sandbox, { callSeconds: 0.2 });
    expect(sandbox.played.has(campaignCall!.id)).toBe(false);
    const replayed = sandbox.played.get(inLedger)!;
    expect(replayed.at(-1)!.message).toMatchObject({ type: "end-of-call-report", endedReason: "customer-busy" });
    const [ledger] = await database.db.select().from(sandboxProviderCalls).where(eq(sandboxProviderCalls.callId, inLedger));
    expect(replayed.at(-1)!.at).toBe(ledger!.placedAt.getTime() + 0.2 * 60 * 1000);
    expect(sandbox.played.get(noRecord)!.at(-1)!.message).toMatchObject({ type: "end-of-call-report", endedReason: "assistant-ended-call" });
  });
});
