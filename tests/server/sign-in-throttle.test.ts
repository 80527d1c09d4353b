/**
 * The sign-in throttle (server/auth/sign-in-throttle.ts, server/auth/device-cookie.ts), after OWASP's device
 * cookies: a browser that has signed into an account keeps signing in with the right password while the account is
 * locked for untrusted clients (5 failed passwords within 15 minutes, 429 with Retry-After and a sentence); a
 * client address is slowed down (10 failures, then one a minute), never locked out for 15 minutes by one person's
 * typos. Shared by every API process through Redis when REDIS_URL is set: here two apps on one Redis, TEST_REDIS_URL
 * (`npm run test:engines`), else a redis-server started for this file when one is installed, else skipped
 * (a fresh machine's `npm test` needs no services).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVICE_COOKIE, deviceCookies } from "../../server/auth/device-cookie";
import { accountLimit, addressLimit, memoryFailureCounter, SIGN_IN_THROTTLE_NAMESPACE, untrustedLimits } from "../../server/auth/sign-in-throttle";
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

const ORIGIN = "http://localhost:3000";

/** A sign-in as a browser holding `device` (its device cookie's value) would send it, or as an API client without one. */
const signIn = (on: FastifyInstance, email: string, password: string, remoteAddress: string, device?: string) =>
  on.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    payload: { email, password },
    remoteAddress,
    ...(device ? { headers: { origin: ORIGIN, cookie: `${DEVICE_COOKIE}=${device}` } } : {}),
  });

/** The device cookie an answer set, or undefined. */
const deviceCookieOf = (response: LightMyRequestResponse) => response.cookies.find((cookie) => cookie.name === DEVICE_COOKIE);

/** Signs into `email` with the right password from a browser of its own; returns that browser's device cookie. */
async function trustedBrowser(on: FastifyInstance, email: string, device?: string): Promise<string> {
  const response = await signIn(on, email, PASSWORD, address(), device);
  expect(response.statusCode, response.body).toBe(200);
  const cookie = deviceCookieOf(response);
  expect(cookie).toBeDefined();
  return cookie!.value;
}

async function statuses(on: FastifyInstance, attempts: [email: string, password: string, remoteAddress: string][]): Promise<number[]> {
  const out: number[] = [];
  for (const [email, password, remoteAddress] of attempts) out.push((await signIn(on, email, password, remoteAddress)).statusCode);
  return out;
}

const wrong = (email: string, remoteAddress: string, times: number): [string, string, string][] =>
  Array.from({ length: times }, () => [email, "not-the-password", remoteAddress]);

/** Wrong passwords for `times` different (unknown) accounts from one address. */
const spray = (remoteAddress: string, times: number): [string, string, string][] =>
  Array.from({ length: times }, (_, i) => [uniqueEmail(`spray${i}`), "not-the-password", remoteAddress]);

const LOCKED = "Too many failed sign-in attempts for this account: try again in 15 minutes, or from a browser you have signed in with before.";

