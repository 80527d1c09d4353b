// `npm run bench:calls [-- --quick | --smoke]`: GET /api/call/ at scale. Loads N calls into one
// organisation (INSERT … SELECT generate_series, in SQL), then measures the list through the API
// (app.inject on the built app: routing, auth, validation, the queries and serialization, no socket)
// two ways, each in a table of its own:
//
// - uncached: every measured request reads the list. The API keeps each answer in memory under the
//   organisation's call-list version (server/calls/list-cache.ts) and answers a repeated request from
//   there, sending no list statement. So before each request (untimed) the version is moved with the
//   database's own call_list_versions_bump, as any write of the organisation's calls moves it: the
//   request is byte for byte the same each time, its kept answer is stale, and it reads the list with
//   the same statements and plans (as a console does right after one of the organisation's calls
//   changed). Beside it, the same statements alone (every statement one API request sent but the
//   sign-in's: the kept answers' version read and the list's own, recorded, then replayed on the driver,
//   concurrently or one after the other as the API sends them): the floor. API and SQL are timed
//   alternately, request by request, so that both sides of the ratio meet the same machine. Every
//   measured request's list statements are counted at the driver: a request that sent none (answered
//   from memory: the version read alone) stops the bench, so no uncached line can ever measure the cache.
// - cached: the same request repeated with nothing changed, answered from the API's memory (the version
//   read, then the kept JSON text). No list statement is sent, so there is no SQL to set beside it: the
//   table shows how many requests were answered from memory instead of a ratio.
//
// PostgreSQL (TEST_DATABASE_URL; a fresh database, dropped at the end): 100,000 and 1,000,000 calls.
// PGlite: 100,000. --quick: 100,000 on PostgreSQL and 20,000 on PGlite, fewer iterations.
// --smoke (CI): 2,000 calls on each, 5 requests a line, and on PostgreSQL the same database measured a
// second time as --database does (signing in again, no loading): every path, in seconds; its figures say nothing.
// --keep leaves the PostgreSQL database in place; --database=NAME measures such a kept one again
// without loading (for trying a change to the list against the same million calls).
// The organisation is on Enterprise (putOnPlan in bench/measure.ts says why): it makes 5 agents.
// Target on PostgreSQL with 1,000,000 calls: uncached p95 ≤ 30 ms for every case, API ≤ 2× the bare SQL.
// A missed target is printed, never fatal; a bench that breaks exits non-zero.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../server/app";
import type { Database } from "../server/db/client";
import {
  benchConfig,
  benchMode,
  byMode,
  counted,
  modeFlag,
  onFreshPostgres,
  onPglite,
  percentile,
  putOnPlan,
  recorder,
  requireStatements,
  routeStatement,
  SMOKE_NOTE,
  timeEach,
  timeInterleaved,
  type Recorded,
} from "./measure";

const MODE = benchMode();
/** --keep: leave the PostgreSQL databases in place (for EXPLAIN), printing their names. */
const KEEP = process.argv.includes("--keep");
/** --sizes=1000000,…: only these PostgreSQL sizes, and no PGlite run. */
const SIZES = process.argv.find((arg) => arg.startsWith("--sizes="))?.slice("--sizes=".length).split(",").map(Number) ?? null;
/** --database=NAME: measure a database an earlier --keep run left (no loading), then keep it. */
const REUSE = process.argv.find((arg) => arg.startsWith("--database="))?.slice("--database=".length) ?? null;
const ITERATIONS = byMode(MODE, { full: 200, quick: 40, smoke: 5 });
const WARMUP = byMode(MODE, { full: 20, quick: 5, smoke: 1 });
const PG_SIZES = SIZES ?? byMode(MODE, { full: [100_000, 1_000_000], quick: [100_000], smoke: [2_000] });
const PGLITE_SIZE = byMode(MODE, { full: 100_000, quick: 20_000, smoke: 2_000 });
const PG_URL = process.env.TEST_DATABASE_URL || null;
const PASSWORD = "bench-password-0123456789";

interface Timing {
  p50: number;
  p95: number;
  p99: number;
}

interface Result {
  name: string;
  n: number;
  db: string;
  /** Every request read the list (its own statements counted at the driver), beside them bare. */
  uncached: Timing & { sqlP50: number; sqlP95: number; statements: string };
  /** The same request repeated, answered from memory (GET /call/ only; GET /call/{id} is not kept). */
  cached: (Timing & { fromMemory: number; runs: number }) | null;
}

