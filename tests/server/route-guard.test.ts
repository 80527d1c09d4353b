/**
 * Every /api route that is not declared public answers 401 without a valid token. The cases are
 * generated from the app's own route table, so a route added later is covered without editing this file.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import type { RouteTableEntry } from "../../server/plugins/auth";
import { buildTestApp, clerkEnv, clerkKeyPair, migratedDatabase, mintClerkToken } from "./helpers";

/** A concrete path for a route pattern: every :param filled, a wildcard given a segment. */
const concretePath = (url: string) => url.replace(/:[A-Za-z0-9_]+/g, "sample-id").replace(/\*$/, "anything");

const clerkKeys = clerkKeyPair();
const modes = [
  { name: "local accounts", env: {} },
  { name: "Clerk", env: clerkEnv(clerkKeys) },
];

let database: Database;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(() => database.close());

describe.each(modes)("route guard ($name)", ({ env }) => {
  let app: FastifyInstance;
  let protectedRoutes: RouteTableEntry[] = [];

  beforeAll(async () => {
    ({ app } = await buildTestApp(database, env));
    await app.ready();
    protectedRoutes = app.routeTable.filter((route) => !route.public);
  });
  afterAll(() => app.close());

  it("knows the routes and which are public", () => {
    const publicRoutes = app.routeTable.filter((route) => route.public).map((route) => `${route.method} ${route.url}`);
    expect(publicRoutes).toEqual(expect.arrayContaining(["GET /api/health", "GET /api/config", "GET /api/docs/json"]));
    expect(protectedRoutes.map((route) => `${route.method} ${route.url}`)).toContain("POST /api/organization/:organizationId/invite");
  });

  it("answers 401 on every non-public route without a token, with a made-up token, and with a wrong scheme", async () => {
    expect(protectedRoutes.length).toBeGreaterThan(0);
    const forged = mintClerkToken(clerkKeyPair().privateKey, { sub: "user_x", org: { id: "org_x", role: "admin" } });
    for (const route of protectedRoutes) {
      const url = concretePath(route.url);
      const method = route.method as "GET";
      for (const headers of [{}, { authorization: "Bearer made-up-token" }, { authorization: `Bearer ${forged}` }, { authorization: "Basic dXNlcjpwYXNz" }]) {
        const response = await app.inject({ method, url, headers, payload: method === "GET" || method === "DELETE" ? undefined : {} });
        expect({ route: `${route.method} ${url}`, status: response.statusCode }).toEqual({ route: `${route.method} ${url}`, status: 401 });
        expect(response.json()).toMatchObject({ code: "unauthorized", detail: expect.any(String) });
      }
    }
  });

  it("public routes answer without a token", async () => {
    for (const url of ["/api/health", "/api/config", "/api/docs/json"]) {
      expect((await app.inject({ method: "GET", url })).statusCode).toBe(200);
    }
  });
});

// Made-up paths, so they never collide with a real route.
describe("a route added without saying anything is protected (fail-closed)", () => {
  it("answers 401 and appears in the route table as not public", async () => {
    const { app } = await buildTestApp(database);
    try {
      await app.register(
        async (scope) => {
          scope.get("/fail-closed-probe/:id", async () => ({ data: "secret" }));
          scope.get("/public-probe/:id", { config: { public: true } }, async () => ({ data: "open" }));
        },
        { prefix: "/api" },
      );
      await app.ready();
      expect(app.routeTable).toContainEqual({ method: "GET", url: "/api/fail-closed-probe/:id", public: false });
      expect(app.routeTable).toContainEqual({ method: "GET", url: "/api/public-probe/:id", public: true });
      expect((await app.inject({ method: "GET", url: "/api/fail-closed-probe/1" })).statusCode).toBe(401);
      expect((await app.inject({ method: "GET", url: "/api/fail-closed-probe/1/" })).statusCode).toBe(401);
      expect((await app.inject({ method: "HEAD", url: "/api/fail-closed-probe/1" })).statusCode).toBe(401);
      expect((await app.inject({ method: "GET", url: "/api/public-probe/1" })).json()).toEqual({ data: "open" });
    } finally {
      await app.close();
    }
  });
});
