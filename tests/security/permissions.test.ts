/**
 * Roles, from the one permissions table (contract/permissions.ts) and the route table: every
 * non-public route is mapped to the (resource, action) it performs (a route missing here fails the
 * suite, naming it); the admin-only ones are those an admin may do and a member may not. A member on
 * each of them answers 403 {detail, code} and nothing changes; a member on everything else is not
 * refused by role; a signed-in person with no organisation is refused everywhere but the catalogues.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can, type Action, type Resource } from "../../contract";
import { signUp } from "../server/helpers";
import { tally } from "./tally";
import { buildWorld, inject, isErrorBody, pathFor, routeKey, snapshot, type OrgRecords, type World } from "./world";

const counter = tally(import.meta.filename);

/** What each non-public route does, in the permission table's terms; "signed-in" needs no organisation or role. */
const ROUTE_PERMISSIONS: Record<string, readonly [Resource, Action] | "signed-in"> = {
  "POST /api/organization/:organizationId/invite": ["organization", "invite"],
  "GET /api/organization/settings": ["organization", "show"],
  "PATCH /api/organization/settings": ["organization", "edit"],
  "GET /api/agent/": ["agent", "list"],
  "GET /api/agent/templates": ["agent", "list"],
  "POST /api/agent/template": ["agent", "create"],
  "POST /api/agent/": ["agent", "create"],
  "GET /api/agent/:id": ["agent", "show"],
  "PUT /api/agent/:id": ["agent", "edit"],
  "DELETE /api/agent/:id": ["agent", "delete"],
  "PUT /api/agent/:id/appointment-toggle": ["agent", "edit"],
  "GET /api/agent/:id/clone": ["agent", "create"],
  "GET /api/transcriber/": "signed-in",
  "GET /api/voice/": "signed-in",
  "GET /api/voice/models": "signed-in",
  "GET /api/llm/": "signed-in",
  "POST /api/file/upload": ["file", "create"],
  "GET /api/file/files": ["file", "list"],
  "DELETE /api/file/file/:id": ["file", "delete"],
  "GET /api/phonenumber/": ["phonenumber", "list"],
  "GET /api/phonenumber/default": ["phonenumber", "show"],
  "POST /api/phonenumber/": ["phonenumber", "create"],
  "GET /api/phonenumber/:id": ["phonenumber", "show"],
  "PUT /api/phonenumber/:id": ["phonenumber", "edit"],
  "DELETE /api/phonenumber/:id": ["phonenumber", "delete"],
  // A web-call link shares an agent: the agent permissions decide (server/routes/web-calls.ts).
  "POST /api/webcall/": ["agent", "edit"],
  "GET /api/webcall/": ["agent", "list"],
  "DELETE /api/webcall/:id": ["agent", "edit"],
  "GET /api/webcall/:id": ["agent", "show"],
  "GET /api/call/": ["call", "list"],
  "GET /api/call/export": ["call", "list"],
  "GET /api/call/:id": ["call", "show"],
  "POST /api/call/": ["call", "create"],
  "GET /api/wallet/": ["billing", "show"],
  "GET /api/dashboard/": ["dashboard", "list"],
  "GET /api/campaign/": ["campaign", "list"],
  "POST /api/campaign/": ["campaign", "create"],
  "GET /api/campaign/:id": ["campaign", "show"],
  "PUT /api/campaign/:id": ["campaign", "edit"],
  "DELETE /api/campaign/:id": ["campaign", "delete"],
  "POST /api/campaign/:id/start": ["campaign", "edit"],
  "POST /api/campaign/:id/pause": ["campaign", "edit"],
  "POST /api/campaign/:id/resume": ["campaign", "edit"],
  "POST /api/campaign/:id/cancel": ["campaign", "edit"],
  "GET /api/campaign/:id/contacts": ["campaign", "show"],
  "POST /api/campaign/:id/contacts": ["campaign", "edit"],
  "GET /api/campaign/:id/export": ["campaign", "show"],
  "GET /api/campaign/:id/progress": ["campaign", "show"],
  "GET /api/campaign/:id/events": ["campaign", "show"],
  // The do-not-call list belongs to campaigns in the permission table.
  "GET /api/dnc/": ["campaign", "list"],
  "POST /api/dnc/": ["campaign", "create"],
  "DELETE /api/dnc/:id": ["campaign", "delete"],
  // The calendar (issue 14): its rules are the calendar's (members read, admins change); DELETE cancels an appointment.
  "GET /api/availability/": ["calendar", "show"],
  "PUT /api/availability/": ["calendar", "edit"],
  "GET /api/availability/slots": ["calendar", "show"],
  "GET /api/appointment/": ["appointment", "list"],
  "POST /api/appointment/": ["appointment", "create"],
  "GET /api/appointment/:id": ["appointment", "show"],
  "PUT /api/appointment/:id": ["appointment", "edit"],
  "DELETE /api/appointment/:id": ["appointment", "delete"],
  // Outside calendars and the ICS feed's secret address: members look, admins manage (server/routes/calendar.ts).
  "GET /api/calendar/connections": ["calendar", "list"],
  "DELETE /api/calendar/connections/:id": ["calendar", "manage"],
  "POST /api/calendar/google/connect": ["calendar", "manage"],
  "POST /api/calendar/google/callback": ["calendar", "manage"],
  "GET /api/calendar/feed": ["calendar", "manage"],
  "POST /api/calendar/feed/rotate": ["calendar", "manage"],
  // Billing (issue 15, ledger work): members read it all; admins change the spend caps.
  "GET /api/billing/": ["billing", "show"],
  "GET /api/billing/ledger": ["billing", "list"],
  "GET /api/billing/ledger/export": ["billing", "list"],
  "GET /api/billing/usage": ["billing", "show"],
  "GET /api/billing/spend-caps": ["billing", "list"],
  "PUT /api/billing/spend-caps": ["billing", "edit"],
  // Plans and the subscription (issue 15): members read, admins change the plan and open the provider's portal.
  "GET /api/subscription/plans": ["subscription", "list"],
  "GET /api/subscription/": ["subscription", "show"],
  "GET /api/subscription/preview": ["subscription", "show"],
  "POST /api/subscription/change": ["subscription", "edit"],
  "POST /api/subscription/portal": ["subscription", "manage"],
  "POST /api/billing/top-up": ["billing", "edit"],
  "GET /api/billing/top-up/:id": ["billing", "show"],
  "POST /api/billing/top-up/:id/refund": ["billing", "edit"],
  "PUT /api/billing/auto-reload": ["billing", "edit"],
  "POST /api/billing/auto-reload/confirm": ["billing", "edit"],
  "GET /api/billing/documents": ["billing", "list"],
  "GET /api/billing/documents/:id": ["billing", "show"],
  "DELETE /api/billing/card": ["billing", "edit"],
  "POST /api/billing/portal": ["billing", "edit"],
  "GET /api/billing/sandbox/checkout/:id": ["billing", "show"],
  "POST /api/billing/sandbox/checkout/:id/pay": ["billing", "edit"],
  "POST /api/billing/sandbox/checkout/:id/cancel": ["billing", "edit"],
  // Store integrations (issue 16): members look, admins manage them ("manage" on orders).
  "GET /api/integration/": ["order", "list"],
  "POST /api/integration/": ["order", "manage"],
  "GET /api/integration/:id": ["order", "show"],
  "PUT /api/integration/:id": ["order", "manage"],
  "DELETE /api/integration/:id": ["order", "manage"],
  "POST /api/integration/:id/rotate-secret": ["order", "manage"],
  // Orders (issue 16): members list, add, import, edit, call now and stop; admins also delete, mark paid and change the follow-up settings.
  "GET /api/order/": ["order", "list"],
  "POST /api/order/": ["order", "create"],
  "GET /api/order/stats": ["order", "list"],
  "GET /api/order/follow-up": ["order", "show"],
  "PUT /api/order/follow-up": ["order", "manage"],
  "POST /api/order/import": ["order", "create"],
  "GET /api/order/:id": ["order", "show"],
  "PUT /api/order/:id": ["order", "edit"],
  "DELETE /api/order/:id": ["order", "delete"],
  "POST /api/order/:id/call": ["order", "edit"],
  "POST /api/order/:id/stop": ["order", "edit"],
  "POST /api/order/:id/paid": ["order", "manage"],
  "GET /api/order/:id/timeline": ["order", "show"],
};

