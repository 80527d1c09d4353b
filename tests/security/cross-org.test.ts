/**
 * Another organisation's records answer 404, as if they did not exist (ARCHITECTURE.md): organisation
 * B's admin, with a valid token, tries every route with an id parameter on organisation A's real
 * records; every list route (GET without parameters) called by B never contains A's rows; ids of A's
 * records inside B's request bodies are refused too. Nothing in the database changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../contract";
import { tally } from "./tally";
import { A_MARKER, WRITE_METHODS, buildWorld, inject, isErrorBody, paramsOf, pathFor, routeKey, snapshot, type OrgRecords, type World } from "./world";

const counter = tally(import.meta.filename);

/**
 * A body each write route accepts, so that the request gets past validation to the ownership check
 * (a 400 would prove nothing). A write route with parameters and no entry here fails the suite.
 */
const VALID_BODIES: Record<string, (b: OrgRecords) => unknown> = {
  "PUT /api/agent/:id": () => ({ description: "changed by another organisation" }),
  "PUT /api/agent/:id/appointment-toggle": () => ({ appointment_enable: true }),
  "PUT /api/phonenumber/:id": () => ({ name: "changed by another organisation" }),
  "POST /api/organization/:organizationId/invite": () => ({ email_address: "intruder@example.com" }),
  "DELETE /api/agent/:id": () => undefined,
  "DELETE /api/phonenumber/:id": () => undefined,
  "DELETE /api/file/file/:id": () => undefined,
  "DELETE /api/webcall/:id": () => undefined,
  "POST /api/webcall/public/:slug/call": () => ({}),
  "POST /api/webcall/public/:slug/call/:callId/end": () => ({ reason: "customer-ended-call" }),
  "PUT /api/campaign/:id": () => ({ name: "changed by another organisation" }),
  "DELETE /api/campaign/:id": () => undefined,
  "POST /api/campaign/:id/start": () => ({}),
  "POST /api/campaign/:id/pause": () => ({}),
  "POST /api/campaign/:id/resume": () => ({}),
  "POST /api/campaign/:id/cancel": () => ({}),
  "POST /api/campaign/:id/contacts": () => ({ contacts: [{ number: "+12125550123", name: "intruder" }] }),
  "DELETE /api/dnc/:id": () => undefined,
  "PUT /api/appointment/:id": () => ({ notes: "changed by another organisation" }),
  "DELETE /api/appointment/:id": () => undefined,
  "DELETE /api/calendar/connections/:id": () => undefined,
  "POST /api/billing/top-up/:id/refund": () => ({}),
  "POST /api/billing/sandbox/checkout/:id/pay": () => ({ card_number: "4242424242424242" }),
  "POST /api/billing/sandbox/checkout/:id/cancel": () => ({}),
  "PUT /api/integration/:id": () => ({ name: "changed by another organisation" }),
  "DELETE /api/integration/:id": () => undefined,
  "POST /api/integration/:id/rotate-secret": () => ({}),
  // Store webhooks (capability routes below): their body is the store's; webhooks.test.ts signs real ones.
  "POST /api/webhooks/shopify/:integrationId": () => ({}),
  "POST /api/webhooks/woocommerce/:integrationId": () => ({}),
  "POST /api/webhooks/store/:integrationId": () => ({}),
  "PUT /api/order/:id": () => ({ customer_name: "changed by another organisation" }),
  "DELETE /api/order/:id": () => undefined,
  "POST /api/order/:id/call": () => ({ confirm_consent: true }),
  "POST /api/order/:id/stop": () => ({}),
  "POST /api/order/:id/paid": () => ({}),
};

/**
 * Routes whose parameter is a capability by design, answered to anyone who holds it (spec §3):
 * - GET /api/webcall/public/:slug: the public web-call page's details, by its unguessable slug, and the
 *   page's sandbox call, started by the slug and ended by the slug and the call id it was given (checked
 *   below: another link's slug does not end it).
 * - GET /api/calendar/feed/:token.ics: the organisation's ICS feed, by its secret token (rotating it cuts
 *   everyone off); tests/server/calendar-feed.test.ts checks that a feed holds only its own organisation's.
 * - POST /api/webhooks/{shopify,woocommerce,store}/:integrationId: where a store posts; the id names the
 *   address, and only that integration's secret signs for it (a bearer token means nothing there):
 *   tests/security/webhooks.test.ts checks that another organisation's secret, or none, changes nothing.
 * GET /api/agent/:id/public answers only for public agents: A's private agent is a 404 like the rest.
 * GET /api/agent/:id/clone needs the owner's consent (the private link's key, while A turns cloning on):
 * without it A's agent is a 404 like the rest; with it, checked below, the copy lands in B.
 */
