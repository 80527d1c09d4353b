/**
 * The security suite's world: the real app on a migrated database, two organisations (A, the victim,
 * and B, the other one) each holding one real record of every kind the API has, the route table, and
 * a snapshot of the whole database to prove that a refused request wrote nothing.
 *
 * Route parameters are mapped to real ids here (PARAM_IDS): a route whose parameter is not mapped
 * fails the suite with a message naming it, so a new route cannot slip past the cross-organisation cases.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { Agent } from "../../contract";
import { INTEGRATION_KINDS, type IntegrationKind } from "../../contract/order-shared";
import { orgScope } from "../../server/data/orgScope";
import type { Database, Db } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import type { RouteTableEntry } from "../../server/plugins/auth";
import { WEBHOOK_SECRET } from "../server/calls-fixtures";
import { startFakeGoogle, type FakeGoogle } from "../server/fakes/google";
import { addMember, bearer, buildTestApp, createOrganisation, invite, migratedDatabase, signUp, uniqueEmail } from "../server/helpers";

export { WEBHOOK_SECRET };
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
export const routeKey = (route: Pick<RouteTableEntry, "method" | "url">) => `${route.method} ${route.url}`;

/** The parameters of a route pattern, in order ("/api/agent/:id/clone" → ["id"]). */
export const paramsOf = (url: string) => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);

/** A marker in every text organisation A writes, so a leak shows up in any answer by plain search. */
export const A_MARKER = "alpha-secret-7f3a";

export interface OrgRecords {
  orgId: string;
  adminToken: string;
  memberToken: string;
  agentId: string;
  publicAgentId: string;
  phoneNumberId: string;
  callId: string;
  fileId: string;
  webCallId: string;
  webCallSlug: string;
  /** A sandbox web call of the link (ended), for POST /webcall/public/{slug}/call/{callId}/end. */
  webCallCallId: string;
  invitedEmail: string;
  /** A draft campaign with one contact (deletable by the admin, as a finished one would be). */
  campaignId: string;
  /** An entry on the organisation's do-not-call list. */
  dncId: string;
  /** A booked appointment of the agent, in a calendar with saved rules. */
  appointmentId: string;
  /** The organisation's Google Calendar connection (made through the OAuth flow against the stand-in). */
  calendarConnectionId: string;
  /** The secret token of the organisation's ICS feed (GET /calendar/feed/{token}.ics). */
  calendarFeedToken: string;
  /** A Google code and state the admin has not used yet, for POST /calendar/google/callback. */
  googleCallback: { code: string; state: string };
  /** Billing (payments): a paid sandbox top-up (refundable), its receipt, and an open sandbox checkout. */
  topUpId: string;
  documentId: string;
  checkoutSessionId: string;
  /** Store integrations, one of each kind, with the secrets their stores sign with (shown once, at creation). */
  integrations: Record<IntegrationKind, { id: string; secret: string }>;
  /** Another generic integration, the one DELETE /integration/{id} removes (the others stay for the routes after it). */
  spareIntegrationId: string;
  /** An order (open, with consent) under follow-up settings saved with automatic follow-up off (nothing dials it). */
  orderId: string;
}

/**
 * What a route's parameter names, keyed "<first path segment after /api>:<param>". Add a line here
 * when a route with a new parameter appears (the suite fails until you do).
 */
export const PARAM_IDS: Record<string, (records: OrgRecords) => string> = {
  "agent:id": (r) => r.agentId,
  "phonenumber:id": (r) => r.phoneNumberId,
  "call:id": (r) => r.callId,
  "file:id": (r) => r.fileId,
  "webcall:id": (r) => r.webCallId,
  "webcall:slug": (r) => r.webCallSlug,
  "webcall:callId": (r) => r.webCallCallId,
  "organization:organizationId": (r) => r.orgId,
  "campaign:id": (r) => r.campaignId,
  "dnc:id": (r) => r.dncId,
  "appointment:id": (r) => r.appointmentId,
  "calendar:id": (r) => r.calendarConnectionId,
  "calendar:token": (r) => r.calendarFeedToken,
  "integration:id": (r) => r.integrations.generic.id,
  "order:id": (r) => r.orderId,
};

