/**
 * The sign-in throttle (server/auth/sign-in-throttle.ts): 5 failed passwords within 15 minutes, per
 * account and per client address, then 429 with Retry-After and a sentence for the form; success resets.
 * Shared by every API process through Redis when REDIS_URL is set: here two apps on one Redis, TEST_REDIS_URL
 * (`npm run test:engines`), else a redis-server started for this file when one is installed, else skipped
 * (a fresh machine's `npm test` needs no services).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryFailureCounter, SIGN_IN_THROTTLE_NAMESPACE, throttleKeys } from "../../server/auth/sign-in-throttle";
import type { Database } from "../../server/db/client";
import { ENGINES_REQUIRED } from "./engines";
import { PASSWORD, buildTestApp, migratedDatabase, signUp, uniqueEmail } from "./helpers";

let database: Database;
let app: FastifyInstance;
beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

/** A client address no other test uses (2001:db8::/32 is for documentation). */
const address = () => `2001:db8:${randomBytes(8).toString("hex").match(/.{4}/g)!.join(":")}`;

const signIn = (on: FastifyInstance, email: string, password: string, remoteAddress: string) =>
  on.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password }, remoteAddress });

async function statuses(on: FastifyInstance, attempts: [email: string, password: string, remoteAddress: string][]): Promise<number[]> {
  const out: number[] = [];
  for (const [email, password, remoteAddress] of attempts) out.push((await signIn(on, email, password, remoteAddress)).statusCode);
  return out;
}

const wrong = (email: string, remoteAddress: string, times: number): [string, string, string][] =>
  Array.from({ length: times }, () => [email, "not-the-password", remoteAddress]);

describe("sign-in throttle", () => {
  it("after 5 wrong passwords for an account: 429 with Retry-After and a sentence, even with the right password, from any client", async () => {
    const { email } = await signUp(app);
    const client = address();
    expect(await statuses(app, wrong(email, client, 5))).toEqual([401, 401, 401, 401, 401]);

    const refused = await signIn(app, email, PASSWORD, client);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.json()).toEqual({
      detail: "Too many failed sign-in attempts: try again in 15 minutes.",
      code: "rate_limited",
      message: "Too many failed sign-in attempts: try again in 15 minutes.",
    });
    expect(refused.cookies).toEqual([]);
    // Per account: another client is refused too (the password is never checked).
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(429);
    // The email's case does not make another account.
    expect((await signIn(app, email.toUpperCase(), PASSWORD, address())).statusCode).toBe(429);
  });

  it("after 5 wrong passwords from one client, whatever the accounts: that client is refused; others are not", async () => {
    const client = address();
    const attempts = Array.from({ length: 5 }, (_, i): [string, string, string] => [uniqueEmail(`spray${i}`), "not-the-password", client]);
    expect(await statuses(app, attempts)).toEqual([401, 401, 401, 401, 401]);
    const { email } = await signUp(app);
    expect((await signIn(app, email, PASSWORD, client)).statusCode).toBe(429);
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(200);
  });

  it("a successful sign-in resets the account's count", async () => {
    const { email } = await signUp(app);
    const client = address();
    expect(await statuses(app, [...wrong(email, client, 4), [email, PASSWORD, client]])).toEqual([401, 401, 401, 401, 200]);
    // From another address the account starts again at zero: five more wrong passwords before a 429.
    const other = address();
    expect(await statuses(app, [...wrong(email, other, 4), [email, PASSWORD, other]])).toEqual([401, 401, 401, 401, 200]);
  });

  it("signing into one's own account does not reset the client's count of guesses at other accounts", async () => {
    const { email: own } = await signUp(app);
    const client = address();
    const guesses = (n: number) => Array.from({ length: n }, () => [uniqueEmail(), "not-the-password", client] as [string, string, string]);
    expect(await statuses(app, [...guesses(4), [own, PASSWORD, client]])).toEqual([401, 401, 401, 401, 200]);
    expect(await statuses(app, guesses(2))).toEqual([401, 429]);
  });

  it("a burst of simultaneous guesses gets no more than 5 password checks", async () => {
    const { email } = await signUp(app);
    const client = address();
    const answers = await Promise.all(Array.from({ length: 12 }, () => signIn(app, email, "not-the-password", client)));
    const counts = answers.reduce<Record<number, number>>((tally, answer) => ({ ...tally, [answer.statusCode]: (tally[answer.statusCode] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 401: 5, 429: 7 });
  });

  it("a malformed request is not a failed password", async () => {
    const { email } = await signUp(app);
    const client = address();
    for (let i = 0; i < 6; i++) {
      const malformed = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email }, remoteAddress: client });
      expect(malformed.statusCode).toBe(400);
    }
    expect((await signIn(app, email, PASSWORD, client)).statusCode).toBe(200);
  });

  it("counts the client behind a trusted proxy by X-Forwarded-For, and ignores the header otherwise", async () => {
    const { app: proxied } = await buildTestApp(database, { TRUST_PROXY: "10.0.0.5" });
    try {
      const behind = (email: string, password: string, client: string) =>
        proxied.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password }, remoteAddress: "10.0.0.5", headers: { "x-forwarded-for": client } });
      const first = address();
      for (let i = 0; i < 5; i++) expect((await behind(uniqueEmail(), "not-the-password", first)).statusCode).toBe(401);
      const { email } = await signUp(proxied);
      expect((await behind(email, PASSWORD, first)).statusCode).toBe(429);
      // Another client behind the same proxy is not held back.
      expect((await behind(email, PASSWORD, address())).statusCode).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("opens again when the 15 minutes since the first failure are over", async () => {
    let now = 1_000_000;
    const counter = memoryFailureCounter({ now: () => now });
    const keys = throttleKeys("ada@example.com", "203.0.113.1");
    for (let i = 0; i < 5; i++) expect(await counter.begin(keys)).toEqual({ allowed: true });
    now += 60_000;
    expect(await counter.begin(keys)).toEqual({ allowed: false, retryAfterMs: 14 * 60_000 });
    now += 14 * 60_000;
    expect(await counter.begin(keys)).toEqual({ allowed: true });
  });
});

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Debian's redis-server, started for this file when no TEST_REDIS_URL is given. */
const REDIS_BINARY = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path)) ?? null;
const noRedis = process.env.TEST_REDIS_URL || REDIS_BINARY ? null : "neither TEST_REDIS_URL nor a redis-server to start";
if (noRedis && ENGINES_REQUIRED) throw new Error(`Redis is required here (ENGINES_REQUIRED=1): ${noRedis}`);

