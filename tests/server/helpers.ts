/**
 * One way to build the server for tests: the real app (buildApp) on a migrated database created once
 * per test file and shared by the apps built in that file, with configuration overrides given as
 * environment variables (the same parsing as production).
 *
 * The database is an in-memory PGlite, or, when TEST_DATABASE_URL is set, a uniquely named database
 * on that PostgreSQL server (dropped afterwards): the whole suite then runs on PostgreSQL.
 */
import { sql } from "drizzle-orm";
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import pg from "pg";
import { expect } from "vitest";
import { buildApp } from "../../server/app";
import type { AuthProvider } from "../../server/auth/types";
import { loadConfig, type AppConfig, type Env } from "../../server/config";
import { openDatabase, type Database } from "../../server/db/client";
import { MIGRATIONS_FOLDER, runMigrations } from "../../server/db/migrate";
import type { VoiceProvider } from "../../server/voice/types";
import { ENGINES_REQUIRED, TEST_DATABASE_URL } from "./engines";

/**
 * A migrated PGlite saved as a tarball in the OS temp folder, keyed by the migrations and PGlite's
 * version: loading it takes about a third of the time of a fresh PGlite (initdb) plus migrations.
 */
async function migratedSnapshot(): Promise<Blob> {
  const hash = createHash("sha256").update(readFileSync(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url)));
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true, encoding: "utf8" }).sort()) {
    if (file.endsWith(".sql") || file.endsWith(".json")) hash.update(file).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
  }
  const file = join(tmpdir(), `vap-pglite-migrated-${hash.digest("hex").slice(0, 16)}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const database = await openDatabase({ kind: "pglite-memory" });
  await runMigrations(database);
  if (database.driver.kind !== "pglite") throw new Error("expected PGlite");
  const snapshot = await database.driver.db.$client.dumpDataDir("none");
  await database.close();
  // Written then renamed, so a parallel test file never reads half a snapshot.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await snapshot.arrayBuffer()));
  renameSync(partial, file);
  return snapshot;
}

/**
 * Money's invariant (issue 15), checked on every suite database as it closes, whatever the tests in the file
 * did: each organisation's wallet balance equals the sum of its ledger (and no ledger without a wallet).
 * Throws, failing the file, when it does not hold.
 */
export async function assertWalletsEqualLedgers(database: Database): Promise<void> {
  const result = (await database.db.execute(sql`
    select coalesce(w.org_id, l.org_id) as org_id, w.balance_micros::bigint as balance, coalesce(l.total, 0)::bigint as total
    from wallets w full outer join (select org_id, sum(amount_micros) as total from wallet_ledger group by org_id) l on l.org_id = w.org_id
    where w.org_id is null or w.balance_micros <> coalesce(l.total, 0)`)) as unknown as { rows: { org_id: string; balance: string | null; total: string }[] };
  if (result.rows.length > 0) {
    const lines = result.rows.slice(0, 5).map((row) => `${row.org_id}: wallet ${row.balance ?? "missing"} µ$, ledger sum ${row.total} µ$`);
    throw new Error(`balance = sum(ledger) broken for ${result.rows.length} organisation(s): ${lines.join("; ")}`);
  }
}

/** close() that first checks the money invariant (assertWalletsEqualLedgers), then closes anyway. */
function checkedClose(database: Database, close: () => Promise<void>): Database {
  return {
    ...database,
    close: async () => {
      let broken: unknown = null;
      try {
        await assertWalletsEqualLedgers(database);
      } catch (error) {
        broken = error;
      }
      await close();
      if (broken) throw broken;
    },
  };
}

/** A fresh in-memory PGlite with every migration applied. */
export async function pgliteDatabase(): Promise<Database> {
  const database = await openDatabase({ kind: "pglite-memory", snapshot: await migratedSnapshot() });
  // Applies nothing when the snapshot is current; keeps the result right if it is not.
  await runMigrations(database);
  return checkedClose(database, () => database.close());
}

/** The suite's database: PGlite, or PostgreSQL when TEST_DATABASE_URL is set; close() checks the money invariant, then cleans up. */
export async function migratedDatabase(): Promise<Database> {
  if (!TEST_DATABASE_URL) {
    if (ENGINES_REQUIRED) throw new Error("PostgreSQL is required here (ENGINES_REQUIRED=1) and TEST_DATABASE_URL is not set");
    return pgliteDatabase();
  }
  const { database, drop } = await postgresDatabase(TEST_DATABASE_URL);
  return checkedClose(database, drop);
}

/** PostgreSQL for the suite's PostgreSQL run (TEST_DATABASE_URL, `npm run test:engines`): see postgresDatabase. */
export { TEST_DATABASE_URL } from "./engines";

/**
 * A uniquely named database on the TEST_DATABASE_URL server, migrated; drop() removes it.
 * Each test file gets its own, so files can run in parallel.
 */
export async function postgresDatabase(serverUrl: string): Promise<{ database: Database; url: string; drop: () => Promise<void> }> {
  const name = `vap_test_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const target = new URL(serverUrl);
  target.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: target.toString() });
  await runMigrations(database);
  return {
    database,
    url: target.toString(),
    drop: async () => {
      await database.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The configuration tests start from: quiet, no demo, no console build, local accounts. */
/** One scratch DATA_DIR per test process: nothing a test writes (uploads, secrets) lands in the project's ./.data. */
const SCRATCH_DATA_DIR = mkdtempSync(join(tmpdir(), "vap-test-data-"));
process.once("exit", () => rmSync(SCRATCH_DATA_DIR, { recursive: true, force: true }));

export function testConfig(env: Env = {}): AppConfig {
  return loadConfig({
    NODE_ENV: "test",
    DATA_DIR: SCRATCH_DATA_DIR,
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
    PUBLIC_URL: "http://localhost:3000",
    CONSOLE_DIR: "/nonexistent/console",
    // Tests of other features run without plan limits (as a self-hosted install does); plan tests set DEFAULT_PLAN themselves.
    DEFAULT_PLAN: "enterprise",
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  config: AppConfig;
  database: Database;
}

export async function buildTestApp(database: Database, env: Env = {}, authProvider?: AuthProvider, voiceProvider?: VoiceProvider): Promise<TestApp> {
  const config = testConfig(env);
  const app = await buildApp({ config, database, logger: false, ...(authProvider ? { authProvider } : {}), ...(voiceProvider ? { voiceProvider } : {}) });
  return { app, config, database };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A unique email, so tests sharing one database never collide. */
export const uniqueEmail = (label = "user") => `${label}-${randomUUID().slice(0, 8)}@example.com`;

export const PASSWORD = "correct-horse-battery";

/** Signs up through better-auth's HTTP API; returns the session token (the bearer the console sends). */
export async function signUp(app: FastifyInstance, email = uniqueEmail(), name = "Test Person"): Promise<{ token: string; userId: string; email: string }> {
  const response = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { email, password: PASSWORD, name } });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { token: string; user: { id: string } };
  return { token: body.token, userId: body.user.id, email };
}

export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<string> {
  const response = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { token: string }).token;
}

/**
 * The console's bearer (local accounts): a short-lived token from GET /api/auth/token, minted here with
 * the session token as an API client would (a browser sends its HttpOnly cookie instead).
 */
export async function apiToken(app: FastifyInstance, sessionToken: string): Promise<string> {
  const response = await app.inject({ method: "GET", url: "/api/auth/token", headers: bearer(sessionToken) });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: { token: string } }).data.token;
}

