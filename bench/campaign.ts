// `npm run bench:campaign [-- --quick | --smoke] [-- --call-seconds=0.5]`: the campaign dialler at scale (issue 13).
//
// On PostgreSQL (TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres; a fresh database,
// dropped at the end): one organisation, 10,000 contacts (--quick: 1,000), max_concurrency 50, one
// attempt each, sandbox calls that end at once (SANDBOX_CALL_SECONDS=0; --call-seconds to give them a
// length), dialled by two API processes (bench/campaign-server.ts: the app as server/index.ts builds it,
// its dialler on). Prints:
//
// - import: contacts imported per second, from the CSV text to rows in the database, through the API's
//   own import (server/campaigns/contacts-import.ts: parse, check, duplicates, do-not-call list, zones,
//   ready_at, chunked inserts in one transaction).
// - dial overhead: per dial, from the start of its claim (the transaction that takes it) to its request
//   to the provider, p50 / p95 / max over every dial of both processes (the dialler's onDial hook); then
//   where it went (DialTiming): a pooled connection and BEGIN; the wait for the organisation's row
//   (every write of the organisation's calls takes that row in turn: the webhooks of the calls on the
//   line, the other process's claims); the campaign's row and facts; picking the contacts; writing the
//   calls and contacts; COMMIT; and the part after the claim committed. Then the calls per claim.
// - the floor: a claim of the run's median size on the quiet database afterwards, its statements sent
//   bare at the driver (recorded from claimCampaign, replayed BEGIN to COMMIT), beside the same claim
//   through the dialler's code (claimFloor).
// - concurrency: the highest number of calls on at once, sampled every few milliseconds from this
//   process (in_progress contacts; calls not ended every 50 ms): must equal the limit, never more.
// - duplicate dials: provider calls (the sandbox's ledger) beyond one per contact and attempt: must be 0.
// - time to finish against the ideal: contacts ÷ concurrency × call length (0 with calls that end at
//   once: then the time is all dialling overhead, shown as the turnaround per line and call).
//
// Targets: import 10,000 rows in under 2 s; dial overhead p95 under 10 ms; concurrency never above the limit.
// A missed target is printed, never fatal; a bench that breaks exits non-zero.
//
// --smoke (CI): 60 contacts (the 50 lines filled, then refilled as calls end) and a floor of 5 claims, to
// show the bench still works in seconds; its figures say nothing.
//
// Two knobs for looking into the figures (neither is needed for a run): BENCH_SAMPLE_MS (default 2), the
// sampler's pause between two reads of the contacts in progress (the sampler is a load of its own on the
// database: about 300 reads a second at 2 ms); BENCH_NODE_ARGS, extra Node.js options for the two API
// processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (NODE_OPTIONS refuses --cpu-prof).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { sql } from "drizzle-orm";
import pg from "pg";
import { agentConfigSchema } from "../contract/agent";
import { DEFAULT_CAMPAIGN_RETRY } from "../contract/campaign";
import type { Database } from "../server/db/client";
import { agents, campaigns, organizations, phoneNumbers } from "../server/db/schema";
import { contactRowsFromCsv, importContacts as importCampaignContacts } from "../server/campaigns/contacts-import";
import { createCampaignSignals } from "../server/campaigns/signals";
import { orgScope } from "../server/data/orgScope";
import { claimCampaign, type ClaimSettings } from "../server/campaigns/claim";
import { walletPolicy } from "../server/wallet/wallet";
import { benchConfig, benchMode, byMode, modeFlag, onFreshPostgres, percentile, SMOKE_NOTE } from "./measure";

const MODE = benchMode();
const CONTACTS = byMode(MODE, { full: 10_000, quick: 1_000, smoke: 60 });
const CONCURRENCY = 50;
const CALL_SECONDS = Number(process.argv.find((arg) => arg.startsWith("--call-seconds="))?.split("=")[1] ?? 0);
const PG_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const TARGETS = { importSeconds: 2, overheadP95Ms: 10 };
const ALWAYS = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "00:00", end: "24:00" }];
const root = resolve(import.meta.dirname, "..");

