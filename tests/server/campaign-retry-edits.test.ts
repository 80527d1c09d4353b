/**
 * A live edit of the retry policy (issue 31, item 5): the policy is the campaign's as it stands, read
 * when a call ends, at every dial and by the edit itself. Lowering calls per contact finishes the
 * contacts that have had theirs at once (no retry scheduled under the old policy is dialled), taking an
 * outcome out of retry.on finishes those it retried, a new delay moves the scheduled retries, and
 * contacts already finished stay finished. An edit racing the dialler's claim takes turns with it on
 * the campaign's row: no contact is dialled past the new maximum once the edit has been made.
 *
 * The sandbox's numbers …00 answer, …01 are busy, …02 do not answer.
 */
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CampaignContact, CampaignRetry } from "../../contract/campaign";
import type { Database } from "../../server/db/client";
import { campaignContacts, campaigns } from "../../server/db/schema";
import { api } from "./campaigns-fixtures";
import { addContacts, callsOf, campaignRow, campaignWorld, contactsOf, createCampaign, diallerFor, eventsOf, numbers, tickUntil, type CampaignWorld } from "./dialler-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let world: CampaignWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", STARTING_CREDIT_USD: "1000", ORG_CONCURRENT_CALLS: "20" });
  world = await campaignWorld(app, database.db, "Retry Edits Co");
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

const HOUR = 60 * 60_000;

async function editRetry(campaignId: string, retry: CampaignRetry) {
  const response = await api(world.app, world.org.token, "PUT", `/campaign/${campaignId}`, { retry });
  expect(response.statusCode, response.body).toBe(200);
}

/** The contacts as GET /campaign/{id}/contacts answers them (what the console shows). */
async function listedContacts(campaignId: string): Promise<CampaignContact[]> {
  const response = await api(world.app, world.org.token, "GET", `/campaign/${campaignId}/contacts?limit=100`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: CampaignContact[] }).data;
}

/** Calls each contact until every one has had its first call and waits for its retry (or is final). */
async function firstCalls(campaignId: string): Promise<void> {
  await tickUntil(diallerFor(world.app), async () => (await contactsOf(world.db, campaignId)).every((contact) => contact.attempts === 1 && contact.status !== "in_progress"));
}

describe("lowering calls per contact on a running campaign", () => {
  it("3 → 1 with retries scheduled: the contacts are final at once, with their last outcome, no second call is placed, and the campaign completes", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 3, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer", "voicemail"] } });
    await addContacts(world, campaignId, ["+14155552100", "+14155552101", "+14155552102"]);
    await firstCalls(campaignId);
    const waiting = await listedContacts(campaignId);
    expect(waiting.map((contact) => [contact.status, contact.attempts])).toEqual([
      ["answered", 1],
      ["queued", 1],
      ["queued", 1],
    ]);
    expect(waiting[1]!.next_attempt_at).not.toBeNull();

    await editRetry(campaignId, { max_attempts: 1, delay_minutes: 60, on: ["busy", "no-answer", "voicemail"] });
    const settled = await listedContacts(campaignId);
    expect(settled.map((contact) => [contact.number, contact.status, contact.outcome, contact.attempts, contact.next_attempt_at])).toEqual([
      ["+14155552100", "answered", "answered", 1, null],
      ["+14155552101", "busy", "busy", 1, null],
      ["+14155552102", "no_answer", "no_answer", 1, null],
    ]);
    const edited = (await eventsOf(world.db, campaignId)).find((event) => event.kind === "edited");
    expect(edited?.detail).toContain("2 contacts waiting for a retry are finished (no more calls).");

    // An hour later (when the retries were due), the dialler places nothing and completes the campaign.
    const later = diallerFor(world.app, { now: () => Date.now() + HOUR + 60_000 });
    const report = await later.tick();
    expect(report.claimed).toBe(0);
    expect(report.completed).toEqual([campaignId]);
    expect(await callsOf(world.db, campaignId)).toHaveLength(3);
    expect((await campaignRow(world.db, campaignId)).status).toBe("completed");
    expect((await eventsOf(world.db, campaignId)).at(-1)?.detail).toMatch(/^Completed: every contact has been called\. Contacts: (1 (answered|busy|no answer)(, |\.$)){3}/);
  });

  it("a paused campaign too: its contacts that have had their calls are final, and it completes when resumed", async () => {
    const campaignId = await createCampaign(world, { retry: { max_attempts: 2, delay_minutes: 60, on: ["busy"] } });
    await addContacts(world, campaignId, ["+14155552201"]);
    await firstCalls(campaignId);
    const paused = await api(world.app, world.org.token, "POST", `/campaign/${campaignId}/pause`);
    expect(paused.statusCode, paused.body).toBe(200);
    expect(await contactsOf(world.db, campaignId)).toMatchObject([{ status: "queued", attempts: 1 }]);
    await editRetry(campaignId, { max_attempts: 1, delay_minutes: 60, on: ["busy"] });
    expect(await contactsOf(world.db, campaignId)).toMatchObject([{ status: "busy", outcome: "busy", attempts: 1, readyAt: null }]);
    expect((await api(world.app, world.org.token, "POST", `/campaign/${campaignId}/resume`)).statusCode).toBe(200);
    const report = await diallerFor(world.app, { now: () => Date.now() + HOUR + 60_000 }).tick();
    expect(report.claimed).toBe(0);
    expect((await campaignRow(world.db, campaignId)).status).toBe("completed");
    expect(await callsOf(world.db, campaignId)).toHaveLength(1);
  });
});

