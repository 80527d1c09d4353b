/**
 * The store webhooks through the real routes (server/routes/store-webhooks.ts) and the orders core's
 * applyStoreEvent: for Shopify, WooCommerce and the generic endpoint, a valid delivery makes or updates
 * an order; a forged, body-changed or stale one answers 401 and changes nothing; a replay (the same
 * delivery id) answers duplicate and changes nothing; the wrong kind's path and an unknown integration
 * are 404. The same checkout seen twice is one order; a paid event before the follow-up call cancels it.
 */
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Integration } from "../../contract/order";
import type { Database, Db } from "../../server/db/client";
import { campaignContacts, orders, storeIntegrations, storeWebhookDeliveries } from "../../server/db/schema";
import { base64Hmac } from "../../server/orders/stores/common";
import { purgeOldDeliveries } from "../../server/orders/store-deliveries";
import { signWebhook } from "../../server/webhooks/signature";
import { buildTestApp, migratedDatabase, organisationCast } from "./helpers";
import {
  STORE_WEBHOOK_PATHS,
  createIntegration,
  enableFollowUp,
  genericCheckout,
  genericHeaders,
  postStoreWebhook,
  shopifyCheckout,
  shopifyHeaders,
  shopifyOrder,
  wooHeaders,
  wooOrder,
} from "./store-fixtures";

let database: Database;
let app: FastifyInstance;
let orgId: string;
let otherOrgId: string;
let shopify: Integration & { secret: string };
let woo: Integration & { secret: string };
let generic: Integration & { secret: string };

const HOUR = 3_600_000;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  const cast = await organisationCast(app, "Corner Shop Ltd");
  orgId = cast.orgId;
  otherOrgId = cast.otherOrgId;
  shopify = await createIntegration(app, cast.adminToken, { kind: "shopify", name: "Corner Shop (Shopify)" });
  woo = await createIntegration(app, cast.adminToken, { kind: "woocommerce", name: "Corner Shop (Woo)" });
  generic = await createIntegration(app, cast.adminToken, { kind: "generic", name: "Corner Shop (own)" });
  await enableFollowUp(database.db, orgId);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** Every row a delivery may write (orders, their events and contacts, deliveries, integrations), hashed per table. */
async function footprint(db: Db): Promise<Record<string, string>> {
  const tables = ["orders", "order_events", "campaign_contacts", "store_webhook_deliveries", "store_integrations"];
  const result = (await db.execute(
    sql.raw(tables.map((name) => `select '${name}' as name, count(*)::int || ':' || md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) as h from "${name}" t`).join(" union all ")),
  )) as unknown as { rows: Array<{ name: string; h: string }> };
  return Object.fromEntries(result.rows.map((row) => [row.name, row.h]));
}

const ordersOf = (integrationId: string) => database.db.select().from(orders).where(and(eq(orders.orgId, orgId), eq(orders.integrationId, integrationId)));
const fresh = (over: Record<string, unknown> = {}) => ({ token: randomUUID().replace(/-/g, ""), updated_at: new Date(Date.now() - 60_000).toISOString(), ...over });

