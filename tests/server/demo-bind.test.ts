/**
 * The demo account's published password (README: demo@example.com / demo-password) exists only while the
 * server listens on loopback. Bound to an interface other machines reach, the demo gets a random password,
 * printed once, and an older demo account that still has the published one gets a new one at start-up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost, PUBLISHED_DEMO_PASSWORD } from "../../server/config";
import type { Database } from "../../server/db/client";
import { main } from "../../server/index";
import { secureDemoAccount, seedDemo } from "../../server/seed/demo";
import { buildTestApp, migratedDatabase, testConfig } from "./helpers";

const signIn = (app: FastifyInstance, email: string, password: string) =>
  app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });

/** A fresh database with the demo seeded (no calls) under `env`, and an app on it. */
async function seeded(env: Record<string, string>) {
  const database = await migratedDatabase();
  const config = testConfig({ SEED_DEMO: "true", ...env });
  const demo = await seedDemo(database.db, config, { withData: false });
  const { app } = await buildTestApp(database, env);
  return { database, config, demo, app };
}

describe("which HOST counts as this machine only", () => {
  it("127.0.0.0/8, ::1 and localhost; not 0.0.0.0, :: or a LAN address", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "10.0.0.5", "example.com", "128.0.0.1"]) expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe("the demo account and the bind address", () => {
  const opened: { database: Database; app: FastifyInstance }[] = [];
  afterAll(async () => {
    for (const { app, database } of opened) {
      await app.close();
      await database.close();
    }
  });

  it("on loopback (the default HOST) it has the published password", async () => {
    const world = await seeded({});
    opened.push(world);
    expect(world.config.host).toBe("127.0.0.1");
    expect(world.demo).toMatchObject({ email: "demo@example.com", password: PUBLISHED_DEMO_PASSWORD, note: null });
    expect((await signIn(world.app, "demo@example.com", PUBLISHED_DEMO_PASSWORD)).statusCode).toBe(200);
    // Nothing to secure while only this machine can connect.
    expect(await secureDemoAccount(world.database.db, world.config)).toBeNull();
  });

  it("bound to 0.0.0.0 it gets a random password, said to be shown only once; the published one is refused", async () => {
    const world = await seeded({ HOST: "0.0.0.0" });
    opened.push(world);
    const demo = world.demo!;
    expect(demo.password).not.toBe(PUBLISHED_DEMO_PASSWORD);
    expect(demo.password.length).toBeGreaterThanOrEqual(16);
    expect(demo.note).toMatch(/HOST=0\.0\.0\.0 is reachable from other machines.*random.*shown only now/);
    expect((await signIn(world.app, "demo@example.com", PUBLISHED_DEMO_PASSWORD)).statusCode).toBe(401);
    expect((await signIn(world.app, "demo@example.com", demo.password)).statusCode).toBe(200);
    // Another start on 0.0.0.0 leaves the random password alone (and prints nothing).
    expect(await secureDemoAccount(world.database.db, world.config)).toBeNull();
    expect((await signIn(world.app, "demo@example.com", demo.password)).statusCode).toBe(200);
  });

  it("an operator's own DEMO_PASSWORD is used as given on any interface", async () => {
    const world = await seeded({ HOST: "0.0.0.0", DEMO_PASSWORD: "operators-own-secret" });
    opened.push(world);
    expect(world.demo).toMatchObject({ password: "operators-own-secret", note: null });
  });

  it("a demo made on loopback loses the published password, and its sessions, when the server is next bound to 0.0.0.0", async () => {
    const world = await seeded({});
    opened.push(world);
    const before = await signIn(world.app, "demo@example.com", PUBLISHED_DEMO_PASSWORD);
    expect(before.statusCode).toBe(200);
    const sessionToken = (before.json() as { token: string }).token;

    const exposed = testConfig({ SEED_DEMO: "true", HOST: "0.0.0.0" });
    // A restart seeds nothing (the account exists) ...
    expect(await seedDemo(world.database.db, exposed, { withData: false })).toBeNull();
    // ... but replaces the published password.
    const replaced = await secureDemoAccount(world.database.db, exposed);
    expect(replaced).toMatchObject({ email: "demo@example.com", organisation: "Demo Organisation" });
    expect(replaced!.password).not.toBe(PUBLISHED_DEMO_PASSWORD);
    expect(replaced!.note).toMatch(/published password was replaced by this random one, shown only now, and its sessions were ended/);

    expect((await signIn(world.app, "demo@example.com", PUBLISHED_DEMO_PASSWORD)).statusCode).toBe(401);
    expect((await signIn(world.app, "demo@example.com", replaced!.password)).statusCode).toBe(200);
    const session = await world.app.inject({ method: "GET", url: "/api/auth/get-session", headers: { authorization: `Bearer ${sessionToken}` } });
    expect(session.json()).toBeNull();
    // Done once: the next start has nothing to replace.
    expect(await secureDemoAccount(world.database.db, exposed)).toBeNull();
  });

  it("even with SEED_DEMO=false an old demo account is secured", async () => {
    const world = await seeded({});
    opened.push(world);
    const replaced = await secureDemoAccount(world.database.db, testConfig({ SEED_DEMO: "false", HOST: "192.0.2.10" }));
    expect(replaced?.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect((await signIn(world.app, "demo@example.com", PUBLISHED_DEMO_PASSWORD)).statusCode).toBe(401);
  });
});

describe("npm run server's start-up lines", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "vap-bind-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it("say how to bind on loopback, and print the random demo password once on 0.0.0.0", async () => {
    const port = await freePort();
    const env = { NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, PORT: String(port), CONSOLE_DIR: "/nonexistent/console", SANDBOX_CALL_SECONDS: "0.2" };
    const loopback: string[] = [];
    const first = await main({ env, print: (line) => loopback.push(line), handleSignals: false });
    await first.stop();
    expect(loopback).toContain(`listening on 127.0.0.1:${port}, this machine only (HOST=0.0.0.0 lets other machines connect)`);
    expect(loopback).toContain("demo sign-in: demo@example.com / demo-password (Demo Organisation)");

    const exposed: string[] = [];
    const second = await main({ env: { ...env, HOST: "0.0.0.0" }, print: (line) => exposed.push(line), handleSignals: false });
    await second.stop();
    expect(exposed).toContain(`listening on 0.0.0.0:${port}, reachable from other machines`);
    // Every interface without PUBLIC_URL: the links the server builds would point other machines at their own localhost.
    expect(exposed).toContain(
      `PUBLIC_URL is not set: checkout returns, invitation links and Google's redirect URI point at http://localhost:${port}, ` +
        `which other machines cannot open. Set PUBLIC_URL to the address they use (e.g. http://192.168.1.20:${port}).`,
    );
    expect(loopback.some((text) => text.startsWith("PUBLIC_URL is not set"))).toBe(false);
    const line = exposed.find((text) => text.startsWith("demo sign-in: "));
    expect(line).toMatch(/^demo sign-in: demo@example\.com \/ [A-Za-z0-9_-]{16} \(Demo Organisation\)$/);
    expect(exposed.join("\n")).not.toContain(PUBLISHED_DEMO_PASSWORD);

    // Printed once: the next start on 0.0.0.0 shows no password.
    const third: string[] = [];
    const again = await main({ env: { ...env, HOST: "0.0.0.0" }, print: (text) => third.push(text), handleSignals: false });
    await again.stop();
    expect(third.some((text) => text.startsWith("demo sign-in: "))).toBe(false);
  }, 120_000);
});
