/**
 * One origin for browsers (issue 31, item 7). With PUBLIC_URL unset the server's origin is http://localhost:PORT,
 * while it listens on 127.0.0.1: a member who opened http://127.0.0.1:PORT was sent back from checkout (and would
 * be from Google) to localhost, where they have no session. Now a page opened on another loopback name goes to
 * PUBLIC_URL's origin first, every address the server builds for a browser is on that origin, and GET /api/config
 * says it, so the console shows the same one.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { loadConfig } from "../../server/config";
import { CREDENTIALS_ENV, connectUrl } from "./calendar-google-fixtures";
import { newOrganisation } from "./calls-fixtures";
import { startFakeGoogle, type FakeGoogle } from "./fakes/google";
import { bearer, buildTestApp, invite, migratedDatabase } from "./helpers";

let database: Database;
let google: FakeGoogle;
/** PUBLIC_URL unset, PORT 3000, HOST 127.0.0.1: as `npm start` runs on a fresh clone. */
let app: FastifyInstance;
const opened: FastifyInstance[] = [];

const ORIGIN = "http://localhost:3000";
/** What the start-up log's "listening on 127.0.0.1:3000" invites a person to open. */
const OTHER_NAME = "127.0.0.1:3000";

beforeAll(async () => {
  database = await migratedDatabase();
  google = await startFakeGoogle();
  ({ app } = await buildTestApp(database, { PUBLIC_URL: "", PORT: "3000", DEFAULT_PLAN: "free", ...google.env, ...CREDENTIALS_ENV }));
});
afterAll(async () => {
  for (const other of opened) await other.close();
  await app?.close();
  await database?.close();
  await google?.close();
});

const page = (target: FastifyInstance, url: string, host: string, method: "GET" | "HEAD" = "GET") => target.inject({ method, url, headers: { host } });

describe("the one public origin", () => {
  it("without PUBLIC_URL it is http://localhost:PORT on a loopback bind (and on every interface); a bound LAN address is its own", () => {
    expect(loadConfig({ PORT: "3000" })).toMatchObject({ publicUrl: ORIGIN, publicUrlFromEnv: false });
    expect(loadConfig({ PORT: "3000", HOST: "0.0.0.0" }).publicUrl).toBe(ORIGIN);
    expect(loadConfig({ PORT: "8080", HOST: "192.168.1.20" }).publicUrl).toBe("http://192.168.1.20:8080");
    expect(loadConfig({ PORT: "8080", HOST: "fd00::5" }).publicUrl).toBe("http://[fd00::5]:8080");
    expect(loadConfig({ PUBLIC_URL: "https://voice.example.com/", HOST: "0.0.0.0" })).toMatchObject({ publicUrl: "https://voice.example.com", publicUrlFromEnv: true });
  });

  it("GET /api/config says it, so the console shows and shares addresses on it", async () => {
    const response = await app.inject({ method: "GET", url: "/api/config", headers: { host: OTHER_NAME } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.publicUrl).toBe(ORIGIN);
  });

  it("a page opened on another loopback name of the server is sent to the same path on the public origin, where the returns come", async () => {
    for (const path of ["/", "/billing?top_up=abc&cancelled=1", "/calendar-permission", "/public/agent/a1b2?pid=p1"]) {
      const response = await page(app, path, OTHER_NAME);
      expect(response.statusCode, path).toBe(307);
      expect(response.headers.location).toBe(`${ORIGIN}${path}`);
    }
    expect((await page(app, "/billing", OTHER_NAME, "HEAD")).headers.location).toBe(`${ORIGIN}/billing`);
    expect((await page(app, "/billing", "[::1]:3000")).headers.location).toBe(`${ORIGIN}/billing`);
  });

  it("the public origin itself, the API on any name, other methods and other hosts or ports are answered where they are", async () => {
    // No console build in the tests: a page answers 503 "not built" where it is served.
    expect((await page(app, "/billing", "localhost:3000")).statusCode).toBe(503);
    expect((await page(app, "/billing", "LOCALHOST:3000")).statusCode).toBe(503);
    expect((await page(app, "/api/health", OTHER_NAME)).statusCode).toBe(200);
    expect((await app.inject({ method: "POST", url: "/billing", headers: { host: OTHER_NAME } })).statusCode).not.toBe(307);
    expect((await page(app, "/billing", "127.0.0.1:4000")).statusCode).toBe(503);
    expect((await page(app, "/billing", "192.168.1.20:3000")).statusCode).toBe(503);
  });

  it("a proxy in front (PUBLIC_URL on another host, or another port of this machine) is never redirected, so it cannot loop", async () => {
    for (const PUBLIC_URL of ["https://voice.example.com", "http://localhost:8080", "https://localhost:3000"]) {
      const { app: proxied } = await buildTestApp(database, { PUBLIC_URL, PORT: "3000" });
      opened.push(proxied);
      for (const host of [OTHER_NAME, "localhost:3000"]) expect((await page(proxied, "/billing", host)).statusCode, `${PUBLIC_URL} ${host}`).toBe(503);
    }
  });

  it("every address built for a browser is on it, whatever name the request came on: checkout returns, Google's redirect URI, invitation links", async () => {
    const org = await newOrganisation(app);
    const onOtherName = { ...bearer(org.token), host: OTHER_NAME };

    // A top-up's checkout: where the sandbox (and Stripe) sends the browser back.
    const topUp = await app.inject({ method: "POST", url: "/api/billing/top-up", headers: onOtherName, payload: { amount_usd: 25, save_card: false } });
    expect(topUp.statusCode, topUp.body).toBe(201);
    const topUpSession = new URL(topUp.json().data.url, ORIGIN).searchParams.get("checkout")!;
    const topUpCheckout = await app.inject({ method: "GET", url: `/api/billing/sandbox/checkout/${topUpSession}`, headers: onOtherName });
    expect(topUpCheckout.json().data).toMatchObject({
      success_url: `${ORIGIN}/billing?top_up=${topUp.json().data.top_up_id}`,
      cancel_url: `${ORIGIN}/billing?top_up=${topUp.json().data.top_up_id}&cancelled=1`,
    });

    // A plan's checkout.
    const change = await app.inject({ method: "POST", url: "/api/subscription/change", headers: onOtherName, payload: { plan: "pro" } });
    expect(change.statusCode, change.body).toBe(200);
    const planSession = new URL(change.json().data.url, ORIGIN).searchParams.get("checkout")!;
    const planCheckout = await app.inject({ method: "GET", url: `/api/billing/sandbox/checkout/${planSession}`, headers: onOtherName });
    expect(planCheckout.json().data).toMatchObject({ success_url: `${ORIGIN}/subscriptions?subscription=success`, cancel_url: `${ORIGIN}/subscriptions?subscription=cancelled` });

    // Google's redirect URI: the page on the public origin, the one registered with Google.
    expect((await connectUrl(app, org.token)).searchParams.get("redirect_uri")).toBe(`${ORIGIN}/calendar-permission`);

    // An invitation link.
    const invited = await invite(app, org.token, org.orgId, { email_address: "new.person@example.com", role: "org:member" });
    expect(invited.json().invitation_url).toMatch(new RegExp(`^${ORIGIN}/invitation/`));

    // Each of them, opened on the other name, would first be sent to the public origin too.
    for (const url of [topUpCheckout.json().data.success_url, planCheckout.json().data.success_url]) {
      const { pathname, search } = new URL(url);
      expect((await page(app, `${pathname}${search}`, OTHER_NAME)).headers.location).toBe(url);
    }
  });
});