describe("Shopify", () => {
  it("a signed checkouts/create makes an open order, queued for its follow-up; checkouts/update of it updates the one order", async () => {
    const checkout = shopifyCheckout(fresh());
    const body = JSON.stringify(checkout);
    const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), body, shopifyHeaders(body, shopify.secret, "checkouts/create"));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { result: "applied", detail: expect.any(String), order_id: expect.any(String) } });
    const orderId = (response.json() as { data: { order_id: string } }).data.order_id;
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({
      orgId,
      integrationId: shopify.id,
      source: "shopify",
      externalId: checkout.token,
      reference: "#981820079255243",
      customerNumber: "+16136120707",
      totalMinor: 41_799,
      currency: "USD",
      status: "open",
      consentGiven: true,
      storeName: "Corner Shop (Shopify)",
    });
    const [contact] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId));
    expect(contact?.status).toBe("queued");

    // The same checkout again (a new delivery): the one order, with the new total.
    const updated = JSON.stringify({ ...checkout, total_price: "199.00", line_items: [(checkout.line_items as unknown[])[0]] });
    const again = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), updated, shopifyHeaders(updated, shopify.secret, "checkouts/update"));
    expect(again.json()).toMatchObject({ data: { result: "applied", order_id: orderId } });
    const rows = (await ordersOf(shopify.id)).filter((row) => row.externalId === checkout.token);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: orderId, totalMinor: 19_900 });
    const [integration] = await database.db.select().from(storeIntegrations).where(eq(storeIntegrations.id, shopify.id));
    expect(integration?.lastDeliveryAt).toBeInstanceOf(Date);
  });

  it("forged, body-changed, stale and unsigned deliveries answer 401 {detail, code} and change nothing", async () => {
    const body = JSON.stringify(shopifyCheckout(fresh()));
    const url = STORE_WEBHOOK_PATHS.shopify(shopify.id);
    const before = await footprint(database.db);
    const cases: Array<[string, string, Record<string, string>]> = [
      ["another secret", body, shopifyHeaders(body, "not-the-secret-at-all", "checkouts/create")],
      ["body changed after signing", body.replace('"417.99"', '"1.00"'), shopifyHeaders(body, shopify.secret, "checkouts/create")],
      ["stale: triggered 49 hours ago", body, shopifyHeaders(body, shopify.secret, "checkouts/create", { "x-shopify-triggered-at": new Date(Date.now() - 49 * HOUR).toISOString() })],
      ["another integration's secret", body, shopifyHeaders(body, woo.secret, "checkouts/create")],
      ["hex instead of base64", body, shopifyHeaders(body, shopify.secret, "checkouts/create", { "x-shopify-hmac-sha256": Buffer.from(base64Hmac(body, shopify.secret), "base64").toString("hex") })],
      ["no signature", body, { "content-type": "application/json", "x-shopify-topic": "checkouts/create", "x-shopify-webhook-id": randomUUID() }],
    ];
    for (const [name, sent, headers] of cases) {
      const response = await postStoreWebhook(app, url, sent, headers);
      expect({ name, status: response.statusCode, body: response.json() }).toEqual({ name, status: 401, body: { detail: expect.any(String), code: "unauthorized" } });
    }
    expect(await footprint(database.db)).toEqual(before);
  });

  it("a replay of a delivery (the same X-Shopify-Webhook-Id) answers duplicate and changes nothing, even in parallel", async () => {
    const body = JSON.stringify(shopifyCheckout(fresh()));
    const headers = shopifyHeaders(body, shopify.secret, "checkouts/create");
    const url = STORE_WEBHOOK_PATHS.shopify(shopify.id);
    expect((await postStoreWebhook(app, url, body, headers)).json()).toMatchObject({ data: { result: "applied" } });
    const after = await footprint(database.db);
    const replays = await Promise.all([postStoreWebhook(app, url, body, headers), postStoreWebhook(app, url, body, headers)]);
    for (const replay of replays) expect(replay.json()).toEqual({ data: { result: "duplicate", detail: expect.any(String), order_id: null } });
    expect(await footprint(database.db)).toEqual(after);
  });

  it("a replay under another delivery id (the headers are not signed) is the same bytes: duplicate, nothing changed", async () => {
    const body = JSON.stringify(shopifyCheckout(fresh()));
    const url = STORE_WEBHOOK_PATHS.shopify(shopify.id);
    expect((await postStoreWebhook(app, url, body, shopifyHeaders(body, shopify.secret, "checkouts/create"))).json()).toMatchObject({ data: { result: "applied" } });
    const after = await footprint(database.db);
    const newIds: Record<string, string>[] = [{ "x-shopify-webhook-id": randomUUID() }, { "x-shopify-webhook-id": randomUUID(), "x-shopify-event-id": randomUUID() }];
    for (const over of newIds) {
      expect((await postStoreWebhook(app, url, body, shopifyHeaders(body, shopify.secret, "checkouts/update", over))).json()).toMatchObject({ data: { result: "duplicate" } });
    }
    // A stale change with a fresh trigger time: the body's own time is signed.
    const longAgo = new Date(Date.now() - 49 * HOUR).toISOString();
    const old = JSON.stringify(shopifyCheckout(fresh({ created_at: longAgo, updated_at: longAgo })));
    expect((await postStoreWebhook(app, url, old, shopifyHeaders(old, shopify.secret, "checkouts/update"))).statusCode).toBe(401);
    expect(await footprint(database.db)).toEqual(after);
  });

  it("different first deliveries of one checkout at once make one order", async () => {
    const checkout = shopifyCheckout(fresh());
    const url = STORE_WEBHOOK_PATHS.shopify(shopify.id);
    const answers = await Promise.all(
      [3, 2, 1].map((minutes) => {
        const body = JSON.stringify({ ...checkout, updated_at: new Date(Date.now() - minutes * 60_000).toISOString() });
        return postStoreWebhook(app, url, body, shopifyHeaders(body, shopify.secret, "checkouts/update"));
      }),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => (answer.json() as { data: { order_id: string } }).data.order_id)).size).toBe(1);
    expect((await ordersOf(shopify.id)).filter((row) => row.externalId === checkout.token)).toHaveLength(1);
  });

  it("orders/paid before the follow-up call cancels it: the order is paid without a call, its waiting contact cancelled", async () => {
    const checkout = shopifyCheckout(fresh());
    const body = JSON.stringify(checkout);
    const created = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), body, shopifyHeaders(body, shopify.secret, "checkouts/create"));
    const orderId = (created.json() as { data: { order_id: string } }).data.order_id;
    expect((await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId)))[0]?.status).toBe("queued");

    const paid = JSON.stringify(shopifyOrder({ checkout_token: checkout.token, processed_at: new Date().toISOString() }));
    const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), paid, shopifyHeaders(paid, shopify.secret, "orders/paid"));
    expect(response.json()).toMatchObject({ data: { result: "applied", order_id: orderId } });
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ status: "paid_without_call", paidMinor: 41_799, recoveredMinor: 0 });
    expect((await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId)))[0]?.status).toBe("cancelled");
  });

  it("other topics, ordinary sales and checkouts without a phone are recorded as ignored with the reason (200)", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["products/update", JSON.stringify({ id: 632910392, title: "IPod Nano" }), /products\/update/],
      ["orders/paid", JSON.stringify(shopifyOrder({ checkout_token: "never-seen-before", id: 1, admin_graphql_api_id: "gid://shopify/Order/1", updated_at: new Date().toISOString() })), /no order/],
      ["checkouts/create", JSON.stringify(shopifyCheckout(fresh({ customer: null, phone: null, billing_address: null, shipping_address: null }))), /no usable phone/],
    ];
    for (const [topic, body, reason] of cases) {
      const headers = shopifyHeaders(body, shopify.secret, topic);
      const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), body, headers);
      expect(response.json()).toEqual({ data: { result: "ignored", detail: expect.stringMatching(reason), order_id: null } });
      const [recorded] = await database.db
        .select()
        .from(storeWebhookDeliveries)
        .where(and(eq(storeWebhookDeliveries.integrationId, shopify.id), eq(storeWebhookDeliveries.deliveryId, headers["x-shopify-webhook-id"]!)));
      expect(recorded).toMatchObject({ topic, result: "ignored", detail: expect.stringMatching(reason), orgId });
    }
  });
});

