// `npm run bench:billing [-- --quick | --smoke]`: GET /api/billing/usage for 90 days with 1,000,000 calls in the
// database (issue 15). Also rows of `npm run bench`'s table (bench/index.ts calls benchBilling).
//
// The console's Usage tab waits on this answer: p95 ≤ 50 ms.
//
// One organisation (Europe/Berlin) with 3 agents and 1,000,000 ended calls spread over the last 90 days,
// each debited once in the ledger (balance_after the running sum), and usage_daily rebuilt from the
// debits with the same SQL the app uses (server/billing/usage.ts rebuildUsage): all bulk SQL
// (generate_series), the calls' row triggers off while loading (session_replication_role = replica);
// loading 1,000,000 took 167 s on a busy 2-core machine (load 15). Then, through the app as built for
// production (buildApp, in this process, app.inject, the demo-style bearer of a signed-up admin), one request at a time, alternating:
//   - the framework floor: GET /api/__bench/floor (a constant, bench/floor.ts);
//   - GET /api/billing/usage?startDate=…&endDate=… (90 days, every day has usage);
//   - the bare-SQL floor: the same usage query (server/billing/ledger.ts usageQuery) through pg directly.
// Each answer is checked (90 days, the seeded call count); any other answer marks the row MISSED.
//
// PostgreSQL when TEST_DATABASE_URL is set (a fresh database, dropped at the end); without it PGlite in
// memory, with 100,000 calls (the table says so). --quick: 100,000 calls and 60 requests of each
// instead of 1,000,000 and 300. --smoke (CI): 2,000 calls and 5 requests of each, to show the bench still
// works (its figures say nothing; a missed budget is printed, never fatal).
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import type { Usage } from "../contract/billing";
import { buildApp } from "../server/app";
import { usageQuery } from "../server/billing/ledger";
import { rebuildUsage } from "../server/billing/usage";
import { openDatabase, type Database } from "../server/db/client";
import { runMigrations } from "../server/db/migrate";
import { addFloorRoute, FLOOR_PATH } from "./floor";
import { benchConfig, benchMode, byMode, onPglite, percentile, printAlone, type BenchMode, type BenchRow } from "./measure";

export type BillingBenchRow = BenchRow;

export const BILLING_BUDGET_P95_MS = 50;
const DAYS = 90;
const ZONE = "Europe/Berlin";
const PASSWORD = "bench-billing-password-0123";

interface Setup {
  orgId: string;
  token: string;
  calls: number;
  loadSeconds: number;
}