describe("sign-in throttle across API processes", () => {
  let redisUrl: string;
  let child: ChildProcess | null = null;
  let redis: Redis;

  beforeAll(async () => {
    if (noRedis) return;
    if (process.env.TEST_REDIS_URL) redisUrl = process.env.TEST_REDIS_URL;
    else {
      // No shared Redis given: start one for this file (Debian's redis-server), on a free port, keeping nothing on disk.
      const port = await freePort();
      child = spawn(REDIS_BINARY!, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      redisUrl = `redis://127.0.0.1:${port}`;
    }
    for (let tries = 0; ; tries++) {
      const client = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null });
      client.on("error", () => undefined);
      try {
        await client.connect();
        redis = client;
        break;
      } catch (error) {
        client.disconnect();
        if (tries > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 20_000);
  afterAll(async () => {
    await redis?.quit();
    child?.kill("SIGTERM");
  });

  it.skipIf(noRedis)(`two apps on one Redis share the count; success through either resets it${noRedis ? ` (skipped: ${noRedis})` : ""}`, async () => {
    const env = { REDIS_URL: redisUrl };
    const { app: first } = await buildTestApp(database, env);
    const { app: second } = await buildTestApp(database, env);
    try {
      const { email } = await signUp(first);
      const client = address();
      const [a, b] = [first, second];
      expect([
        (await signIn(a, email, "nope-1234", client)).statusCode,
        (await signIn(b, email, "nope-1234", client)).statusCode,
        (await signIn(a, email, "nope-1234", client)).statusCode,
        (await signIn(b, email, "nope-1234", client)).statusCode,
        (await signIn(b, email, PASSWORD, client)).statusCode,
      ]).toEqual([401, 401, 401, 401, 200]);
      // The account starts again at zero (from another address: this one's four failures stand).
      const next = address();
      for (let i = 0; i < 5; i++) expect((await signIn(i % 2 ? a : b, email, "nope-1234", next)).statusCode).toBe(401);
      const refused = await signIn(a, email, PASSWORD, address());
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(14 * 60);

      // The counts live under the product's prefix, hashed, expiring with the window.
      const [accountKey] = throttleKeys(email, client);
      const ttl = await redis.pttl(`${SIGN_IN_THROTTLE_NAMESPACE}${accountKey}`);
      expect(ttl).toBeGreaterThan(14 * 60_000);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000);
      await redis.del(...throttleKeys(email, client).map((key) => `${SIGN_IN_THROTTLE_NAMESPACE}${key}`));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("while Redis does not answer, failures are still counted (in the process)", async () => {
    const { app: cutOff } = await buildTestApp(database, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    try {
      const { email } = await signUp(cutOff);
      const client = address();
      expect(await statuses(cutOff, wrong(email, client, 5))).toEqual([401, 401, 401, 401, 401]);
      expect((await signIn(cutOff, email, PASSWORD, client)).statusCode).toBe(429);
    } finally {
      await cutOff.close();
    }
  });
});
