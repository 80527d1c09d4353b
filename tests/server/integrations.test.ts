/**
 * /api/integration: the organisation's store connections. The secret is shown once (creation, rotation)
 * and sealed at rest; rotation stops the old one at once; members read, admins manage; another
 * organisation's integration is a 404; deleting keeps the orders.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTEGRATIONS_MAX, type Integration, type Order } from "../../contract/order";
import { FOLLOW_UP_NOT_SET_DETAIL, localTimeText } from "../../server/orders/follow-up";
import type { Database } from "../../server/db/client";
import { campaignContacts, campaigns, orders, storeIntegrations } from "../../server/db/schema";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, organisationCast, signUp } from "./helpers";
import { STORE_WEBHOOK_PATHS, createIntegration, genericCheckout, genericHeaders, postStoreWebhook, shopifyCheckout, shopifyHeaders } from "./store-fixtures";

let database: Database;
let app: FastifyInstance;
let cast: Awaited<ReturnType<typeof organisationCast>>;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { PUBLIC_URL: "https://voice.example.com" }));
  cast = await organisationCast(app, "Integrations Ltd");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const api = (token: string, method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
  app.inject({ method, url: `/api${url}`, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });

describe("creating and reading", () => {
  it("answers 201 with the webhook URL and the secret, which no other answer carries", async () => {
    const response = await api(cast.adminToken, "POST", "/integration/", { kind: "woocommerce", name: "  My shop  " });
    expect(response.statusCode, response.body).toBe(201);
    const created = (response.json() as { data: Integration & { secret: string } }).data;
    expect(created).toEqual({
      id: expect.any(String),
      kind: "woocommerce",
      name: "My shop",
      webhook_url: `https://voice.example.com/api/webhooks/woocommerce/${created.id}`,
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      secret_hint: created.secret.slice(-4),
      is_demo: false,
      follow_up: null,
      orders: 0,
      last_delivery_at: null,
      secret_rotated_at: null,
      created_at: expect.any(String),
    });
    const [row] = await database.db.select().from(storeIntegrations).where(eq(storeIntegrations.id, created.id));
    expect(row!.secretSealed).not.toContain(created.secret);

    for (const token of [cast.adminToken, cast.memberToken]) {
      const one = await api(token, "GET", `/integration/${created.id}`);
      expect(one.statusCode).toBe(200);
      expect(one.body).not.toContain(created.secret);
      expect(one.json()).toEqual({ data: { ...created, secret: undefined } });
      const list = await api(token, "GET", "/integration/");
      expect(list.body).not.toContain(created.secret);
      expect(list.json()).toMatchObject({ data: expect.arrayContaining([expect.objectContaining({ id: created.id })]), page: 1, limit: 20 });
    }
  });

  it("each kind gets its own webhook path; Shopify's signing key can be given as the secret", async () => {
    const shopKey = "4f1c8e2a9b7d6c5e3f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e";
    const shopify = await createIntegration(app, cast.adminToken, { kind: "shopify", name: "Shopify", secret: shopKey });
    expect(shopify).toMatchObject({ secret: shopKey, secret_hint: "0d9e", webhook_url: `https://voice.example.com/api/webhooks/shopify/${shopify.id}` });
    const generic = await createIntegration(app, cast.adminToken, { kind: "generic", name: "Own store" });
    expect(generic.webhook_url).toBe(`https://voice.example.com/api/webhooks/store/${generic.id}`);
    // Deliveries verify with the key given.
    const body = JSON.stringify(shopifyCheckout({ token: randomUUID(), updated_at: new Date().toISOString() }));
    expect((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), body, shopifyHeaders(body, shopKey, "checkouts/create"))).statusCode).toBe(200);
    expect((await api(cast.adminToken, "GET", `/integration/${shopify.id}`)).json()).toMatchObject({ data: { orders: 1, last_delivery_at: expect.any(String) } });
  });

  it.each([
    [{ kind: "magento", name: "x" }, /kind: must be one of shopify, woocommerce, generic/],
    [{ kind: "shopify" }, /name: is required/],
    [{ kind: "shopify", name: "x", secret: "short" }, /secret: .*at least 16/],
    [{ kind: "shopify", name: "x", secret: "has spaces in the middle of it" }, /secret: .*printable ASCII/],
    [{ kind: "shopify", name: "x", is_demo: true }, /is_demo: is not a known field/],
  ])("%j answers 400 naming the field", async (body, detail) => {
    const response = await api(cast.adminToken, "POST", "/integration/", body);
    expect(response.statusCode).toBe(400);
    expect((response.json() as { detail: string }).detail).toMatch(detail);
  });

  it(`stops at ${INTEGRATIONS_MAX} integrations per organisation (409)`, async () => {
    const adminToken = (await signUp(app)).token;
    const orgId = await createOrganisation(app, adminToken, "Many Shops Ltd");
    for (let i = 0; i < INTEGRATIONS_MAX; i++) await createIntegration(app, adminToken, { kind: "generic", name: `Shop ${i}` });
    const response = await api(adminToken, "POST", "/integration/", { kind: "generic", name: "One too many" });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: "conflict", detail: expect.stringContaining(String(INTEGRATIONS_MAX)) });
    expect((await database.db.select().from(storeIntegrations).where(eq(storeIntegrations.orgId, orgId))).length).toBe(INTEGRATIONS_MAX);
  });
});

describe("changing", () => {
  it("rotation shows the new secret once; the old one stops verifying at once", async () => {
    const created = await createIntegration(app, cast.adminToken, { kind: "generic", name: "Rotating" });
    const url = STORE_WEBHOOK_PATHS.generic(created.id);
    const send = (secret: string) => {
      const body = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
      return postStoreWebhook(app, url, body, genericHeaders(body, secret));
    };
    expect((await send(created.secret)).statusCode).toBe(200);

    const rotated = await api(cast.adminToken, "POST", `/integration/${created.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const data = (rotated.json() as { data: Integration & { secret: string } }).data;
    expect(data.secret).not.toBe(created.secret);
    expect(data).toMatchObject({ secret_hint: data.secret.slice(-4), secret_rotated_at: expect.any(String) });
    expect((await send(created.secret)).statusCode).toBe(401);
    expect((await send(data.secret)).statusCode).toBe(200);

    const given = await api(cast.adminToken, "POST", `/integration/${created.id}/rotate-secret`, { secret: "the-store-made-this-key-0001" });
    expect(given.json()).toMatchObject({ data: { secret: "the-store-made-this-key-0001", secret_hint: "0001" } });
    expect((await send(data.secret)).statusCode).toBe(401);
  });

  it("PUT renames; a refused follow_up changes nothing, the name included", async () => {
    const created = await createIntegration(app, cast.adminToken, { kind: "shopify", name: "Old name" });
    const renamed = await api(cast.adminToken, "PUT", `/integration/${created.id}`, { name: "New name", follow_up: null });
    expect(renamed.json()).toMatchObject({ data: { id: created.id, name: "New name", follow_up: null } });
    const refused = await api(cast.adminToken, "PUT", `/integration/${created.id}`, { name: "Newer name", follow_up: { enabled: true, agent_id: null } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ detail: expect.stringMatching(/^agent_id:/) });
    expect((await api(cast.adminToken, "GET", `/integration/${created.id}`)).json()).toMatchObject({ data: { name: "New name", follow_up: null } });
  });

  it("an integration's own follow-up dials its orders; null hands them back to the organisation's (the orders core's removeIntegrationFollowUp)", async () => {
    const adminToken = (await signUp(app)).token;
    const orgId = await createOrganisation(app, adminToken, "Own Follow-up Ltd");
    const agent = (await api(adminToken, "POST", "/agent/", { agent_name: "Closer" })).json() as { data: { id: string } };
    const number = (await api(adminToken, "POST", "/phonenumber/", { name: "Line", provider: "vapi", area_code: "415" })).json() as { data: { id: string } };
    const store = await createIntegration(app, adminToken, { kind: "generic", name: "Night shop" });
    const settings = { enabled: true, agent_id: agent.data.id, phone_number_id: number.data.id, delay_minutes: 5 };

    const own = await api(adminToken, "PUT", `/integration/${store.id}`, { follow_up: settings });
    expect(own.statusCode, own.body).toBe(200);
    const ownFollowUp = (own.json() as { data: Integration }).data.follow_up!;
    expect(ownFollowUp).toMatchObject({ enabled: true, agent_id: agent.data.id, delay_minutes: 5, state: "running", campaign_id: expect.any(String) });

    const body = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
    const delivered = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(store.id), body, genericHeaders(body, store.secret));
    const orderId = (delivered.json() as { data: { order_id: string } }).data.order_id;
    const contactOf = async () => (await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId)))[0]!;
    expect(await contactOf()).toMatchObject({ campaignId: ownFollowUp.campaign_id, status: "queued" });

    // With the organisation's follow-up set up, null hands the waiting order over with its place.
    const organisation = await api(adminToken, "PUT", "/order/follow-up", settings);
    expect(organisation.statusCode, organisation.body).toBe(200);
    const orgCampaignId = (organisation.json() as { data: { campaign_id: string } }).data.campaign_id;
    const back = await api(adminToken, "PUT", `/integration/${store.id}`, { follow_up: null });
    expect(back.json()).toMatchObject({ data: { follow_up: null } });
    expect(await contactOf()).toMatchObject({ campaignId: orgCampaignId, status: "queued" });
    const [old] = await database.db.select().from(campaigns).where(eq(campaigns.id, ownFollowUp.campaign_id!));
    expect(old).toMatchObject({ orgId, status: "cancelled" });

    // Deleting an integration with its own follow-up moves its waiting orders the same way.
    await api(adminToken, "PUT", `/integration/${store.id}`, { follow_up: settings });
    const second = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
    const secondOrder = ((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(store.id), second, genericHeaders(second, store.secret))).json() as { data: { order_id: string } }).data.order_id;
    expect((await api(adminToken, "DELETE", `/integration/${store.id}`)).statusCode).toBe(200);
    const [moved] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, secondOrder));
    expect(moved).toMatchObject({ campaignId: orgCampaignId, status: "queued" });
  });

  it("an order's waiting sentence follows its contact; removing a store's own follow-up without an organisation's one says the order no longer waits for a call", async () => {
    const adminToken = (await signUp(app)).token;
    await createOrganisation(app, adminToken, "Only Own Follow-up Ltd");
    const agent = (await api(adminToken, "POST", "/agent/", { agent_name: "Closer" })).json() as { data: { id: string } };
    const number = (await api(adminToken, "POST", "/phonenumber/", { name: "Line", provider: "vapi", area_code: "415" })).json() as { data: { id: string } };
    const store = await createIntegration(app, adminToken, { kind: "generic", name: "Corner shop" });
    const own = await api(adminToken, "PUT", `/integration/${store.id}`, { follow_up: { enabled: true, agent_id: agent.data.id, phone_number_id: number.data.id, delay_minutes: 5 } });
    expect(own.statusCode, own.body).toBe(200);

    const body = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
    const orderId = ((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(store.id), body, genericHeaders(body, store.secret))).json() as { data: { order_id: string } }).data.order_id;
    const readOrder = async () => (await api(adminToken, "GET", `/order/${orderId}`)).json() as { data: Order };
    const setReadyAt = (at: Date) => database.db.update(campaignContacts).set({ readyAt: at }).where(eq(campaignContacts.orderId, orderId));

    // The sentence is made from the contact as it is: a later time names that time, a time come says "when a line is free".
    const later = new Date("2030-01-15T15:00:00Z");
    await setReadyAt(later);
    const waiting = (await readOrder()).data;
    expect(waiting).toMatchObject({ status: "open", next_call_at: later.toISOString() });
    expect(waiting.status_detail).toBe(`Queued: the first call may go from ${localTimeText(later, waiting.timezones)}.`);
    await setReadyAt(new Date(Date.now() - 60_000));
    expect((await readOrder()).data.status_detail).toBe("Queued: the first call goes out when a line is free.");

    // No follow-up of the organisation's to hand it to: its call is cancelled, and the order says so.
    expect((await api(adminToken, "PUT", `/integration/${store.id}`, { follow_up: null })).statusCode).toBe(200);
    const [contact] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId));
    expect(contact!.status).toBe("cancelled");
    expect((await readOrder()).data).toMatchObject({ status: "open", next_call_at: null, status_detail: FOLLOW_UP_NOT_SET_DETAIL });
  });

  it("DELETE disconnects the store: its deliveries answer 404, its orders stay without an integration", async () => {
    const created = await createIntegration(app, cast.adminToken, { kind: "generic", name: "Closing down" });
    const other = await createIntegration(app, cast.adminToken, { kind: "generic", name: "Closing down too" });
    const send = async (integration: Integration & { secret: string }) => {
      const body = JSON.stringify(genericCheckout({}, { id: "chk_same_everywhere" }));
      const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(integration.id), body, genericHeaders(body, integration.secret));
      return (response.json() as { data: { order_id: string } }).data.order_id;
    };
    const orderIds = [await send(created), await send(other)];
    for (const integration of [created, other]) {
      const deleted = await api(cast.adminToken, "DELETE", `/integration/${integration.id}`);
      expect(deleted.json()).toEqual({ data: { id: integration.id } });
    }
    const rows = await database.db.select().from(orders).where(eq(orders.orgId, cast.orgId));
    for (const id of orderIds) expect(rows.find((row) => row.id === id)).toMatchObject({ integrationId: null, reference: "#1042" });
    expect((await api(cast.adminToken, "GET", `/integration/${created.id}`)).statusCode).toBe(404);
    const body = JSON.stringify(genericCheckout());
    expect((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(created.id), body, genericHeaders(body, created.secret))).statusCode).toBe(404);
  });
});

describe("who may", () => {
  it("members read but may not create, change, rotate or delete (403); nothing changes", async () => {
    const created = await createIntegration(app, cast.adminToken, { kind: "shopify", name: "Admins only" });
    const refused: Array<[("POST" | "PUT" | "DELETE"), string, unknown]> = [
      ["POST", "/integration/", { kind: "generic", name: "x" }],
      ["PUT", `/integration/${created.id}`, { name: "x" }],
      ["DELETE", `/integration/${created.id}`, undefined],
      ["POST", `/integration/${created.id}/rotate-secret`, {}],
    ];
    for (const [method, url, body] of refused) {
      const response = await api(cast.memberToken, method, url, body);
      expect({ method, url, status: response.statusCode, code: (response.json() as { code: string }).code }).toEqual({ method, url, status: 403, code: "forbidden" });
    }
    expect((await api(cast.adminToken, "GET", `/integration/${created.id}`)).json()).toMatchObject({ data: { name: "Admins only", secret_rotated_at: null } });
  });

  it("another organisation's integration is a 404 on every route, and never in its list", async () => {
    const created = await createIntegration(app, cast.adminToken, { kind: "shopify", name: "Private" });
    for (const [method, url, body] of [
      ["GET", `/integration/${created.id}`, undefined],
      ["PUT", `/integration/${created.id}`, { name: "taken" }],
      ["DELETE", `/integration/${created.id}`, undefined],
      ["POST", `/integration/${created.id}/rotate-secret`, {}],
    ] as const) {
      const response = await api(cast.otherToken, method, url, body);
      expect({ method, status: response.statusCode }).toEqual({ method, status: 404 });
    }
    const list = await api(cast.otherToken, "GET", "/integration/");
    expect(list.json()).toMatchObject({ data: [], total: 0 });
    expect((await api(cast.adminToken, "GET", `/integration/${created.id}`)).json()).toMatchObject({ data: { name: "Private", secret_hint: created.secret.slice(-4) } });
  });
});