const timing = (sorted: number[]): Timing => ({ p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) });

const WORDS = (
  "hello thanks order refund delivery invoice account password payment card address appointment schedule " +
  "cancel confirm price discount subscription plan upgrade downgrade support manager question answer problem " +
  "issue ticket number email phone callback tomorrow today morning afternoon evening week month monday friday " +
  "shipping tracking package return exchange warranty repair technician visit insurance policy claim coverage " +
  "balance statement transfer loan mortgage rate interest savings checking credit debit fraud alert security " +
  "login reset verify identity code message voicemail transfer hold wait minute sorry great perfect okay sure " +
  "please help really happy unhappy complaint feedback survey review rating recommend friend family business " +
  "office store location hours open closed holiday weekend doctor dentist clinic prescription pharmacy test " +
  "result report booking reservation flight hotel car rental seat upgrade baggage gate boarding itinerary " +
  "receipt quote estimate contract signature document upload download website app update version bug crash " +
  "zeppelin quasar marzipan"
).split(" ");
const FIRST = "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Ada Alan Grace Linus Margaret Ken Barbara Dennis Bjarne Guido".split(" ");
const LAST = "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lovelace Turing Hopper Torvalds Hamilton Thompson Liskov Ritchie Stroustrup Rossum".split(" ");

const sqlArray = (values: string[]) => `(array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(",")}])`;

/**
 * Loads `n` calls into `orgId`: numbers +1NPANXXXXXX, names from a list, 5 agents, dates over the last
 * 90 days, transcripts of 20–40 words (a skewed pick, so a few words are common and most are rare),
 * statuses, types, ended reasons, success evaluations, durations and costs.
 */
async function loadCalls(exec: (query: string) => Promise<unknown>, orgId: string, agentIds: string[], n: number) {
  const words = sqlArray(WORDS);
  await exec(`
    insert into calls (id, org_id, type, status, agent_id, customer_number, customer_name, started_at, ended_at,
      duration_seconds, ended_reason, cost_micros, transcript, summary, success_evaluation, created_at, updated_at)
    select gen_random_uuid(), '${orgId}',
      (array['outbound','inbound','web'])[1 + i % 3],
      case when i % 100 = 0 then 'in-progress' else 'ended' end,
      (${sqlArray(agentIds)}::uuid[])[1 + i % ${agentIds.length}],
      '+1' || (2000000000 + (i::bigint * 7919) % 7999999999)::text,
      (${sqlArray(FIRST)})[1 + (i * 7) % ${FIRST.length}] || ' ' || (${sqlArray(LAST)})[1 + (i * 13) % ${LAST.length}],
      t.started, t.started + make_interval(secs => t.duration),
      case when i % 100 = 0 then null else t.duration end,
      (array['customer-ended-call','assistant-ended-call','silence-timed-out','voicemail'])[1 + i % 4],
      case when i % 100 = 0 then null else (t.duration * 1500)::bigint end,
      (select string_agg(${words}[1 + floor(power(random(), 3) * ${WORDS.length})::int], ' ')
         from generate_series(1, 20 + i % 21) as w(k) where k > 0 * i),
      'The caller asked about ' || ${words}[1 + i % ${WORDS.length}] || '.',
      (array['true','false',null])[1 + i % 3],
      t.started, t.started
    from generate_series(1, ${n}) as g(i)
    cross join lateral (select now() - random() * interval '90 days' + 0 * i * interval '1 second' as started,
                               (5 + floor(random() * 600))::int + 0 * i as duration) as t`);
}

async function signUpWithOrganisation(app: FastifyInstance): Promise<{ token: string; orgId: string }> {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const signUp = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { email, password: PASSWORD, name: "Bench" } });
  if (signUp.statusCode !== 200) throw new Error(`sign-up: ${signUp.body}`);
  const token = (signUp.json() as { token: string }).token;
  const org = await app.inject({ method: "POST", url: "/api/auth/organization/create", headers: { authorization: `Bearer ${token}` }, payload: { name: "Bench Org", slug: `bench-${randomUUID().slice(0, 8)}` } });
  if (org.statusCode !== 200) throw new Error(`organisation: ${org.body}`);
  return { token, orgId: (org.json() as { id: string }).id };
}