/**
 * Parameters of routes that share a first segment but name different things, keyed "<route pattern>#<param>"
 * (looked up first), or "<METHOD> <route pattern>#<param>" for one method only (looked up before that).
 */
export const ROUTE_PARAM_IDS: Record<string, (records: OrgRecords) => string> = {
  "/api/billing/top-up/:id#id": (r) => r.topUpId,
  "/api/billing/top-up/:id/refund#id": (r) => r.topUpId,
  "/api/billing/documents/:id#id": (r) => r.documentId,
  "/api/billing/sandbox/checkout/:id#id": (r) => r.checkoutSessionId,
  "/api/billing/sandbox/checkout/:id/pay#id": (r) => r.checkoutSessionId,
  "/api/billing/sandbox/checkout/:id/cancel#id": (r) => r.checkoutSessionId,
  // The store webhooks: each kind's path names an integration of that kind.
  "/api/webhooks/shopify/:integrationId#integrationId": (r) => r.integrations.shopify.id,
  "/api/webhooks/woocommerce/:integrationId#integrationId": (r) => r.integrations.woocommerce.id,
  "/api/webhooks/store/:integrationId#integrationId": (r) => r.integrations.generic.id,
  "DELETE /api/integration/:id#id": (r) => r.spareIntegrationId,
};

const resourceOf = (url: string) => url.replace(/^\/api\//, "").split("/")[0] ?? "";

/** The concrete path of a route for an organisation's records; throws, naming the route, on an unmapped parameter. */
export function pathFor(route: Pick<RouteTableEntry, "method" | "url">, records: OrgRecords): string {
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_whole, param: string) => {
    const key = `${resourceOf(route.url)}:${param}`;
    const id = ROUTE_PARAM_IDS[`${route.method} ${route.url}#${param}`] ?? ROUTE_PARAM_IDS[`${route.url}#${param}`] ?? PARAM_IDS[key];
    if (!id) {
      throw new Error(`security suite: route ${routeKey(route)} has parameter :${param} (key "${key}") with no real id mapped: add it to PARAM_IDS in tests/security/world.ts`);
    }
    return encodeURIComponent(id(records));
  });
}

export interface World {
  app: FastifyInstance;
  database: Database;
  db: Db;
  a: OrgRecords;
  b: OrgRecords;
  routes: RouteTableEntry[];
  close(): Promise<void>;
}