/** The contacts file: number, name and a column that becomes a variable. */
function contactsCsv(n: number): string {
  const lines = ["number,name,plan"];
  for (let i = 0; i < n; i++) lines.push(`+1${String(2_000_000_000 + i * 13)},Contact ${i + 1},${["Gold", "Silver", "Bronze"][i % 3]}`);
  return lines.join("\n");
}

/** CSV text → the API's import (what POST /campaign/{id}/contacts runs after reading the upload). */
async function importContacts(database: Database, orgId: string, campaignId: string, csv: string): Promise<number> {
  const report = await importCampaignContacts(
    { db: database.db, scope: orgScope(database.db, orgId), userId: "bench", signals: createCampaignSignals(), plans: { defaultPlan: "enterprise", installConcurrentCalls: 10 } },
    campaignId,
    contactRowsFromCsv(csv),
  );
  if (report.invalid_count > 0) throw new Error(`the import refused ${report.invalid_count} rows: ${JSON.stringify(report.invalid.slice(0, 3))}`);
  return report.accepted;
}

interface Child {
  process: ChildProcess;
  lines: AsyncIterableIterator<string>;
}

function startChild(url: string): Child {
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "--import", "tsx", "bench/campaign-server.ts"], {
    cwd: root,
    env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_CALL_SECONDS: String(CALL_SECONDS) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  return { process: child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator]() };
}

async function nextJson<T>(child: Child): Promise<T> {
  for (;;) {
    const { value, done } = await child.lines.next();
    if (done) throw new Error("a bench server stopped before answering");
    if (value.startsWith("{")) return JSON.parse(value) as T;
  }
}