/** The bench user of a kept database, signed in again, with its organisation active. */
async function signInAgain(app: FastifyInstance, database: Database): Promise<{ token: string; orgId: string; n: number }> {
  const rows = async <T>(query: string) => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
  const [user] = await rows<{ email: string }>("select email from users where email like 'bench-%@example.com' limit 1");
  const [org] = await rows<{ id: string }>("select org_id as id from calls group by org_id order by count(*) desc limit 1");
  if (!user || !org) throw new Error("--database: no bench user or no calls in that database");
  const signIn = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: user.email, password: PASSWORD } });
  if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.body}`);
  const token = (signIn.json() as { token: string }).token;
  const active = await app.inject({ method: "POST", url: "/api/auth/organization/set-active", headers: { authorization: `Bearer ${token}` }, payload: { organizationId: org.id } });
  if (active.statusCode !== 200) throw new Error(`set-active: ${active.body}`);
  const [count] = await rows<{ n: number }>(`select count(*)::int as n from calls where org_id = '${org.id}'`);
  return { token, orgId: org.id, n: Number(count?.n ?? 0) };
}

/** Puts the signed-in organisation on Enterprise, creates 5 agents and loads `n` calls into it. */
async function loadIntoOrganisation(app: FastifyInstance, database: Database, headers: Record<string, string>, orgId: string, label: string, n: number): Promise<void> {
  // Free allows 2 agents: an organisation of this size is an Enterprise customer (putOnPlan says why).
  await putOnPlan(database, orgId, "enterprise");
  const agentIds: string[] = [];
  for (const name of ["Sales Sam", "Support Sue", "Billing Bob", "Booking Beth", "Survey Stan"]) {
    const response = await app.inject({ method: "POST", url: "/api/agent/", headers, payload: { agent_name: name } });
    if (response.statusCode !== 201) throw new Error(`agent: ${response.body}`);
    agentIds.push((response.json() as { data: { id: string } }).data.id);
  }
  const exec = (query: string) => database.db.execute(query);

  const loadStart = performance.now();
  // Loading is faster without the secondary indexes; they are rebuilt afterwards, as the migration made them.
  const secondary = (await database.db.execute(
    "select indexname, indexdef from pg_indexes where tablename = 'calls' and indexname <> 'calls_pkey' and indexdef not like 'CREATE UNIQUE%'",
  )) as unknown as { rows: { indexname: string; indexdef: string }[] };
  for (const index of secondary.rows) await exec(`drop index ${index.indexname}`);
  await loadCalls(exec, orgId, agentIds, n);
  if (database.kind === "postgres") {
    // One statement (the pool may hand each query another connection): the memory setting and the builds.
    await exec(`begin; set local maintenance_work_mem = '256MB'; ${secondary.rows.map((index) => `${index.indexdef};`).join(" ")} commit;`);
  } else {
    // PGlite: one connection, one command per query.
    for (const index of secondary.rows) await exec(index.indexdef);
  }
  await exec("vacuum analyze calls");
  const loadSeconds = (performance.now() - loadStart) / 1000;
  console.log(`${label}: loaded ${n.toLocaleString("en")} calls in ${loadSeconds.toFixed(1)} s`);
}

async function benchDatabase(database: Database, label: string, n: number, reuse: string | null): Promise<Result[]> {
  const app = await buildApp({ config: benchConfig("calls"), database, logger: false });
  try {
    const reused = reuse ? await signInAgain(app, database) : null;
    const fresh = reused ? null : await signUpWithOrganisation(app);
    const token = reused?.token ?? fresh!.token;
    const orgId = reused?.orgId ?? fresh!.orgId;
    const headers = { authorization: `Bearer ${token}` };
    if (reused) {
      n = reused.n;
      console.log(`${label}: ${reuse} holds ${n.toLocaleString("en")} calls`);
    } else {
      await loadIntoOrganisation(app, database, headers, orgId, label, n);
    }

    const sample = (await database.db.execute(`select customer_number from calls where org_id = '${orgId}' offset ${Math.floor(n / 2)} limit 1`) as unknown as { rows: { customer_number: string }[] }).rows[0]!.customer_number;
    // "+1 (NPA) NXX-XXXX", as a person types it.
    const spelled = `+1 (${sample.slice(2, 5)}) ${sample.slice(5, 8)}-${sample.slice(8)}`;
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    const cases: [string, string][] = [
      ["first page, no filter", "page=1&limit=20"],
      ["one-week date range", `page=1&limit=20&startDate=${day(37)}&endDate=${day(31)}`],
      ["search by number", `page=1&limit=20&search=${encodeURIComponent(spelled)}`],
      ["search transcript word (~8%)", "page=1&limit=20&search=reservation"],
      ["page 500", "page=500&limit=20"],
    ];

    // Every statement a request sends but the sign-in's: for the list, the kept answers' version read
    // (server/calls/list-cache.ts: a primary-key read, sent by every request, kept answer or not), then
    // the list's own. A request answered from memory sends the version read alone.
    const rec = recorder(database, routeStatement);
    const listWork = (text: string) => !text.includes('"call_list_versions"');
    // The organisation's call-list version moved, as every write of its calls moves it (migration 0006's
    // trigger calls this function): whatever answer the API keeps for the organisation is stale after it.
    const moveVersion = () => database.db.execute(sql`select call_list_versions_bump(array[${orgId}]::text[])`);
    const results: Result[] = [];
    // The fixed cost of any signed-in request (auth, routing, validation, a one-row read): GET /call/{id}.
    const someId = ((await database.db.execute(`select id from calls where org_id = '${orgId}' limit 1`)) as unknown as { rows: { id: string }[] }).rows[0]!.id;
    cases.push(["(fixed cost: GET /call/{id})", someId]);
    for (const [name, query] of cases) {
      const isList = !name.startsWith("(fixed");
      const url = isList ? `/api/call/?${query}` : `/api/call/${query}`;
      const request = async () => {
        const response = await app.inject({ method: "GET", url, headers });
        if (response.statusCode !== 200) throw new Error(`${label}, ${name}: ${response.statusCode} ${response.body}`);
        return response;
      };
      // GET /call/{id} keeps nothing: it reads its row every time.
      const miss = isList ? moveVersion : async () => undefined;
      await miss();
      const body = (await request()).json() as { data: unknown[]; total: number; total_is_estimate: boolean };
      await miss();
      const statements = await rec.record(request);
      requireStatements(`${label}, ${name}`, statements, listWork);
      // As the API sends them (server/calls/list.ts listCalls): the version read, a search's agent-name
      // lookup, then the page alongside the total (the planner's estimate, then the capped count when it is
      // small); or, for the unfiltered list, the estimate, then the page with the capped count in it (one
      // statement). GET /call/{id}: the call, then its agent and its appointments at once.
      const page = statements.find((s) => isList && s.text.startsWith('select "calls"."id", "calls"."type"'));
      const total = statements.filter((s) => isList && s !== page && (s.text.startsWith("explain") || s.text.includes("count(*)")));
      const before = isList ? statements.filter((s) => s !== page && !total.includes(s)) : statements.slice(0, 1);
      const alongside = isList ? [] : statements.slice(1);
      const pageCounts = page?.text.includes("count(*)") ?? false;
      const sequence = async (list: Recorded[]) => {
        for (const statement of list) await rec.replay(statement);
      };
      const api = counted(`${label}, ${name} (uncached)`, rec.record, request, listWork);
      const [apiTimes, bare] = await timeInterleaved(
        ITERATIONS,
        WARMUP,
        api.run,
        async () => {
          await sequence(before);
          if (!isList) await Promise.all(alongside.map((statement) => rec.replay(statement)));
          else if (pageCounts) await sequence([...total, page!]);
          else await Promise.all([page ? rec.replay(page) : null, sequence(total)]);
        },
        { beforeA: miss },
      );
      const sent = api.check();
      const found = Array.isArray(body.data) ? `${body.data.length} rows, total ${body.total}${body.total_is_estimate ? " (estimate)" : ""}` : "one call";
      const own = statements.filter((s) => listWork(s.text)).length;
      const each = sent.fewest === sent.most ? String(sent.fewest) : `${sent.fewest}–${sent.most}`;
      console.log(`  ${name}: ${found}; ${statements.length} statements recorded and replayed bare (${isList ? `the version read and ${own} of the list's` : "the call's"}); uncached requests sent ${each} of ${isList ? "the list's" : "the call's"} each`);
      if (sent.fewest !== own || sent.most !== own) console.log(`    note: the measured requests did not all send the ${own} statements recorded`);

      // Cached: nothing changes between requests (the last uncached request kept its answer).
      let cached: Result["cached"] = null;
      if (isList) {
        const counts: number[] = [];
        const times = await timeEach(ITERATIONS, WARMUP, async () => counts.push((await rec.record(request)).filter((statement) => listWork(statement.text)).length));
        const fromMemory = counts.slice(WARMUP).filter((count) => count === 0).length;
        if (fromMemory < ITERATIONS) console.log(`    note: ${ITERATIONS - fromMemory} of ${ITERATIONS} cached requests read the list: the cached line is not all the cache's`);
        cached = { ...timing(times), fromMemory, runs: ITERATIONS };
      }
      results.push({
        name,
        n,
        db: label,
        uncached: { ...timing(apiTimes), sqlP50: percentile(bare, 50), sqlP95: percentile(bare, 95), statements: `${isList ? "1 + " : ""}${each}` },
        cached,
      });
    }
    return results;
  } finally {
    await app.close();
  }
}

