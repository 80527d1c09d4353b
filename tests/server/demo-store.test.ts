/**
 * The embedded demo store (server/orders/demo-store.ts): a checkout posted to the demo store and to a
 * real store, both followed up by the sandbox through the dialler; the customer agrees on both calls. The
 * demo store then sends its own signed order.paid, through the webhook route, and its order turns
 * recovered; the real store's order waits for its store's paid event: the sandbox never pays it.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDialler } from "../../server/campaigns/dialler";
import type { Database } from "../../server/db/client";
import { orders, storeWebhookDeliveries } from "../../server/db/schema";
import { demoPaidEvent, sendDemoPayments, startDemoStore, type DemoStoreOptions } from "../../server/orders/demo-store";
import { createIntegration as createIntegrationRow } from "../../server/orders/integrations";
import { waitFor } from "./calls-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";
import { freshNumber, ordersWorld, saveFollowUp, zoneAtLocalHour, type OrdersWorld } from "./orders-fixtures";
import { STORE_WEBHOOK_PATHS, createIntegration, genericCheckout, genericHeaders, postStoreWebhook } from "./store-fixtures";

let database: Database;
let app: FastifyInstance;
let world: OrdersWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.3" }));
  world = await ordersWorld(app, "Demo Shop Co");
  await saveFollowUp(world, { max_concurrency: 2 });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const store = (payAfterMs: number): DemoStoreOptions => ({
  db: database.db,
  box: app.secretBox,
  payAfterMs,
  post: async (url, body, headers) => {
    const response = await app.inject({ method: "POST", url, headers, payload: body });
    return { statusCode: response.statusCode, body: response.body };
  },
});
const orderRow = async (id: string) => (await database.db.select().from(orders).where(eq(orders.id, id)))[0]!;

/** A checkout posted to `integration`, for a number the sandbox answers (…00) in a zone where it is mid-afternoon. */
async function checkout(integration: { id: string; secret: string }): Promise<string> {
  const body = JSON.stringify(genericCheckout({}, { id: `chk_${randomUUID()}`, customer: { name: "Ada Lovelace", phone: freshNumber("00") }, timezone: zoneAtLocalHour() }));
  const response = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(integration.id), body, genericHeaders(body, integration.secret));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: { order_id: string } }).data.order_id;
}

describe("the demo store", () => {
  it("pays its own order after the sandbox call the customer agreed on, through the signed route; never a real store's", async () => {
    const { row: demoRow, secret: demoSecret } = await createIntegrationRow(database.db, app.secretBox, world.orgId, { kind: "generic", name: "Demo store", isDemo: true, createdBy: null });
    const real = await createIntegration(app, world.adminToken, { kind: "generic", name: "Real shop" });
    const demoOrder = await checkout({ id: demoRow.id, secret: demoSecret });
    const realOrder = await checkout(real);

    // The dialler places both calls; the sandbox answers, the customer agrees (record_order_outcome completed).
    const dialler = createDialler({ db: database.db, voice: app.voice, config: app.config, log: app.log, signals: app.campaignSignals });
    expect((await dialler.tick()).placed).toBe(2);
    for (const id of [demoOrder, realOrder]) {
      await waitFor(async () => {
        const row = await orderRow(id);
        return row.status === "calling" && row.callOutcome === "completed" && row.reachedAt !== null;
      }, 20_000, `order ${id} to be waiting for the purchase`);
    }
    await dialler.stop();

    // Not yet: the demo customer pays a moment after the call.
    expect(await sendDemoPayments(store(60 * 60_000))).toBe(0);
    expect((await orderRow(demoOrder)).status).toBe("calling");

    expect(await sendDemoPayments(store(0))).toBe(1);
    const paid = await orderRow(demoOrder);
    expect(paid).toMatchObject({ status: "recovered", paidMinor: paid.totalMinor, recoveredMinor: paid.totalMinor, paidAt: expect.any(Date) });
    const [delivery] = await database.db.select().from(storeWebhookDeliveries).where(eq(storeWebhookDeliveries.deliveryId, `demo-paid-${demoOrder}`));
    expect(delivery).toMatchObject({ integrationId: demoRow.id, topic: "order.paid", result: "applied" });
    // The real store's order is the real store's to pay.
    expect(await orderRow(realOrder)).toMatchObject({ status: "calling", paidAt: null, recoveredMinor: 0 });

    // Sent again (a process that died before it knew, another process): once is once.
    expect(await sendDemoPayments(store(0))).toBe(0);
    const again = JSON.stringify(demoPaidEvent({ id: demoOrder, externalId: paid.externalId, totalMinor: paid.totalMinor, currency: paid.currency }, new Date()));
    const replay = await postStoreWebhook(app, STORE_WEBHOOK_PATHS.generic(demoRow.id), again, genericHeaders(again, demoSecret));
    expect(replay.json()).toMatchObject({ data: { result: "duplicate" } });

    // The sweep that runs in the server does the same.
    const running = startDemoStore(app, { intervalMs: 60_000, payAfterMs: 0 });
    expect(await running.tick()).toBe(0);
    await running.stop();
    expect(await orderRow(realOrder)).toMatchObject({ status: "calling", paidAt: null });
  });
});