export async function inject(app: FastifyInstance, method: string, url: string, token: string | null, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method: method as Method, url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function created<T>(response: LightMyRequestResponse, what: string): Promise<T> {
  expect(response.statusCode, `${what}: ${response.body}`).toBeLessThan(300);
  return (response.json() as { data: T }).data;
}

function multipartFile(name: string, type: string, content: string) {
  const boundary = `----security${randomUUID().replace(/-/g, "")}`;
  const payload =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** One organisation with an admin, a member and one record of every kind, named with `marker`. */
export async function populateOrganisation(app: FastifyInstance, db: Db, marker: string, google: FakeGoogle): Promise<OrgRecords> {
  const admin = await signUp(app, uniqueEmail(`${marker}-admin`));
  const orgId = await createOrganisation(app, admin.token, `Org ${marker} ${randomUUID().slice(0, 6)}`);
  const memberToken = (await addMember(app, admin.token, orgId, uniqueEmail(`${marker}-member`))).token;
  const invitedEmail = uniqueEmail(`${marker}-invited`);
  expect((await invite(app, admin.token, orgId, { email_address: invitedEmail })).statusCode).toBe(200);

  const upload = multipartFile(`${marker}-notes.txt`, "text/plain", `knowledge of ${marker}`);
  const file = await created<{ id: string }>(
    await app.inject({ method: "POST", url: "/api/file/upload", headers: { ...bearer(admin.token), ...upload.headers }, payload: upload.payload }),
    "file upload",
  );
  const agent = await created<Agent>(
    await inject(app, "POST", "/api/agent/", admin.token, {
      agent_name: `${marker} private agent`,
      description: `${marker} description`,
      knowledge_base_files: [file.id],
      forward_phone_number: "+14155550199",
    }),
    "agent",
  );
  const publicAgent = await created<Agent>(
    await inject(app, "POST", "/api/agent/", admin.token, { agent_name: `${marker} public agent`, is_public: true }),
    "public agent",
  );
  const phone = await created<{ id: string }>(
    await inject(app, "POST", "/api/phonenumber/", admin.token, { name: `${marker} line`, provider: "vapi", area_code: "415", agent_id: agent.id }),
    "phone number",
  );
  const link = await created<{ id: string; slug: string }>(
    await inject(app, "POST", "/api/webcall/", admin.token, { agent_id: agent.id, call_title: `${marker} call`, recipient_name: `${marker} recipient` }),
    "web-call link",
  );
  // A finished call, written as the webhook ingest would leave it (placing one would start the sandbox's timers).
  const callId = randomUUID();
  await orgScope(db, orgId).insert(calls, {
    id: callId,
    type: "outbound",
    status: "ended",
    agentId: agent.id,
    phoneNumberId: phone.id,
    customerNumber: "+14155550100",
    customerName: `${marker} customer`,
    providerCallId: `vapi-${randomUUID()}`,
  });
  // The link's sandbox web call, ended, as POST /webcall/public/{slug}/call and …/end leave it.
  const webCallCallId = randomUUID();
  await orgScope(db, orgId).insert(calls, {
    id: webCallCallId,
    type: "web",
    status: "ended",
    agentId: agent.id,
    customerName: `${marker} recipient`,
    providerCallId: `sandbox-web-${webCallCallId}`,
    isSandbox: true,
  });
  const campaign = await created<{ id: string }>(
    await inject(app, "POST", "/api/campaign/", admin.token, {
      name: `${marker} campaign`,
      agent_id: agent.id,
      phone_number_id: phone.id,
      schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }], fallback_timezone: "America/New_York" },
    }),
    "campaign",
  );
  await created(
    await inject(app, "POST", `/api/campaign/${campaign.id}/contacts`, admin.token, { contacts: [{ number: "+12125550100", name: `${marker} contact`, variables: { note: marker } }] }),
    "campaign contacts",
  );
  const dnc = await created<{ entry: { id: string } }>(
    await inject(app, "POST", "/api/dnc/", admin.token, { number: "+12125550111", reason: `${marker} asked not to be called` }),
    "do-not-call entry",
  );
  await created(
    await inject(app, "PUT", "/api/availability/", admin.token, {
      timezone: "America/New_York",
      weekly: [{ day: "mon", start: "09:00", end: "17:00" }],
      slot_minutes: 30,
      max_days_ahead: 60,
      closed_dates: ["2030-12-25"],
    }),
    "availability",
  );
  const appointment = await created<{ id: string }>(
    await inject(app, "POST", "/api/appointment/", admin.token, {
      title: `${marker} appointment`,
      start: "2030-01-07T15:00:00Z",
      end: "2030-01-07T15:30:00Z",
      customer_name: `${marker} customer`,
      customer_number: "+14155550142",
      customer_email: "customer@example.com",
      notes: `${marker} notes`,
      agent_id: agent.id,
    }),
    "appointment",
  );
  // Google Calendar, connected the way the console does it: connect, Google's consent page, callback.
  const googleConsent = async () =>
    google.approve((await created<{ url: string }>(await inject(app, "POST", "/api/calendar/google/connect", admin.token, {}), "Google connect")).url, {
      email: `${marker}@example.com`,
    });
  const firstConsent = await googleConsent();
  const connection = await created<{ id: string }>(
    await inject(app, "POST", "/api/calendar/google/callback", admin.token, { code: firstConsent.code, state: firstConsent.state }),
    "Google connection",
  );
  const unusedConsent = await googleConsent();
  const feed = await created<{ url: string }>(await inject(app, "GET", "/api/calendar/feed", admin.token), "calendar feed");
  // Billing: a sandbox top-up paid with the test card (credited, card saved, receipt written), and one left open.
  const topUp = await created<{ top_up_id: string; url: string }>(await inject(app, "POST", "/api/billing/top-up", admin.token, { amount_usd: 10 }), "top-up");
  const paidSession = new URL(topUp.url, "http://x").searchParams.get("checkout")!;
  await created(await inject(app, "POST", `/api/billing/sandbox/checkout/${paidSession}/pay`, admin.token, { card_number: "4242424242424242" }), "sandbox payment");
  await created(await inject(app, "PUT", "/api/billing/auto-reload", admin.token, { enabled: false, amount_usd: 20, threshold_usd: 5 }), "auto-reload");
  const documents = (await inject(app, "GET", "/api/billing/documents", admin.token)).json() as { data: Array<{ id: string }> };
  const open = await created<{ url: string }>(await inject(app, "POST", "/api/billing/top-up", admin.token, { amount_usd: 15 }), "open top-up");
  const integrations = {} as OrgRecords["integrations"];
  for (const kind of INTEGRATION_KINDS) {
    const integration = await created<{ id: string; secret: string }>(await inject(app, "POST", "/api/integration/", admin.token, { kind, name: `${marker} ${kind} store` }), `${kind} integration`);
    integrations[kind] = { id: integration.id, secret: integration.secret };
  }
  const spare = await created<{ id: string }>(await inject(app, "POST", "/api/integration/", admin.token, { kind: "generic", name: `${marker} old store` }), "spare integration");
  // Orders: follow-up set up but off (the suite never dials), and one order with consent.
  await created(await inject(app, "PUT", "/api/order/follow-up", admin.token, { enabled: false, agent_id: agent.id, phone_number_id: phone.id }), "follow-up settings");
  const order = await created<{ id: string }>(
    await inject(app, "POST", "/api/order/", admin.token, {
      reference: `${marker}-order-1001`,
      customer_name: `${marker} shopper`,
      customer_number: "+14155550177",
      customer_email: "shopper@example.com",
      items: [{ name: `${marker} mug`, quantity: 2, price: 12 }],
      total: 24,
      currency: "USD",
      checkout_url: "https://shop.example.com/cart/1001",
      call_consent: { given: true, source: "checkout checkbox" },
    }),
    "order",
  );
  return {
    orgId,
    adminToken: admin.token,
    memberToken,
    agentId: agent.id,
    publicAgentId: publicAgent.id,
    phoneNumberId: phone.id,
    callId,
    fileId: file.id,
    webCallId: link.id,
    webCallSlug: link.slug,
    webCallCallId,
    invitedEmail,
    campaignId: campaign.id,
    dncId: dnc.entry.id,
    appointmentId: appointment.id,
    calendarConnectionId: connection.id,
    calendarFeedToken: decodeURIComponent(/\/calendar\/feed\/([^/]+)\.ics$/.exec(feed.url)![1]!),
    googleCallback: { code: unusedConsent.code, state: unusedConsent.state },
    topUpId: topUp.top_up_id,
    documentId: documents.data[0]!.id,
    checkoutSessionId: new URL(open.url, "http://x").searchParams.get("checkout")!,
    integrations,
    spareIntegrationId: spare.id,
    orderId: order.id,
  };
}

