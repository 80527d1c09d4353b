// Timing helpers shared by bench:calls and bench:dashboard: percentiles, alternating runs, and a
// recorder that replays the statements an API request sent, bare at the driver (the floor).
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadConfig } from "../server/config";
import { openDatabase, type Database } from "../server/db/client";
import { runMigrations } from "../server/db/migrate";

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Times two runs alternately (a, b, a, b, …), so both meet the same machine: on a shared or busy host
 * a burst of other work then lands on both sides of the ratio instead of on one.
 */
export async function timeInterleaved(iterations: number, warmup: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < iterations; i++) {
    for (const [side, run] of [a, b].entries()) {
      const start = performance.now();
      await run();
      times[side]!.push(performance.now() - start);
    }
  }
  return [times[0].sort((x, y) => x - y), times[1].sort((x, y) => x - y)];
}

export interface Recorded {
  text: string;
  params: unknown[];
}

/**
 * Wraps the driver so the statements an API request sends can be recorded and replayed bare; `keep`
 * picks the statements that are the route's own work (not the sign-in lookups every request pays).
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
 * Runs `run` on a migrated PostgreSQL database beside `serverUrl`: a fresh one, dropped afterwards, or
 * `reuse` (an earlier one, kept); `keep` keeps the fresh one too. Either way a kept one's name is printed.
 */
export async function onFreshPostgres<T>(serverUrl: string, run: (database: Database) => Promise<T>, { reuse = null, keep = false }: { reuse?: string | null; keep?: boolean } = {}): Promise<T> {
  const name = reuse ?? `vap_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (!reuse) await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString() });
  try {
    await runMigrations(database);
    return await run(database);
  } finally {
    await database.close();
    if (keep || reuse) console.log(`kept database ${name}`);
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

/** Prints a bench run alone (`npm run bench:<name> [-- --quick]`) and exits. */
export function printAlone(name: string, quick: boolean, rows: BenchRow[], widths: { figure: number; measured: number }): never {
  const cpu = cpus();
  console.log(`npm run bench:${name}${quick ? " --quick" : ""}: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "?"}), load ${loadavg().map((load) => load.toFixed(1)).join(" ")}, Node ${process.version}`);
  for (const row of rows) {
    if (!row.measured) console.log(`\n${row.figure}`);
    else console.log(`  ${row.figure.padEnd(widths.figure)} ${row.measured.padEnd(widths.measured)} ${row.budget.padEnd(14)} ${row.ok === null ? "" : row.ok ? "ok" : "MISSED"}`);
  }
  const missed = rows.filter((row) => row.ok === false);
  console.log(`\n${missed.length} of ${rows.filter((row) => row.ok !== null).length} budgets missed`);
  process.exit(0);
}
