// Helpers shared by the benches: the run's mode (full, --quick, --smoke), percentiles, alternating runs,
// a recorder that replays the statements an API request sent, bare at the driver (the floor), and checks
// that a measured request really sent them.
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import type { PlanId } from "../contract/plans";
import { loadConfig } from "../server/config";
import { openDatabase, type Database } from "../server/db/client";
import { runMigrations } from "../server/db/migrate";
import { billingAccounts } from "../server/db/schema";

/**
 * How much a bench runs:
 * - `full` (no flag): the sizes and iterations its figures in bench/README.md come from;
 * - `quick` (`--quick`): smaller data and fewer iterations, for a figure in minutes;
 * - `smoke` (`--smoke`, CI): the smallest run that still goes through every code path of the bench (tiny
 *   data, a few iterations), to show it still works. Its figures say nothing: a missed budget or target
 *   is printed, never fatal (no mode makes it fatal). A bench that breaks exits non-zero in every mode.
 * `--smoke` wins over `--quick`.
 */
export type BenchMode = "full" | "quick" | "smoke";

export function benchMode(argv: readonly string[] = process.argv): BenchMode {
  return argv.includes("--smoke") ? "smoke" : argv.includes("--quick") ? "quick" : "full";
}

/** The flag a mode is run with, for headings ("", " --quick", " --smoke"). */
export const modeFlag = (mode: BenchMode) => (mode === "full" ? "" : ` --${mode}`);

/** One value per mode: `byMode(mode, { full: 1_000_000, quick: 100_000, smoke: 2_000 })`. */
export const byMode = <T>(mode: BenchMode, values: Record<BenchMode, T>): T => values[mode];

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Times two runs alternately (a, b, a, b, …), so both meet the same machine: on a shared or busy host
 * a burst of other work then lands on both sides of the ratio instead of on one.
 */
export async function timeInterleaved(
  iterations: number,
  warmup: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  { beforeA }: { beforeA?: () => Promise<unknown> } = {},
): Promise<[number[], number[]]> {
  for (let i = 0; i < warmup; i++) {
    await beforeA?.();
    await a();
    await b();
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < iterations; i++) {
    // `beforeA`, untimed: what must happen before each run of `a` (bench:calls: the call list's version bumped, so the API's kept answer is stale).
    await beforeA?.();
    for (const [side, run] of [a, b].entries()) {
      const start = performance.now();
      await run();
      times[side]!.push(performance.now() - start);
    }
  }
  return [times[0].sort((x, y) => x - y), times[1].sort((x, y) => x - y)];
}

/** Times `run` alone `iterations` times after `warmup` untimed runs; sorted milliseconds. */
export async function timeEach(iterations: number, warmup: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((x, y) => x - y);
}

export interface Recorded {
  text: string;
  params: unknown[];
}

/**
 * The sign-in's own reads (the session, its user, the member's role), which every signed-in request pays
 * (or skips, for SESSION_CACHE_SECONDS after the last): not a route's work.
 */
export const signInStatement = (text: string) => /from "sessions"|from "users"|select "role" from "memberships"/.test(text);

/** Every statement a request sends but the sign-in's: what a route's floor replays (`recorder`'s `keep`). */
export const routeStatement = (text: string) => !signInStatement(text);

/**
 * Wraps the driver so the statements an API request sends can be recorded and replayed bare; `keep`
 * picks the statements that are the route's own work (not the sign-in lookups every request pays):
 * `routeStatement`.
 */
export function recorder(database: Database, keep: (text: string) => boolean) {
  let recording: Recorded[] | null = null;
  if (database.driver.kind === "postgres") {
    const pool = database.driver.pool as unknown as { query: (...args: unknown[]) => Promise<unknown> };
    const original = pool.query.bind(pool);
    pool.query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string; values?: unknown[] };
      const text = typeof first === "string" ? first : first.text;
      const params = ((typeof first === "string" ? undefined : first.values) ?? args[1]) as unknown[] | undefined;
      if (recording && keep(text)) recording.push({ text, params: params ?? [] });
      return original(...args);
    };
    return {
      record: async (run: () => Promise<unknown>) => ((recording = []), await run(), recording.splice(0)),
      replay: (statement: Recorded) => original({ text: statement.text, values: statement.params }),
    };
  }
  const client = database.driver.db.$client as unknown as { query: (text: string, params?: unknown[], options?: unknown) => Promise<unknown> };
  const original = client.query.bind(client);
  client.query = (text: string, params?: unknown[], options?: unknown) => {
    if (recording && keep(text)) recording.push({ text, params: params ?? [] });
    return original(text, params, options);
  };
  return {
    record: async (run: () => Promise<unknown>) => ((recording = []), await run(), recording.splice(0)),
    replay: (statement: Recorded) => original(statement.text, statement.params),
  };
}

/**
 * Wraps an API request so that each run counts the statements of its own work it sent (recorded with
 * `record`, those `work` picks: all of them unless told); then `check` throws unless every measured run
 * sent at least one. A route that answered from memory sent none: its timing would be the cache's, and a
 * ratio to the bare SQL would mean nothing. Answers the wrapped run, `check` (the fewest and most
 * statements a run sent) and the counts.
 */
