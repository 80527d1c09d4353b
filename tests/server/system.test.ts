import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthSchema, publicConfigSchema } from "../../contract";
import { VERSION } from "../../server/app";
import type { Database } from "../../server/db/client";
import { buildTestApp, clerkEnv, clerkKeyPair, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { CORS_ORIGINS: "https://partner.example.com" }));
  // Stands in for any handler that fails unexpectedly.
  app.get("/api/test/explode", { config: { public: true } }, async () => {
    throw new Error("connection string postgres://admin:hunter2@db.internal failed");
  });
  app.post("/api/test/echo", { config: { public: true } }, async (request) => ({ data: request.body }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("GET /api/health and GET /api/config", () => {
  it("local accounts, sandbox voice", async () => {
    const health = await app.inject({ method: "GET", url: "/api/health" });
    expect(health.statusCode).toBe(200);
    const body = healthSchema.parse(health.json());
    expect(body).toMatchObject({ status: "ok", version: VERSION, modes: { database: "pglite", auth: "local", voice: "sandbox", rateLimit: "memory", calendar: "none" } });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);

    const config = await app.inject({ method: "GET", url: "/api/config" });
    expect(publicConfigSchema.parse(config.json())).toEqual({
      data: { authMode: "local", voiceMode: "sandbox", clerkPublishableKey: null, vapiPublicKey: null, vapiApiUrl: null, publicUrl: "http://localhost:3000" },
    });
  });

  it("Clerk and Vapi keys switch the modes; only the public keys are served", async () => {
    const env = { ...clerkEnv(clerkKeyPair()), VAPI_PRIVATE_KEY: "vapi-private-secret", VAPI_PUBLIC_KEY: "vapi-public-key" };
    const { app: keyed } = await buildTestApp(database, env);
    try {
      const health = await keyed.inject({ method: "GET", url: "/api/health" });
      expect(health.json()).toMatchObject({ modes: { auth: "clerk", voice: "vapi" } });
      const config = await keyed.inject({ method: "GET", url: "/api/config" });
      expect(config.json()).toEqual({
        data: {
          authMode: "clerk",
          voiceMode: "vapi",
          clerkPublishableKey: env.CLERK_PUBLISHABLE_KEY,
          vapiPublicKey: "vapi-public-key",
          vapiApiUrl: "https://api.vapi.ai",
          publicUrl: "http://localhost:3000",
        },
      });
      expect(config.body).not.toContain("vapi-private-secret");
      expect(config.body).not.toContain("sk_test_");
    } finally {
      await keyed.close();
    }
  });
});

describe("errors", () => {
  it("an unknown /api path is a JSON 404 naming the route", async () => {
    const response = await app.inject({ method: "GET", url: "/api/xyz?page=2" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "No API route GET /api/xyz", code: "not_found" });
    const post = await app.inject({ method: "DELETE", url: "/api/no-such-resource/123" });
    expect(post.json()).toEqual({ detail: "No API route DELETE /api/no-such-resource/123", code: "not_found" });
  });

  it("a thrown error is a 500 with nothing internal in it", async () => {
    const response = await app.inject({ method: "GET", url: "/api/test/explode" });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ detail: "Something went wrong on our side. Please try again.", code: "internal_error" });
    expect(response.body).not.toContain("hunter2");
  });

  it("malformed JSON is a 400 that says so", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/test/echo",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "bad_request", detail: expect.stringMatching(/JSON/i) });
  });

  it("a protected route checks the token before reading the body", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/organization/x/invite",
      headers: { "content-type": "application/json", authorization: "Bearer made-up" },
      payload: "{not json",
    });
    expect(response.statusCode).toBe(401);
  });

  it("an oversized body is a 413", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/test/echo",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ blob: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: "payload_too_large" });
  });

  it("too many requests is a 429 in the usual shape", async () => {
    const { app: limited } = await buildTestApp(database, { RATE_LIMIT_PER_MINUTE: "2" });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.inject({ method: "GET", url: "/api/health" })).statusCode);
      expect(statuses).toEqual([200, 200, 429]);
      const response = await limited.inject({ method: "GET", url: "/api/health" });
      expect(response.json()).toEqual({ detail: "Too many requests: wait a moment and try again.", code: "rate_limited" });
    } finally {
      await limited.close();
    }
  });
});

describe("security headers and CORS", () => {
  it("helmet's headers and a CSP the console and Swagger UI run under", async () => {
    const response = await app.inject({ method: "GET", url: "/api/health" });
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
    const csp = String(response.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    // Plain http: no upgrade of requests, no HSTS.
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(response.headers["strict-transport-security"]).toBeUndefined();
  });

  it("over https, requests are upgraded and HSTS is sent", async () => {
    const { app: secure } = await buildTestApp(database, { PUBLIC_URL: "https://voice.example.com" });
    try {
      const response = await secure.inject({ method: "GET", url: "/api/health" });
      expect(String(response.headers["content-security-policy"])).toContain("upgrade-insecure-requests");
      expect(response.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
    } finally {
      await secure.close();
    }
  });

  it("CORS is closed to origins not listed in CORS_ORIGINS", async () => {
    const response = await app.inject({ method: "GET", url: "/api/health", headers: { origin: "https://evil.example.com" } });
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await app.inject({
      method: "OPTIONS",
      url: "/api/organization/x/invite",
      headers: { origin: "https://evil.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("CORS is open to a listed origin, preflight included", async () => {
    const origin = "https://partner.example.com";
    const response = await app.inject({ method: "GET", url: "/api/health", headers: { origin } });
    expect(response.headers["access-control-allow-origin"]).toBe(origin);
    const preflight = await app.inject({
      method: "OPTIONS",
      url: "/api/organization/x/invite",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(origin);
    expect(String(preflight.headers["access-control-allow-methods"])).toContain("POST");
  });

  it("CORS is closed by default", async () => {
    const { app: closed } = await buildTestApp(database);
    try {
      const response = await closed.inject({ method: "GET", url: "/api/health", headers: { origin: "https://partner.example.com" } });
      expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    } finally {
      await closed.close();
    }
  });
});

describe("API docs", () => {
  it("publishes OpenAPI at /api/docs/json with the contract's schemas", async () => {
    const response = await app.inject({ method: "GET", url: "/api/docs/json" });
    expect(response.statusCode).toBe(200);
    const doc = response.json() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: object; required: string[] } }> } }>>;
    };
    const invite = doc.paths["/api/organization/{organizationId}/invite"]?.post;
    const schema = invite?.requestBody?.content["application/json"]?.schema;
    expect(Object.keys(schema?.properties ?? {})).toEqual(["email_address", "role"]);
    expect(doc.paths["/api/health"]).toBeDefined();
    // better-auth's catch-all is not an API route to document; the console's token route (ours) is.
    expect(Object.keys(doc.paths).filter((path) => path.startsWith("/api/auth"))).toEqual(["/api/auth/token"]);
  });

  it("serves Swagger UI at /api/docs without a token", async () => {
    const response = await app.inject({ method: "GET", url: "/api/docs/" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toContain("text/html");
    // Only external scripts: the CSP's script-src 'self' lets it run.
    expect(response.body).not.toMatch(/<script>(?!\s*<\/script>)/);
  });
});