/** Bodies that pass validation, so a 403 is the role's doing and not a 400 in disguise. */
const VALID_BODIES: Record<string, (r: OrgRecords) => unknown> = {
  "POST /api/organization/:organizationId/invite": () => ({ email_address: "newcomer@example.com" }),
  "PATCH /api/organization/settings": () => ({ timezone: "Europe/Berlin" }),
  "PUT /api/phonenumber/:id": () => ({ name: "renamed" }),
  "POST /api/campaign/": (r) => ({ name: "Another campaign", agent_id: r.agentId, schedule: { windows: [{ days: ["mon"], start: "09:00", end: "17:00" }] } }),
  "PUT /api/campaign/:id": () => ({ name: "renamed" }),
  "POST /api/campaign/:id/start": () => ({}),
  "POST /api/campaign/:id/pause": () => ({}),
  "POST /api/campaign/:id/resume": () => ({}),
  "POST /api/campaign/:id/cancel": () => ({}),
  "POST /api/campaign/:id/contacts": () => ({ contacts: [{ number: "+12125550123" }] }),
  "POST /api/dnc/": () => ({ number: "+12125550124", reason: "asked" }),
  "PUT /api/availability/": () => ({ timezone: "Europe/Berlin", weekly: [{ day: "tue", start: "10:00", end: "12:00" }], slot_minutes: 15, max_days_ahead: 30 }),
  "POST /api/appointment/": () => ({ title: "Another appointment", start: "2030-01-08T15:00:00Z", end: "2030-01-08T15:30:00Z" }),
  "PUT /api/appointment/:id": () => ({ notes: "changed" }),
  "POST /api/calendar/google/connect": () => ({}),
  "POST /api/calendar/google/callback": (r) => r.googleCallback,
  "POST /api/calendar/feed/rotate": () => ({}),
  "PUT /api/billing/spend-caps": () => ({ caps: [{ scope: "organization", period: "day", limit_usd: 5 }] }),
  "POST /api/subscription/change": () => ({ plan: "pro" }),
  "POST /api/subscription/portal": () => ({}),
  "POST /api/billing/top-up": () => ({ amount_usd: 10 }),
  "POST /api/billing/top-up/:id/refund": () => ({}),
  "PUT /api/billing/auto-reload": () => ({ enabled: false, amount_usd: 20, threshold_usd: 5 }),
  "POST /api/billing/sandbox/checkout/:id/pay": () => ({ card_number: "4242424242424242" }),
  "POST /api/integration/": () => ({ kind: "generic", name: "Another store" }),
  "PUT /api/integration/:id": () => ({ name: "renamed" }),
  "POST /api/integration/:id/rotate-secret": () => ({}),
  // The admin-only loop deletes the agent and the number before it gets here: settings without them (follow-up off) still save.
  "PUT /api/order/follow-up": () => ({ enabled: false, delay_minutes: 45 }),
  "POST /api/order/:id/paid": () => ({}),
  "POST /api/order/": () => ({ reference: "member-order", customer_number: "+14155550178", total: 10, call_consent: { given: true } }),
  "POST /api/order/import": () => ({ orders: [{ reference: "member-import", customer_number: "+14155550179", total: 10 }] }),
  "PUT /api/order/:id": () => ({ customer_name: "renamed" }),
};

