/**
 * Rate limits counted in Redis (REDIS_URL, server/plugins/rate-limit-store.ts).
 *
 * Without Redis (so in every `npm test`): a REDIS_URL that does not answer leaves the API serving requests
 * uncounted (fail open) with one warning in the log, and the app still closes at once.
 *
 * With TEST_REDIS_URL (.ci/run sets it when 127.0.0.1:6379 answers; skipped otherwise): two apps on the
 * same Redis, standing in for two API processes, share the global limit and a route's own limit; and a
 * Redis that goes away mid-run (a TCP proxy in front of it is cut) fails open, then counts again when it
 * is back. Each test uses client addresses of its own, and its keys are deleted afterwards, so runs in
 * parallel on one Redis do not meet.
 */
import { randomBytes } from "node:crypto";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app";
import type { Env } from "../../server/config";
import type { Database } from "../../server/db/client";
import { RATE_LIMIT_NAMESPACE } from "../../server/plugins/rate-limit-store";
import { buildTestApp, migratedDatabase, testConfig } from "./helpers";

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || null;
const TOO_MANY = { detail: "Too many requests: wait a moment and try again.", code: "rate_limited" };

let database: Database;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => {
  await database.close();
});

/** A client address no other test (or parallel run) uses: 2001:db8::/32 is for documentation. */
const usedAddresses: string[] = [];
function uniqueAddress(): string {
  const hex = randomBytes(8).toString("hex").match(/.{4}/g) as string[];
  const address = `2001:db8:${hex.join(":")}`;
  usedAddresses.push(address);
  return address;
}

/** Resolves when `done()` is true, checking every 20 ms for at most `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !(await done()) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The app with its warnings and info lines captured (buildTestApp's apps log nothing). */
async function buildLoggedApp(env: Env): Promise<{ app: FastifyInstance; logs: { level: number; msg: string }[] }> {
  const logs: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) logs.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const app = await buildApp({ config: testConfig(env), database, logger: { level: "info", stream } });
  return { app, logs };
}

const WARN = 40;
const INFO = 30;

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const health = (app: FastifyInstance, remoteAddress: string) => app.inject({ method: "GET", url: "/api/health", remoteAddress });

describe("REDIS_URL unset: in-process", () => {
  it("/api/health says memory", async () => {
    const { app } = await buildTestApp(database);
    try {
      expect((await health(app, uniqueAddress())).json()).toMatchObject({ modes: { rateLimit: "memory" } });
    } finally {
      await app.close();
    }
  });
});

describe("REDIS_URL that does not answer", () => {
  it("requests are served uncounted (fail open), one warning is logged, start-up and close are quick", async () => {
    const port = await closedPort();
    const built = await timed(() => buildLoggedApp({ REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: "1" }));
    const { app, logs } = built.value;
    expect(built.ms).toBeLessThan(5_000);
    try {
      const address = uniqueAddress();
      for (let i = 0; i < 4; i++) {
        const { value: response, ms } = await timed(() => health(app, address));
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ modes: { rateLimit: "redis" } });
        // Fails at once: no waiting for a reconnection that will not come (the first request also compiles things).
        if (i > 0) expect(ms).toBeLessThan(250);
      }
      // ioredis keeps trying in the background; the log is not flooded with each attempt.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const warnings = logs.filter((line) => line.level === WARN);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(new RegExp(`^Redis \\(127\\.0\\.0\\.1:${port}, password hidden\\) failed \\(.*ECONNREFUSED.*\\): rate limits are not counted until it answers again \\(failing open\\)$`));
      expect(JSON.stringify(logs)).not.toContain("hunter2");
    } finally {
      const closed = await timed(() => app.close());
      expect(closed.ms).toBeLessThan(1_000);
    }
  });
});

