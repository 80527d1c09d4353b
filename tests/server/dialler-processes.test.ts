/**
 * The dialler across real processes on one PostgreSQL database: two API servers (`server/index.ts`, as
 * `npm run server` starts it, each with its dialler on) share a campaign; one is killed with SIGKILL in
 * the middle of dialling and started again, then the other. Afterwards:
 *
 * - no contact was dialled twice for the same attempt: the sandbox's own ledger (what the "provider"
 *   received) holds at most one call per (contact, attempt), a contact's calls are at most its attempts,
 *   its attempts at most max_attempts, and the ledger and our call rows name the same calls;
 * - none was lost: every contact is in a final state and the campaign completed;
 * - the cap held: calls on at once, sampled all along from this process, never above max_concurrency.
 *
 * - money: every call the sandbox answered (numbers ending 00 and 04) was charged, none lost in a kill; every
 *   call that has a cost was debited exactly once, by its cost, and no call without one; the wallet's balance
 *   is the sum of its ledger.
 *
 * Needs PostgreSQL (TEST_DATABASE_URL): `npm run test:engines` (skipped, saying so, in `npm test`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { addContacts, campaignWorld, createCampaign, numbers, type CampaignWorld } from "./dialler-fixtures";
import { postgresUnavailable, skippedBecause, TEST_DATABASE_URL } from "./engines";
import { buildTestApp, postgresDatabase } from "./helpers";
import { freePort, startServer, waitForOutput, type ServerProcess } from "./server-process";

const unavailable = await postgresUnavailable();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** DIALLER_KILLS (at least 2) / DIALLER_KILL_CONTACTS: a longer run by hand (e.g. 40 kills of 1,200 contacts). */
const KILLS = Math.max(2, Number(process.env.DIALLER_KILLS || 2));
const CONTACTS = Number(process.env.DIALLER_KILL_CONTACTS || 120);
const CONCURRENCY = 6;
const MAX_ATTEMPTS = 2;