/** The app (local accounts, sandbox voice, Google Calendar against its stand-in) with organisations A and B populated. */
export async function buildWorld(env: Record<string, string> = {}): Promise<World> {
  const database = await migratedDatabase();
  const google = await startFakeGoogle();
  const { app } = await buildTestApp(database, {
    ...google.env,
    VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
    // The suite sends thousands of requests from one address: the per-IP limits would answer 429 to
    // everything after the first few hundred and hide what the routes themselves do.
    RATE_LIMIT_PER_MINUTE: "1000000",
    PUBLIC_CALL_PER_IP_PER_MINUTE: "1000000",
    ...env,
  });
  await app.ready();
  const a = await populateOrganisation(app, database.db, A_MARKER, google);
  const b = await populateOrganisation(app, database.db, "bravo", google);
  // Connecting Google writes upcoming appointments there in the background: done before any snapshot.
  await app.googleCalendar?.settle();
  return {
    app,
    database,
    db: database.db,
    a,
    b,
    routes: app.routeTable.filter((route) => route.url !== "/api/auth/*" && !route.url.startsWith("/api/docs")),
    async close() {
      await app.close();
      await database.close();
      await google.close();
    },
  };
}

/**
 * Tables a refused request may legitimately change, left out of the snapshot:
 * - sessions: verifying a bearer token lets better-auth refresh the session's expiry/updated_at
 *   (a sliding session), which is bookkeeping about the caller, not the caller's effect on data;
 * - verifications: better-auth's short-lived verification tokens, written by its own flows.
 */