console.log(`npm run bench:calls${modeFlag(MODE)}${MODE === "smoke" ? `\n${SMOKE_NOTE}` : ""}`);
const results: Result[] = [];
if (PG_URL) {
  if (REUSE) results.push(...(await onFreshPostgres(PG_URL, (database) => benchDatabase(database, "PostgreSQL", 0, REUSE), { reuse: REUSE, keep: KEEP })));
  else {
    for (const n of PG_SIZES) {
      const run = async (database: Database, name: string) => {
        const measured = await benchDatabase(database, "PostgreSQL", n, null);
        // Smoke: the --database path as well (sign in again, count the calls, no loading) on the same database.
        if (MODE === "smoke") measured.push(...(await benchDatabase(database, "PostgreSQL, again as --database", 0, name)));
        return measured;
      };
      results.push(...(await onFreshPostgres(PG_URL, run, { keep: KEEP })));
    }
  }
} else {
  console.log("PostgreSQL: skipped (TEST_DATABASE_URL is not set)");
}
if (!SIZES && !REUSE) results.push(...(await onPglite((database) => benchDatabase(database, "PGlite", PGLITE_SIZE, null))));

const ms = (value: number) => value.toFixed(1);
console.log("\nUncached: every request reads the list (the organisation's call-list version moved before each, untimed), beside the same statements sent bare");
console.table(
  results.map(({ name, n, db, uncached: r }) => ({
    case: name,
    N: n.toLocaleString("en"),
    db,
    "p50 ms": ms(r.p50),
    "p95 ms": ms(r.p95),
    "p99 ms": ms(r.p99),
    "SQL p50 ms": ms(r.sqlP50),
    "SQL p95 ms": ms(r.sqlP95),
    "ratio p95": (r.p95 / r.sqlP95).toFixed(2),
    "ratio p50": (r.p50 / r.sqlP50).toFixed(2),
    "API − SQL p95 ms": ms(r.p95 - r.sqlP95),
    "statements/request (version read + list's)": r.statements,
  })),
);
console.log("\nCached: the same request repeated with nothing changed, answered from the API's memory (the version read only, no list statement: no SQL to compare, no ratio)");
console.table(
  results
    .filter((r) => r.cached)
    .map(({ name, n, db, cached: r }) => ({
      case: name,
      N: n.toLocaleString("en"),
      db,
      "p50 ms": ms(r!.p50),
      "p95 ms": ms(r!.p95),
      "p99 ms": ms(r!.p99),
      "answered from memory (no list statement)": `${r!.fromMemory} of ${r!.runs}`,
    })),
);
const misses = results.filter((r) => r.db === "PostgreSQL" && r.n >= 1_000_000 && !r.name.startsWith("(") && (r.uncached.p95 > 30 || r.uncached.p95 > 2 * r.uncached.sqlP95));
if (misses.length > 0) console.log(`Targets missed (PostgreSQL, 1,000,000 calls, uncached: p95 ≤ 30 ms, API ≤ 2× SQL): ${misses.map((r) => r.name).join("; ")}`);
process.exit(0);
