/**
 * The engines the product runs on in production, for the tests whose outcome depends on them: PostgreSQL
 * (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL). `npm test` sets neither: it runs embedded (PGlite, Redis
 * counted in-process) and these tests say they are skipped. `npm run test:engines` (scripts/test-engines.ts,
 * run by .ci/run on every CI run) sets both and ENGINES_REQUIRED=1: a test that would then be skipped for want
 * of an engine fails instead, naming the engine, and the script fails the run on any skipped test.
 */
import pg from "pg";
import { Redis } from "ioredis";

/** Set by scripts/test-engines.ts: an engine that does not answer fails the test instead of skipping it. */
export const ENGINES_REQUIRED = process.env.ENGINES_REQUIRED === "1";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || null;

/** The URL with its password hidden, for messages. */
export const redacted = (url: string) => url.replace(/\/\/([^:/@]*):[^@]*@/, "//$1:***@");

async function postgresProblem(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
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

async function redisProblem(url: string): Promise<string | null> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 3000 });
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

/**
 * Why an engine test cannot run here, or null when it can. Throws under ENGINES_REQUIRED (the test file then
 * fails with the message) instead of answering a reason to skip.
 */
async function engineProblem(kind: "PostgreSQL" | "Redis", variable: string, url: string | null, probe: (url: string) => Promise<string | null>): Promise<string | null> {
  const problem = url ? await probe(url).then((reason) => (reason ? `${kind} does not answer at ${redacted(url)}: ${reason}` : null)) : `${variable} is not set`;
  if (problem && ENGINES_REQUIRED) throw new Error(`${kind} is required here (ENGINES_REQUIRED=1) and ${problem}`);
  return problem;
}

/** Null when PostgreSQL answers at TEST_DATABASE_URL, else why not (run `npm run test:engines`). */
export const postgresUnavailable = () => engineProblem("PostgreSQL", "TEST_DATABASE_URL", TEST_DATABASE_URL, postgresProblem);

/** Null when Redis answers at TEST_REDIS_URL, else why not (run `npm run test:engines`). */
export const redisUnavailable = () => engineProblem("Redis", "TEST_REDIS_URL", TEST_REDIS_URL, redisProblem);

/** The title of the one skipped test a file shows in its place, e.g. in `npm test`. */
export const skippedBecause = (problem: string) => `skipped: ${problem} (npm run test:engines runs it on PostgreSQL and Redis)`;
