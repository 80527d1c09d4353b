/**
 * The console's bearer in local mode is a short-lived signed token (server/auth/api-token.ts) minted from
 * the HttpOnly session cookie by GET /api/auth/token; page JavaScript never gets the long-lived session token.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_TOKEN_TTL_SECONDS, createApiTokens } from "../../server/auth/api-token";
import type { Database } from "../../server/db/client";
import { PASSWORD, addMember, apiToken, bearer, buildTestApp, createOrganisation, migratedDatabase, signUp, uniqueEmail } from "./helpers";

const SECRET = "test-secret-for-short-lived-tokens-0123456789";
const ORIGIN = "http://localhost:3000";

let database: Database;
let app: FastifyInstance;
beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { BETTER_AUTH_SECRET: SECRET }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

const sessionCookie = (response: LightMyRequestResponse) => {
  const cookie = response.cookies.find((c) => c.name.endsWith("session_token"));
  expect(cookie, "a session cookie").toBeDefined();
  return { [cookie!.name]: cookie!.value };
};

/** Signs in as a browser does (Origin, cookie) and answers the cookie jar and the sign-in answer. */
async function browserSignIn(email: string) {
  const response = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", headers: { origin: ORIGIN }, payload: { email, password: PASSWORD } });
  expect(response.statusCode, response.body).toBe(200);
  return { cookies: sessionCookie(response), response };
}

const mint = (cookies: Record<string, string>) => app.inject({ method: "GET", url: "/api/auth/token", cookies });
const agents = (token: string) => app.inject({ method: "GET", url: "/api/agent/", headers: bearer(token) });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { sub: string; sid: string; iat: number; exp: number };