describe.skipIf(!TEST_REDIS_URL)("rate limits shared in Redis (TEST_REDIS_URL)", () => {
  const redisUrl = TEST_REDIS_URL as string;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    // Only this file's keys: other runs may be counting in the same Redis.
    for (const address of usedAddresses) {
      const keys = await keysOf(address);
      if (keys.length) await redis.del(...keys);
    }
    await redis.quit();
  });

  async function keysOf(address: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${RATE_LIMIT_NAMESPACE}*${address}`, count: 1000 }) as AsyncIterable<string[]>) keys.push(...batch);
    return keys.sort();
  }

  it("two API processes count one limit per client; the 429 is the usual {detail, code}", async () => {
    const env = { REDIS_URL: redisUrl, RATE_LIMIT_PER_MINUTE: "3" };
    const { app: first } = await buildTestApp(database, env);
    const { app: second } = await buildTestApp(database, env);
    try {
      const address = uniqueAddress();
      const statuses = [];
      for (const app of [first, second, first, second]) statuses.push((await health(app, address)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await health(first, address);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual(TOO_MANY);
      // Another client is counted on its own.
      expect((await health(second, uniqueAddress())).statusCode).toBe(200);

      // One key under the product's prefix, expiring with the minute's window.
      expect(await keysOf(address)).toEqual([`${RATE_LIMIT_NAMESPACE}${address}`]);
      const ttl = await redis.pttl(`${RATE_LIMIT_NAMESPACE}${address}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      const closed = await timed(() => Promise.all([first.close(), second.close()]));
      expect(closed.ms).toBeLessThan(1_000);
    }
  });

  it("a route's own limit is shared too (POST /api/call/public, per client IP)", async () => {
    const env = { REDIS_URL: redisUrl, PUBLIC_CALL_PER_IP_PER_MINUTE: "2" };
    const { app: first } = await buildTestApp(database, env);
    const { app: second } = await buildTestApp(database, env);
    try {
      const address = uniqueAddress();
      // The limit is counted before the body is read, so refused payloads count too.
      const publicCall = (app: FastifyInstance) => app.inject({ method: "POST", url: "/api/call/public", payload: {}, remoteAddress: address });
      const statuses = [];
      for (const app of [first, second]) statuses.push((await publicCall(app)).statusCode);
      expect(statuses).not.toContain(429);
      const refused = await publicCall(first);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: "rate_limited", detail: expect.any(String) });
      // The route's key, not the global one (the route's limit replaces it).
      const keys = await keysOf(address);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(new RegExp(`^${RATE_LIMIT_NAMESPACE}POST/api/call/public-`));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("Redis going away mid-run: requests are served uncounted with a warning, then counted again when it is back", async () => {
    const proxy = await tcpProxy(new URL(redisUrl));
    const through = new URL(redisUrl);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);
    const { app, logs } = await buildLoggedApp({ REDIS_URL: through.toString(), RATE_LIMIT_PER_MINUTE: "2" });
    try {
      const address = uniqueAddress();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await health(app, address)).statusCode);
      expect(statuses).toEqual([200, 200, 429]);

      await proxy.cut();
      // Once the client has seen the connection go (its reconnection is refused), requests do not wait for it.
      await until(() => logs.some((line) => line.level === WARN), 5_000);
      for (let i = 0; i < 3; i++) {
        const { value: response, ms } = await timed(() => health(app, address));
        expect(response.statusCode).toBe(200);
        expect(ms).toBeLessThan(250);
      }
      expect(logs.filter((line) => line.level === WARN).map((line) => line.msg)).toEqual([expect.stringMatching(/rate limits are not counted until it answers again \(failing open\)$/)]);

      await proxy.restore();
      // ioredis reconnects on its own (at most 2 s between attempts); the count kept in Redis applies again.
      let status = 200;
      await until(async () => (status = (await health(app, address)).statusCode) === 429, 10_000);
      expect(status).toBe(429);
      expect(logs.filter((line) => line.level === INFO).map((line) => line.msg)).toContain(`Redis (127.0.0.1:${proxy.port}) answers again: rate limits are counted again`);
    } finally {
      const closed = await timed(() => app.close());
      expect(closed.ms).toBeLessThan(1_000);
      await proxy.close();
    }
  });
});

/** A TCP proxy to Redis that can be cut (listener closed, connections dropped) and restored on the same port. */
async function tcpProxy(target: URL) {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  let server: Server;
  const listen = async (port: number) => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname.replace(/^\[|\]$/g, ""));
      track(client);
      track(upstream);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  const port = await listen(0);
  return { port, cut: stop, restore: async () => void (await listen(port)), close: stop };
}