/** Creates an organisation as the token's user (better-auth makes it the session's active one). */
export async function createOrganisation(app: FastifyInstance, token: string, name = `Org ${randomUUID().slice(0, 6)}`): Promise<string> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const response = await app.inject({ method: "POST", url: "/api/auth/organization/create", headers: bearer(token), payload: { name, slug } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: string }).id;
}

export function invite(app: FastifyInstance, token: string | null, organizationId: string, payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url: `/api/organization/${encodeURIComponent(organizationId)}/invite`,
    headers: token ? bearer(token) : {},
    payload,
  });
}

/** Opens an invitation link as the token's user (better-auth's accept-invitation, as the console does). */
export async function acceptInvitation(app: FastifyInstance, token: string, invitationUrl: string): Promise<LightMyRequestResponse> {
  const invitationId = decodeURIComponent(new URL(invitationUrl).pathname.split("/").pop() ?? "");
  return app.inject({ method: "POST", url: "/api/auth/organization/accept-invitation", headers: bearer(token), payload: { invitationId } });
}

/** Invites `email`, signs it up and opens the link: a member of `orgId` (active there), as a person would join. */
export async function addMember(
  app: FastifyInstance,
  adminToken: string,
  orgId: string,
  email = uniqueEmail("member"),
  role?: string,
): Promise<{ token: string; userId: string; email: string }> {
  const sent = await invite(app, adminToken, orgId, { email_address: email, ...(role ? { role } : {}) });
  expect(sent.statusCode, sent.body).toBe(200);
  const person = await signUp(app, email);
  const accepted = await acceptInvitation(app, person.token, (sent.json() as { invitation_url: string }).invitation_url);
  expect(accepted.statusCode, accepted.body).toBe(200);
  return person;
}