let world: World;
beforeAll(async () => {
  world = await buildWorld();
});
afterAll(() => world?.close());

const protectedRoutes = () => world.routes.filter((route) => !route.public);
const adminOnly = () =>
  protectedRoutes().filter((route) => {
    const permission = ROUTE_PERMISSIONS[routeKey(route)];
    return Array.isArray(permission) && can("org:admin", permission[0], permission[1]) && !can("org:member", permission[0], permission[1]);
  });

describe("roles", () => {
  it("every non-public route is mapped to a permission", () => {
    const unmapped = protectedRoutes()
      .map(routeKey)
      .filter((key) => !ROUTE_PERMISSIONS[key])
      .map((key) => `security suite: route ${key} is not mapped to a (resource, action): add it to ROUTE_PERMISSIONS in tests/security/permissions.test.ts`);
    expect(unmapped).toEqual([]);
  });

  it("a member on every admin-only action answers 403 {detail, code: forbidden} and changes nothing", async () => {
    const routes = adminOnly();
    expect(routes.map(routeKey)).toEqual(expect.arrayContaining(["DELETE /api/phonenumber/:id", "POST /api/organization/:organizationId/invite"]));
    const before = await snapshot(world.db);
    const wrong: unknown[] = [];
    for (const route of routes) {
      const response = await inject(world.app, route.method, pathFor(route, world.a), world.a.memberToken, VALID_BODIES[routeKey(route)]?.(world.a));
      counter.count("member on admin-only → 403", routeKey(route));
      if (response.statusCode !== 403 || !isErrorBody(response) || (response.json() as { code: string }).code !== "forbidden") {
        wrong.push({ route: routeKey(route), status: response.statusCode, body: response.body });
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("a member is not refused by role on reads the table allows", async () => {
    const wrong: unknown[] = [];
    for (const route of protectedRoutes().filter((r) => r.method === "GET" && !adminOnly().includes(r))) {
      const response = await inject(world.app, "GET", pathFor(route, world.a), world.a.memberToken);
      counter.count("member on allowed read ≠ 403", routeKey(route));
      if (response.statusCode === 403 && !routeKey(route).endsWith("/clone")) wrong.push({ route: routeKey(route), body: response.body });
    }
    expect(wrong).toEqual([]);
  });

  it("someone with no organisation is refused (403 organization_required) on every organisation route", async () => {
    const { token } = await signUp(world.app);
    const before = await snapshot(world.db);
    const wrong: unknown[] = [];
    for (const route of protectedRoutes()) {
      const permission = ROUTE_PERMISSIONS[routeKey(route)];
      const response = await inject(world.app, route.method, pathFor(route, world.a), token, route.method === "GET" || route.method === "DELETE" ? undefined : VALID_BODIES[routeKey(route)]?.(world.a) ?? {});
      counter.count("no organisation → 403", routeKey(route));
      const expected = permission === "signed-in" ? 200 : 403;
      // A body the route refuses (400) before looking at the organisation is fine too: nothing is reached.
      if (response.statusCode !== expected && !(expected === 403 && response.statusCode === 400)) {
        wrong.push({ route: routeKey(route), status: response.statusCode, body: response.body.slice(0, 200) });
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("the admin may do the admin-only actions (the 403s above are the role's doing)", async () => {
    for (const route of adminOnly()) {
      const response = await inject(world.app, route.method, pathFor(route, world.a), world.a.adminToken, VALID_BODIES[routeKey(route)]?.(world.a));
      // 2xx: starting a top-up (POST /api/billing/top-up, …/auto-reload/confirm) answers 201.
      expect({ route: routeKey(route), status: response.statusCode === 201 ? 200 : response.statusCode }).toEqual({ route: routeKey(route), status: 200 });
    }
  });
});
