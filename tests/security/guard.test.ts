/**
 * Every /api route that is not declared public answers 401 {detail, code: unauthorized} without a
 * valid token, in both sign-in modes: no token, a made-up one, a Clerk token signed by another key,
 * an expired Clerk token signed by the right key, a wrong scheme, and (local accounts) the token of a
 * session that was signed out. The routes come from the app's own route table.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { bearer, buildTestApp, clerkEnv, clerkKeyPair, migratedDatabase, mintClerkToken, signUp } from "../server/helpers";
import { tally } from "./tally";
import { routeKey } from "./world";

const counter = tally(import.meta.filename);
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
    const out = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: bearer(token), payload: {} });
    expect(out.statusCode, out.body).toBe(200);
    cases.push(["signed-out session", bearer(token)]);
  }
  return cases;
}

describe.each([
  { mode: "local" as const, env: {} },
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