describe("WooCommerce", () => {
  const wooNow = () => ({ date_created_gmt: new Date(Date.now() - 120_000).toISOString().slice(0, 19), date_modified_gmt: new Date(Date.now() - 60_000).toISOString().slice(0, 19) });

  it("answers WooCommerce's ping with 200 and no effect", async () => {
    const before = await footprint(database.db);
    const response = await app.inject({
      method: "POST",
      url: STORE_WEBHOOK_PATHS.woocommerce(woo.id),
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)" },
      payload: "webhook_id=12",
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ data: { result: "ignored", order_id: null } });
    expect(await footprint(database.db)).toEqual(before);
  });

  it("a pending order is abandoned, then processing pays it; forged, changed, stale and replayed deliveries change nothing", async () => {
    const id = Math.floor(Math.random() * 1e9);
    const pending = JSON.stringify(wooOrder({ id, number: String(id), ...wooNow() }));
    const url = STORE_WEBHOOK_PATHS.woocommerce(woo.id);
    const headers = wooHeaders(pending, woo.secret, "order.created");
    const created = await postStoreWebhook(app, url, pending, headers);
    expect(created.json()).toMatchObject({ data: { result: "applied" } });
    const orderId = (created.json() as { data: { order_id: string } }).data.order_id;
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ externalId: `order:${id}`, reference: `#${id}`, customerNumber: "+14155550142", status: "open", totalMinor: 2_935 });

    const before = await footprint(database.db);
    const stale = JSON.stringify(wooOrder({ id, number: String(id), date_created_gmt: "2026-01-01T00:00:00", date_modified_gmt: new Date(Date.now() - 49 * HOUR).toISOString().slice(0, 19) }));
    const refused: Array<[string, Record<string, string>, number]> = [
      [pending, wooHeaders(pending, "forged", "order.updated"), 401],
      [pending.replace('"29.35"', '"0.01"'), wooHeaders(pending, woo.secret, "order.updated"), 401],
      [stale, wooHeaders(stale, woo.secret, "order.updated"), 401],
    ];
    for (const [sent, sentHeaders, status] of refused) expect((await postStoreWebhook(app, url, sent, sentHeaders)).statusCode).toBe(status);
    expect((await postStoreWebhook(app, url, pending, headers)).json()).toMatchObject({ data: { result: "duplicate" } });
    expect(await footprint(database.db)).toEqual(before);

    const processing = JSON.stringify(wooOrder({ id, number: String(id), status: "processing", ...wooNow(), date_paid_gmt: new Date().toISOString().slice(0, 19) }));
    expect((await postStoreWebhook(app, url, processing, wooHeaders(processing, woo.secret, "order.updated"))).json()).toMatchObject({ data: { result: "applied", order_id: orderId } });
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ status: "paid_without_call", paidMinor: 2_935 });
  });
});