const CAPABILITY_ROUTES = new Set([
  "GET /api/webcall/public/:slug",
  "POST /api/webcall/public/:slug/call",
  "POST /api/webcall/public/:slug/call/:callId/end",
  "GET /api/calendar/feed/:token.ics",
  "POST /api/webhooks/shopify/:integrationId",
  "POST /api/webhooks/woocommerce/:integrationId",
  "POST /api/webhooks/store/:integrationId",
]);

let world: World;
beforeAll(async () => {
  world = await buildWorld();
});
afterAll(() => world?.close());

/** Ids nobody holds, in the same shapes. */
const MADE_UP: OrgRecords = {
  orgId: "org-made-up",
  adminToken: "",
  memberToken: "",
  agentId: "00000000-0000-4000-8000-000000000001",
  publicAgentId: "00000000-0000-4000-8000-000000000002",
  phoneNumberId: "00000000-0000-4000-8000-000000000003",
  callId: "00000000-0000-4000-8000-000000000004",
  fileId: "00000000-0000-4000-8000-000000000005",
  webCallId: "00000000-0000-4000-8000-000000000006",
  webCallSlug: "made-up-slug",
  webCallCallId: "00000000-0000-4000-8000-000000000007",
  invitedEmail: "nobody@example.com",
  campaignId: "00000000-0000-4000-8000-000000000008",
  dncId: "00000000-0000-4000-8000-000000000009",
  appointmentId: "00000000-0000-4000-8000-00000000000a",
  calendarConnectionId: "00000000-0000-4000-8000-00000000000b",
  calendarFeedToken: "made-up-feed-token-000000000000000000000000",
  googleCallback: { code: "4/made-up", state: "made-up-state" },
  topUpId: "00000000-0000-4000-8000-00000000000c",
  documentId: "00000000-0000-4000-8000-00000000000d",
  checkoutSessionId: "cs_sbx_made_up",
  integrations: {
    shopify: { id: "00000000-0000-4000-8000-000000000010", secret: "made-up" },
    woocommerce: { id: "00000000-0000-4000-8000-000000000011", secret: "made-up" },
    generic: { id: "00000000-0000-4000-8000-000000000012", secret: "made-up" },
  },
  spareIntegrationId: "00000000-0000-4000-8000-000000000013",
  orderId: "00000000-0000-4000-8000-00000000000e",
};

const withParams = () => world.routes.filter((route) => paramsOf(route.url).length > 0);
const lists = () => world.routes.filter((route) => route.method === "GET" && paramsOf(route.url).length === 0 && !route.public);

function ids(records: OrgRecords) {
  return [
    records.orgId,
    records.agentId,
    records.publicAgentId,
    records.phoneNumberId,
    records.callId,
    records.fileId,
    records.webCallId,
    records.webCallSlug,
    records.invitedEmail,
    records.campaignId,
    records.dncId,
    records.appointmentId,
    records.calendarConnectionId,
    records.calendarFeedToken,
    records.topUpId,
    records.documentId,
    records.checkoutSessionId,
    ...Object.values(records.integrations).flatMap((integration) => [integration.id, integration.secret]),
    records.spareIntegrationId,
    records.orderId,
  ];
}

