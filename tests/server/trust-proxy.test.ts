/**
 * TRUST_PROXY: the per-IP limits count the connection's address unless a trusted proxy says who the client
 * is (X-Forwarded-For). Off by default, so a client cannot dodge its limit by writing the header itself.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config";
import type { Database } from "../../server/db/client";
import { buildTestApp, migratedDatabase } from "./helpers";

const LOAD_BALANCER = "10.0.0.5";

let database: Database;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => {
  await database.close();
});

/** GET /api/health from `remoteAddress`, claiming to forward for `client`. */
const health = (app: FastifyInstance, remoteAddress: string, client?: string) =>
  app.inject({ method: "GET", url: "/api/health", remoteAddress, headers: client ? { "x-forwarded-for": client } : {} });

async function statuses(app: FastifyInstance, calls: [remoteAddress: string, client?: string][]): Promise<number[]> {
  const out: number[] = [];
  for (const [remoteAddress, client] of calls) out.push((await health(app, remoteAddress, client)).statusCode);
  return out;
}

describe("TRUST_PROXY and the per-IP limit (RATE_LIMIT_PER_MINUTE=2)", () => {
  it("off (default): X-Forwarded-For is ignored; every request through one address shares its limit", async () => {
    const { app, config } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "2" });
    try {
      expect(config.trustProxy).toBe(false);
      // Three different claimed clients behind one address: still one client.
      expect(await statuses(app, [[LOAD_BALANCER, "198.51.100.1"], [LOAD_BALANCER, "198.51.100.2"], [LOAD_BALANCER, "198.51.100.3"]])).toEqual([200, 200, 429]);
      // A client cannot escape its own limit by writing the header.
      expect(await statuses(app, [["203.0.113.7", "198.51.100.9"], ["203.0.113.7", "198.51.100.10"], ["203.0.113.7", "198.51.100.11"]])).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it("a trusted proxy's address: each forwarded client is counted on its own; others' headers are still ignored", async () => {
    const { app } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY: `${LOAD_BALANCER}, 10.1.0.0/16` });
    try {
      expect(await statuses(app, [[LOAD_BALANCER, "198.51.100.1"], [LOAD_BALANCER, "198.51.100.2"], [LOAD_BALANCER, "198.51.100.3"]])).toEqual([200, 200, 200]);
      // The same forwarded client, whichever trusted proxy it comes through, reaches its limit.
      expect(await statuses(app, [[LOAD_BALANCER, "198.51.100.1"], ["10.1.2.3", "198.51.100.1"]])).toEqual([200, 429]);
      // Not a trusted proxy: its header means nothing.
      expect(await statuses(app, [["203.0.113.7", "198.51.100.20"], ["203.0.113.7", "198.51.100.21"], ["203.0.113.7", "198.51.100.22"]])).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it("a trusted proxy appends to what the client sent: a forged entry on the left does not make a new client", async () => {
    const { app } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY: LOAD_BALANCER });
    try {
      expect(await statuses(app, [[LOAD_BALANCER, "1.1.1.1, 198.51.100.40"], [LOAD_BALANCER, "2.2.2.2, 198.51.100.40"], [LOAD_BALANCER, "3.3.3.3, 198.51.100.40"]])).toEqual([200, 200, 429]);
      expect((await health(app, LOAD_BALANCER, "198.51.100.41")).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe("TRUST_PROXY parsing", () => {
  it("accepts false, true and a list of addresses or ranges; refuses anything else (a hop count too) by name", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.10,loopback, ::1" }).trustProxy).toEqual(["10.0.0.0/8", "192.168.1.10", "loopback", "::1"]);
    for (const bad of ["maybe", "2", "10.0.0.0/33", "proxy.example.com"]) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/^TRUST_PROXY must be false, true, or a comma-separated list of the proxies' addresses/);
    }
  });
});
