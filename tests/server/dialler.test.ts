/**
 * The campaign dialler on the embedded database (PGlite; PostgreSQL with TEST_DATABASE_URL) and the
 * sandbox provider: concurrency never above max_concurrency nor the organisation's limit under load,
 * live edits, campaign call records, completion, scheduled starts and end times.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { addContacts, allSettled, callsInProgress, callsOf, campaignRow, campaignWorld, contactsOf, createCampaign, diallerFor, expectNoDoubleDial, numbers, sampler, tickUntil, type CampaignWorld } from "./dialler-fixtures";
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
