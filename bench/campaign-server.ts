// One API process of `npm run bench:campaign`, in a child process of its own: the app built as
// server/index.ts builds it (buildApp, production settings, logging off), on the bench's PostgreSQL
// database, with its campaign dialler started (as DIALLER_ENABLED does) and a timing hook on each dial
// (claim start → provider request). It does not listen: the sandbox delivers its webhooks to the app
// in-process. Not part of the product.
//
// Prints {"ready": true, "id": "<dialler id>"} once dialling, and on SIGTERM (after the dialler has
// stopped) {"timingsFile": "<path>", "dials": N}, the file holding {"overheadMs": [...], "lockWaitMs": [...], …
// one list per figure of DialTiming} (hundreds of kilobytes at 10,000 dials: a line that long through the
// pipe came out garbled once, so it goes through a file), and two figures of the process under the run's
// load, to set the dials beside: "roundTripMs", a bare `select 1` through the app's pool every
// PROBE_EVERY_MS (a pooled connection, one round trip, and the wait for this event loop to take up the
// answer: what each statement of a claim pays at least), and "eventLoopDelayMs", the event loop's delay
// (perf_hooks' monitorEventLoopDelay, 1 ms resolution; percentiles only, as it keeps a histogram).
// Settings come from the parent's environment:
// BENCH_DATABASE_URL, BENCH_CALL_SECONDS.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { buildApp } from "../server/app";
import { startDialler, type DialTiming } from "../server/campaigns/dialler";
import { loadConfig } from "../server/config";
import { openDatabase } from "../server/db/client";

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error("BENCH_DATABASE_URL is required");
const config = loadConfig({
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: randomUUID() + randomUUID(),
  LOG_LEVEL: "silent",
  SEED_DEMO: "false",
  DATABASE_URL: url,
  PUBLIC_URL: "http://127.0.0.1:3000",
  CONSOLE_DIR: "/nonexistent/console",
  DATA_DIR: `/tmp/vap-bench-campaign-${process.pid}`,
  SANDBOX_CALL_SECONDS: process.env.BENCH_CALL_SECONDS ?? "0",
  STARTING_CREDIT_USD: "1000000",
  ORG_CONCURRENT_CALLS: "1000",
  // A self-hosted install: no plan limits (the plan's concurrency would otherwise cap the dialler before ORG_CONCURRENT_CALLS).
  DEFAULT_PLAN: "enterprise",
  DIALLER_INTERVAL_MS: "100",
});
const database = await openDatabase({ kind: "postgres", url });
const app = await buildApp({ config, database, logger: false });
await app.ready();

// Each dial's timing, one list per figure of DialTiming.
const PARTS = ["overheadMs", "beginMs", "lockWaitMs", "readMs", "pickMs", "writeMs", "commitMs", "afterClaimMs", "claimSize"] as const;
const timings: Record<(typeof PARTS)[number], number[]> = Object.fromEntries(PARTS.map((part) => [part, []])) as never;
const dialler = startDialler(app, {
  onDial: (timing: DialTiming) => {
    for (const part of PARTS) timings[part].push(timing[part]);
  },
});
console.log(JSON.stringify({ ready: true, id: dialler.id }));

// The process under the run's load: a bare round trip every PROBE_EVERY_MS, and the event loop's delay.
const PROBE_EVERY_MS = 25;
const roundTrips: number[] = [];
const eventLoop = monitorEventLoopDelay({ resolution: 1 });
eventLoop.enable();
if (database.driver.kind !== "postgres") throw new Error("bench/campaign-server.ts runs on PostgreSQL");
const pool = database.driver.pool;
let probing = true;
const probe = (async () => {
  while (probing) {
    const started = performance.now();
    await pool.query("select 1");
    roundTrips.push(performance.now() - started);
    await new Promise((done) => setTimeout(done, PROBE_EVERY_MS));
  }
})();

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    console.error(`bench/campaign-server.ts (${process.pid}): not closed within 60 s of SIGTERM; exiting`);
    process.exit(1);
  }, 60_000).unref();
  await dialler.stop();
  probing = false;
  await probe;
  eventLoop.disable();
  // The figures go out as soon as the dialler has stopped (no dial after that), before the app closes.
  const round = (list: number[]) => list.map((ms) => Math.round(ms * 1000) / 1000);
  const timingsFile = `${tmpdir()}/vap-bench-campaign-timings-${process.pid}.json`;
  const eventLoopDelayMs = { p50: eventLoop.percentile(50) / 1e6, p95: eventLoop.percentile(95) / 1e6, max: eventLoop.max / 1e6 };
  writeFileSync(timingsFile, JSON.stringify({ ...Object.fromEntries(PARTS.map((part) => [part, round(timings[part])])), roundTripMs: round(roundTrips), eventLoopDelayMs }));
  console.log(JSON.stringify({ timingsFile, dials: timings.overheadMs.length }));
  await app.close();
  await database.close();
  process.exit(0);
}
process.once("SIGTERM", () => void stop());
process.stdin.on("end", () => void stop());
process.stdin.resume();