describe("sign-in throttle: per account, for untrusted clients", () => {
  it("after 5 wrong passwords for an account: 429 with Retry-After and a sentence, even with the right password, from any address without a device cookie", async () => {
    const { email } = await signUp(app);
    const client = address();
    expect(await statuses(app, wrong(email, client, 5))).toEqual([401, 401, 401, 401, 401]);

    const refused = await signIn(app, email, PASSWORD, client);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.json()).toEqual({ detail: LOCKED, code: "rate_limited", message: LOCKED });
    expect(refused.cookies).toEqual([]);
    // Per account: another address is refused too (the password is never checked).
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(429);
    // The email's case does not make another account.
    expect((await signIn(app, email.toUpperCase(), PASSWORD, address())).statusCode).toBe(429);
  });

  it("a successful sign-in resets the account's count", async () => {
    const { email } = await signUp(app);
    const client = address();
    expect(await statuses(app, [...wrong(email, client, 4), [email, PASSWORD, client]])).toEqual([401, 401, 401, 401, 200]);
    // From another address the account starts again at zero: five more wrong passwords before a 429.
    const other = address();
    expect(await statuses(app, [...wrong(email, other, 4), [email, PASSWORD, other]])).toEqual([401, 401, 401, 401, 200]);
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

  it("opens again when the 15 minutes since the first failure are over", async () => {
    let now = 1_000_000;
    const counter = memoryFailureCounter({ now: () => now });
    const limits = [accountLimit("ada@example.com")];
    for (let i = 0; i < 5; i++) expect(await counter.begin(limits)).toEqual({ allowed: true });
    now += 60_000;
    expect(await counter.begin(limits)).toEqual({ allowed: false, retryAfterMs: 14 * 60_000, key: limits[0]!.key });
    now += 14 * 60_000;
    expect(await counter.begin(limits)).toEqual({ allowed: true });
  });
});

describe("sign-in throttle: device cookies", () => {
  it("a browser that has signed in before signs in with the right password while the account is locked for untrusted clients", async () => {
    const { email } = await signUp(app);
    const device = await trustedBrowser(app, email);
    const attacker = address();
    expect(await statuses(app, wrong(email, attacker, 5))).toEqual([401, 401, 401, 401, 401]);
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(429);

    // The trusted browser, even from the attacker's own address: signed in, with a fresh device cookie.
    const trusted = await signIn(app, email, PASSWORD, attacker, device);
    expect(trusted.statusCode, trusted.body).toBe(200);
    const renewed = deviceCookieOf(trusted)!;
    expect(renewed.value).not.toBe(device);
    expect((await signIn(app, email, PASSWORD, address(), renewed.value)).statusCode).toBe(200);
    // Its sign-ins do not unlock the account for untrusted clients.
    expect((await signIn(app, email, PASSWORD, attacker)).statusCode).toBe(429);
  });

  it("the browser that created an account is trusted for it", async () => {
    const email = uniqueEmail();
    const created = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { email, password: PASSWORD, name: "Ada" }, remoteAddress: address() });
    expect(created.statusCode).toBe(200);
    const device = deviceCookieOf(created)!.value;
    expect(await statuses(app, wrong(email, address(), 5))).toEqual([401, 401, 401, 401, 401]);
    expect((await signIn(app, email, PASSWORD, address(), device)).statusCode).toBe(200);
  });

  it("the device cookie is HttpOnly, SameSite=Lax, sent only to sign-in, Secure when the server is reached over https, and carries no email", async () => {
    const { email } = await signUp(app);
    const answer = await signIn(app, email, PASSWORD, address());
    const cookie = deviceCookieOf(answer)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/api/auth/sign-in", maxAge: 180 * 86_400 });
    expect(cookie.secure).toBeFalsy();
    expect(cookie.value).not.toContain(email.split("@")[0]);

    const { app: https } = await buildTestApp(database, { PUBLIC_URL: "https://voice.example.com" });
    try {
      const secure = await signIn(https, email, PASSWORD, address());
      expect(deviceCookieOf(secure)?.secure).toBe(true);
    } finally {
      await https.close();
    }
  });

  it("a browser keeps one device cookie per account it signs into", async () => {
    const [{ email: first }, { email: second }] = [await signUp(app), await signUp(app)];
    const both = await trustedBrowser(app, second, await trustedBrowser(app, first));
    for (const email of [first, second]) expect((await statuses(app, wrong(email, address(), 5))).at(-1)).toBe(401);
    expect((await signIn(app, first, PASSWORD, address(), both)).statusCode).toBe(200);
    expect((await signIn(app, second, PASSWORD, address(), both)).statusCode).toBe(200);
  });

  it("a tampered, foreign or other server's device cookie is not trusted", async () => {
    const { email } = await signUp(app);
    const { email: other } = await signUp(app);
    const device = await trustedBrowser(app, email);
    const foreign = await trustedBrowser(app, other);
    expect(await statuses(app, wrong(email, address(), 5))).toEqual([401, 401, 401, 401, 401]);

    const flip = (value: string, at: number) => value.slice(0, at) + (value[at] === "A" ? "B" : "A") + value.slice(at + 1);
    const [account] = device.split(".") as [string];
    const tampered = [
      flip(device, device.length - 1), // the signature
      flip(device, account.length + 1), // the nonce
      device.replace(/\.(\d+)\./, (_, expires: string) => `.${Number(expires) + 86_400}.`), // the expiry
      `${foreign.split(".")[0]}.${device.split(".").slice(1).join(".")}`, // another account's name on this token
    ];
    for (const value of tampered) expect((await signIn(app, email, PASSWORD, address(), value)).statusCode).toBe(429);
    // A valid cookie for another account.
    expect((await signIn(app, email, PASSWORD, address(), foreign)).statusCode).toBe(429);
    // One made with another sign-in secret, and one that has expired.
    expect((await signIn(app, email, PASSWORD, address(), cookieFor(deviceCookies("another-secret-".repeat(3)), email))).statusCode).toBe(429);
    // The untouched cookie still works.
    expect((await signIn(app, email, PASSWORD, address(), device)).statusCode).toBe(200);
  });

  it("a device cookie expires", () => {
    let now = Date.UTC(2026, 0, 1);
    const cookies = deviceCookies("a-secret-of-thirty-two-characters!", () => now);
    const value = cookieFor(cookies, "ada@example.com");
    expect(cookies.trusted(`${DEVICE_COOKIE}=${value}`, "ADA@example.com")).not.toBeNull();
    expect(cookies.trusted(`${DEVICE_COOKIE}=${value}`, "bob@example.com")).toBeNull();
    now += 181 * 86_400_000;
    expect(cookies.trusted(`${DEVICE_COOKIE}=${value}`, "ada@example.com")).toBeNull();
  });

  it("5 wrong passwords with a device cookie lock that cookie only: it then counts as untrusted, and other browsers' cookies still sign in", async () => {
    const { email } = await signUp(app);
    const [one, two] = [await trustedBrowser(app, email), await trustedBrowser(app, email)];
    const client = address();
    const withOne = async (password: string) => (await signIn(app, email, password, client, one)).statusCode;
    for (let i = 0; i < 5; i++) expect(await withOne("not-the-password")).toBe(401);
    // Its failures did not lock the account for untrusted clients.
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(200);
    // Locked, the cookie is an untrusted client's: five more wrong passwords lock the account for untrusted clients...
    for (let i = 0; i < 5; i++) expect(await withOne("not-the-password")).toBe(401);
    // ...and then the locked cookie is refused even with the right password, while the other browser signs in.
    expect(await withOne(PASSWORD)).toBe(429);
    expect((await signIn(app, email, PASSWORD, client, two)).statusCode).toBe(200);
  });

  it("a burst of simultaneous guesses with one device cookie gets no more than 5 password checks as trusted", async () => {
    const { email } = await signUp(app);
    const device = await trustedBrowser(app, email);
    const answers = await Promise.all(Array.from({ length: 16 }, () => signIn(app, email, "not-the-password", address(), device)));
    const counts = answers.reduce<Record<number, number>>((tally, answer) => ({ ...tally, [answer.statusCode]: (tally[answer.statusCode] ?? 0) + 1 }), {});
    // 5 as the trusted device, then 5 as an untrusted client of the account.
    expect(counts).toEqual({ 401: 10, 429: 6 });
  });
});

