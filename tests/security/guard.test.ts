/**
 * Every /api route that is not declared public answers 401 {detail, code: unauthorized} without a
 * valid token, in both sign-in modes: no token, a made-up one, a Clerk token signed by another key,
 * an expired Clerk token signed by the right key, a wrong scheme, and (local accounts) the token of a
 * session that was signed out, and the console's short-lived token when expired, signed by another key,
 * or of a signed-out session. The routes come from the app's own route table.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { createApiTokens } from "../../server/auth/api-token";
import { apiToken, bearer, buildTestApp, clerkEnv, clerkKeyPair, migratedDatabase, mintClerkToken, signUp } from "../server/helpers";
import { tally } from "./tally";
import { routeKey } from "./world";

const counter = tally(import.meta.filename);
/** Local accounts' secret here, so the suite can sign short-lived tokens as the server does. */
const LOCAL_SECRET = "security-suite-local-secret-0123456789abcdef";
const clerkKeys = clerkKeyPair();
const concretePath = (url: string) => url.replace(/:[A-Za-z0-9_]+/g, "00000000-0000-4000-8000-000000000000").replace(/\*$/, "anything");

let database: Database;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(() => database?.close());

async function badCredentials(mode: "local" | "clerk", app: FastifyInstance): Promise<Array<[string, Record<string, string>]>> {
  const forged = mintClerkToken(clerkKeyPair().privateKey, { sub: "user_x", org: { id: "org_x", role: "admin" } });
  const expired = mintClerkToken(clerkKeys.privateKey, { sub: "user_x", org: { id: "org_x", role: "admin" }, expiresIn: -120 });
  const cases: Array<[string, Record<string, string>]> = [
    ["no token", {}],
    ["made-up token", bearer("made-up-token")],
    ["Clerk token signed by another key", bearer(forged)],
    ["expired Clerk token", bearer(expired)],
    ["Basic scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["empty bearer", { authorization: "Bearer " }],
    ["token in the query string only", {}],
  ];
  if (mode === "local") {
    const { token } = await signUp(app);
    const shortLived = await apiToken(app, token);
    const claims = JSON.parse(Buffer.from(shortLived.split(".")[1]!, "base64url").toString("utf8")) as { sub: string; sid: string };
    const subject = { userId: claims.sub, sessionId: claims.sid };
    const sixMinutesAgo = () => Date.now() - 6 * 60_000;
    cases.push(["expired short-lived token", bearer(createApiTokens(LOCAL_SECRET, { now: sixMinutesAgo }).issue(subject).token)]);
    cases.push(["short-lived token signed by another key", bearer(createApiTokens("another-secret-0123456789abcdefghijkl").issue(subject).token)]);
    const out = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: bearer(token), payload: {} });
    expect(out.statusCode, out.body).toBe(200);
    cases.push(["signed-out session", bearer(token)]);
    cases.push(["short-lived token of a signed-out session", bearer(shortLived)]);
  }
  return cases;
}

describe.each([
  { mode: "local" as const, env: { BETTER_AUTH_SECRET: LOCAL_SECRET } },
  { mode: "clerk" as const, env: clerkEnv(clerkKeys) },
])("no valid token → 401 ($mode)", ({ mode, env }) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "1000000", ...env }));
    await app.ready();
  });
  afterAll(() => app?.close());

  it("answers 401 {detail, code: unauthorized} on every non-public route", async () => {
    const routes = app.routeTable.filter((route) => !route.public);
    expect(routes.length).toBeGreaterThan(20);
    const wrong: unknown[] = [];
    for (const [name, headers] of await badCredentials(mode, app)) {
      for (const route of routes) {
        const url = concretePath(route.url) + (name === "token in the query string only" ? "?token=x&access_token=x" : "");
        const response = await app.inject({ method: route.method as "GET", url, headers, payload: route.method === "GET" || route.method === "DELETE" ? undefined : {} });
        counter.count(`no valid token → 401 (${mode})`, routeKey(route));
        const body = response.headers["content-type"]?.toString().includes("json") ? (response.json() as Record<string, unknown>) : {};
        if (response.statusCode !== 401 || body.code !== "unauthorized" || typeof body.detail !== "string") {
          wrong.push({ credential: name, route: routeKey(route), status: response.statusCode, body: response.body.slice(0, 200) });
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
