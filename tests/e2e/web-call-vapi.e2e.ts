// A browser web call in Vapi mode, with the real @vapi-ai/web (and the daily-js it runs on), against a
// local stand-in for Vapi's POST /call/web: the product runs with VAPI_API_URL pointing at the stand-in.
// The page's Content-Security-Policy must let the SDK reach Vapi and Daily: the test fails on any
// `securitypolicyviolation`. Joining the returned Daily room fails offline, which is expected; what
// matters is that the SDK created the call (the stand-in saw the public key and the page's request)
// and that nothing the SDK or Daily tried was blocked by the page's policy. Other pages keep the
// console's narrow connect-src.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { demoApi, inPage, productForThisFile } from "./harness";

const PUBLIC_KEY = "e2e-vapi-public-key";

interface WebCallRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** The stand-in for Vapi's API: POST /call/web answers a web call, as Vapi does, to any origin (CORS). */
const received: WebCallRequest[] = [];
const standIn = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const cors = {
      "access-control-allow-origin": req.headers.origin ?? "*",
      "access-control-allow-headers": "authorization, content-type",
      "access-control-allow-methods": "GET, POST, OPTIONS",
    };
    if (req.method === "OPTIONS") {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "POST" && path === "/call/web") {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown> });
      const now = new Date().toISOString();
      res.writeHead(201, { ...cors, "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "e2e-web-call-1",
          orgId: "e2e-org",
          type: "webCall",
          status: "queued",
          createdAt: now,
          updatedAt: now,
          webCallUrl: "https://e2e-standin.daily.co/e2e-room",
          artifactPlan: { videoRecordingEnabled: false },
        }),
      );
      return;
    }
    res.writeHead(404, { ...cors, "content-type": "application/json" });
    res.end(JSON.stringify({ message: `Cannot ${req.method} ${path}`, error: "Not Found", statusCode: 404 }));
  });
});
await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
const VAPI_API_URL = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => standIn.close(() => resolve())));

const e2e = productForThisFile({
  VAPI_PRIVATE_KEY: "e2e-vapi-private-key",
  VAPI_PUBLIC_KEY: PUBLIC_KEY,
  VAPI_API_URL,
  VAPI_WEBHOOK_SECRET: "e2e-webhook-secret-0123456789",
});
const api = demoApi(() => e2e.product.baseURL);

const connectSrc = (csp: string | null) => (csp ?? "").split(";").map((part) => part.trim()).find((part) => part.startsWith("connect-src")) ?? "";

test("Vapi mode: the web-call page starts the call with the real @vapi-ai/web, and its CSP blocks nothing the SDK needs", async () => {
  const agents = await api<{ data: Array<{ id: string }> }>("GET", "/agent/");
  assert.equal(agents.status, 200);
  const agentId = agents.body.data[0]!.id;
  const link = await api<{ data: { slug: string } }>("POST", "/webcall/", { agent_id: agentId, call_title: "Vapi e2e call", recipient_name: "Grace" });
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const slug = link.body.data.slug;

  await inPage(e2e.browser, "web call vapi csp", async (page) => {
    await page.addInitScript(() => {
      const violations: Array<{ directive: string; blocked: string; source: string }> = [];
      (window as unknown as { __cspViolations: typeof violations }).__cspViolations = violations;
      document.addEventListener("securitypolicyviolation", (event) =>
        violations.push({ directive: event.violatedDirective, blocked: event.blockedURI, source: event.sourceFile }),
      );
    });
    const answer = await page.goto(`${e2e.product.baseURL}/web-call/${slug}`);
    const pageCsp = answer?.headers()["content-security-policy"] ?? null;
    assert.ok(connectSrc(pageCsp).includes(VAPI_API_URL), `the call page may reach Vapi's API: ${connectSrc(pageCsp)}`);
    assert.ok(connectSrc(pageCsp).includes("wss://*.daily.co"), `the call page may reach Daily: ${connectSrc(pageCsp)}`);

    await page.getByRole("heading", { level: 1, name: "Vapi e2e call" }).waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Start Call" }).click();

    // The SDK created the call at VAPI_API_URL with the public key and the page's request.
    const deadline = Date.now() + 20_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(received.length, 1, "the stand-in for Vapi received POST /call/web");
    assert.equal(received[0]!.headers.authorization, `Bearer ${PUBLIC_KEY}`);
    assert.equal(received[0]!.body.assistantId, agentId);
    assert.deepEqual(received[0]!.body.assistantOverrides, { variableValues: { name: "Grace" } });

    // Daily then loads its call machine and tries to join the room (offline it fails): give it the time to try.
    await page.waitForTimeout(5_000);
    const violations = await page.evaluate(() => (window as unknown as { __cspViolations: unknown[] }).__cspViolations);
    assert.deepEqual(violations, [], "no securitypolicyviolation on the web-call page");
  });

  // The console's other pages keep the narrow policy: no Vapi, no Daily.
  const shell = await fetch(`${e2e.product.baseURL}/dashboard`);
  const shellConnect = connectSrc(shell.headers.get("content-security-policy"));
  assert.ok(shellConnect.startsWith("connect-src 'self'"), shellConnect);
  assert.ok(!shellConnect.includes(VAPI_API_URL) && !shellConnect.includes("daily.co"), `the console shell does not open Vapi or Daily: ${shellConnect}`);
});
