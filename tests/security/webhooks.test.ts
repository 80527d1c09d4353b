/**
 * Forged, stale and replayed webhooks (POST /api/webhooks/vapi, public, verified by signature) are
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
