/**
 * Security headers (helmet) on API answers (success, 401, 404, 400, public routes) and on the console
 * (index.html, an asset, a client-side route), and CORS closed by default: a cross-origin preflight
 * or request from https://evil.example gets no access-control-allow-origin, on every route of the table.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { buildTestApp, migratedDatabase } from "../server/helpers";
import { tally } from "./tally";
import { routeKey } from "./world";

const counter = tally(import.meta.filename);
const EVIL = "https://evil.example";

const consoleDir = mkdtempSync(join(tmpdir(), "vap-security-console-"));
mkdirSync(join(consoleDir, "assets"));
writeFileSync(join(consoleDir, "index.html"), "<!doctype html><html><body><div id=root></div><script type=module src=/assets/app.js></script></body></html>");
writeFileSync(join(consoleDir, "assets", "app.js"), "console.log('console');");

let database: Database;
let app: FastifyInstance;
let httpsApp: FastifyInstance;
beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { CONSOLE_DIR: consoleDir, RATE_LIMIT_PER_MINUTE: "1000000" }));
  ({ app: httpsApp } = await buildTestApp(database, { CONSOLE_DIR: consoleDir, PUBLIC_URL: "https://voice.example.com" }));
});
afterAll(async () => {
  await app?.close();
  await httpsApp?.close();
  await database?.close();
});

function expectSecurityHeaders(response: LightMyRequestResponse, where: string) {
  const headers = response.headers;
  const csp = String(headers["content-security-policy"] ?? "");
  expect({ where, csp: csp.length > 0 }).toEqual({ where, csp: true });
  expect(csp, where).toMatch(/default-src 'self'/);
  expect(csp, where).toMatch(/frame-ancestors 'self'/);
  expect(csp, where).toMatch(/object-src 'none'/);
  expect(csp, where).toMatch(/script-src-attr 'none'/);
  expect(csp, where).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(csp, where).not.toMatch(/script-src[^;]*'unsafe-eval'/);
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(headers["x-frame-options"], where).toBe("SAMEORIGIN");
  expect(headers["referrer-policy"], where).toBeDefined();
  expect(headers["cross-origin-opener-policy"], where).toBe("same-origin");
  expect(headers["x-powered-by"], where).toBeUndefined();
}

const requests: Array<[string, string, string, string]> = [
  ["API success", "GET", "/api/health", "GET /api/health"],
  ["API public config", "GET", "/api/config", "GET /api/config"],
  ["API 401", "GET", "/api/agent/", "GET /api/agent/"],
  ["API 404 (no such route)", "GET", "/api/no-such-route", "GET /api/* (no route)"],
  ["API 404 (public agent)", "GET", "/api/agent/00000000-0000-4000-8000-000000000000/public", "GET /api/agent/:id/public"],
  ["API 400 (bad id)", "GET", "/api/agent/not-a-uuid/public", "GET /api/agent/:id/public"],
  ["API 400 (bad JSON)", "POST", "/api/call/public", "POST /api/call/public"],
  ["API 414 (over-long id, answered by the router)", "GET", `/api/agent/${"a".repeat(300)}/public`, "GET /api/agent/:id/public"],
  ["API 400 (malformed %-encoding, answered by the router)", "GET", "/api/agent/%E0%A4%A/public", "GET /api/agent/:id/public"],
  ["console index.html", "GET", "/", "GET /* (console)"],
  ["console client-side route", "GET", "/agents/new", "GET /* (console)"],
  ["console public agent page", "GET", "/agent/00000000-0000-4000-8000-000000000000", "GET /* (console)"],
  ["console asset", "GET", "/assets/app.js", "GET /* (console)"],
];

describe("security headers", () => {
  it("are on every kind of API and console answer", async () => {
    for (const [where, method, url, pattern] of requests) {
      const response = await app.inject({ method: method as "GET", url, ...(method === "POST" ? { headers: { "content-type": "application/json" }, payload: "{bad" } : {}) });
      counter.count("security headers", pattern);
      expectSecurityHeaders(response, `${where}: ${method} ${url} (${response.statusCode})`);
    }
  });

  it("HSTS only where the product is served over https (PUBLIC_URL): a plain-http LAN deployment is not pinned", async () => {
    for (const [where, method, url, pattern] of requests.filter(([, m]) => m === "GET")) {
      const response = await httpsApp.inject({ method: method as "GET", url });
      counter.count("security headers", pattern);
      expect(response.headers["strict-transport-security"], where).toMatch(/max-age=\d{7,}/);
      expect(String(response.headers["content-security-policy"]), where).toMatch(/upgrade-insecure-requests/);
      expect((await app.inject({ method: method as "GET", url })).headers["strict-transport-security"], where).toBeUndefined();
    }
  });
});

describe("CORS", () => {
  it("is closed by default: no access-control-allow-origin for another origin, on any route, preflight or not", async () => {
    const wrong: unknown[] = [];
    for (const route of app.routeTable) {
      const url = route.url.replace(/:[A-Za-z0-9_]+/g, "00000000-0000-4000-8000-000000000000").replace(/\*$/, "get-session");
      const preflight = await app.inject({
        method: "OPTIONS",
        url,
        headers: { origin: EVIL, "access-control-request-method": route.method, "access-control-request-headers": "authorization, content-type" },
      });
      const simple = await app.inject({ method: route.method as "GET", url, headers: { origin: EVIL } });
      counter.count("CORS closed to other origins", routeKey(route), 2);
      for (const [kind, response] of [["preflight", preflight], ["request", simple]] as const) {
        const allowOrigin = response.headers["access-control-allow-origin"];
        const allowCredentials = response.headers["access-control-allow-credentials"];
        if (allowOrigin !== undefined || (kind === "preflight" && allowCredentials !== undefined)) {
          wrong.push({ route: routeKey(route), kind, allowOrigin, allowCredentials });
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("opens only to the origins CORS_ORIGINS lists (so the check above can see a difference)", async () => {
    const { app: listed } = await buildTestApp(database, { CORS_ORIGINS: "https://partner.example" });
    try {
      const ok = await listed.inject({ method: "OPTIONS", url: "/api/agent/", headers: { origin: "https://partner.example", "access-control-request-method": "GET" } });
      expect(ok.headers["access-control-allow-origin"]).toBe("https://partner.example");
      const evil = await listed.inject({ method: "OPTIONS", url: "/api/agent/", headers: { origin: EVIL, "access-control-request-method": "GET" } });
      expect(evil.headers["access-control-allow-origin"]).toBeUndefined();
      const nullOrigin = await listed.inject({ method: "GET", url: "/api/health", headers: { origin: "null" } });
      expect(nullOrigin.headers["access-control-allow-origin"]).toBeUndefined();
      counter.count("CORS closed to other origins", "GET /api/health", 3);
    } finally {
      await listed.close();
    }
  });
});