async function setUp(app: FastifyInstance, database: Database, callCount: number): Promise<Setup> {
  const started = performance.now();
  const signUp = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { email: `bench-${randomUUID().slice(0, 8)}@example.com`, password: PASSWORD, name: "Bench" } });
  if (signUp.statusCode !== 200) throw new Error(`sign-up failed: ${signUp.statusCode} ${signUp.body}`);
  const token = (signUp.json() as { token: string }).token;
  const slug = `bench-billing-${randomUUID().slice(0, 6)}`;
  const made = await app.inject({ method: "POST", url: "/api/auth/organization/create", headers: { authorization: `Bearer ${token}` }, payload: { name: "Bench Billing", slug } });
  if (made.statusCode !== 200) throw new Error(`organisation failed: ${made.statusCode} ${made.body}`);
  const orgId = (made.json() as { id: string }).id;
  const db = database.db;
  await db.execute(sql`update organizations set timezone = ${ZONE} where id = ${orgId}`);
  const agentIds = [randomUUID(), randomUUID(), randomUUID()];
  for (const [i, id] of agentIds.entries()) {
    await db.execute(sql`insert into agents (id, org_id, name, config) values (${id}::uuid, ${orgId}, ${`Bench agent ${i + 1}`}, '{}'::jsonb)`);
  }
  const agentArray = sql.raw(`array[${agentIds.map((id) => `'${id}'::uuid`).join(",")}]`);
  await db.transaction(async (tx) => {
    if (database.kind === "postgres") await tx.execute(sql`set local session_replication_role = replica`);
    // Calls over the last 90 days, ended, 10..600 s, $0.01..$0.50, a Vapi-shaped cost breakdown.
    await tx.execute(sql`
      insert into calls (id, org_id, type, status, agent_id, customer_number, started_at, ended_at, duration_seconds, cost_micros, cost_breakdown)
      select gen_random_uuid(), ${orgId}, 'outbound', 'ended', (${agentArray})[1 + (i % 3)], '+1212' || lpad((i % 10000000)::text, 7, '0'),
        now() - ((i::float / ${callCount}) * interval '${sql.raw(String(DAYS - 1))} days') - interval '1 minute',
        now() - ((i::float / ${callCount}) * interval '${sql.raw(String(DAYS - 1))} days'),
        10 + (i % 591), 10000 + (i::bigint * 7919) % 490001,
        jsonb_build_object('transport', 0.001, 'stt', 0.002, 'llm', 0.003, 'tts', 0.002, 'vapi', 0.001)
      from generate_series(1, ${callCount}) as i`);
    await tx.execute(sql`insert into wallets (org_id, balance_micros) values (${orgId}, 0)`);
    await tx.execute(sql`
      insert into wallet_ledger (id, org_id, amount_micros, kind, call_id, agent_id, description, balance_after_micros, created_at)
      select gen_random_uuid(), org_id, -cost_micros, 'call', id, agent_id, 'Call', sum(-cost_micros) over (order by ended_at, id), ended_at
      from calls where org_id = ${orgId}`);
    await tx.execute(sql`update wallets set balance_micros = (select coalesce(sum(amount_micros), 0) from wallet_ledger where org_id = ${orgId}) where org_id = ${orgId}`);
    await rebuildUsage(tx, orgId);
  });
  await db.execute(sql`analyze usage_daily`);
  return { orgId, token, calls: callCount, loadSeconds: (performance.now() - started) / 1000 };
}

interface Timing {
  p50: number;
  p95: number;
  p99: number;
  bad: number;
  n: number;
}
const timing = (times: number[], bad: number): Timing => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), bad, n: sorted.length };
};
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const dayIn = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

