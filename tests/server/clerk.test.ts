import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { placeholderEmail } from "../../server/auth/clerk";
import type { Database } from "../../server/db/client";
import { invitations, memberships, organizations, users } from "../../server/db/schema";
import { seedDemo } from "../../server/seed/demo";
import {
  CLERK_FRONTEND_HOST,
  bearer,
  buildTestApp,
  clerkEnv,
  clerkKeyPair,
  invite,
  migratedDatabase,
  mintClerkToken,
  testConfig,
  uniqueEmail,
  type ClerkKeys,
} from "./helpers";

interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A stand-in for Clerk's Backend API on 127.0.0.1: records calls, answers as Clerk does. */
function fakeClerkApi() {
  const calls: RecordedRequest[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: {} };
  const server: Server = createServer((request: IncomingMessage, response) => {
    let raw = "";
    request.on("data", (chunk) => (raw += chunk));
    request.on("end", () => {
      calls.push({
        method: request.method ?? "",
        path: request.url ?? "",
        authorization: request.headers.authorization,
        body: raw ? JSON.parse(raw) : null,
      });
      // Clerk's SDK parses JSON only for exactly this content type.
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(JSON.stringify(answer.body));
    });
  });
  return {
    calls,
    answer: (status: number, body: unknown) => (answer = { status, body }),
    start: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const invitationJson = (email: string) => ({
  object: "organization_invitation",
  id: "orginv_123",
  email_address: email,
  role: "org:member",
  status: "pending",
  organization_id: "org_acme",
  public_metadata: {},
  private_metadata: {},
  created_at: 1,
  updated_at: 1,
});

let database: Database;
let app: FastifyInstance;
let keys: ClerkKeys;
const clerkApi = fakeClerkApi();

const admin = { sub: "user_admin1", org: { id: "org_acme", role: "admin" as const, slug: "acme" } };
const member = { sub: "user_member1", org: { id: "org_acme", role: "member" as const, slug: "acme" } };

beforeAll(async () => {
  keys = clerkKeyPair();
  database = await migratedDatabase();
  const apiUrl = await clerkApi.start();
  ({ app } = await buildTestApp(database, clerkEnv(keys, { CLERK_API_URL: apiUrl })));
});
afterAll(async () => {
  await app.close();
  await database.close();
  await clerkApi.stop();
});
beforeEach(() => {
  clerkApi.calls.length = 0;
  clerkApi.answer(200, invitationJson("x@example.com"));
});

describe("Clerk session tokens", () => {
  it("a valid token works", async () => {
    const response = await invite(app, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ status: "success" });
  });

  it("an expired token is a 401", async () => {
    const token = mintClerkToken(keys.privateKey, { ...admin, expiresIn: -120 });
    const response = await invite(app, token, "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: "unauthorized" });
    expect(clerkApi.calls).toEqual([]);
  });

  it("a token signed by another key is a 401", async () => {
    const forged = mintClerkToken(clerkKeyPair().privateKey, admin);
    const response = await invite(app, forged, "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(401);
    expect(clerkApi.calls).toEqual([]);
  });

  it("a token with no organisation gets 403 organization_required", async () => {
    const response = await invite(app, mintClerkToken(keys.privateKey, { sub: "user_loner" }), "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: "organization_required" });
  });

  it("another organisation's id is a 404", async () => {
    const response = await invite(app, mintClerkToken(keys.privateKey, admin), "org_other", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "Organisation not found", code: "not_found" });
    expect(clerkApi.calls).toEqual([]);
  });

  it("a member (v2 role 'member') may not invite", async () => {
    const response = await invite(app, mintClerkToken(keys.privateKey, member), "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: "forbidden" });
  });

  it("reads v1 claims (org_id, org_role) when the token has no v2 `o` claim", async () => {
    const v1 = mintClerkToken(keys.privateKey, {
      sub: "user_v1",
      extra: { v: undefined, org_id: "org_v1", org_role: "org:admin", org_slug: "v1-org" },
    });
    const response = await invite(app, v1, "org_v1", { email_address: uniqueEmail() });
    expect(response.statusCode, response.body).toBe(200);
    const [row] = await database.db.select().from(memberships).where(eq(memberships.userId, "user_v1"));
    expect(row).toMatchObject({ orgId: "org_v1", role: "admin" });
  });

  it("creates the user, organisation and membership on the fly, and follows role changes", async () => {
    const newcomer = { sub: "user_fresh", org: { id: "org_fresh", role: "member" as const, slug: "fresh-co" }, extra: { email: "Fresh@Example.com" } };
    const first = await invite(app, mintClerkToken(keys.privateKey, newcomer), "org_fresh", { email_address: uniqueEmail() });
    expect(first.statusCode).toBe(403);
    const [user] = await database.db.select().from(users).where(eq(users.id, "user_fresh"));
    expect(user).toMatchObject({ email: "fresh@example.com" });
    const [org] = await database.db.select().from(organizations).where(eq(organizations.id, "org_fresh"));
    expect(org).toMatchObject({ slug: "fresh-co" });

    // Promoted in Clerk: the next token says admin, and our membership follows.
    const promoted = mintClerkToken(keys.privateKey, { ...newcomer, org: { ...newcomer.org, role: "admin" } });
    expect((await invite(app, promoted, "org_fresh", { email_address: uniqueEmail() })).statusCode).toBe(200);
    const rows = await database.db.select().from(memberships).where(eq(memberships.userId, "user_fresh"));
    expect(rows).toEqual([expect.objectContaining({ orgId: "org_fresh", role: "admin" })]);
  });

  it("a user whose token has no email gets a non-deliverable placeholder", async () => {
    await invite(app, mintClerkToken(keys.privateKey, { sub: "user_NoEmail" }), "org_acme", { email_address: uniqueEmail() });
    const [user] = await database.db.select().from(users).where(eq(users.id, "user_NoEmail"));
    expect(user?.email).toBe(placeholderEmail("user_NoEmail"));
    expect(user?.email).toMatch(/\.invalid$/);
  });

  it("checks the azp claim against CLERK_AUTHORIZED_PARTIES when set", async () => {
    const { app: strict } = await buildTestApp(database, clerkEnv(keys, { CLERK_AUTHORIZED_PARTIES: "https://app.example.com" }));
    try {
      const good = mintClerkToken(keys.privateKey, { ...admin, azp: "https://app.example.com" });
      const bad = mintClerkToken(keys.privateKey, { ...admin, azp: "https://evil.example.com" });
      // A 404 (not our organisation id) proves the token was accepted without calling Clerk.
      expect((await invite(strict, good, "org_elsewhere", { email_address: uniqueEmail() })).statusCode).toBe(404);
      expect((await invite(strict, bad, "org_elsewhere", { email_address: uniqueEmail() })).statusCode).toBe(401);
    } finally {
      await strict.close();
    }
  });
});

describe("Clerk invitations", () => {
  it("calls Clerk's createOrganizationInvitation with the organisation, email, role and inviter", async () => {
    const email = uniqueEmail("Invitee");
    const response = await invite(app, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: email, role: "org:admin" });
    expect(response.statusCode, response.body).toBe(200);
    expect(clerkApi.calls).toEqual([
      {
        method: "POST",
        path: "/v1/organizations/org_acme/invitations",
        authorization: "Bearer sk_test_notarealsecret",
        body: { email_address: email.toLowerCase(), role: "org:admin", inviter_user_id: "user_admin1" },
      },
    ]);
    // Clerk keeps its invitations; nothing is stored locally.
    expect(await database.db.select().from(invitations)).toEqual([]);
  });

  it("Clerk's 4xx answers with Clerk's status and message", async () => {
    clerkApi.answer(400, {
      errors: [{ code: "duplicate_record", message: "duplicate", long_message: "There is already a pending invitation for this email address." }],
    });
    const response = await invite(app, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: uniqueEmail() });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail: "There is already a pending invitation for this email address.", code: "bad_request" });

    clerkApi.answer(422, { errors: [{ code: "form_param_format_invalid", message: "is invalid", long_message: "email_address is invalid" }] });
    const unprocessable = await invite(app, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: uniqueEmail() });
    expect(unprocessable.statusCode).toBe(422);
    expect(unprocessable.json()).toMatchObject({ detail: "email_address is invalid" });
  });

  it("Clerk failing or unreachable is a 502 upstream_error", async () => {
    clerkApi.answer(500, { errors: [{ code: "internal", message: "oops, stack trace at clerk.internal" }] });
    const failing = await invite(app, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: uniqueEmail() });
    expect(failing.statusCode).toBe(502);
    expect(failing.json()).toMatchObject({ code: "upstream_error" });
    expect(failing.body).not.toContain("clerk.internal");

    // Nothing listens on port 9 of 127.0.0.1 (discard): the connection is refused.
    const { app: offline } = await buildTestApp(database, clerkEnv(keys, { CLERK_API_URL: "http://127.0.0.1:9" }));
    try {
      const unreachable = await invite(offline, mintClerkToken(keys.privateKey, admin), "org_acme", { email_address: uniqueEmail() });
      expect(unreachable.statusCode).toBe(502);
      expect(unreachable.json()).toEqual({ detail: "The sign-in service could not be reached. Please try again in a moment.", code: "upstream_error" });
    } finally {
      await offline.close();
    }
  });
});