// ---- Clerk session tokens, minted locally (RS256) and verified networklessly with CLERK_JWT_KEY ----

export interface ClerkKeys {
  privateKey: KeyObject;
  publicPem: string;
}

export function clerkKeyPair(): ClerkKeys {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

/** A publishable key whose Frontend API host is `host` (pk_test_ + base64("host$")). */
export const publishableKeyFor = (host: string) => `pk_test_${Buffer.from(`${host}$`).toString("base64")}`;

export const CLERK_FRONTEND_HOST = "clean-kit-42.clerk.accounts.dev";

export function clerkEnv(keys: ClerkKeys, extra: Env = {}): Env {
  return {
    CLERK_PUBLISHABLE_KEY: publishableKeyFor(CLERK_FRONTEND_HOST),
    CLERK_SECRET_KEY: "sk_test_notarealsecret",
    // As it sits in a .env file: one line, newlines written as \n.
    CLERK_JWT_KEY: keys.publicPem.trim().replace(/\n/g, "\\n"),
    ...extra,
  };
}

export interface SessionClaimsInput {
  sub: string;
  org?: { id: string; role: "admin" | "member"; slug?: string } | null;
  /** Seconds from now until expiry (negative = already expired). */
  expiresIn?: number;
  azp?: string;
  extra?: Record<string, unknown>;
}

/** A Clerk-shaped session token: v2 `o` claim and the v1 `org_*` claims side by side. */
export function mintClerkToken(privateKey: KeyObject, input: SessionClaimsInput): string {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    sub: input.sub,
    sid: `sess_${randomUUID().replace(/-/g, "")}`,
    iss: `https://${CLERK_FRONTEND_HOST}`,
    azp: input.azp ?? "http://localhost:3000",
    iat: now - 5,
    nbf: now - 10,
    exp: now + (input.expiresIn ?? 60),
    v: 2,
    ...input.extra,
  };
  if (input.org) {
    claims.o = { id: input.org.id, rol: input.org.role, slg: input.org.slug ?? input.org.id };
    claims.org_id = input.org.id;
    claims.org_role = `org:${input.org.role}`;
    claims.org_slug = input.org.slug ?? input.org.id;
  }
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT", kid: "ins_test" })}.${encode(claims)}`;
  return `${unsigned}.${sign("RSA-SHA256", Buffer.from(unsigned), privateKey).toString("base64url")}`;
}

/** The cast most route tests need: an admin and a member of one organisation, someone of another, someone of none. */
export async function organisationCast(app: FastifyInstance, name: string) {
  const adminToken = (await signUp(app)).token;
  const orgId = await createOrganisation(app, adminToken, name);
  const memberToken = (await addMember(app, adminToken, orgId)).token;
  const otherToken = (await signUp(app)).token;
  const otherOrgId = await createOrganisation(app, otherToken, "Elsewhere Ltd");
  const noOrgToken = (await signUp(app)).token;
  return { adminToken, orgId, memberToken, otherToken, otherOrgId, noOrgToken };
}
