/**
 * Forged, stale and replayed webhooks (POST /api/webhooks/vapi, and the store webhooks
 * /api/webhooks/{shopify,woocommerce,store}/:integrationId; public, verified by signature) are
 * rejected and change nothing: the call row stays as it was and the wallet ledger gets no entry, let
 * alone a second one. The design's answers: 401 for anything unverified (forged, stale, future,
 * malformed credentials), 400 for a verified body that is not a ServerMessage, and 200 without effect
 * for a replay of an event already processed (each event is processed once).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orgScope } from "../../server/data/orgScope";
import { calls } from "../../server/db/schema";
import { signWebhook } from "../../server/webhooks/signature";
import { WEBHOOK_URL, callRow, endOfCallReport, ledgerOf, postWebhook, statusUpdate } from "../server/calls-fixtures";
import { STORE_WEBHOOK_PATHS, genericCheckout, genericHeaders, postStoreWebhook, shopifyCheckout, shopifyHeaders, wooHeaders, wooOrder } from "../server/store-fixtures";
import { tally } from "./tally";
import { WEBHOOK_SECRET, buildWorld, isErrorBody, snapshot, type World } from "./world";

const counter = tally(import.meta.filename);
const ROUTE = `POST ${WEBHOOK_URL}`;

let world: World;
let callId: string;
beforeAll(async () => {
  world = await buildWorld({ STARTING_CREDIT_USD: "10" });
  callId = randomUUID();
  await orgScope(world.db, world.a.orgId).insert(calls, {
    id: callId,
    type: "outbound",
    status: "queued",
    agentId: world.a.agentId,
    phoneNumberId: world.a.phoneNumberId,
    customerNumber: "+14155550100",
    providerCallId: null,
  });
});
afterAll(() => world?.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("webhooks", () => {
  it("forged and stale deliveries answer 401 {detail, code} and change nothing", async () => {
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId, orgId: world.a.orgId };
    const events = [statusUpdate(ref, "in-progress"), endOfCallReport(ref, { cost: 3.5 })];
    const before = await snapshot(world.db);
    const rowBefore = await callRow(world.db, callId);
    const ledgerBefore = await ledgerOf(world.db, world.a.orgId);
    const wrong: unknown[] = [];
    for (const event of events) {
      const body = JSON.stringify(event);
      const ts = String(nowSeconds());
      const deliveries: Array<[string, Record<string, string>, string?]> = [
        ["signed with another secret", { "x-timestamp": ts, "x-signature": signWebhook("not-the-secret", ts, body) }],
        ["signature of another body", { "x-timestamp": ts, "x-signature": signWebhook(WEBHOOK_SECRET, ts, `${body} `) }],
        ["body changed after signing", { "x-timestamp": ts, "x-signature": signWebhook(WEBHOOK_SECRET, ts, body) }, body.replace('{"message":{', '{"message":{"cost":0.01,')],
        ["signature for another timestamp", { "x-timestamp": String(nowSeconds() - 1), "x-signature": signWebhook(WEBHOOK_SECRET, ts, body) }],
        ["stale: 6 minutes old", { "x-timestamp": String(nowSeconds() - 360), "x-signature": signWebhook(WEBHOOK_SECRET, String(nowSeconds() - 360), body) }],
        ["stale: a year old, in ms", { "x-timestamp": String(Date.now() - 365 * 86_400_000), "x-signature": signWebhook(WEBHOOK_SECRET, String(Date.now() - 365 * 86_400_000), body) }],
        ["from the future: +6 minutes", { "x-timestamp": String(nowSeconds() + 360), "x-signature": signWebhook(WEBHOOK_SECRET, String(nowSeconds() + 360), body) }],
        ["signature without timestamp", { "x-signature": signWebhook(WEBHOOK_SECRET, ts, body) }],
        ["timestamp not a number", { "x-timestamp": "yesterday", "x-signature": signWebhook(WEBHOOK_SECRET, "yesterday", body) }],
        ["negative timestamp", { "x-timestamp": "-1", "x-signature": signWebhook(WEBHOOK_SECRET, "-1", body) }],
        ["signature not hex", { "x-timestamp": ts, "x-signature": "zz-not-a-signature" }],
        ["truncated signature", { "x-timestamp": ts, "x-signature": signWebhook(WEBHOOK_SECRET, ts, body).slice(0, 32) }],
        ["forged signature beside the right bearer", { "x-timestamp": ts, "x-signature": "00".repeat(32), authorization: `Bearer ${WEBHOOK_SECRET}` }],
        ["wrong bearer", { authorization: "Bearer wrong-secret" }],
        ["bearer with the secret's prefix", { authorization: `Bearer ${WEBHOOK_SECRET.slice(0, -1)}` }],
        ["Basic scheme with the secret", { authorization: `Basic ${Buffer.from(`vapi:${WEBHOOK_SECRET}`).toString("base64")}` }],
        ["no credentials at all", {}],
      ];
      for (const [name, headers, sent] of deliveries) {
        const response = await postWebhook(world.app, sent ?? body, { headers });
        counter.count("forged/stale webhook → 401", ROUTE);
        if (response.statusCode !== 401 || !isErrorBody(response)) wrong.push({ name, status: response.statusCode, body: response.body });
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
    expect(await callRow(world.db, callId)).toEqual(rowBefore);
    expect(await ledgerOf(world.db, world.a.orgId)).toEqual(ledgerBefore);
  });

  it("a verified body that is not a ServerMessage answers 400 {detail, code} and changes nothing", async () => {
    const before = await snapshot(world.db);
    for (const body of ["not json", "", "[]", "null", '{"message":null}', '{"message":{"type":42}}', '{"message":"end-of-call-report"}', '{"message":{}}']) {
      const response = await postWebhook(world.app, body);
      counter.count("malformed signed webhook → 400", ROUTE);
      expect({ body, status: response.statusCode, errorBody: isErrorBody(response) }).toEqual({ body, status: 400, errorBody: true });
    }
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("a replayed delivery is processed once: no second ledger entry, the call row unchanged", async () => {
    const ref = { providerCallId: `vapi-${randomUUID()}`, callId, orgId: world.a.orgId };
    const report = JSON.stringify(endOfCallReport(ref, { cost: 0.25 }));
    const ts = String(nowSeconds());
    const headers = { "x-timestamp": ts, "x-signature": signWebhook(WEBHOOK_SECRET, ts, report) };
    const first = await postWebhook(world.app, report, { headers });
    expect(first.statusCode, first.body).toBe(200);
    const ledger = await ledgerOf(world.db, world.a.orgId);
    expect(ledger.length).toBeGreaterThan(0);
    const row = await callRow(world.db, callId);
    expect(row!.status).toBe("ended");
    const after = await snapshot(world.db);

    // The same captured delivery, byte for byte, again and again; re-signed now; over the bearer;
    // re-serialised with another cost; and the same delivery once its timestamp is stale.
    const replays: Array<[string, () => Promise<{ statusCode: number }>, number[]]> = [
      ["identical", () => postWebhook(world.app, report, { headers }), [200]],
      ["identical, twice in parallel", async () => (await Promise.all([postWebhook(world.app, report, { headers }), postWebhook(world.app, report, { headers })]))[1]!, [200]],
      ["re-signed now", () => postWebhook(world.app, report), [200]],
      ["over the bearer", () => postWebhook(world.app, report, { headers: { authorization: `Bearer ${WEBHOOK_SECRET}` } }), [200]],
      ["another cost", () => postWebhook(world.app, JSON.stringify(endOfCallReport(ref, { cost: 99 }))), [200]],
      [
        "stale copy",
        () => {
          const old = String(nowSeconds() - 600);
          return postWebhook(world.app, report, { headers: { "x-timestamp": old, "x-signature": signWebhook(WEBHOOK_SECRET, old, report) } });
        },
        [401],
      ],
    ];
    for (const [name, send, expected] of replays) {
      const response = await send();
      counter.count("replayed webhook → no effect", ROUTE);
      expect({ name, status: expected.includes(response.statusCode) }).toEqual({ name, status: true });
    }
    expect(await ledgerOf(world.db, world.a.orgId)).toEqual(ledger);
    expect(await callRow(world.db, callId)).toEqual(row);
    expect(await snapshot(world.db)).toEqual(after);

    // A late status-update is a new event (it is recorded as seen) but moves nothing back and costs nothing.
    expect((await postWebhook(world.app, statusUpdate(ref, "ringing"))).statusCode).toBe(200);
    counter.count("replayed webhook → no effect", ROUTE);
    expect(await callRow(world.db, callId)).toEqual(row);
    expect(await ledgerOf(world.db, world.a.orgId)).toEqual(ledger);
  });
});

describe("store webhooks", () => {
  const HOUR = 3_600_000;
  const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  /** A fresh delivery of each kind for organisation A's integration, signed with `secret` (A's own unless said). */
  const deliveries = () => {
    const shopify = JSON.stringify(shopifyCheckout({ token: randomUUID().replace(/-/g, ""), updated_at: new Date().toISOString() }));
    const woo = JSON.stringify(wooOrder({ id: Math.floor(Math.random() * 1e9), date_created_gmt: gmt(Date.now() - 60_000), date_modified_gmt: gmt(Date.now()) }));
    const generic = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}` }));
    return [
      { kind: "shopify", url: STORE_WEBHOOK_PATHS.shopify(world.a.integrations.shopify.id), body: shopify, sign: (secret: string, over: Record<string, string> = {}) => shopifyHeaders(shopify, secret, "checkouts/create", over) },
      { kind: "woocommerce", url: STORE_WEBHOOK_PATHS.woocommerce(world.a.integrations.woocommerce.id), body: woo, sign: (secret: string, over: Record<string, string> = {}) => wooHeaders(woo, secret, "order.created", over) },
      { kind: "generic", url: STORE_WEBHOOK_PATHS.generic(world.a.integrations.generic.id), body: generic, sign: (secret: string, over: Record<string, string> = {}) => ({ ...genericHeaders(generic, secret), ...over }) },
    ] as const;
  };
  const route = (url: string) => `POST ${url.replace(/[0-9a-f-]{36}$/, ":integrationId")}`;

  it("forged (another organisation's secret, none, a changed body) and stale deliveries answer 401 {detail, code} and change nothing", async () => {
    const before = await snapshot(world.db);
    const wrong: unknown[] = [];
    for (const delivery of deliveries()) {
      const own = world.a.integrations[delivery.kind].secret;
      const stale: Record<string, Record<string, string>> = {
        shopify: { "x-shopify-triggered-at": new Date(Date.now() - 49 * HOUR).toISOString() },
        woocommerce: {},
        generic: (() => {
          const old = String(nowSeconds() - 600);
          return { "x-timestamp": old, "x-signature": signWebhook(own, old, delivery.body) };
        })(),
      };
      const cases: Array<[string, string, Record<string, string>]> = [
        ["signed with B's secret for the same kind", delivery.body, delivery.sign(world.b.integrations[delivery.kind].secret)],
        ["signed with the Vapi webhook secret", delivery.body, delivery.sign(WEBHOOK_SECRET)],
        ["body changed after signing", `${delivery.body.slice(0, -1)}, "extra": 1}`, delivery.sign(own)],
        ["no signature at all", delivery.body, { "content-type": "application/json" }],
        ["B's bearer token instead of a signature", delivery.body, { "content-type": "application/json", authorization: `Bearer ${world.b.adminToken}` }],
        ...(delivery.kind === "woocommerce" ? [] : [["stale", delivery.body, delivery.sign(own, stale[delivery.kind])] as [string, string, Record<string, string>]]),
      ];
      for (const [name, body, headers] of cases) {
        const response = await postStoreWebhook(world.app, delivery.url, body, headers);
        counter.count("forged/stale webhook → 401", route(delivery.url));
        if (response.statusCode !== 401 || !isErrorBody(response)) wrong.push({ kind: delivery.kind, name, status: response.statusCode, body: response.body });
      }
    }
    // WooCommerce sends no time header: a delivery whose signed order changed more than 48 hours ago is stale.
    const oldWoo = JSON.stringify(wooOrder({ date_created_gmt: gmt(Date.now() - 60 * HOUR), date_modified_gmt: gmt(Date.now() - 49 * HOUR) }));
    const staleWoo = await postStoreWebhook(world.app, STORE_WEBHOOK_PATHS.woocommerce(world.a.integrations.woocommerce.id), oldWoo, wooHeaders(oldWoo, world.a.integrations.woocommerce.secret, "order.updated"));
    counter.count("forged/stale webhook → 401", "POST /api/webhooks/woocommerce/:integrationId");
    if (staleWoo.statusCode !== 401) wrong.push({ kind: "woocommerce", name: "stale", status: staleWoo.statusCode });
    expect(wrong).toEqual([]);
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("B's integration id with A's delivery, or A's with B's, answers 404 or 401 and changes nothing", async () => {
    const before = await snapshot(world.db);
    for (const delivery of deliveries()) {
      // A's delivery posted to B's integration of the same kind: B's secret does not verify it.
      const toB = delivery.url.replace(world.a.integrations[delivery.kind].id, world.b.integrations[delivery.kind].id);
      expect((await postStoreWebhook(world.app, toB, delivery.body, delivery.sign(world.a.integrations[delivery.kind].secret))).statusCode).toBe(401);
      counter.count("forged/stale webhook → 401", route(toB));
      // A's integration id on another kind's path: no such integration there.
      const otherKind = delivery.kind === "generic" ? STORE_WEBHOOK_PATHS.shopify(world.a.integrations.generic.id) : STORE_WEBHOOK_PATHS.generic(world.a.integrations[delivery.kind].id);
      const response = await postStoreWebhook(world.app, otherKind, delivery.body, delivery.sign(world.a.integrations[delivery.kind].secret));
      counter.count("webhook on the wrong path → 404", route(otherKind));
      expect({ status: response.statusCode, errorBody: isErrorBody(response) }).toEqual({ status: 404, errorBody: true });
    }
    expect(await snapshot(world.db)).toEqual(before);
  });

  it("a replayed delivery (the same delivery id) is processed once: duplicate, nothing changed", async () => {
    for (const delivery of deliveries()) {
      const headers = delivery.sign(world.a.integrations[delivery.kind].secret);
      const first = await postStoreWebhook(world.app, delivery.url, delivery.body, headers);
      expect(first.statusCode, first.body).toBe(200);
      expect((first.json() as { data: { result: string } }).data.result).toBe("applied");
      const after = await snapshot(world.db);
      const replays = await Promise.all([1, 2, 3].map(() => postStoreWebhook(world.app, delivery.url, delivery.body, headers)));
      for (const replay of replays) {
        counter.count("replayed webhook → no effect", route(delivery.url));
        expect({ kind: delivery.kind, status: replay.statusCode, result: (replay.json() as { data: { result: string } }).data.result }).toEqual({ kind: delivery.kind, status: 200, result: "duplicate" });
      }
      expect(await snapshot(world.db)).toEqual(after);
    }
  });
});