describe("the short-lived bearer token", () => {
  it("is minted from the session cookie: a signed token for 5 minutes that the API accepts", async () => {
    const person = await signUp(app);
    const orgId = await createOrganisation(app, person.token);
    const { cookies } = await browserSignIn(person.email);

    const minted = await mint(cookies);
    expect(minted.statusCode, minted.body).toBe(200);
    expect(minted.headers["cache-control"]).toBe("no-store");
    const { data } = minted.json() as { data: { token: string; expiresAt: string; userId: string; activeOrganizationId: string | null } };
    expect(data).toMatchObject({ userId: person.userId, activeOrganizationId: orgId });
    expect(data.token.split(".")).toHaveLength(3);
    const claims = claimsOf(data.token);
    expect(claims.sub).toBe(person.userId);
    expect(claims.exp - claims.iat).toBe(API_TOKEN_TTL_SECONDS);
    expect(API_TOKEN_TTL_SECONDS).toBeLessThanOrEqual(10 * 60);
    expect(new Date(data.expiresAt).getTime()).toBe(claims.exp * 1000);

    expect((await agents(data.token)).statusCode).toBe(200);
  });

  it("page JavaScript never sees the session token: not in sign-in, get-session, list-sessions or a header", async () => {
    const person = await signUp(app);
    const { cookies, response } = await browserSignIn(person.email);
    expect(response.json()).not.toHaveProperty("token");
    expect(response.headers["set-auth-token"]).toBeUndefined();
    // The cookie itself is HttpOnly.
    expect(response.cookies.find((c) => c.name.endsWith("session_token"))?.httpOnly).toBe(true);

    const session = await app.inject({ method: "GET", url: "/api/auth/get-session", cookies });
    expect(session.statusCode).toBe(200);
    const body = session.json() as { session: Record<string, unknown>; user: { id: string } };
    expect(body.user.id).toBe(person.userId);
    expect(body.session).not.toHaveProperty("token");
    expect(session.body).not.toContain(person.token.split(".")[0]);

    const list = await app.inject({ method: "GET", url: "/api/auth/list-sessions", cookies });
    expect(list.statusCode).toBe(200);
    expect((list.json() as Record<string, unknown>[]).every((entry) => !("token" in entry))).toBe(true);

    const signUpInBrowser = await app.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      headers: { origin: ORIGIN },
      payload: { email: uniqueEmail(), password: PASSWORD, name: "Browser Person" },
    });
    expect(signUpInBrowser.statusCode).toBe(200);
    expect(signUpInBrowser.json()).not.toHaveProperty("token");
    expect(signUpInBrowser.headers["set-auth-token"]).toBeUndefined();
  });

  it("cannot be renewed with itself: minting needs the cookie (or an API client's session token)", async () => {
    const person = await signUp(app);
    const token = await apiToken(app, person.token);
    const renewed = await app.inject({ method: "GET", url: "/api/auth/token", headers: bearer(token) });
    expect(renewed.statusCode).toBe(401);
    expect(renewed.json()).toMatchObject({ code: "unauthorized" });
    expect((await app.inject({ method: "GET", url: "/api/auth/token" })).statusCode).toBe(401);
    // Nor is it a session for better-auth's own routes.
    expect((await app.inject({ method: "GET", url: "/api/auth/get-session", headers: bearer(token) })).json()).toBeNull();
  });

  it("is refused once expired, when signed with another key, or when altered", async () => {
    const person = await signUp(app);
    await createOrganisation(app, person.token);
    const { sid, sub } = claimsOf(await apiToken(app, person.token));
    const subject = { userId: sub, sessionId: sid };

    const fresh = createApiTokens(SECRET).issue(subject).token;
    expect((await agents(fresh)).statusCode).toBe(200);

    const sixMinutesAgo = createApiTokens(SECRET, { now: () => Date.now() - (API_TOKEN_TTL_SECONDS + 60) * 1000 }).issue(subject).token;
    const expired = await agents(sixMinutesAgo);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ code: "unauthorized" });

    expect((await agents(createApiTokens("another-secret-of-at-least-32-characters!").issue(subject).token)).statusCode).toBe(401);
    const [header, , signature] = fresh.split(".");
    const otherUser = Buffer.from(JSON.stringify({ ...claimsOf(fresh), sub: "someone-else" })).toString("base64url");
    expect((await agents(`${header}.${otherUser}.${signature}`)).statusCode).toBe(401);
    // Signed right but naming another user than the session's: refused.
    expect((await agents(createApiTokens(SECRET).issue({ userId: "someone-else", sessionId: sid }).token)).statusCode).toBe(401);
  });

  it("stops working at once on sign-out, follows an organisation switch, and loses a removed member's rights", async () => {
    const admin = await signUp(app);
    const orgId = await createOrganisation(app, admin.token);
    const member = await addMember(app, admin.token, orgId);
    const { cookies } = await browserSignIn(member.email);
    const token = ((await mint(cookies)).json() as { data: { token: string } }).data.token;
    expect((await agents(token)).statusCode).toBe(200);

    // Removed from the organisation: the same unexpired token has no organisation any more.
    const removed = await app.inject({
      method: "POST",
      url: "/api/auth/organization/remove-member",
      headers: bearer(admin.token),
      payload: { memberIdOrEmail: member.email, organizationId: orgId },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const afterRemoval = await agents(token);
    expect(afterRemoval.statusCode).toBe(403);
    expect(afterRemoval.json()).toMatchObject({ code: "organization_required" });

    // A new organisation of their own: the token follows the session's active organisation.
    const own = await app.inject({ method: "POST", url: "/api/auth/organization/create", headers: { origin: ORIGIN }, cookies, payload: { name: "Own", slug: `own-${member.userId.slice(0, 8)}` } });
    expect(own.statusCode, own.body).toBe(200);
    expect((await agents(token)).statusCode).toBe(200);

    const out = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { origin: ORIGIN }, cookies, payload: {} });
    expect(out.statusCode, out.body).toBe(200);
    expect((await agents(token)).statusCode).toBe(401);
    expect((await mint(cookies)).statusCode).toBe(401);
  });

  it("an API client outside a browser signs in with the password and may use the session token it gets", async () => {
    const person = await signUp(app);
    await createOrganisation(app, person.token);
    expect(person.token).toMatch(/\S{20,}/);
    expect((await agents(person.token)).statusCode).toBe(200);
    expect((await agents(await apiToken(app, person.token))).statusCode).toBe(200);
  });
});

describe("what verifying a short-lived token costs", () => {
  it("is an HMAC and a JSON parse: well under 50 µs a token", () => {
    const tokens = createApiTokens(SECRET);
    const token = tokens.issue({ userId: "u", sessionId: "s" }).token;
    for (let i = 0; i < 2_000; i++) tokens.verify(token);
    const runs = 20_000;
    const started = performance.now();
    for (let i = 0; i < runs; i++) if (!tokens.verify(token)) throw new Error("refused");
    const microseconds = ((performance.now() - started) * 1000) / runs;
    console.log(`short-lived token verification: ${microseconds.toFixed(2)} µs`);
    expect(microseconds).toBeLessThan(50);
  });
});