async function measure(app: FastifyInstance, setup: Setup, bare: (() => Promise<number>) | null, iterations: number, warmup: number) {
  const end = dayIn(new Date());
  const start = dayIn(new Date(Date.now() - (DAYS - 1) * 86_400_000));
  const url = `/api/billing/usage?startDate=${start}&endDate=${end}`;
  const runs: Record<string, () => Promise<boolean>> = {
    floor: async () => (await app.inject({ method: "GET", url: FLOOR_PATH })).statusCode === 200,
    usage: async () => {
      const response = await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${setup.token}` } });
      if (response.statusCode !== 200) return false;
      const usage = (response.json() as { data: Usage }).data;
      return usage.days.length === DAYS && usage.totals.calls === setup.calls;
    },
    ...(bare ? { bare: async () => (await bare()) > 0 } : {}),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  const bad: Record<string, number> = Object.fromEntries(Object.keys(runs).map((name) => [name, 0]));
  for (let i = 0; i < warmup + iterations; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const t0 = performance.now();
      const ok = await run();
      const elapsed = performance.now() - t0;
      if (i < warmup) continue;
      times[name]!.push(elapsed);
      if (!ok) bad[name]!++;
    }
  }
  return Object.fromEntries(Object.keys(runs).map((name) => [name, timing(times[name]!, bad[name]!)])) as Record<string, Timing>;
}

/** The billing rows of the bench table (a section title first). */
export async function benchBilling(options: { mode: BenchMode; pgUrl: string | null; log?: (line: string) => void }): Promise<BillingBenchRow[]> {
  const iterations = byMode(options.mode, { full: 300, quick: 60, smoke: 5 });
  const warmup = byMode(options.mode, { full: 30, quick: 10, smoke: 1 });
  const callCount = byMode(options.mode, { full: options.pgUrl ? 1_000_000 : 100_000, quick: 100_000, smoke: 2_000 });
  const log = options.log ?? ((line: string) => process.stderr.write(`bench:billing ${line}\n`));
  const run = async (database: Database, url: string | null): Promise<BillingBenchRow[]> => {
    const config = benchConfig("billing");
    const app = await buildApp({ config, database, logger: false });
    addFloorRoute(app);
    let client: pg.Client | null = null;
    try {
      log(`loading ${callCount.toLocaleString("en")} calls, their debits and usage_daily`);
      const setup = await setUp(app, database, callCount);
      log(`loaded in ${setup.loadSeconds.toFixed(1)} s; ${iterations} requests each, alternating`);
      let bare: (() => Promise<number>) | null = null;
      if (url) {
        client = new pg.Client({ connectionString: url });
        await client.connect();
        const end = dayIn(new Date());
        const start = dayIn(new Date(Date.now() - (DAYS - 1) * 86_400_000));
        const query = new PgDialect().sqlToQuery(usageQuery(setup.orgId, start, end));
        const bound = client;
        bare = async () => (await bound.query(query.sql, query.params as unknown[])).rowCount ?? 0;
      }
      const result = await measure(app, setup, bare, iterations, warmup);
      const engine = database.kind === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
      const floor = result.floor!;
      const sqlFloor = result.bare;
      const rows: BillingBenchRow[] = [
        {
          figure: `Usage on ${engine}${database.kind === "postgres" ? "" : " — TEST_DATABASE_URL is not set, so NOT PostgreSQL"}: GET /api/billing/usage (${DAYS} days) through app.inject, one at a time, ${iterations} each, alternating with the floor (${FLOOR_PATH})${sqlFloor ? " and the bare SQL through pg" : ""}`,
          measured: "",
          budget: "",
          ok: null,
        },
        {
          figure: "calls in the database (debited, rolled up)",
          measured: `${callCount.toLocaleString("en")}${callCount < 1_000_000 ? ` (smaller seed: ${options.mode === "smoke" ? "--smoke" : "--quick or PGlite"})` : ""} in ${setup.loadSeconds.toFixed(1)} s`,
          budget: "—",
          ok: null,
        },
      ];
      const usage = result.usage!;
      rows.push({
        figure: `GET /api/billing/usage (${DAYS} days): latency p50 / p95 / p99`,
        measured:
          `${ms(usage.p50)} / ${ms(usage.p95)} / ${ms(usage.p99)} ms (floor ${ms(floor.p50)} / ${ms(floor.p95)} / ${ms(floor.p99)}` +
          `${sqlFloor ? `; bare SQL ${ms(sqlFloor.p50)} / ${ms(sqlFloor.p95)} / ${ms(sqlFloor.p99)}` : ""})${usage.bad ? ` [${usage.bad} of ${usage.n} wrong answers]` : ""}`,
        budget: `p95 ≤ ${BILLING_BUDGET_P95_MS} ms`,
        ok: usage.bad === 0 && usage.p95 <= BILLING_BUDGET_P95_MS,
      });
      return rows;
    } finally {
      await client?.end();
      await app.close();
    }
  };
  if (!options.pgUrl) return onPglite((database) => run(database, null));
  const name = `vap_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: options.pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const target = new URL(options.pgUrl);
  target.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: target.toString() });
  try {
    await runMigrations(database);
    return await run(database, target.toString());
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

// Alone: `npm run bench:billing [-- --quick | --smoke]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const mode = benchMode();
  const rows = await benchBilling({ mode, pgUrl: process.env.TEST_DATABASE_URL || null });
  printAlone("billing", mode, rows, { figure: 52, measured: 80 });
}