export function counted(label: string, record: (run: () => Promise<unknown>) => Promise<Recorded[]>, run: () => Promise<unknown>, work: (text: string) => boolean = () => true) {
  const counts: number[] = [];
  return {
    run: async () => counts.push((await record(run)).filter((statement) => work(statement.text)).length),
    check: () => {
      const none = counts.filter((n) => n === 0).length;
      if (counts.length === 0 || none > 0) {
        throw new Error(`${label}: ${none} of ${counts.length} requests (warm-up included) sent no statement of their own (answered from memory?): this line is meant to measure the statements, so the bench stops`);
      }
      return { fewest: Math.min(...counts), most: Math.max(...counts), runs: counts.length };
    },
    counts,
  };
}

/** Throws unless `statements` (one request's, recorded) hold at least one of its own work (`work`): the floor would be empty. */
export function requireStatements(label: string, statements: readonly Recorded[], work: (text: string) => boolean = () => true): void {
  if (!statements.some((statement) => work(statement.text))) throw new Error(`${label}: the recorded request sent 0 statements of its own (answered from memory?), so there is no bare SQL to compare with: the bench stops`);
}

/**
 * Puts the organisation on `plan`: its billing_accounts row, the one an operator writes for an Enterprise
 * customer (Enterprise is sold, not bought in the console: contract/plans.ts), while the app keeps the
 * product's own DEFAULT_PLAN (free). Why the benches at scale use it: an organisation with 1,000,000
 * calls in 90 days places about 11,000 a day, and with calls of 5 s to 10 min (about 5 min on average)
 * that is about 39 calls at once on average, above Pro's 20 concurrent calls: at that size the hosted
 * product's customer is on Enterprise. (A self-hosted install would set DEFAULT_PLAN=enterprise instead,
 * as the tests do; the reads measured are the same, but the dashboard's plan card then reads no row.)
 */
export async function putOnPlan(database: Database, orgId: string, plan: PlanId): Promise<void> {
  await database.db.insert(billingAccounts).values({ orgId, plan }).onConflictDoUpdate({ target: billingAccounts.orgId, set: { plan } });
}

/**
 * Runs `run` on a migrated PostgreSQL database beside `serverUrl` (given to `run` with its name): a fresh
 * one, dropped afterwards, or `reuse` (an earlier one, kept unless `drop`); `keep` keeps the fresh one too.
 * A kept one's name is printed.
 */
export async function onFreshPostgres<T>(
  serverUrl: string,
  run: (database: Database, name: string) => Promise<T>,
  { reuse = null, keep = false, drop = false }: { reuse?: string | null; keep?: boolean; drop?: boolean } = {},
): Promise<T> {
  const name = reuse ?? `vap_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (!reuse) await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString() });
  try {
    await runMigrations(database);
    return await run(database, name);
  } finally {
    await database.close();
    if (keep || (reuse && !drop)) console.log(`kept database ${name}`);
    else await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Runs `run` on a migrated in-memory PGlite database. */
export async function onPglite<T>(run: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ kind: "pglite-memory" });
  try {
    await runMigrations(database);
    return await run(database);
  } finally {
    await database.close();
  }
}

/** The configuration a bench builds its app with: production, silent, no demo, no rate limit to measure. */
export function benchConfig(name: string, extra: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: "production",
    BETTER_AUTH_SECRET: randomUUID() + randomUUID(),
    RATE_LIMIT_PER_MINUTE: "1000000",
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
    PUBLIC_URL: "http://127.0.0.1:3000",
    CONSOLE_DIR: "/nonexistent/console",
    DATA_DIR: `/tmp/vap-bench-${name}-${process.pid}`,
    ...extra,
  });
}

/** A figure of a bench run alone; `ok` null is a figure shown for context (or a section title when `measured` is empty). */
export interface BenchRow {
  figure: string;
  measured: string;
  budget: string;
  ok: boolean | null;
}

/** Prints a bench run alone (`npm run bench:<name> [-- --quick | --smoke]`) and exits (0: a missed budget is printed, not fatal). */
export function printAlone(name: string, mode: BenchMode, rows: BenchRow[], widths: { figure: number; measured: number }): never {
  const cpu = cpus();
  console.log(`npm run bench:${name}${modeFlag(mode)}: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "?"}), load ${loadavg().map((load) => load.toFixed(1)).join(" ")}, Node ${process.version}`);
  if (mode === "smoke") console.log(SMOKE_NOTE);
  for (const row of rows) {
    if (!row.measured) console.log(`\n${row.figure}`);
    else console.log(`  ${row.figure.padEnd(widths.figure)} ${row.measured.padEnd(widths.measured)} ${row.budget.padEnd(14)} ${row.ok === null ? "" : row.ok ? "ok" : "MISSED"}`);
  }
  const missed = rows.filter((row) => row.ok === false);
  console.log(`\n${missed.length} of ${rows.filter((row) => row.ok !== null).length} budgets missed`);
  process.exit(0);
}

/** What a smoke run's figures are (printed under its heading). */
export const SMOKE_NOTE = "--smoke: a tiny run that checks the bench still works; its figures say nothing about the product (budgets are shown, never fatal)";