describe("sign-in throttle: per client address, a slow-down", () => {
  it("one person's wrong passwords do not lock another account out from the same address", async () => {
    const { email: typist } = await signUp(app);
    const { email: colleague } = await signUp(app);
    const office = address();
    expect(await statuses(app, wrong(typist, office, 5))).toEqual([401, 401, 401, 401, 401]);
    expect((await signIn(app, typist, PASSWORD, office)).statusCode).toBe(429);
    // The colleague behind the same address has never signed in from this browser, and still gets in.
    expect((await signIn(app, colleague, PASSWORD, office)).statusCode).toBe(200);
  });

  it("guessing across many accounts from one address: 10 failures, then 429 for at most a minute; other addresses and trusted devices are not slowed", async () => {
    const { email } = await signUp(app);
    const device = await trustedBrowser(app, email);
    const client = address();
    expect(await statuses(app, spray(client, 10))).toEqual(Array(10).fill(401));

    const slowed = await signIn(app, uniqueEmail(), "not-the-password", client);
    expect(slowed.statusCode).toBe(429);
    const retryAfter = Number(slowed.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const detail = `Too many failed sign-in attempts from this network: try again in ${retryAfter === 60 ? "1 minute" : `${retryAfter} seconds`}.`;
    expect(slowed.json()).toEqual({ detail, code: "rate_limited", message: detail });
    // The right password for an account without a device cookie waits too (its password is not checked)...
    expect((await signIn(app, email, PASSWORD, client)).statusCode).toBe(429);
    // ...but not from a browser that has signed into it, nor from another address.
    expect((await signIn(app, email, PASSWORD, client, device)).statusCode).toBe(200);
    expect((await signIn(app, email, PASSWORD, address())).statusCode).toBe(200);
  });

  it("signing into one's own account does not reset the address's count of guesses at other accounts", async () => {
    const { email: own } = await signUp(app);
    const client = address();
    expect(await statuses(app, [...spray(client, 9), [own, PASSWORD, client]])).toEqual([...Array(9).fill(401), 200]);
    expect(await statuses(app, spray(client, 2))).toEqual([401, 429]);
  });

  it("each failure drains after a minute: one more guess a minute once 10 have piled up", async () => {
    let now = 1_000_000;
    const counter = memoryFailureCounter({ now: () => now });
    const limits = untrustedLimits(null, "203.0.113.1");
    for (let i = 0; i < 10; i++) expect(await counter.begin(limits)).toEqual({ allowed: true });
    now += 15_000;
    expect(await counter.begin(limits)).toEqual({ allowed: false, retryAfterMs: 45_000, key: addressLimit("203.0.113.1").key });
    now += 45_000;
    expect(await counter.begin(limits)).toEqual({ allowed: true });
    expect(await counter.begin(limits)).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    // A place given back (not a password check) is usable again at once.
    await counter.release(limits);
    expect(await counter.begin(limits)).toEqual({ allowed: true });
    // Ten quiet minutes drain it all.
    now += 10 * 60_000;
    for (let i = 0; i < 10; i++) expect(await counter.begin(limits)).toEqual({ allowed: true });
  });

  it("counts the client behind a trusted proxy by X-Forwarded-For, and ignores the header otherwise", async () => {
    const { app: proxied } = await buildTestApp(database, { TRUST_PROXY: "10.0.0.5" });
    try {
      const behind = (email: string, password: string, client: string) =>
        proxied.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password }, remoteAddress: "10.0.0.5", headers: { "x-forwarded-for": client } });
      const first = address();
      for (let i = 0; i < 10; i++) expect((await behind(uniqueEmail(), "not-the-password", first)).statusCode).toBe(401);
      const { email } = await signUp(proxied);
      expect((await behind(email, PASSWORD, first)).statusCode).toBe(429);
      // Another client behind the same proxy is not held back.
      expect((await behind(email, PASSWORD, address())).statusCode).toBe(200);
      // Without TRUST_PROXY the header is ignored: spraying with a new X-Forwarded-For each time still counts one address.
      const direct = address();
      for (let i = 0; i < 10; i++) {
        const answer = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: uniqueEmail(), password: "not-the-password" }, remoteAddress: direct, headers: { "x-forwarded-for": address() } });
        expect(answer.statusCode).toBe(401);
      }
      expect((await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: PASSWORD }, remoteAddress: direct, headers: { "x-forwarded-for": address() } })).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });
});