describe("the rest of the retry policy, live", () => {
  it("an outcome taken out of retry.on finishes the contacts waiting to retry it; the others keep their retry", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer"] } });
    await addContacts(world, campaignId, ["+14155552301", "+14155552302"]);
    await firstCalls(campaignId);
    const [busyBefore, noAnswerBefore] = await contactsOf(world.db, campaignId);
    expect([busyBefore!.status, noAnswerBefore!.status]).toEqual(["queued", "queued"]);

    await editRetry(campaignId, { max_attempts: 3, delay_minutes: 60, on: ["no-answer"] });
    const [busy, noAnswer] = await contactsOf(world.db, campaignId);
    expect(busy).toMatchObject({ status: "busy", outcome: "busy", attempts: 1, readyAt: null });
    expect(noAnswer).toMatchObject({ status: "queued", attempts: 1 });
    expect(noAnswer!.readyAt!.getTime()).toBe(noAnswerBefore!.readyAt!.getTime());
    expect(noAnswer!.notBefore!.getTime()).toBe(noAnswerBefore!.notBefore!.getTime());
  });

  it("a new delay moves the scheduled retries to that long after each contact's last call; raising calls per contact does not call a finished contact again", async () => {
    const campaignId = await createCampaign(world, { maxConcurrency: 2, retry: { max_attempts: 1, delay_minutes: 60, on: ["busy", "no-answer"] } });
    // One finished after its only call (busy, 1 of 1); one not called yet (its first call far off).
    const [finished, later] = await addContacts(world, campaignId, [{ number: "+14155552401" }, { number: "+14155552400", readyAt: new Date(Date.now() + 24 * HOUR) }]);
    const dialler = diallerFor(world.app);
    await tickUntil(dialler, async () => (await contactsOf(world.db, campaignId))[0]!.status === "busy");
    // Now 3 calls per contact, 60 minutes apart: the busy one stays finished.
    await editRetry(campaignId, { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer"] });
    expect((await contactsOf(world.db, campaignId)).find((contact) => contact.id === finished)).toMatchObject({ status: "busy", attempts: 1 });

    // A contact waiting for its retry, an hour after its call.
    const [waiting] = await addContacts(world, campaignId, [{ number: "+14155552402" }]);
    await tickUntil(dialler, async () => {
      const contact = (await contactsOf(world.db, campaignId)).find((one) => one.id === waiting);
      return contact?.status === "queued" && contact.attempts === 1;
    });
    const [call] = (await callsOf(world.db, campaignId)).filter((one) => one.campaignContactId === waiting);
    const ended = call!.endedAt!.getTime();
    expect((await contactsOf(world.db, campaignId)).find((one) => one.id === waiting)!.notBefore!.getTime()).toBe(ended + HOUR);

    // 5 minutes apart: its retry comes 5 minutes after its call (its windows are always open: ready then).
    await editRetry(campaignId, { max_attempts: 3, delay_minutes: 5, on: ["busy", "no-answer"] });
    const moved = (await contactsOf(world.db, campaignId)).find((one) => one.id === waiting)!;
    expect(moved.status).toBe("queued");
    expect(moved.notBefore!.getTime()).toBe(ended + 5 * 60_000);
    expect(moved.readyAt!.getTime()).toBe(ended + 5 * 60_000);
    const listed = (await listedContacts(campaignId)).find((one) => one.id === waiting)!;
    expect(listed.next_attempt_at).toBe(new Date(ended + 5 * 60_000).toISOString());
    expect((await eventsOf(world.db, campaignId)).filter((event) => event.kind === "edited").at(-1)?.detail).toContain("1 retry moved to the new delay.");

    // No delay: due now, and dialled at the next claim; the finished contact is not called again.
    await editRetry(campaignId, { max_attempts: 3, delay_minutes: 0, on: ["busy", "no-answer"] });
    const report = await dialler.tick();
    expect(report.claimed).toBe(1);
    const placed = await callsOf(world.db, campaignId);
    expect(placed.filter((one) => one.campaignContactId === waiting)).toHaveLength(2);
    expect(placed.filter((one) => one.campaignContactId === finished)).toHaveLength(1);
    expect(placed.filter((one) => one.campaignContactId === later)).toHaveLength(0);
  });
});

describe("read at dial time", () => {
  it("a queued contact whose attempts already reached max_attempts is made final by the claim, not dialled", async () => {
    const campaignId = await createCampaign(world, { retry: { max_attempts: 3, delay_minutes: 60, on: ["busy"] } });
    const [contactId] = await addContacts(world, campaignId, ["+14155552501"]);
    await firstCalls(campaignId);
    // As a call's end settled under the old policy while an edit was being made would leave it: queued for a second call of 1.
    await world.db.update(campaigns).set({ retry: { max_attempts: 1, delay_minutes: 60, on: ["busy"] } }).where(eq(campaigns.id, campaignId));
    await world.db.update(campaignContacts).set({ readyAt: new Date(Date.now() - 1000) }).where(eq(campaignContacts.id, contactId!));
    expect(await contactsOf(world.db, campaignId)).toMatchObject([{ status: "queued", attempts: 1 }]);

    const report = await diallerFor(world.app).tick();
    expect(report.claimed).toBe(0);
    expect(await contactsOf(world.db, campaignId)).toMatchObject([{ status: "busy", outcome: "busy", attempts: 1, readyAt: null }]);
    expect(await callsOf(world.db, campaignId)).toHaveLength(1);
    expect((await campaignRow(world.db, campaignId)).status).toBe("completed");
  });

  it("an edit racing the dialler's claims: once it is made, no contact is dialled past the new maximum", async () => {
    // The edit and the claim start together, or one a few milliseconds after the other, so that either may take the campaign's row first.
    const delays = [
      { edit: 0, claim: 0 },
      { edit: 0, claim: 2 },
      { edit: 0, claim: 10 },
      { edit: 2, claim: 0 },
      { edit: 10, claim: 0 },
      { edit: 30, claim: 0 },
    ];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let claimFirst = 0;
    for (const [round, delay] of delays.entries()) {
      const campaignId = await createCampaign(world, { maxConcurrency: 3, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy"] } });
      const ids = await addContacts(world, campaignId, numbers(6, "01", String(520 + round)));
      await firstCalls(campaignId);
      // The hour has passed: every retry is due now.
      await world.db
        .update(campaignContacts)
        .set({ readyAt: new Date(Date.now() - 1000) })
        .where(and(inArray(campaignContacts.id, ids), eq(campaignContacts.status, "queued")));

      const dialler = diallerFor(world.app);
      const edit = async () => {
        await pause(delay.edit);
        await editRetry(campaignId, { max_attempts: 1, delay_minutes: 60, on: ["busy"] });
      };
      const claim = async () => {
        await pause(delay.claim);
        return dialler.tick();
      };
      const [, raced] = await Promise.all([edit(), claim()]);
      const editedAt = (await eventsOf(world.db, campaignId)).find((event) => event.kind === "edited")!.createdAt.getTime();
      // Whatever the racing claim took, it took before the edit (at most max_concurrency); nothing is dialled after it.
      const retries = (await callsOf(world.db, campaignId)).slice(6);
      expect(retries).toHaveLength(raced.claimed);
      expect(raced.claimed === 0 || raced.claimed === 3).toBe(true);
      for (const call of retries) expect(call.startedAt!.getTime()).toBeLessThanOrEqual(editedAt);
      if (raced.claimed > 0) claimFirst++;
      await tickUntil(dialler, async () => (await campaignRow(world.db, campaignId)).status === "completed");
      expect(await callsOf(world.db, campaignId)).toHaveLength(6 + raced.claimed);
      const contacts = await contactsOf(world.db, campaignId);
      expect(contacts.map((contact) => contact.status)).toEqual(Array(6).fill("busy"));
      // Every contact the racing claim did not take kept its one call.
      expect(contacts.filter((contact) => contact.attempts === 1)).toHaveLength(6 - raced.claimed);
      expect(contacts.filter((contact) => contact.attempts === 2)).toHaveLength(raced.claimed);
    }
    console.log(`edit/claim race: the claim took the campaign first in ${claimFirst} of ${delays.length} rounds`);
  });
});