describe.skipIf(unavailable !== null)("the dialler in two processes on PostgreSQL, one killed mid-campaign", () => {
  let database: Database;
  let url: string;
  let drop: () => Promise<void>;
  let world: CampaignWorld;
  let campaignId: string;
  let dataDir: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    ({ database, url, drop } = await postgresDatabase(TEST_DATABASE_URL!));
    const { app } = await buildTestApp(database);
    world = await campaignWorld(app, database.db, "Kill Test Ltd");
    await app.close();
    dataDir = mkdtempSync(join(tmpdir(), "vap-dialler-processes-"));
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("no contact dialled twice for one attempt, none lost, the cap never exceeded", async () => {
    // Suffixes: answered, busy, no answer, voicemail, opt-out, and the call id's own choice.
    const suffixes = ["00", "01", "02", "03", "04", "57"];
    const list = suffixes.flatMap((suffix, index) => numbers(CONTACTS / suffixes.length, suffix, String(201 + index)));
    campaignId = await createCampaign(world, { maxConcurrency: CONCURRENCY, retry: { max_attempts: MAX_ATTEMPTS, delay_minutes: 0, on: ["busy", "no-answer", "voicemail"] } });
    await addContacts(world, campaignId, list);

    const env = async (): Promise<Record<string, string>> => ({
      DATABASE_URL: url,
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      SEED_DEMO: "false",
      SANDBOX_CALL_SECONDS: "0.4",
      STARTING_CREDIT_USD: "1000",
      DIALLER_INTERVAL_MS: "50",
      DIALLER_LEASE_SECONDS: "5",
      ORG_CONCURRENT_CALLS: "50",
      // No plan limit (testConfig's default): ORG_CONCURRENT_CALLS is the cap under test, not Free's one call.
      DEFAULT_PLAN: "enterprise",
    });
    const live = [startServer(await env()), startServer(await env())];
    servers.push(...live);

    // Sampled from here all along: calls of the campaign not ended (what is on the line).
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    let highest = 0;
    let samples = 0;
    let sampling = true;
    const sampleLoop = (async () => {
      while (sampling) {
        const { rows } = await watcher.query<{ n: string }>("select count(*) as n from calls where campaign_id = $1 and status <> 'ended'", [campaignId]);
        highest = Math.max(highest, Number(rows[0]!.n));
        if (Number(rows[0]!.n) > CONCURRENCY && process.env.DEBUG_DIALLER) {
          const dump = await watcher.query(
            "select k.id, k.status, k.started_at, k.provider_call_id, c.status as contact_status, c.last_call_id = k.id as current, c.attempts, c.leased_by from calls k join campaign_contacts c on c.id = k.campaign_contact_id where k.campaign_id = $1 and k.status <> 'ended'",
            [campaignId],
          );
          console.log(JSON.stringify(dump.rows, null, 1));
        }
        samples++;
        await sleep(10);
      }
    })();
    const settledCount = async () =>
      Number((await watcher.query<{ n: string }>("select count(*) as n from campaign_contacts where campaign_id = $1 and status not in ('queued', 'in_progress')", [campaignId])).rows[0]!.n);

    await Promise.all(live.map((server) => waitForOutput(server, "Open ")));
    const started = Date.now();

    // Kill the processes in turn in the middle of dialling (a random moment once enough contacts are
    // settled), each started again at once; count the contacts each held at its death.
    let heldAtDeath = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const index = kill % 2;
      const victim = live[index]!;
      while ((await settledCount()) < ((kill + 1) * CONTACTS) / (KILLS + 2)) await sleep(20);
      await sleep(Math.floor(Math.random() * 300));
      const { rows } = await watcher.query<{ n: string }>("select count(*) as n from campaign_contacts where campaign_id = $1 and status = 'in_progress' and leased_by like $2", [
        campaignId,
        `%:${victim.child.pid}:%`,
      ]);
      heldAtDeath += Number(rows[0]!.n);
      victim.child.kill("SIGKILL");
      await victim.exited;
      const again = startServer(await env());
      servers.push(again);
      live[index] = again;
      await waitForOutput(again, "Open ");
    }

    const deadline = Date.now() + 45_000 + CONTACTS * 200;
    for (;;) {
      const { rows } = await watcher.query<{ status: string }>("select status from campaigns where id = $1", [campaignId]);
      if (rows[0]?.status === "completed") break;
      if (Date.now() > deadline) throw new Error(`the campaign did not complete (${rows[0]?.status}); settled ${await settledCount()} of ${CONTACTS}`);
      await sleep(100);
    }
    sampling = false;
    await sampleLoop;
    if (process.env.DEBUG_DIALLER) for (const server of servers) console.log(server.output().split("\n").filter((line) => line.startsWith("{")).slice(0, 20).join("\n"));
    const seconds = (Date.now() - started) / 1000;

    const contacts = (
      await watcher.query<{ id: string; number: string; status: string; attempts: number }>("select id, number, status, attempts from campaign_contacts where campaign_id = $1", [campaignId])
    ).rows;
    const callRows = (await watcher.query<{ id: string; contact: string }>("select id, campaign_contact_id as contact from calls where campaign_id = $1", [campaignId])).rows;
    const ledger = (
      await watcher.query<{ call_id: string; contact: string; attempt: number }>(
        "select call_id, request->'campaign'->>'contactId' as contact, (request->'campaign'->>'attempt')::int as attempt from sandbox_provider_calls where request->'campaign'->>'campaignId' = $1",
        [campaignId],
      )
    ).rows;
    if (process.env.DEBUG_DIALLER) {
      const dupes = await watcher.query(
        `select l.call_id, l.placed_at, l.request->'campaign' as campaign, k.started_at, k.status from sandbox_provider_calls l left join calls k on k.id = l.call_id
         where (l.request->'campaign'->>'contactId', l.request->'campaign'->>'attempt') in (
           select request->'campaign'->>'contactId', request->'campaign'->>'attempt' from sandbox_provider_calls group by 1, 2 having count(*) > 1) order by l.placed_at`,
      );
      console.log(JSON.stringify(dupes.rows, null, 1));
    }
    // A killed process's calls may have ended (their status came) without their end-of-call report, which died with
    // it: the dialler asks the provider a lease (5 s) later. Wait for that, then look at the money.
    const uncharged = async () =>
      Number(
        (
          await watcher.query<{ n: string }>(
            "select count(*) as n from calls where campaign_id = $1 and status = 'ended' and cost_micros is null and (customer_number like '%00' or customer_number like '%04')",
            [campaignId],
          )
        ).rows[0]!.n,
      );
    for (const until = Date.now() + 30_000; (await uncharged()) > 0 && Date.now() < until; ) await sleep(200);
    // Money: each costed call debited once by its cost, nothing else; the balance is the ledger's sum.
    const money = (
      await watcher.query<{ id: string; number: string; cost: string | null; debits: string[] }>(
        `select c.id, c.customer_number as number, c.cost_micros::text as cost, coalesce(array_agg(l.amount_micros::text) filter (where l.id is not null), '{}') as debits
         from calls c left join wallet_ledger l on l.call_id = c.id where c.campaign_id = $1 group by c.id, c.customer_number, c.cost_micros`,
        [campaignId],
      )
    ).rows;
    const wallet = (
      await watcher.query<{ balance: string; total: string }>(
        "select w.balance_micros::text as balance, (select coalesce(sum(amount_micros), 0)::text from wallet_ledger where org_id = w.org_id) as total from wallets w where w.org_id = $1",
        [world.org.orgId],
      )
    ).rows[0]!;
    await watcher.end();

    // None lost: every contact final.
    expect(contacts).toHaveLength(CONTACTS);
    expect(contacts.filter((contact) => contact.status === "queued" || contact.status === "in_progress")).toEqual([]);
    // No double dial: one provider call per (contact, attempt); calls per contact ≤ attempts ≤ max_attempts.
    const perAttempt = new Map<string, number>();
    for (const call of ledger) perAttempt.set(`${call.contact}:${call.attempt}`, (perAttempt.get(`${call.contact}:${call.attempt}`) ?? 0) + 1);
    expect([...perAttempt.values()].filter((n) => n > 1)).toEqual([]);
    const ledgerPerContact = new Map<string, number>();
    for (const call of ledger) ledgerPerContact.set(call.contact, (ledgerPerContact.get(call.contact) ?? 0) + 1);
    for (const contact of contacts) {
      expect(ledgerPerContact.get(contact.id) ?? 0, contact.number).toBeLessThanOrEqual(contact.attempts);
      expect(contact.attempts, contact.number).toBeLessThanOrEqual(MAX_ATTEMPTS);
    }
    // Our call rows are exactly the calls the provider received (a call never placed was given back).
    expect(callRows.map((call) => call.id).sort()).toEqual(ledger.map((call) => call.call_id).sort());
    // The kills hit processes that were dialling.
    expect(heldAtDeath).toBeGreaterThan(0);
    // The cap, sampled all along.
    expect(samples).toBeGreaterThan(100);
    expect(highest).toBeLessThanOrEqual(CONCURRENCY);
    // Money: one debit per costed call (its cost), none for a call without a cost; balance = sum(ledger).
    const costed = money.filter((call) => call.cost !== null && Number(call.cost) > 0);
    const answeredUncharged = money.filter((call) => (call.number.endsWith("00") || call.number.endsWith("04")) && !(call.cost !== null && Number(call.cost) > 0));
    expect(answeredUncharged, "answered calls whose cost never arrived").toEqual([]);
    expect(costed.length).toBeGreaterThan(CONTACTS / 2);
    expect(costed.filter((call) => call.debits.length !== 1 || Number(call.debits[0]) !== -Number(call.cost))).toEqual([]);
    expect(money.filter((call) => !(call.cost !== null && Number(call.cost) > 0) && call.debits.length > 0)).toEqual([]);
    expect(wallet.balance).toBe(wallet.total);
    // What the numbers ask for.
    const statusOf = (suffix: string) => new Set(contacts.filter((contact) => contact.number.endsWith(suffix)).map((contact) => contact.status));
    expect(statusOf("00")).toEqual(new Set(["answered"]));
    expect(statusOf("01")).toEqual(new Set(["busy"]));
    expect(statusOf("04")).toEqual(new Set(["dnc"]));
    console.log(
      `dialler-processes: ${CONTACTS} contacts, ${ledger.length} calls, ${KILLS} SIGKILLs (holding ${heldAtDeath} contacts in progress), completed in ${seconds.toFixed(1)} s; ` +
        `highest on the line ${highest} (limit ${CONCURRENCY}) over ${samples} samples; duplicate dials 0; ${costed.length} costed calls debited once each`,
    );
  }, 120_000 + KILLS * 10_000 + CONTACTS * 200);
});

if (unavailable !== null) {
  describe("the dialler in two processes on PostgreSQL", () => {
    it.skip(skippedBecause(unavailable), () => {});
  });
}
