// `npm run test:engines`: the tests whose outcome can depend on the engine, on the engines production runs:
// PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Redis (TEST_REDIS_URL,
// default redis://127.0.0.1:6379). `.ci/run` runs it on every CI run, after `npm test` (which is embedded).
//
// What runs: every server test file that uses a database (each makes its own PostgreSQL database, dropped
// afterwards), among them the multi-process ones (two API processes racing, the dialler killed with SIGKILL),
// the Redis ones (rate limits, the sign-in throttle), and the security suite's cross-organisation file. Not
// again: the files in EMBEDDED_ONLY, whose outcome cannot depend on the engine.
//
// A missing engine fails the run before any test, naming it. ENGINES_REQUIRED=1 makes a test that would skip
// for want of an engine fail instead (tests/server/engines.ts), and a skipped test fails the run here: on the
// engines, a skipped test is not a pass. Extra arguments are passed to vitest (e.g. a file to run alone).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";

const root = resolve(import.meta.dirname, "..");
const databaseUrl = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
const hidden = (url: string) => url.replace(/\/\/([^:/@]*):[^@]*@/, "//$1:***@");

/** Server test files that do not touch a database or that start embedded processes of their own: once, in `npm test`. */
const EMBEDDED_ONLY: Record<string, string> = {
  "tests/server/startup.test.ts": "starts `npm run server` on an embedded database of its own",
  "tests/server/demo-bind.test.ts": "which password the demo account gets for a bind address (a user's row; 69 s on PostgreSQL for nothing the engine decides)",
  "tests/server/console-build.test.ts": "the console build",
  "tests/server/config.test.ts": "parsing the environment",
  "tests/server/time.test.ts": "time arithmetic",
  "tests/server/number-zones.test.ts": "phone number time zones",
  "tests/server/campaign-schedule.test.ts": "calling windows",
  "tests/server/calendar-slots.test.ts": "slot arithmetic",
  "tests/server/booking-tools-spoken.test.ts": "spoken times",
  "tests/server/vapi-contract.test.ts": "payloads against Vapi's document",
  "tests/server/stripe-contract.test.ts": "requests against Stripe's document",
  "tests/server/stripe-webhook-verify.test.ts": "signature checks",
  "tests/server/store-adapters.test.ts": "store payload adapters",
  "tests/server/session-cache.test.ts": "an in-process cache",
  "tests/server/sandbox-redelivery.test.ts": "the sandbox's redelivery timer",
  "tests/server/ledger-invariant-guard.test.ts": "the invariant check's own logic",
};
/** Security suite files run on the engines (the rest are about HTTP, not the database). */
const SECURITY_ON_ENGINES = ["tests/security/cross-org.test.ts"];

async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisProblem(): Promise<string | null> {
  const client = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 5000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    client.disconnect();
  }
}

const problems = [
  await postgresProblem().then((problem) => (problem ? `PostgreSQL does not answer at ${hidden(databaseUrl)} (TEST_DATABASE_URL): ${problem}` : null)),
  await redisProblem().then((problem) => (problem ? `Redis does not answer at ${hidden(redisUrl)} (TEST_REDIS_URL): ${problem}` : null)),
].filter((problem): problem is string => problem !== null);
if (problems.length > 0) {
  for (const problem of problems) console.error(`test:engines: ${problem}`);
  console.error("test:engines: these tests need both engines; a skipped engine test is not a pass, so nothing ran.");
  process.exit(1);
}

const serverFiles = readdirSync(join(root, "tests/server"))
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `tests/server/${name}`)
  .filter((file) => !(file in EMBEDDED_ONLY))
  .sort();
const extra = process.argv.slice(2);
const files = extra.some((arg) => !arg.startsWith("-")) ? [] : [...serverFiles, ...SECURITY_ON_ENGINES];
const report = process.env.ENGINES_REPORT || "test-results/vitest-engines.json";
console.log(`test:engines: ${files.length || "the chosen"} files on PostgreSQL (${hidden(databaseUrl)}) and Redis (${hidden(redisUrl)})`);

const code = await new Promise<number>((done) => {
  const child = spawn(
    process.execPath,
    [join(root, "node_modules/vitest/vitest.mjs"), "run", "--project", "server", "--project", "security", ...files, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra],
    { cwd: root, stdio: "inherit", env: { ...process.env, TEST_DATABASE_URL: databaseUrl, TEST_REDIS_URL: redisUrl, ENGINES_REQUIRED: "1" } },
  );
  child.on("close", (status) => done(status ?? 1));
});

// A skipped test is not a pass here: name each one.
let skipped: string[] = [];
try {
  const result = JSON.parse(readFileSync(join(root, report), "utf8")) as { testResults: { name: string; assertionResults: { status: string; fullName: string }[] }[] };
  skipped = result.testResults.flatMap((file) =>
    file.assertionResults.filter((test) => test.status === "skipped" || test.status === "pending" || test.status === "todo").map((test) => `${file.name.replace(`${root}/`, "")}: ${test.fullName}`),
  );
} catch (error) {
  console.error(`test:engines: could not read ${report}: ${(error as Error).message}`);
  process.exit(code || 1);
}
if (skipped.length > 0) {
  console.error(`test:engines: ${skipped.length} test(s) skipped on the engines, which is a failure here:`);
  for (const line of skipped) console.error(`  - ${line}`);
  process.exit(1);
}
process.exit(code);
