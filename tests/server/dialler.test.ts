/**
 * The campaign dialler on the embedded database (PGlite; PostgreSQL with TEST_DATABASE_URL) and the
 * sandbox provider: concurrency never above max_concurrency nor the organisation's limit under load,
 * live edits, campaign call records, completion, scheduled starts and end times.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextOpening } from "../../contract/campaign-schedule";
import { WEEKDAYS } from "../../contract/campaign-shared";
import type { Database } from "../../server/db/client";
import { campaigns, sandboxProviderCalls } from "../../server/db/schema";
import {
  addContacts,
  allSettled,
  callsInProgress,
  callsOf,
  campaignRow,
  campaignWorld,
  contactsInProgress,
  contactsOf,
  createCampaign,
  diallerFor,
  eventsOf,
  expectNoDoubleDial,
  numbers,
  sampler,
  tickUntil,
  type CampaignWorld,
} from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let world: CampaignWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", STARTING_CREDIT_USD: "1000", ORG_CONCURRENT_CALLS: "8", DIALLER_INTERVAL_MS: "20" });
  world = await campaignWorld(app, database.db);
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

describe("concurrency", () => {
  it("200 contacts at max_concurrency 5: never more than 5 calls on at once, every contact called once", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 5 });
    await addContacts(world, campaignId, numbers(200, "00"));
    const dialler = diallerFor(world.app);
    const watch = sampler(() => callsInProgress(world.db, { campaignId }));
    dialler.start();
    const started = Date.now();
    await tickUntil(dialler, () => allSettled(world.db, campaignId), 60_000);
    await dialler.stop();
    const { highest, samples } = await watch.stop();
    console.log(`200 contacts in ${Date.now() - started} ms; highest ${highest} in ${samples} samples`);
    expect(highest).toBe(5);
    expect(samples).toBeGreaterThan(20);
    const contacts = await contactsOf(world.db, campaignId);
    expect(contacts.every((contact) => contact.status === "answered" && contact.attempts === 1)).toBe(true);
    expect(await callsOf(world.db, campaignId)).toHaveLength(200);
    await expectNoDoubleDial(world.db, campaignId, 3);
  });
});

describe("the organisation's limit", () => {
  it("two campaigns of 6 each never have more than ORG_CONCURRENT_CALLS (8) on at once between them", async () => {
    const first = await createCampaign(world, { maxConcurrency: 6 });
    const second = await createCampaign(world, { maxConcurrency: 6 });
    await addContacts(world, first, numbers(30, "00", "301"));
    await addContacts(world, second, numbers(30, "00", "302"));
    const dialler = diallerFor(world.app);
    const watch = sampler(() => contactsInProgress(world.db, [first, second]));
    dialler.start();
    await tickUntil(dialler, async () => (await allSettled(world.db, first)) && (await allSettled(world.db, second)), 60_000);
    await dialler.stop();
    const { highest, samples } = await watch.stop();
    expect(samples).toBeGreaterThan(10);
    expect(highest).toBe(8);
  });
});

describe("live edits", () => {
  it("max_concurrency lowered while running applies to the next claim", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 4 });
    await addContacts(world, campaignId, numbers(24, "00", "303"));
    const dialler = diallerFor(world.app);
    await dialler.tick();
    expect(await contactsInProgress(world.db, [campaignId])).toBe(4);
    await world.db.update(campaigns).set({ maxConcurrency: 1 }).where(eq(campaigns.id, campaignId));
    // Once the four under way have ended, never more than one again.
    let drained = false;
    let highestAfter = 0;
    const watch = sampler(async () => {
      const n = await callsInProgress(world.db, { campaignId });
      if (n <= 1) drained = true;
      else if (drained) highestAfter = Math.max(highestAfter, n);
      return n;
    });
    await tickUntil(dialler, () => allSettled(world.db, campaignId), 60_000);
    await watch.stop();
    expect(drained).toBe(true);
    expect(highestAfter).toBe(0);
    expect((await contactsOf(world.db, campaignId)).every((contact) => contact.status === "answered")).toBe(true);
  });
});

describe("what a campaign call carries", () => {
  it("campaign_id and campaign_contact_id on the call; the contact's variables and name, the opt-out tool and the attempt in the request", async () => {
    const campaignId = await createCampaign(world);
    const [contactId] = await addContacts(world, campaignId, [{ number: "+14155559900", name: "Ada Lovelace", variables: { plan: "Platinum", city: "London" } }]);
    const dialler = diallerFor(world.app);
    // Settled by the ended status; the end-of-call report (transcript) follows it.
    await tickUntil(dialler, async () => (await allSettled(world.db, campaignId)) && (await callsOf(world.db, campaignId))[0]?.transcript != null);
    const [call] = await callsOf(world.db, campaignId);
    expect(call).toMatchObject({ campaignId, campaignContactId: contactId, type: "outbound", customerNumber: "+14155559900", customerName: "Ada Lovelace", isSandbox: true, agentId: world.agentId });
    const [placed] = await world.db.select().from(sandboxProviderCalls).where(eq(sandboxProviderCalls.callId, call!.id));
    expect(placed!.request).toMatchObject({
      variableValues: { plan: "Platinum", city: "London", name: "Ada Lovelace" },
      campaign: { campaignId, contactId, attempt: 1 },
      optOutTool: { name: "do_not_call" },
    });
    // The agent's welcome message was filled from them.
    expect(call!.transcript).toContain("Hello Ada Lovelace, this is Outbound desk about Platinum.");
    const [contact] = await contactsOf(world.db, campaignId);
    expect(contact).toMatchObject({ status: "answered", outcome: "answered", attempts: 1, lastCallId: call!.id, lastEndedReason: "assistant-ended-call", leaseUntil: null, leasedBy: null });
  });
});

describe("a campaign's life", () => {

  it("completes once no contact is queued or in progress; a contact that needs a time zone does not hold it open", async () => {
    const campaignId = await createCampaign(world, { fallbackTimezone: null });
    await addContacts(world, campaignId, [
      { number: "+14155559700", timezone: "Europe/London" },
      { number: "+14155559911", timezone: null },
    ]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, async () => (await campaignRow(world.db, campaignId)).status === "completed");
    const campaign = await campaignRow(world.db, campaignId);
    expect(campaign.completedAt).toBeInstanceOf(Date);
    expect((await contactsOf(world.db, campaignId)).map((contact) => contact.status)).toEqual(["answered", "needs_timezone"]);
    const completed = (await eventsOf(world.db, campaignId)).find((event) => event.kind === "completed");
    expect(completed?.detail).toMatch(/^Completed: every contact has been called\. Contacts: 1 answered, 1 needs timezone\.$/);
    // Nothing more happens to a completed campaign.
    const report = await dialler.tick();
    expect(report.claimed).toBe(0);
  });

  it("a scheduled campaign starts running when its start_at comes, not before", async () => {
    const later = await createCampaign(world, { status: "scheduled", startAt: new Date(Date.now() + 60 * 60_000) });
    const due = await createCampaign(world, { status: "scheduled", startAt: new Date(Date.now() - 1000) });
    await addContacts(world, due, ["+14155559920"]);
    await addContacts(world, later, ["+14155559921"]);
    const dialler = diallerFor(world.app);
    const report = await dialler.tick();
    expect(report.started).toBe(1);
    expect(await campaignRow(world.db, due)).toMatchObject({ status: "running", startedAt: expect.any(Date) });
    expect((await campaignRow(world.db, later)).status).toBe("scheduled");
    expect((await eventsOf(world.db, due)).map((event) => event.kind)).toContain("started");
    await tickUntil(dialler, () => allSettled(world.db, due));
    expect((await contactsOf(world.db, later))[0]!.attempts).toBe(0);
  });

  it("past its end_at: no more dials, the queued contacts cancelled, completed once the calls on the line have ended", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 2 });
    await addContacts(world, campaignId, numbers(6, "00", "304"));
    const dialler = diallerFor(world.app);
    await dialler.tick();
    expect(await contactsInProgress(world.db, [campaignId])).toBe(2);
    await world.db.update(campaigns).set({ endAt: new Date(Date.now() - 1) }).where(eq(campaigns.id, campaignId));
    await tickUntil(dialler, async () => (await campaignRow(world.db, campaignId)).status === "completed");
    const statuses = (await contactsOf(world.db, campaignId)).map((contact) => contact.status);
    expect(statuses.filter((status) => status === "answered")).toHaveLength(2);
    expect(statuses.filter((status) => status === "cancelled")).toHaveLength(4);
    expect(await callsOf(world.db, campaignId)).toHaveLength(2);
    expect((await eventsOf(world.db, campaignId)).find((event) => event.kind === "completed")?.detail).toMatch(/end time .* passed; the contacts not reached by then were cancelled\. Contacts: 4 cancelled, 2 answered\.$/);
  });

  it("a contact outside its calling window is not dialled: its ready_at moves to the window's next opening", async () => {
    const tomorrow = WEEKDAYS[(new Date().getUTCDay() + 6 + 1) % 7]!;
    const windows = [{ days: [tomorrow], start: "00:00", end: "24:00" }];
    const campaignId = await createCampaign(world, { windows });
    await addContacts(world, campaignId, [{ number: "+14155559930", timezone: "UTC" }]);
    const before = Date.now();
    const report = await diallerFor(world.app).tick();
    expect(report.claimed).toBe(0);
    const [contact] = await contactsOf(world.db, campaignId);
    expect(contact!.status).toBe("queued");
    expect(contact!.attempts).toBe(0);
    expect(contact!.readyAt!.getTime()).toBe(nextOpening(windows, ["UTC"], before));
    expect(contact!.readyAt!.getTime()).toBeGreaterThan(before);
    expect(await callsOf(world.db, campaignId)).toEqual([]);
  });

  it("queued contacts without a ready_at get one (their next opening) and are dialled", async () => {
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, [{ number: "+14155559600", readyAt: null }]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, () => allSettled(world.db, campaignId));
    expect((await contactsOf(world.db, campaignId))[0]).toMatchObject({ status: "answered", attempts: 1 });
  });

  it("a queued contact without a ready_at and without any time zone becomes needs_timezone, not a call", async () => {
    const campaignId = await createCampaign(world, { fallbackTimezone: null });
    await addContacts(world, campaignId, [{ number: "+14155559610", timezone: null, readyAt: null }]);
    const report = await diallerFor(world.app).tick();
    expect(report.claimed).toBe(0);
    expect((await contactsOf(world.db, campaignId))[0]).toMatchObject({ status: "needs_timezone", readyAt: null, attempts: 0 });
    expect(await callsOf(world.db, campaignId)).toEqual([]);
  });
});
