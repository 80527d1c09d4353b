import { and, eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { loadConfig } from "../../server/config";
import { invitations, memberships, organizations, sessions, users } from "../../server/db/schema";
import { seedDemo } from "../../server/seed/demo";
import {
  PASSWORD,
  acceptInvitation,
  addMember,
  bearer,
  buildTestApp,
  createOrganisation,
  invite,
  migratedDatabase,
  signIn,
  signUp,
  testConfig,
  uniqueEmail,
} from "./helpers";

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

async function activeOrganisation(token: string): Promise<string | null> {
  const response = await app.inject({ method: "GET", url: "/api/auth/get-session", headers: bearer(token) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { session: { activeOrganizationId: string | null } }).session.activeOrganizationId ?? null;
}

describe("local accounts (better-auth) end to end", () => {
  it("signs up, gets a short-lived bearer from its session cookie, and calls the API with it", async () => {
    const email = uniqueEmail("first");
    const signUpResponse = await app.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      payload: { email, password: PASSWORD, name: "First Person" },
    });
    expect(signUpResponse.statusCode).toBe(200);
    const cookie = signUpResponse.cookies.find((c) => c.name.endsWith("session_token"));
    expect(cookie).toBeDefined();

    // What the console does: GET /api/auth/token with its cookie, and that token as the bearer.
    const minted = await app.inject({ method: "GET", url: "/api/auth/token", cookies: { [cookie!.name]: cookie!.value } });
    const token = (minted.json() as { data: { token: string } }).data.token;
    expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);

    // Signed in but in no organisation yet: the API asks to choose one.
    const noOrg = await invite(app, token, "anything", { email_address: uniqueEmail() });
    expect(noOrg.statusCode).toBe(403);
    expect(noOrg.json()).toEqual({
      detail: "Choose an organisation first: this action works inside an organisation.",
      code: "organization_required",
    });

    // The console creates it with the cookie; the same token follows the session into it.
    const created = await app.inject({
      method: "POST",
      url: "/api/auth/organization/create",
      headers: { origin: "http://localhost:3000" },
      cookies: { [cookie!.name]: cookie!.value },
      payload: { name: "First Org", slug: `first-org-${email.slice(6, 14)}` },
    });
    expect(created.statusCode, created.body).toBe(200);
    const orgId = (created.json() as { id: string }).id;
    const ok = await invite(app, token, orgId, { email_address: uniqueEmail() });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: "success" });
  });

  it("gives organisations, users, memberships and sessions random UUID ids; an older organisation keeps its id", async () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const person = await signUp(app);
    const orgId = await createOrganisation(app, person.token, "Uuid Org");
    expect(orgId).toMatch(UUID);
    expect(person.userId).toMatch(UUID);
    const [membership] = await database.db.select({ id: memberships.id }).from(memberships).where(eq(memberships.orgId, orgId));
    expect(membership?.id).toMatch(UUID);
    const [session] = await database.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, person.userId));
    expect(session?.id).toMatch(UUID);

    // An organisation made before (better-auth's own 32-character ids) keeps its id and works as before.
    const legacyId = "Xq3LrT9vWb2NcY7kPz4HdJ6mFa8sEg1U";
    await database.db.insert(organizations).values({ id: legacyId, name: "Legacy Org", slug: `legacy-${person.userId.slice(0, 8)}` });
    await database.db.insert(memberships).values({ id: "legacy-membership-1", orgId: legacyId, userId: person.userId, role: "admin" });
    const setActive = await app.inject({ method: "POST", url: "/api/auth/organization/set-active", headers: bearer(person.token), payload: { organizationId: legacyId } });
    expect(setActive.statusCode, setActive.body).toBe(200);
    expect(await activeOrganisation(person.token)).toBe(legacyId);
    expect((await invite(app, person.token, legacyId, { email_address: uniqueEmail() })).statusCode).toBe(200);
  });

  it("rejects a wrong password, a made-up token and a signed-out token", async () => {
    const { token, email } = await signUp(app);
    const orgId = await createOrganisation(app, token);

    const wrong = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: "not-the-password" } });
    expect(wrong.statusCode).toBe(401);

    const madeUp = await invite(app, "not-a-real-session-token", orgId, { email_address: uniqueEmail() });
    expect(madeUp.statusCode).toBe(401);
    expect(madeUp.json()).toMatchObject({ code: "unauthorized" });

    expect((await invite(app, token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200); // remembered now
    const signOut = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: bearer(token) });
    expect(signOut.statusCode).toBe(200);
    const after = await invite(app, token, orgId, { email_address: uniqueEmail() });
    expect(after.statusCode).toBe(401);
  });

  it("sign-in errors come in the API's {detail, code} shape (keeping better-auth's message for its client)", async () => {
    const { email } = await signUp(app);
    const wrong = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: "not-the-password" } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: "Invalid email or password", code: "invalid_email_or_password", message: "Invalid email or password" });
    const unknown = await app.inject({ method: "GET", url: "/api/auth/no-such-endpoint" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ detail: expect.any(String), code: "not_found" });
  });

  it("switches organisation; the API follows the active one", async () => {
    const { token } = await signUp(app);
    const first = await createOrganisation(app, token, "Switch One");
    const second = await createOrganisation(app, token, "Switch Two");
    expect(await activeOrganisation(token)).toBe(second);
    expect((await invite(app, token, first, { email_address: uniqueEmail() })).statusCode).toBe(404);

    const setActive = await app.inject({
      method: "POST",
      url: "/api/auth/organization/set-active",
      headers: bearer(token),
      payload: { organizationId: first },
    });
    expect(setActive.statusCode, setActive.body).toBe(200);
    expect((await invite(app, token, first, { email_address: uniqueEmail() })).statusCode).toBe(200);
    expect((await invite(app, token, second, { email_address: uniqueEmail() })).statusCode).toBe(404);

    const list = await app.inject({ method: "GET", url: "/api/auth/organization/list", headers: bearer(token) });
    expect((list.json() as { id: string }[]).map((org) => org.id).sort()).toEqual([first, second].sort());
  });

  it("better-auth's organisation endpoints the console uses work on our tables (role, leave)", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Console Calls");
    const member = await addMember(app, admin.token, orgId, uniqueEmail("leaver"));

    const role = (token: string) =>
      app.inject({ method: "GET", url: `/api/auth/organization/get-active-member-role?organizationId=${orgId}`, headers: bearer(token) });
    expect((await role(admin.token)).json()).toEqual({ role: "admin" });
    expect((await role(member.token)).json()).toEqual({ role: "member" });

    const leave = await app.inject({ method: "POST", url: "/api/auth/organization/leave", headers: bearer(member.token), payload: { organizationId: orgId } });
    expect(leave.statusCode, leave.body).toBe(200);
    expect(await activeOrganisation(member.token)).toBeNull();
    expect(await database.db.select().from(memberships).where(eq(memberships.userId, member.userId))).toEqual([]);
  });

  it("makes the oldest membership active when a new session starts without one", async () => {
    const { token, email } = await signUp(app);
    const oldest = await createOrganisation(app, token, "Oldest");
    await createOrganisation(app, token, "Newer");
    const freshToken = await signIn(app, email);
    expect(await activeOrganisation(freshToken)).toBe(oldest);
  });

  it("an invited person joins by opening the link signed in with the invited email, with the invited role", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Inviting Org");
    const newcomerEmail = uniqueEmail("Newcomer");
    const sent = await invite(app, admin.token, orgId, { email_address: newcomerEmail.toUpperCase(), role: "org:admin" });
    expect(sent.statusCode, sent.body).toBe(200);
    const { invitation_url: link } = sent.json() as { invitation_url: string };
    expect(link).toMatch(/^http:\/\/localhost:3000\/invitation\/[0-9a-f-]{36}$/);

    // better-auth's own endpoint sees our invitation, in its role vocabulary.
    const listed = await app.inject({
      method: "GET",
      url: `/api/auth/organization/list-invitations?organizationId=${orgId}`,
      headers: bearer(admin.token),
    });
    expect(listed.json()).toEqual([expect.objectContaining({ email: newcomerEmail.toLowerCase(), role: "admin", status: "pending" })]);

    // Signing up with the invited email is not enough: local accounts cannot prove the address is theirs.
    const newcomer = await signUp(app, newcomerEmail.toLowerCase());
    expect(await activeOrganisation(newcomer.token)).toBeNull();
    expect(await database.db.select().from(memberships).where(eq(memberships.userId, newcomer.userId))).toEqual([]);

    const accepted = await acceptInvitation(app, newcomer.token, link);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await activeOrganisation(newcomer.token)).toBe(orgId);
    // As an admin, the newcomer may invite in turn.
    expect((await invite(app, newcomer.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
    const [invitation] = await database.db.select().from(invitations).where(eq(invitations.email, newcomerEmail.toLowerCase()));
    expect(invitation?.status).toBe("accepted");
    // A link works once.
    expect((await acceptInvitation(app, newcomer.token, link)).statusCode).toBe(400);
  });

  it("someone else holding the link cannot use it", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Forwarded Link");
    const sent = await invite(app, admin.token, orgId, { email_address: uniqueEmail("intended") });
    const intruder = await signUp(app);
    const refused = await acceptInvitation(app, intruder.token, (sent.json() as { invitation_url: string }).invitation_url);
    expect(refused.statusCode).toBe(403);
    expect(await database.db.select().from(memberships).where(eq(memberships.userId, intruder.userId))).toEqual([]);
    // A made-up invitation id is refused the same way as a used one.
    expect((await acceptInvitation(app, intruder.token, "http://localhost:3000/invitation/00000000-0000-4000-8000-000000000000")).statusCode).toBe(400);
  });

  it("an existing user joins from the link as a member by default, keeping their own organisation", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Second Home");
    const existing = await signUp(app);
    const ownOrg = await createOrganisation(app, existing.token, "Own Org");
    const sent = await invite(app, admin.token, orgId, { email_address: existing.email });

    const token = await signIn(app, existing.email);
    expect(await activeOrganisation(token)).toBe(ownOrg);
    expect((await acceptInvitation(app, token, (sent.json() as { invitation_url: string }).invitation_url)).statusCode).toBe(200);
    expect(await activeOrganisation(token)).toBe(orgId);
    const denied = await invite(app, token, orgId, { email_address: uniqueEmail() });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: "forbidden" });
    const rows = await database.db.select().from(memberships).where(eq(memberships.userId, existing.userId));
    expect(rows.map((row) => [row.orgId, row.role]).sort()).toEqual([[orgId, "member"], [ownOrg, "admin"]].sort());
  });

  it("an expired invitation is not accepted", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Expired Invites");
    const email = uniqueEmail("late");
    const sent = await invite(app, admin.token, orgId, { email_address: email });
    await database.db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitations.email, email));

    const late = await signUp(app, email);
    expect((await acceptInvitation(app, late.token, (sent.json() as { invitation_url: string }).invitation_url)).statusCode).toBe(400);
    expect(await activeOrganisation(late.token)).toBeNull();
    expect(await database.db.select().from(memberships).where(eq(memberships.userId, late.userId))).toEqual([]);
  });

  it("a member removed by an admin loses the organisation's rights on their very next request", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Removal");
    const memberEmail = uniqueEmail("removed");
    const member = await addMember(app, admin.token, orgId, memberEmail);
    const agents = () => app.inject({ method: "GET", url: "/api/agent/", headers: bearer(member.token) });
    expect((await agents()).statusCode).toBe(200); // the member's identity is now remembered

    const removal = await app.inject({
      method: "POST",
      url: "/api/auth/organization/remove-member",
      headers: bearer(admin.token),
      payload: { memberIdOrEmail: memberEmail, organizationId: orgId },
    });
    expect(removal.statusCode, removal.body).toBe(200);
    const after = await agents();
    expect(after.statusCode).toBe(403);
    expect(after.json()).toMatchObject({ code: "organization_required" });
  });

  it("a role changed by an admin applies on the member's very next request", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Promotion");
    const member = await addMember(app, admin.token, orgId, uniqueEmail("promoted"));
    expect((await invite(app, member.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(403);

    const [row] = await database.db.select({ id: memberships.id }).from(memberships).where(eq(memberships.userId, member.userId));
    const promote = await app.inject({
      method: "POST",
      url: "/api/auth/organization/update-member-role",
      headers: bearer(admin.token),
      payload: { memberId: row?.id, role: "admin", organizationId: orgId },
    });
    expect(promote.statusCode, promote.body).toBe(200);
    expect((await invite(app, member.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
  });

  it("keeps remembered identities through others' sign-ins, sign-ups and refused requests, not through a sign-out", async () => {
    const memory = (app as unknown as { authProvider: { sessions: { size: number } } }).authProvider.sessions;
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token, "Memory");
    const agents = () => app.inject({ method: "GET", url: "/api/agent/", headers: bearer(admin.token) });
    expect((await agents()).statusCode).toBe(200);
    expect(memory.size).toBeGreaterThan(0);

    const other = await signUp(app);
    await signIn(app, other.email);
    const refused = await app.inject({ method: "POST", url: "/api/auth/organization/set-active", payload: { organizationId: orgId } });
    expect(refused.statusCode).toBe(401);
    expect(memory.size).toBeGreaterThan(0);

    const signOut = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: bearer(other.token) });
    expect(signOut.statusCode).toBe(200);
    expect(memory.size).toBe(0);
    expect((await agents()).statusCode).toBe(200);
  });

  it("a membership deleted outside the API is honoured within SESSION_CACHE_SECONDS", async () => {
    const { app: shortMemory } = await buildTestApp(database, { SESSION_CACHE_SECONDS: "0.2" });
    try {
      const admin = await signUp(shortMemory);
      const orgId = await createOrganisation(shortMemory, admin.token, "Removal elsewhere");
      expect((await invite(shortMemory, admin.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
      await database.db.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, admin.userId)));
      // Still remembered for up to 0.2 s (another process or a database edit cannot tell this one) …
      expect((await invite(shortMemory, admin.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 250));
      // … and then looked up again.
      const after = await invite(shortMemory, admin.token, orgId, { email_address: uniqueEmail() });
      expect(after.statusCode).toBe(403);
      expect(after.json()).toMatchObject({ code: "organization_required" });
    } finally {
      await shortMemory.close();
    }
  });

  it("with SESSION_CACHE_SECONDS=0 every request looks the session up", async () => {
    const { app: noMemory } = await buildTestApp(database, { SESSION_CACHE_SECONDS: "0" });
    try {
      const admin = await signUp(noMemory);
      const orgId = await createOrganisation(noMemory, admin.token, "No memory");
      expect((await invite(noMemory, admin.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
      await database.db.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, admin.userId)));
      expect((await invite(noMemory, admin.token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(403);
    } finally {
      await noMemory.close();
    }
  });
});

describe("demo seed", () => {
  it("creates the demo admin once, who signs in to Demo Organisation", async () => {
    const own = await migratedDatabase();
    try {
      expect(await seedDemo(own.db, testConfig({ SEED_DEMO: "false" }))).toBeNull();
      expect(await own.db.select().from(users)).toEqual([]);
      const config = testConfig({ SEED_DEMO: "true", DEMO_EMAIL: "Demo@Example.com", DEMO_PASSWORD: "demo-password" });
      expect(await seedDemo(own.db, config)).toEqual({ email: "demo@example.com", password: "demo-password", organisation: "Demo Organisation", note: null });
      expect(await seedDemo(own.db, config)).toBeNull();

      const { app: demoApp } = await buildTestApp(own, { SEED_DEMO: "true" });
      try {
        const token = await signIn(demoApp, "demo@example.com", "demo-password");
        const session = await demoApp.inject({ method: "GET", url: "/api/auth/get-session", headers: bearer(token) });
        const orgId = (session.json() as { session: { activeOrganizationId: string } }).session.activeOrganizationId;
        const [org] = await own.db.select().from(organizations).where(eq(organizations.id, orgId));
        expect(org).toMatchObject({ name: "Demo Organisation", slug: "demo-organisation" });
        expect((await invite(demoApp, token, orgId, { email_address: uniqueEmail() })).statusCode).toBe(200);
      } finally {
        await demoApp.close();
      }
    } finally {
      await own.close();
    }
  });

  it("is on by default, off by default in production, and SEED_DEMO decides when set", () => {
    const secret = { BETTER_AUTH_SECRET: "x".repeat(32) };
    expect(loadConfig({}).seedDemo).toBe(true);
    expect(loadConfig({ NODE_ENV: "production", ...secret }).seedDemo).toBe(false);
    expect(loadConfig({ NODE_ENV: "production", ...secret, SEED_DEMO: "true" }).seedDemo).toBe(true);
    expect(loadConfig({ SEED_DEMO: "off" }).seedDemo).toBe(false);
  });
});