describe("generic", () => {
  it("a signed checkout.abandoned makes an order; order.cancelled cancels it; a replay is a duplicate", async () => {
    const url = STORE_WEBHOOK_PATHS.generic(generic.id);
    const checkoutId = `chk_${randomUUID()}`;
    const event = JSON.stringify(genericCheckout({}, { id: checkoutId }));
    const created = await postStoreWebhook(app, url, event, genericHeaders(event, generic.secret));
    expect(created.json()).toMatchObject({ data: { result: "applied" } });
    const orderId = (created.json() as { data: { order_id: string } }).data.order_id;
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ source: "generic", externalId: checkoutId, reference: "#1042", totalMinor: 2_500, consentGiven: true, consentSource: "Checkout checkbox" });
    expect((await postStoreWebhook(app, url, event, genericHeaders(event, generic.secret))).json()).toMatchObject({ data: { result: "duplicate" } });

    const cancelled = JSON.stringify({ id: `evt_${randomUUID()}`, event: "order.cancelled", created_at: new Date().toISOString(), order: { id: checkoutId } });
    expect((await postStoreWebhook(app, url, cancelled, genericHeaders(cancelled, generic.secret))).json()).toMatchObject({ data: { result: "applied", order_id: orderId } });
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]?.status).toBe("cancelled");
  });

  it("a checkout queued for its follow-up wakes this process's dialler for the follow-up campaign, once committed; a replay wakes nothing", async () => {
    const woken: string[] = [];
    const stop = app.campaignSignals.onChanged((campaignId) => woken.push(campaignId));
    try {
      const url = STORE_WEBHOOK_PATHS.generic(generic.id);
      const event = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
      const created = await postStoreWebhook(app, url, event, genericHeaders(event, generic.secret));
      const orderId = (created.json() as { data: { order_id: string } }).data.order_id;
      const [contact] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.orderId, orderId));
      expect(contact?.status).toBe("queued");
      expect(woken).toEqual([contact!.campaignId]);
      expect((await postStoreWebhook(app, url, event, genericHeaders(event, generic.secret))).json()).toMatchObject({ data: { result: "duplicate" } });
      expect(woken).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it("forged, stale, body-changed and bearer-only deliveries answer 401; a signed body that breaks the format answers 400 naming the field, unrecorded", async () => {
    const url = STORE_WEBHOOK_PATHS.generic(generic.id);
    const event = JSON.stringify(genericCheckout());
    const before = await footprint(database.db);
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const cases: Array<[string, Record<string, string>, string]> = [
      ["another secret", genericHeaders(event, "forged-secret"), event],
      ["stale", { "content-type": "application/json", "x-timestamp": old, "x-signature": signWebhook(generic.secret, old, event) }, event],
      ["body changed", genericHeaders(event, generic.secret), event.replace('"25.00"', '"2.50"')],
      ["bearer only", { "content-type": "application/json", authorization: `Bearer ${generic.secret}` }, event],
    ];
    for (const [name, headers, sent] of cases) {
      const response = await postStoreWebhook(app, url, sent, headers);
      expect({ name, status: response.statusCode, code: (response.json() as { code: string }).code }).toEqual({ name, status: 401, code: "unauthorized" });
    }
    const broken = JSON.stringify(genericCheckout({}, { total: "12.345" }));
    const invalid = await postStoreWebhook(app, url, broken, genericHeaders(broken, generic.secret));
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ detail: expect.stringMatching(/order\.total has more decimals than USD/), code: "bad_request" });
    for (const notJson of ["not json", "[]"]) {
      expect((await postStoreWebhook(app, url, notJson, genericHeaders(notJson, generic.secret))).statusCode).toBe(400);
    }
    expect(await footprint(database.db)).toEqual(before);
    // Fixed and sent again with the same id: taken.
    const fixed = JSON.stringify({ ...(JSON.parse(broken) as Record<string, unknown>), order: { ...(JSON.parse(broken) as { order: Record<string, unknown> }).order, total: "12.34" } });
    expect((await postStoreWebhook(app, url, fixed, genericHeaders(fixed, generic.secret))).json()).toMatchObject({ data: { result: "applied" } });
  });
});