describe("Clerk mode, the rest", () => {
  it("has no local sign-in routes and seeds no demo account", async () => {
    const response = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: "a@b.co", password: "x" } });
    expect(response.statusCode).toBe(404);
    expect(await seedDemo(database.db, testConfig({ ...clerkEnv(keys), SEED_DEMO: "true" }))).toBeNull();
  });

  it("serves the publishable key and allows Clerk's hosts in the CSP", async () => {
    const config = await app.inject({ method: "GET", url: "/api/config" });
    expect(config.json()).toEqual({
      data: {
        authMode: "clerk",
        voiceMode: "sandbox",
        clerkPublishableKey: clerkEnv(keys).CLERK_PUBLISHABLE_KEY,
        vapiPublicKey: null,
        vapiApiUrl: null,
        publicUrl: "http://localhost:3000",
      },
    });
    const csp = String(config.headers["content-security-policy"]);
    for (const directive of ["script-src", "connect-src", "img-src", "frame-src"]) {
      expect(csp).toMatch(new RegExp(`${directive} [^;]*https://${CLERK_FRONTEND_HOST.replace(/\./g, "\\.")}`));
    }
    expect(csp).toMatch(/worker-src [^;]*blob:/);
  });

  it("the bearer header is the only way in (no cookie, no query token)", async () => {
    const token = mintClerkToken(keys.privateKey, admin);
    const viaCookie = await app.inject({
      method: "POST",
      url: "/api/organization/org_acme/invite",
      cookies: { __session: token },
      payload: { email_address: uniqueEmail() },
    });
    expect(viaCookie.statusCode).toBe(401);
    const viaQuery = await app.inject({
      method: "POST",
      url: `/api/organization/org_acme/invite?token=${token}`,
      payload: { email_address: uniqueEmail() },
    });
    expect(viaQuery.statusCode).toBe(401);
    const viaHeader = await app.inject({ method: "POST", url: "/api/organization/org_acme/invite", headers: bearer(token), payload: { email_address: uniqueEmail() } });
    expect(viaHeader.statusCode).toBe(200);
  });
});
