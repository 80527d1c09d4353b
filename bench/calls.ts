// `npm run bench:calls [-- --quick]`: GET /api/call/ at scale. Loads N calls into one organisation
// (INSERT … SELECT generate_series, in SQL), then measures p50/p95/p99 of the list through the API
// (app.inject on the built app: routing, auth, validation, the queries and serialization, no socket)
// and the p95 of the same SQL statements alone (recorded from one API request, replayed on the driver,
// concurrently or one after the other as the API sends them): the floor. API and SQL are timed
// alternately, request by request, so that both sides of the ratio meet the same machine.
//
// PostgreSQL (TEST_DATABASE_URL; a fresh database, dropped at the end): 100,000 and 1,000,000 calls.
// PGlite: 100,000. --quick: 100,000 on PostgreSQL and 20,000 on PGlite, fewer iterations (CI).
// --keep leaves the PostgreSQL database in place; --database=NAME measures such a kept one again
// without loading (for trying a change to the list against the same million calls).
// Target on PostgreSQL with 1,000,000 calls: p95 ≤ 30 ms for every case, API ≤ 2× the bare SQL.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../server/app";
import { loadConfig } from "../server/config";
import type { Database } from "../server/db/client";
import { onFreshPostgres, onPglite, percentile, recorder, timeInterleaved, type Recorded } from "./measure";

const QUICK = process.argv.includes("--quick");
/** --keep: leave the PostgreSQL databases in place (for EXPLAIN), printing their names. */
const KEEP = process.argv.includes("--keep");
/** --sizes=1000000,…: only these PostgreSQL sizes, and no PGlite run. */
const SIZES = process.argv.find((arg) => arg.startsWith("--sizes="))?.slice("--sizes=".length).split(",").map(Number) ?? null;
/** --database=NAME: measure a database an earlier --keep run left (no loading), then keep it. */
const REUSE = process.argv.find((arg) => arg.startsWith("--database="))?.slice("--database=".length) ?? null;
const ITERATIONS = QUICK ? 40 : 200;
const WARMUP = QUICK ? 5 : 20;
const PG_URL = process.env.TEST_DATABASE_URL || null;
const PASSWORD = "bench-password-0123456789";

interface Result {
  name: string;
  n: number;
  db: string;
  p50: number;
  p95: number;
  p99: number;
  sqlP50: number;
  sqlP95: number;
}

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

async function signUpWithOrganisation(app: FastifyInstance): Promise<string> {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const signUp = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { email, password: PASSWORD, name: "Bench" } });
  if (signUp.statusCode !== 200) throw new Error(`sign-up: ${signUp.body}`);
  const token = (signUp.json() as { token: string }).token;
  const org = await app.inject({ method: "POST", url: "/api/auth/organization/create", headers: { authorization: `Bearer ${token}` }, payload: { name: "Bench Org", slug: `bench-${randomUUID().slice(0, 8)}` } });
  if (org.statusCode !== 200) throw new Error(`organisation: ${org.body}`);
  return token;
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

/** Creates 5 agents and loads `n` calls into the signed-in organisation; answers its id. */
async function loadIntoOrganisation(app: FastifyInstance, database: Database, headers: Record<string, string>, label: string, n: number): Promise<string> {
  const agentIds: string[] = [];
  for (const name of ["Sales Sam", "Support Sue", "Billing Bob", "Booking Beth", "Survey Stan"]) {
    const response = await app.inject({ method: "POST", url: "/api/agent/", headers, payload: { agent_name: name } });
    if (response.statusCode !== 201) throw new Error(`agent: ${response.body}`);
    agentIds.push((response.json() as { data: { id: string } }).data.id);
  }
  const orgId = (await database.db.execute(`select org_id from agents where id = '${agentIds[0]}'`) as unknown as { rows: { org_id: string }[] }).rows[0]!.org_id;
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
  return orgId;
}

