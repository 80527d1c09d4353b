import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { CONSOLE_NOT_BUILT } from "../../server/plugins/console";
import { buildTestApp, migratedDatabase } from "./helpers";

const INDEX = '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app-abc123.js"></script></body></html>';
const SCRIPT = "console.log('console app');";

let database: Database;
let consoleDir: string;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  // A built console as Vite leaves it: index.html, hashed assets, files copied from public/.
  consoleDir = mkdtempSync(join(tmpdir(), "vap-console-"));
  mkdirSync(join(consoleDir, "assets"));
  writeFileSync(join(consoleDir, "index.html"), INDEX);
  writeFileSync(join(consoleDir, "assets", "x.js"), SCRIPT);
  // The build writes a .gz beside large text assets (vite.config.ts precompress).
  writeFileSync(join(consoleDir, "assets", "x.js.gz"), gzipSync(SCRIPT));
  writeFileSync(join(consoleDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  // What npm start's build leaves beside it (scripts/console-build.ts): the build's own record, not for browsers.
  writeFileSync(join(consoleDir, ".build-stamp.json"), '{"mode":"production","nodeEnv":"production","inputs":"abc"}');
  ({ app } = await buildTestApp(database, { CONSOLE_DIR: consoleDir }));
});
afterAll(async () => {
  await app.close();
  await database.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

describe("serving the built console", () => {
  it("answers index.html for a client-side route such as /dashboard, never cached", async () => {
    for (const url of ["/dashboard", "/campaigns/edit/42", "/web-call/some-slug?x=1", "/"]) {
      const response = await app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers["content-type"]).toContain("text/html");
      expect(response.body).toBe(INDEX);
      expect(response.headers["cache-control"]).toBe("no-cache");
    }
  });

  it("never serves a dotfile such as the build stamp: the path is a page route like any other", async () => {
    const response = await app.inject({ method: "GET", url: "/.build-stamp.json" });
    expect(response.body).not.toContain("nodeEnv");
    expect(response.body).toBe(INDEX);
  });

  it("serves files as they are, with a long cache for hashed assets", async () => {
    const script = await app.inject({ method: "GET", url: "/assets/x.js" });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toContain("javascript");
    expect(script.body).toBe(SCRIPT);
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");

    const icon = await app.inject({ method: "GET", url: "/favicon.svg" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["cache-control"]).toBe("no-cache");
  });

  it("sends the precompressed file to a browser that accepts gzip, and the plain file otherwise", async () => {
    const gzipped = await app.inject({ method: "GET", url: "/assets/x.js", headers: { "accept-encoding": "gzip" } });
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(SCRIPT);

    const plain = await app.inject({ method: "GET", url: "/assets/x.js", headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
  });

  it("a missing asset is a 404, not the page", async () => {
    const response = await app.inject({ method: "GET", url: "/assets/gone-123.js" });
    expect(response.statusCode).toBe(404);
  });

  it("unknown /api paths stay JSON 404s", async () => {
    const response = await app.inject({ method: "GET", url: "/api/nothing-here" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "No API route GET /api/nothing-here", code: "not_found" });
  });

  it("pages carry the security headers too", async () => {
    const response = await app.inject({ method: "GET", url: "/dashboard" });
    expect(response.headers["content-security-policy"]).toContain("default-src 'self'");
  });
});

describe("before the console is built", () => {
  it("non-/api paths answer 503 with what to run; the API still works", async () => {
    const { app: bare } = await buildTestApp(database, { CONSOLE_DIR: join(consoleDir, "does-not-exist") });
    try {
      const page = await bare.inject({ method: "GET", url: "/dashboard" });
      expect(page.statusCode).toBe(503);
      expect(page.headers["content-type"]).toContain("text/plain");
      expect(page.body).toBe(CONSOLE_NOT_BUILT);
      expect((await bare.inject({ method: "GET", url: "/api/health" })).statusCode).toBe(200);
      expect((await bare.inject({ method: "GET", url: "/api/nope" })).statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
