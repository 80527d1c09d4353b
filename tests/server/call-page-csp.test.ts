/**
 * The Content-Security-Policy of the pages that start browser calls: in Vapi mode the web-call page may
 * reach Vapi's API (VAPI_API_URL) and Daily, and load Daily's call machine; every other page keeps the
 * console's policy; in sandbox mode nothing is added anywhere. (tests/e2e/web-call-vapi.e2e.ts runs the
 * real SDK under it in Chromium.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => {
  await database.close();
});

const directive = (csp: unknown, name: string) =>
  String(csp)
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `)) ?? "";

async function cspOf(env: Record<string, string>, urls: string[]): Promise<string[]> {
  const { app } = await buildTestApp(database, env);
  try {
    const answers: string[] = [];
    for (const url of urls) answers.push(String((await app.inject({ method: "GET", url })).headers["content-security-policy"]));
    return answers;
  } finally {
    await app.close();
  }
}

describe("the web-call page's CSP", () => {
  it("in Vapi mode allows Vapi's API and Daily on /web-call/:slug only", async () => {
    const [page, withQuery, shell, agentPage, api] = await cspOf(
      { VAPI_PRIVATE_KEY: "vapi-private", VAPI_PUBLIC_KEY: "vapi-public", VAPI_API_URL: "https://vapi.example.test/base" },
      ["/web-call/abc", "/web-call/abc?x=1", "/dashboard", "/public/agent/abc", "/api/health"],
    );
    for (const csp of [page, withQuery]) {
      expect(directive(csp, "connect-src")).toBe(
        "connect-src 'self' https://vapi.example.test https://*.daily.co wss://*.daily.co https://*.pluot.blue wss://*.pluot.blue",
      );
      expect(directive(csp, "script-src")).toBe("script-src 'self' https://c.daily.co blob: 'wasm-unsafe-eval'");
      expect(directive(csp, "worker-src")).toBe("worker-src 'self' blob:");
      expect(directive(csp, "media-src")).toBe("media-src 'self' blob:");
      expect(csp).not.toContain("'unsafe-eval'");
    }
    for (const csp of [shell, agentPage, api]) {
      expect(directive(csp, "connect-src")).toBe("connect-src 'self'");
      expect(csp).not.toContain("daily.co");
      expect(csp).not.toContain("vapi.example.test");
    }
  });

  it("in sandbox mode adds nothing, on the web-call page either", async () => {
    const [page, shell] = await cspOf({}, ["/web-call/abc", "/dashboard"]);
    expect(page).toBe(shell);
    expect(directive(page, "connect-src")).toBe("connect-src 'self'");
  });
});