describe("cross-organisation access", () => {
  it("every route with an id parameter has its parameters mapped to real ids", () => {
    const unmapped: string[] = [];
    for (const route of withParams()) {
      try {
        pathFor(route, world.a);
      } catch (error) {
        unmapped.push((error as Error).message);
      }
      if (WRITE_METHODS.has(route.method) && !VALID_BODIES[routeKey(route)]) {
        unmapped.push(`security suite: write route ${routeKey(route)} has no valid body in VALID_BODIES (tests/security/cross-org.test.ts)`);
      }
    }
    expect(unmapped).toEqual([]);
  });

  it("answers 404 to organisation B on every route with organisation A's id, and changes nothing", async () => {
    const before = await snapshot(world.db);
    const answers: Array<{ route: string; status: number; errorBody: boolean }> = [];
    for (const route of withParams()) {
      if (CAPABILITY_ROUTES.has(routeKey(route))) continue;
      const body = VALID_BODIES[routeKey(route)]?.(world.b);
      for (const token of [world.b.adminToken, world.b.memberToken]) {
        const response = await inject(world.app, route.method, pathFor(route, world.a), token, body);
        counter.count("cross-org id → 404", routeKey(route));
        expect(response.body).not.toContain(A_MARKER);
        // A member refused by role first (403) learns nothing either, as long as a made-up id gets the same answer.
        if (token === world.b.memberToken && response.statusCode === 403) {
          const madeUp = await inject(world.app, route.method, pathFor(route, MADE_UP), token, body);
          if (madeUp.statusCode === 403 && madeUp.body === response.body) continue;
        }
        answers.push({ route: routeKey(route), status: response.statusCode, errorBody: isErrorBody(response) });
      }
    }
    expect(answers.filter((answer) => answer.status !== 404 || !answer.errorBody)).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("the same routes answer organisation A itself (the 404s above are about ownership, not the request)", async () => {
    for (const route of withParams()) {
      // A's own clone answers 409 with the agent's id (it is already A's).
      if (route.method !== "GET" || CAPABILITY_ROUTES.has(routeKey(route)) || route.url.endsWith("/public") || route.url.endsWith("/clone")) continue;
      const response = await inject(world.app, route.method, pathFor(route, world.a), world.a.adminToken);
      expect({ route: routeKey(route), status: response.statusCode }).toEqual({ route: routeKey(route), status: 200 });
    }
  });

  it("list routes never contain another organisation's rows", async () => {
    expect(lists().length).toBeGreaterThan(5);
    const leaks: string[] = [];
    for (const route of lists()) {
      for (const token of [world.b.adminToken, world.b.memberToken]) {
        for (const query of ["", "?limit=100", "?page=1&limit=100"]) {
          const response = await inject(world.app, "GET", `${route.url}${query}`, token);
          counter.count("list without A's rows", routeKey(route));
          if (response.statusCode >= 500) leaks.push(`${routeKey(route)}${query}: ${response.statusCode}`);
          for (const secret of [A_MARKER, ...ids(world.a)]) {
            if (response.body.includes(secret)) leaks.push(`${routeKey(route)}${query} shows ${secret}`);
          }
        }
      }
    }
    expect(leaks).toEqual([]);
    // …while A's own lists do show them (the search above would find a leak).
    const own = await inject(world.app, "GET", "/api/agent/", world.a.adminToken);
    expect(own.body).toContain(world.a.agentId);
  });

  it("refuses organisation A's ids inside organisation B's request bodies", async () => {
    const before = await snapshot(world.db);
    const { a, b } = world;
    const cases: Array<[string, string, unknown, number[]]> = [
      ["POST", "/api/call/", { agent_id: a.agentId, phone_number_id: b.phoneNumberId, customer_number: "+14155550123" }, [404]],
      ["POST", "/api/call/", { agent_id: b.agentId, phone_number_id: a.phoneNumberId, customer_number: "+14155550123" }, [404]],
      ["POST", "/api/webcall/", { agent_id: a.agentId, call_title: "x", recipient_name: "y" }, [400, 404]],
      ["PUT", `/api/phonenumber/${b.phoneNumberId}`, { agent_id: a.agentId }, [400, 404]],
      ["PUT", `/api/agent/${b.agentId}`, { knowledge_base_files: [a.fileId] }, [400, 404]],
      ["POST", "/api/agent/", { knowledge_base_files: [a.fileId] }, [400, 404]],
      ["POST", "/api/phonenumber/", { name: "x", provider: "vapi", agent_id: a.agentId }, [400, 404]],
      ["POST", "/api/call/public", { assistantId: a.publicAgentId, phoneNumberId: b.phoneNumberId, customer: { number: "+14155550123" } }, [404]],
      ["POST", "/api/appointment/", { title: "x", start: "2030-02-04T15:00:00Z", end: "2030-02-04T15:30:00Z", agent_id: a.agentId }, [400, 404]],
      ["PUT", `/api/appointment/${b.appointmentId}`, { agent_id: a.agentId }, [400, 404]],
      ["PUT", "/api/availability/", { timezone: "UTC", weekly: [], slot_minutes: 30, max_days_ahead: 30, agent_id: a.agentId }, [400, 404]],
      ["PUT", "/api/billing/spend-caps", { caps: [{ scope: "agent", agent_id: a.agentId, period: "day", limit_usd: 5 }] }, [400, 404]],
    ];
    const wrong: unknown[] = [];
    for (const [method, url, body, expected] of cases) {
      const response = await inject(world.app, method, url, b.adminToken, body);
      counter.count("cross-org id in body → 4xx", `${method} ${url.replace(/[0-9a-f-]{36}/, ":id")}`);
      if (!expected.includes(response.statusCode) || !isErrorBody(response)) wrong.push({ method, url, body, status: response.statusCode, answer: response.body });
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("A's agent id in B's dashboard query counts none of A's calls and shows nothing of A's (as the call list)", async () => {
    const before = await snapshot(world.db);
    const leaks: unknown[] = [];
    for (const token of [world.b.adminToken, world.b.memberToken]) {
      for (const url of [`/api/dashboard/?agentId=${world.a.agentId}`, `/api/call/?agentId=${world.a.agentId}`, `/api/appointment/?agentId=${world.a.agentId}`]) {
        const response = await inject(world.app, "GET", url, token);
        counter.count("cross-org id in a query → nothing of A's", url.split("?")[0]!);
        const body = response.json() as { data: { totals?: { calls: number }; agents?: unknown[] } | unknown[]; total?: number };
        const counted = Array.isArray(body.data) ? body.total : (body.data.totals?.calls ?? 0) + (body.data.agents?.length ?? 0);
        if (response.statusCode !== 200 || counted !== 0 || ids(world.a).some((id) => response.body.includes(id)) || response.body.includes(A_MARKER)) {
          leaks.push({ url, status: response.statusCode, body: response.body.slice(0, 300) });
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("cloning A's agents without A's consent answers 404 to B and changes nothing: by id alone, public id, or another agent's key", async () => {
    // B's own agent with cloning on: its key must not open A's agents.
    const own = await inject(world.app, "PUT", `/api/agent/${world.b.agentId}`, world.b.adminToken, { clone_enabled: true });
    expect(own.statusCode, own.body).toBe(200);
    const bKey = (own.json() as { data: Agent }).data.clone_key;
    expect(bKey).toEqual(expect.any(String));
    const afterOwn = await snapshot(world.db);
    const wrong: unknown[] = [];
    for (const id of [world.a.agentId, world.a.publicAgentId]) {
      for (const query of ["", "?key=", `?key=${encodeURIComponent(bKey!)}`]) {
        for (const token of [world.b.adminToken, world.b.memberToken]) {
          const response = await inject(world.app, "GET", `/api/agent/${id}/clone${query}`, token);
          counter.count("clone without consent → 404", "GET /api/agent/:id/clone");
          if (response.statusCode !== 404 || !isErrorBody(response) || response.body.includes(A_MARKER)) wrong.push({ id, query, status: response.statusCode, body: response.body });
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(afterOwn);
  });

  it("capability routes: with A's consent, a shared agent's clone lands in B without A's files, forwarding number or webhook", async () => {
    const consent = await inject(world.app, "PUT", `/api/agent/${world.a.agentId}`, world.a.adminToken, { clone_enabled: true });
    expect(consent.statusCode, consent.body).toBe(200);
    const key = (consent.json() as { data: Agent }).data.clone_key!;
    const beforeA = await inject(world.app, "GET", `/api/agent/${world.a.agentId}`, world.a.adminToken);
    const clone = await inject(world.app, "GET", `/api/agent/${world.a.agentId}/clone?key=${encodeURIComponent(key)}`, world.b.adminToken);
    counter.count("capability route", "GET /api/agent/:id/clone");
    expect(clone.statusCode, clone.body).toBe(200);
    const copy = (clone.json() as { data: Record<string, unknown> & { id: string } }).data;
    expect(copy.id).not.toBe(world.a.agentId);
    expect(clone.body).not.toContain(world.a.fileId);
    expect(clone.body).not.toContain("+14155550199");
    expect((await inject(world.app, "GET", `/api/agent/${copy.id}`, world.b.adminToken)).statusCode).toBe(200);
    expect((await inject(world.app, "GET", `/api/agent/${copy.id}`, world.a.adminToken)).statusCode).toBe(404);
    expect((await inject(world.app, "GET", `/api/agent/${world.a.agentId}`, world.a.adminToken)).body).toBe(beforeA.body);
    const page = await inject(world.app, "GET", `/api/webcall/public/${world.a.webCallSlug}`, null);
    counter.count("capability route", "GET /api/webcall/public/:slug");
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(world.a.orgId);
    // A's sandbox web call is not B's to end through B's link, nor anyone's through a made-up slug.
    const before = await snapshot(world.db);
    for (const slug of [world.b.webCallSlug, MADE_UP.webCallSlug]) {
      const end = await inject(world.app, "POST", `/api/webcall/public/${slug}/call/${world.a.webCallCallId}/end`, null, {});
      counter.count("capability route", "POST /api/webcall/public/:slug/call/:callId/end");
      expect(end.statusCode).toBe(404);
      expect(end.body).not.toContain(A_MARKER);
    }
    expect(await snapshot(world.db)).toEqual(before);
  });
});