/** A device cookie's value made by `cookies` for `email` (as its Set-Cookie would give it). */
function cookieFor(cookies: ReturnType<typeof deviceCookies>, email: string): string {
  const header = cookies.issue(undefined, email, { secure: false });
  return header.slice(`${DEVICE_COOKIE}=`.length, header.indexOf(";"));
}

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

  /** Two API processes on one Redis, sharing the sign-in secret as a deployment does. */
  async function twoApps(): Promise<[FastifyInstance, FastifyInstance]> {
    const env = { REDIS_URL: redisUrl, BETTER_AUTH_SECRET: "a-shared-sign-in-secret-for-both-processes" };
    return [(await buildTestApp(database, env)).app, (await buildTestApp(database, env)).app];
  }
  const keyIn = (key: string) => `${SIGN_IN_THROTTLE_NAMESPACE}${key}`;

  it.skipIf(noRedis)(`two apps on one Redis share the account's count; success through either resets it${noRedis ? ` (skipped: ${noRedis})` : ""}`, async () => {
    const [a, b] = await twoApps();
    try {
      const { email } = await signUp(a);
      const client = address();
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
      const ttl = await redis.pttl(keyIn(accountLimit(email).key));
      expect(ttl).toBeGreaterThan(14 * 60_000);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000);
      await redis.del(...[accountLimit(email), addressLimit(client), addressLimit(next)].map((limit) => keyIn(limit.key)));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it.skipIf(noRedis)("a device cookie from one app is trusted by the other while the account is locked; its own lockout is shared", async () => {
    const [a, b] = await twoApps();
    try {
      const { email } = await signUp(a);
      const device = await trustedBrowser(a, email);
      const second = await trustedBrowser(b, email);
      const attacker = address();
      for (let i = 0; i < 5; i++) expect((await signIn(i % 2 ? a : b, email, "nope-1234", attacker)).statusCode).toBe(401);
      expect((await signIn(a, email, PASSWORD, address())).statusCode).toBe(429);
      expect((await signIn(b, email, PASSWORD, attacker, device)).statusCode).toBe(200);

      // A second browser's cookie, locked by 5 wrong passwords through both apps, then counts as untrusted: refused by either.
      for (let i = 0; i < 5; i++) expect((await signIn(i % 2 ? a : b, email, "nope-1234", address(), second)).statusCode).toBe(401);
      expect((await signIn(a, email, PASSWORD, address(), second)).statusCode).toBe(429);
      expect((await signIn(b, email, PASSWORD, address(), second)).statusCode).toBe(429);
      await redis.del(keyIn(accountLimit(email).key), keyIn(addressLimit(attacker).key));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it.skipIf(noRedis)("the address's slow-down is shared: 10 failures through either app, then 429 for at most a minute from both", async () => {
    const [a, b] = await twoApps();
    try {
      const client = address();
      for (let i = 0; i < 10; i++) expect((await signIn(i % 2 ? a : b, uniqueEmail(), "nope-1234", client)).statusCode).toBe(401);
      for (const on of [a, b]) {
        const slowed = await signIn(on, uniqueEmail(), "nope-1234", client);
        expect(slowed.statusCode).toBe(429);
        expect(Number(slowed.headers["retry-after"])).toBeLessThanOrEqual(60);
        expect(slowed.json().detail).toMatch(/^Too many failed sign-in attempts from this network: try again in /);
      }
      // Held until the last failure has drained: ten minutes.
      const ttl = await redis.pttl(keyIn(addressLimit(client).key));
      expect(ttl).toBeGreaterThan(9 * 60_000);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000);
      // Another address is not slowed.
      const { email } = await signUp(a);
      expect((await signIn(b, email, PASSWORD, address())).statusCode).toBe(200);
      await redis.del(keyIn(addressLimit(client).key));
    } finally {
      await Promise.all([a.close(), b.close()]);
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