export const SNAPSHOT_EXCLUDED = new Set(["sessions", "verifications"]);

export type Snapshot = Record<string, { rows: number; hash: string }>;

/** Row count and a hash of every row of every table (but SNAPSHOT_EXCLUDED), across all organisations, in one query. */
export async function snapshot(db: Db): Promise<Snapshot> {
  if (!snapshotQuery) {
    const tables = (await db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
    )) as unknown as { rows: Array<{ table_name: string }> };
    snapshotQuery = tables.rows
      .map((row) => row.table_name)
      .filter((name) => !SNAPSHOT_EXCLUDED.has(name))
      .map((name) => `select '${name}' as name, count(*)::int as n, md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) as h from "${name}" t`)
      .join(" union all ");
  }
  const { rows } = (await db.execute(sql.raw(snapshotQuery))) as unknown as { rows: Array<{ name: string; n: number; h: string }> };
  return Object.fromEntries(rows.map((row) => [row.name, { rows: row.n, hash: row.h.slice(0, 16) }]));
}
let snapshotQuery: string | null = null;

/**
 * A cheap first look for the fuzzers, which compare the database before and after each of ~17,000 requests: a
 * counter (schema fuzz_guard, outside the snapshot's public tables) that row-level triggers on every snapshot
 * table raise on each committed INSERT, UPDATE or DELETE (TRUNCATE too). A rolled-back write leaves it as it
 * was. While it has not moved, nothing in those tables changed and the full snapshot need not be taken; when
 * it has, the caller takes the snapshot and compares hashes as before (an UPDATE to the same values moves the
 * counter but not the hash, and still counts as unchanged). Installed once per database.
 */
export async function installChangeCounter(db: Db): Promise<() => Promise<number>> {
  const tables = (await db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  )) as unknown as { rows: Array<{ table_name: string }> };
  const statements = [
    "create schema if not exists fuzz_guard",
    "create table if not exists fuzz_guard.changes (n bigint not null)",
    "insert into fuzz_guard.changes (n) select 0 where not exists (select 1 from fuzz_guard.changes)",
    "create or replace function fuzz_guard.count_change() returns trigger language plpgsql as $$ begin update fuzz_guard.changes set n = n + 1; return null; end $$",
  ];
  for (const { table_name: name } of tables.rows) {
    if (SNAPSHOT_EXCLUDED.has(name)) continue;
    statements.push(
      `drop trigger if exists fuzz_guard_rows on "${name}"`,
      `create trigger fuzz_guard_rows after insert or update or delete on "${name}" for each row execute function fuzz_guard.count_change()`,
      `drop trigger if exists fuzz_guard_truncate on "${name}"`,
      `create trigger fuzz_guard_truncate after truncate on "${name}" for each statement execute function fuzz_guard.count_change()`,
    );
  }
  for (const statement of statements) await db.execute(sql.raw(statement));
  return async () => {
    const { rows } = (await db.execute(sql.raw("select n::text as n from fuzz_guard.changes"))) as unknown as { rows: Array<{ n: string }> };
    return Number(rows[0]!.n);
  };
}

/** An {detail, code} error body, as the design's API conventions require. */
export function isErrorBody(response: LightMyRequestResponse): boolean {
  if (!String(response.headers["content-type"] ?? "").includes("application/json")) return false;
  try {
    const body = response.json() as Record<string, unknown>;
    return typeof body.detail === "string" && body.detail.length > 0 && typeof body.code === "string" && body.code.length > 0;
  } catch {
    return false;
  }
}