async function postgresAnswers(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const fmt = (value: number, digits = 1) => value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function run(database: Database, url: string): Promise<void> {
  // The organisation, its agent and caller number, written straight in (no sign-in needed).
  const orgId = `org_bench_${randomUUID().slice(0, 8)}`;
  await database.db.insert(organizations).values({ id: orgId, name: "Bench Campaigns", slug: orgId });
  const agentId = randomUUID();
  await database.db.insert(agents).values({ id: agentId, orgId, name: "Bench agent", config: agentConfigSchema.parse({ agent_name: "Bench agent" }) });
  const phoneNumberId = randomUUID();
  await database.db.insert(phoneNumbers).values({ id: phoneNumberId, orgId, name: "Bench line", number: "+14155550000", provider: "vapi", isDefault: true });
  const campaignId = randomUUID();
  await database.db.insert(campaigns).values({
    id: campaignId,
    orgId,
    name: "Bench campaign",
    agentId,
    phoneNumberId,
    status: "draft",
    schedule: { windows: ALWAYS, fallback_timezone: "UTC" },
    maxConcurrency: CONCURRENCY,
    retry: { ...DEFAULT_CAMPAIGN_RETRY, max_attempts: 1 },
  });

  const csv = contactsCsv(CONTACTS);
  const importStarted = performance.now();
  const imported = await importContacts(database, orgId, campaignId, csv);
  const importSeconds = (performance.now() - importStarted) / 1000;
  await database.db.execute(sql`analyze campaign_contacts`);

  const children = [startChild(url), startChild(url)];
  await Promise.all(children.map((child) => nextJson<{ ready: true }>(child)));

  const watcher = new pg.Client({ connectionString: url });
  // An error of the bench's own connection (the database dropped after a failure) must not hide the failure.
  watcher.on("error", (error) => console.error(`the bench's sampling connection: ${error.message}`));
  await watcher.connect();
  let highest = 0;
  let highestCalls = 0;
  let samples = 0;
  let sampling = true;
  const sampleLoop = (async () => {
    let last = 0;
    while (sampling) {
      const { rows } = await watcher.query<{ n: string }>("select count(*) as n from campaign_contacts where campaign_id = $1 and status = 'in_progress'", [campaignId]);
      highest = Math.max(highest, Number(rows[0]!.n));
      if (Date.now() - last > 50) {
        last = Date.now();
        const calls = await watcher.query<{ n: string }>("select count(*) as n from calls where campaign_id = $1 and status <> 'ended'", [campaignId]);
        highestCalls = Math.max(highestCalls, Number(calls.rows[0]!.n));
      }
      samples++;
      await new Promise((done) => setTimeout(done, Number(process.env.BENCH_SAMPLE_MS ?? 2)));
    }
  })();

  const started = performance.now();
  await database.db.execute(sql`update campaigns set status = 'running', started_at = now() where id = ${campaignId}`);
  await database.db.execute(sql`insert into campaign_events (id, org_id, campaign_id, kind, detail) values (${randomUUID()}, ${orgId}, ${campaignId}, 'started', 'Started (bench).')`);
  for (;;) {
    const { rows } = await watcher.query<{ status: string }>("select status from campaigns where id = $1", [campaignId]);
    if (rows[0]?.status === "completed") break;
    await new Promise((done) => setTimeout(done, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampleLoop;

  for (const child of children) child.process.kill("SIGTERM");
  const reports = await Promise.all(
    children.map(async (child) => {
      const done = await nextJson<{ timingsFile: string; dials: number }>(child);
      const timings = JSON.parse(readFileSync(done.timingsFile, "utf8")) as Record<TimingPart | "roundTripMs", number[]> & { eventLoopDelayMs: LoadFigures };
      rmSync(done.timingsFile, { force: true });
      return { timings, dials: done.dials };
    }),
  );
  const sorted = (part: TimingPart | "roundTripMs") => reports.flatMap((report) => report.timings[part]).sort((a, b) => a - b);
  const overheads = sorted("overheadMs");
  const claimSizes = sorted("claimSize");

  const duplicates = Number(
    (
      await watcher.query<{ n: string }>(
        `select coalesce(sum(n - 1), 0) as n from (
           select count(*) as n from sandbox_provider_calls where request->'campaign'->>'campaignId' = $1
           group by request->'campaign'->>'contactId', request->'campaign'->>'attempt' having count(*) > 1) dupes`,
        [campaignId],
      )
    ).rows[0]!.n,
  );
  const tally = (await watcher.query<{ status: string; n: string }>("select status, count(*) as n from campaign_contacts where campaign_id = $1 group by status", [campaignId])).rows;
  const placed = Number((await watcher.query<{ n: string }>("select count(*) as n from calls where campaign_id = $1", [campaignId])).rows[0]!.n);
  await watcher.end();


  const ideal = (imported / CONCURRENCY) * CALL_SECONDS;
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`npm run bench:campaign${modeFlag(MODE)}: ${cpus().length} cores, load ${loadavg().map((load) => load.toFixed(1)).join(" ")}; PostgreSQL; two API processes`);
  if (MODE === "smoke") console.log(SMOKE_NOTE);
  console.log(`contacts ${imported.toLocaleString("en-US")}, max_concurrency ${CONCURRENCY}, one attempt each, sandbox calls of ${CALL_SECONDS} s`);
  console.log("");
  console.log("| figure | value | target | |");
  console.log("|---|---|---|---|");
  console.log(`| import (CSV → rows) | ${fmt(importSeconds, 2)} s, ${Math.round(imported / importSeconds).toLocaleString("en-US")} contacts/s | 10,000 in < ${TARGETS.importSeconds} s | ${verdict(importSeconds * (10_000 / imported) < TARGETS.importSeconds)} |`);
  const spread = (list: number[]) => `p50 ${fmt(percentile(list, 50), 2)} ms, p95 ${fmt(percentile(list, 95), 2)} ms, max ${fmt(list.at(-1) ?? NaN, 2)} ms`;
  console.log(
    `| dial overhead (claim start → request) | ${spread(overheads)} (${overheads.length.toLocaleString("en-US")} dials: ${reports.map((report) => report.dials).join(" + ")}) | p95 < ${TARGETS.overheadP95Ms} ms | ${verdict(percentile(overheads, 95) < TARGETS.overheadP95Ms)} |`,
  );
  const parts: [TimingPart, string][] = [
    ["beginMs", "… of which a pooled connection and BEGIN"],
    ["lockWaitMs", "… of which start → the organisation's row ours (BEGIN included; waiting for its other writers)"],
    ["readMs", "… of which the campaign's row and the claim's facts"],
    ["pickMs", "… of which picking the contacts"],
    ["writeMs", "… of which writing the calls and contacts"],
    ["commitMs", "… of which COMMIT"],
    ["afterClaimMs", "… of which claim committed → request"],
  ];
  for (const [part, label] of parts) console.log(`| ${label} | ${spread(sorted(part))} | — | |`);
  console.log(`| calls per claim | p50 ${percentile(claimSizes, 50)}, p95 ${percentile(claimSizes, 95)}, max ${claimSizes.at(-1)} | — | |`);
  console.log(`| highest concurrency | ${highest} contacts in progress, ${highestCalls} calls not ended (${samples.toLocaleString("en-US")} samples) | = ${CONCURRENCY}, never more | ${verdict(highest <= CONCURRENCY && highestCalls <= CONCURRENCY)}${highest < CONCURRENCY ? " (limit not reached)" : ""} |`);
  console.log(`| duplicate dials | ${duplicates} (${placed.toLocaleString("en-US")} calls placed) | 0 | ${verdict(duplicates === 0 && placed === imported)} |`);
  console.log(
    `| time to finish | ${fmt(seconds)} s; ideal ${fmt(ideal)} s${ideal > 0 ? ` (${fmt(seconds / ideal, 2)}×)` : ""}; ${fmt(imported / seconds, 0)} calls/s, ${fmt((seconds * CONCURRENCY * 1000) / imported, 0)} ms per line and call | — | |`,
  );
  console.log("");
  console.log(`contacts: ${tally.map((row) => `${row.n} ${row.status}`).join(", ")}`);

  // The floor: a claim of the run's median size, its statements sent bare at the driver, on the quiet database.
  const floorSize = Math.max(1, Math.round(percentile(claimSizes, 50)));
  const floor = await claimFloor(database, { orgId, agentId, phoneNumberId, size: floorSize });
  console.log("");
  console.log("| floor (after the run, quiet database) | value |");
  console.log("|---|---|");
  console.log(`| a claim of ${floorSize} (the run's median), its ${floor.statements} statements bare at the driver, BEGIN to COMMIT | ${spread(floor.bare)} |`);
  console.log(`| the same claim through the dialler's code (claimCampaign) | ${spread(floor.api)} |`);
  console.log(`| the run's dial overhead, for comparison | ${spread(overheads)} |`);

  // What every statement paid during the run, whatever it was: the machine's share, not the claim's.
  console.log("");
  console.log("| under the run's load (in each API process, during the run) | value |");
  console.log("|---|---|");
  console.log(`| a bare round trip (\`select 1\` through the app's pool, every 25 ms) | ${spread(sorted("roundTripMs"))} (${sorted("roundTripMs").length.toLocaleString("en-US")} probes) |`);
  reports.forEach((report, index) => {
    const delay = report.timings.eventLoopDelayMs;
    console.log(`| the event loop's delay, process ${index + 1} | p50 ${fmt(delay.p50, 2)} ms, p95 ${fmt(delay.p95, 2)} ms, max ${fmt(delay.max, 2)} ms |`);
  });
}

/** Percentiles of a histogram kept by a bench server (milliseconds). */
interface LoadFigures {
  p50: number;
  p95: number;
  max: number;
}

type TimingPart = "overheadMs" | "beginMs" | "lockWaitMs" | "readMs" | "pickMs" | "writeMs" | "commitMs" | "afterClaimMs" | "claimSize";

const FLOOR_ITERATIONS = byMode(MODE, { full: 300, quick: 100, smoke: 5 });
const FLOOR_WARMUP = byMode(MODE, { full: 20, quick: 20, smoke: 2 });

/**
 * The bare-SQL floor of a dial: on the database the run left (quiet now), a campaign of its own whose
 * max_concurrency is `size`, claimed again and again by claimCampaign (the dialler's code) and by the
 * statements that claim sent, recorded at the driver and replayed bare on one pooled connection (BEGIN to
 * COMMIT: the same locks, the same prepared statements). Between runs the claim is undone (its calls
 * deleted, its contacts queued again), so both meet the same rows. Alternating, as timeInterleaved does.
 */
async function claimFloor(database: Database, refs: { orgId: string; agentId: string; phoneNumberId: string; size: number }): Promise<{ api: number[]; bare: number[]; statements: number }> {
  if (database.driver.kind !== "postgres") throw new Error("the floor needs PostgreSQL");
  const pool = database.driver.pool;
  const campaignId = randomUUID();
  await database.db.insert(campaigns).values({
    id: campaignId,
    orgId: refs.orgId,
    name: "Bench floor",
    agentId: refs.agentId,
    phoneNumberId: refs.phoneNumberId,
    status: "draft",
    schedule: { windows: ALWAYS, fallback_timezone: "UTC" },
    maxConcurrency: refs.size,
    retry: { ...DEFAULT_CAMPAIGN_RETRY, max_attempts: 1 },
  });
  const lines = ["number,name"];
  for (let i = 0; i < 200; i++) lines.push(`+1${String(3_000_000_000 + i * 17)},Floor ${i + 1}`);
  await importContacts(database, refs.orgId, campaignId, lines.join("\n"));
  await database.db.execute(sql`update campaigns set status = 'running', started_at = now() where id = ${campaignId}`);
  const config = benchConfig("campaign-floor", { STARTING_CREDIT_USD: "1000000", ORG_CONCURRENT_CALLS: "1000", DEFAULT_PLAN: "enterprise" });
  const settings: ClaimSettings = { diallerId: "bench-floor", leaseMs: 60_000, orgConcurrentCalls: 1000, defaultPlan: "enterprise", wallet: walletPolicy(config), isSandbox: true };

  // Every statement a pooled connection sends while `recording` is set (the claim's transaction has one connection to itself).
  let recording: unknown[][] | null = null;
  const wrapped = new WeakSet<object>();
  type Connect = (callback?: (...args: unknown[]) => void) => Promise<pg.PoolClient> | undefined;
  const originalConnect = pool.connect.bind(pool) as Connect;
  // pool.query connects with a callback (left as it is); drizzle's transactions await a client.
  (pool as unknown as { connect: Connect }).connect = (callback) => (callback ? originalConnect(callback) : connectRecording());
  const connectRecording = async () => {
    const client = (await originalConnect())!;
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
        recording?.push(args);
        return query(...args);
      };
    }
    return client;
  };
  const undo = async () => {
    await database.db.execute(sql`delete from calls where campaign_id = ${campaignId}`);
    await database.db.execute(
      sql`update campaign_contacts set status = 'queued', attempts = 0, last_call_id = null, lease_until = null, leased_by = null where campaign_id = ${campaignId} and status <> 'queued'`,
    );
  };
  let statements: unknown[][] = [];
  const api: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < FLOOR_WARMUP + FLOOR_ITERATIONS; i++) {
    await undo();
    recording = [];
    let started = performance.now();
    const claim = await claimCampaign(database.db, { id: campaignId, orgId: refs.orgId }, settings, Date.now());
    const apiMs = performance.now() - started;
    statements = recording;
    recording = null;
    if (claim.kind !== "claimed" || claim.calls.length !== refs.size) throw new Error(`the floor's claim took ${claim.kind === "claimed" ? claim.calls.length : claim.kind}, not ${refs.size}`);
    await undo();
    started = performance.now();
    const client = (await originalConnect())!;
    try {
      for (const args of statements) await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } finally {
      client.release();
    }
    const bareMs = performance.now() - started;
    if (i >= FLOOR_WARMUP) {
      api.push(apiMs);
      bare.push(bareMs);
    }
  }
  await undo();
  await database.db.execute(sql`update campaigns set status = 'completed' where id = ${campaignId}`);
  (pool as unknown as { connect: Connect }).connect = originalConnect;
  return { api: api.sort((a, b) => a - b), bare: bare.sort((a, b) => a - b), statements: statements.length };
}

const unavailable = await postgresAnswers(PG_URL);
if (unavailable) {
  console.log(`bench:campaign needs PostgreSQL (TEST_DATABASE_URL, else ${PG_URL}): ${unavailable}. Skipped.`);
} else {
  const url = new URL(PG_URL);
  await onFreshPostgres(PG_URL, async (database) => {
    const name = (database.location.split("/").pop() ?? "").split(",")[0]!;
    url.pathname = `/${name}`;
    try {
      await run(database, url.toString());
    } catch (error) {
      // Said before the database is dropped (which ends every connection still open to it).
      console.error("bench:campaign failed:", error);
      throw error;
    }
  });
}