async function benchDatabase(database: Database, label: string, n: number): Promise<Result[]> {
  const config = loadConfig({ NODE_ENV: "production", BETTER_AUTH_SECRET: randomUUID() + randomUUID(), RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "silent", SEED_DEMO: "false", PUBLIC_URL: "http://localhost:3000", CONSOLE_DIR: "/nonexistent/console", DATA_DIR: `/tmp/vap-bench-${process.pid}` });
  const app = await buildApp({ config, database, logger: false });
  try {
    const reused = REUSE ? await signInAgain(app, database) : null;
    const token = reused?.token ?? (await signUpWithOrganisation(app));
    const headers = { authorization: `Bearer ${token}` };
    let orgId: string;
    if (reused) {
      orgId = reused.orgId;
      n = reused.n;
      console.log(`${label}: ${REUSE} holds ${n.toLocaleString("en")} calls`);
    } else {
      orgId = await loadIntoOrganisation(app, database, headers, label, n);
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

    const rec = recorder(database, (text) => /from "calls"|from "agents" where/.test(text) || text.includes('"calls"'));
    const results: Result[] = [];
    // The fixed cost of any signed-in request (auth, routing, validation, a one-row read): GET /call/{id}.
    const someId = ((await database.db.execute(`select id from calls where org_id = '${orgId}' limit 1`)) as unknown as { rows: { id: string }[] }).rows[0]!.id;
    cases.push(["(fixed cost: GET /call/{id})", someId]);
    for (const [name, query] of cases) {
      const url = name.startsWith("(fixed") ? `/api/call/${query}` : `/api/call/?${query}`;
      const request = () => app.inject({ method: "GET", url, headers });
      const first = await request();
      if (first.statusCode !== 200) throw new Error(`${name}: ${first.statusCode} ${first.body}`);
      const body = first.json() as { data: unknown[]; total: number; total_is_estimate: boolean };
      const statements = await rec.record(request);
      // As the API sends them (server/calls/list.ts listCalls): a search's agent-name lookup first, then
      // the page alongside the total (the planner's estimate, then the capped count when it is small); or,
      // for the unfiltered list, the estimate, then the page with the capped count in it (one statement).
      // GET /call/{id}: its statements one after the other.
      const isList = !name.startsWith("(fixed");
      const page = statements.find((s) => isList && s.text.startsWith('select "calls"."id", "calls"."type"'));
      const total = statements.filter((s) => isList && s !== page && (s.text.startsWith("explain") || s.text.includes("count(*)")));
      const before = statements.filter((s) => s !== page && !total.includes(s));
      const pageCounts = page?.text.includes("count(*)") ?? false;
      const sequence = async (list: Recorded[]) => {
        for (const statement of list) await rec.replay(statement);
      };
      const [api, bare] = await timeInterleaved(ITERATIONS, WARMUP, request, async () => {
        await sequence(before);
        if (pageCounts) await sequence([...total, page!]);
        else await Promise.all([page ? rec.replay(page) : null, sequence(total)]);
      });
      const found = Array.isArray(body.data) ? `${body.data.length} rows, total ${body.total}${body.total_is_estimate ? " (estimate)" : ""}` : "one call";
      console.log(`  ${name}: ${found}, ${statements.length} statements`);
      results.push({ name, n, db: label, p50: percentile(api, 50), p95: percentile(api, 95), p99: percentile(api, 99), sqlP50: percentile(bare, 50), sqlP95: percentile(bare, 95) });
    }
    return results;
  } finally {
    await app.close();
  }
}


const results: Result[] = [];
if (PG_URL) {
  if (REUSE) results.push(...(await onFreshPostgres(PG_URL, (database) => benchDatabase(database, "PostgreSQL", 0), { reuse: REUSE, keep: KEEP })));
  else for (const n of SIZES ?? (QUICK ? [100_000] : [100_000, 1_000_000])) results.push(...(await onFreshPostgres(PG_URL, (database) => benchDatabase(database, "PostgreSQL", n), { reuse: REUSE, keep: KEEP })));
} else {
  console.log("PostgreSQL: skipped (TEST_DATABASE_URL is not set)");
}
if (!SIZES && !REUSE) results.push(...(await onPglite((database) => benchDatabase(database, "PGlite", QUICK ? 20_000 : 100_000))));

const ms = (value: number) => value.toFixed(1);
const table = results.map((r) => ({
  case: r.name,
  N: r.n.toLocaleString("en"),
  db: r.db,
  "p50 ms": ms(r.p50),
  "p95 ms": ms(r.p95),
  "p99 ms": ms(r.p99),
  "SQL p50 ms": ms(r.sqlP50),
  "SQL p95 ms": ms(r.sqlP95),
  "ratio p95": (r.p95 / r.sqlP95).toFixed(2),
  "ratio p50": (r.p50 / r.sqlP50).toFixed(2),
  "API − SQL p95 ms": ms(r.p95 - r.sqlP95),
}));
console.table(table);
const misses = results.filter((r) => r.db === "PostgreSQL" && r.n >= 1_000_000 && !r.name.startsWith("(") && (r.p95 > 30 || r.p95 > 2 * r.sqlP95));
if (misses.length > 0) console.log(`Targets missed (PostgreSQL, 1,000,000 calls: p95 ≤ 30 ms, API ≤ 2× SQL): ${misses.map((r) => r.name).join("; ")}`);
process.exit(0);