describe("addresses", () => {
  it("a delivery to another kind's path, an unknown or deleted integration, answers 404 {detail, code} and changes nothing", async () => {
    const body = JSON.stringify(shopifyCheckout(fresh()));
    const before = await footprint(database.db);
    const sends: Array<[string, string]> = [
      ["shopify's delivery on the woocommerce path", STORE_WEBHOOK_PATHS.woocommerce(shopify.id)],
      ["shopify's delivery on the generic path", STORE_WEBHOOK_PATHS.generic(shopify.id)],
      ["the generic integration on the shopify path", STORE_WEBHOOK_PATHS.shopify(generic.id)],
      ["an unknown integration", STORE_WEBHOOK_PATHS.shopify(randomUUID())],
      ["an organisation's id in the path", STORE_WEBHOOK_PATHS.shopify(otherOrgId)],
    ];
    for (const [name, url] of sends) {
      const response = await postStoreWebhook(app, url, body, shopifyHeaders(body, shopify.secret, "checkouts/create"));
      expect({ name, status: response.statusCode, body: response.json() }).toEqual({ name, status: 404, body: { detail: expect.any(String), code: "not_found" } });
    }
    const badId = await postStoreWebhook(app, "/api/webhooks/shopify/not-a-uuid", body, shopifyHeaders(body, shopify.secret, "checkouts/create"));
    expect(badId.statusCode).toBe(400);
    expect(await footprint(database.db)).toEqual(before);
  });

  it("bodies up to 1 MB are read; larger ones answer 413", async () => {
    const big = JSON.stringify(shopifyCheckout(fresh({ note: "x".repeat(900_000) })));
    expect((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), big, shopifyHeaders(big, shopify.secret, "checkouts/create"))).statusCode).toBe(200);
    const huge = JSON.stringify(shopifyCheckout(fresh({ note: "x".repeat(1_100_000) })));
    const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.shopify(shopify.id), huge, shopifyHeaders(huge, shopify.secret, "checkouts/create"));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: "payload_too_large" });
  });
});

describe("delivery ids", () => {
  it("are kept a month (replays older than that are stale anyway), then purged", async () => {
    const body = JSON.stringify(genericCheckout());
    expect((await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(generic.id), body, genericHeaders(body, generic.secret))).statusCode).toBe(200);
    const count = async () => (await database.db.select().from(storeWebhookDeliveries)).length;
    const kept = await count();
    expect(kept).toBeGreaterThan(0);
    expect(await purgeOldDeliveries(database.db, new Date(Date.now() + 29 * 24 * HOUR))).toBe(0);
    expect(await purgeOldDeliveries(database.db, new Date(Date.now() + 31 * 24 * HOUR))).toBe(kept);
    expect(await count()).toBe(0);
  });
});
