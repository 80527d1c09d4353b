/**
 * A verified store delivery, processed once (issue 16 §2): in ONE transaction its ids (the store's delivery
 * id, and for Shopify and WooCommerce the body's digest) are recorded in store_webhook_deliveries (primary
 * key (integration, delivery id): a second copy, even one arriving while the first is still being applied,
 * waits for it and then finds the row), the event is applied by the orders core, the delivery's result is
 * written beside it and the integration's last_delivery_at moves. A replay answers `duplicate` and writes
 * nothing at all (an id recorded before a later one was found known is rolled back).
 */
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { storeIntegrations, storeWebhookDeliveries } from "../db/schema";
import type { IntegrationRow } from "./integrations";
import { lockOrganisationForCalls } from "../wallet/wallet";
import type { applyStoreEvent } from "./store-events";
import type { AdapterResult, StoreEventContext, StoreEventResult } from "./stores/types";

/** The orders core's applyStoreEvent (server/orders/store-events.ts), or a stand-in with its signature: runs inside the delivery's transaction. */
export type ApplyStoreEvent = typeof applyStoreEvent;

export interface StoreDelivery {
  integration: Pick<IntegrationRow, "id" | "orgId" | "kind" | "name" | "isDemo">;
  /** The ids it is processed once by (Verification.deliveryIds): any one seen before makes it a duplicate. */
  deliveryIds: string[];
  topic: string;
  /** What the adapter made of it (never `invalid`: those are refused before this). */
  meaning: Exclude<AdapterResult, { invalid: string }>;
  receivedAt: Date;
}

/** What the event did (applyStoreEvent's answer, its `wake` included), or a delivery seen before. */
export type StoreDeliveryOutcome = Omit<StoreEventResult, "result"> & { result: StoreEventResult["result"] | "duplicate" };

export const DUPLICATE_DETAIL = "This delivery was processed before: nothing changed.";

/** Thrown inside the transaction to roll back the ids recorded before a later one turned out to be known. */
class SeenBefore extends Error {}

export async function recordStoreDelivery(db: Db, apply: ApplyStoreEvent, delivery: StoreDelivery): Promise<StoreDeliveryOutcome> {
  const { integration, meaning } = delivery;
  const duplicate: StoreDeliveryOutcome = { result: "duplicate", detail: DUPLICATE_DETAIL, orderId: null };
  try {
    return await db.transaction(async (tx) => {
      // The organisation's row first, as every writer of orders, contacts and calls takes it (applyStoreEvent takes it again).
      if ("event" in meaning) await lockOrganisationForCalls(tx, integration.orgId);
      // One id at a time, in the order given: a second copy arriving meanwhile waits on the first id's key.
      for (const deliveryId of delivery.deliveryIds) {
        const inserted = await tx
          .insert(storeWebhookDeliveries)
          .values({ integrationId: integration.id, deliveryId, orgId: integration.orgId, topic: delivery.topic, result: "ignored", receivedAt: delivery.receivedAt })
          .onConflictDoNothing()
          .returning({ deliveryId: storeWebhookDeliveries.deliveryId });
        if (inserted.length === 0) throw new SeenBefore();
      }
      return await applyAndRecord(tx, apply, delivery);
    });
  } catch (error) {
    if (error instanceof SeenBefore) return duplicate;
    throw error;
  }
}

/** Applies the event (or records why there is none) and writes the result beside the delivery's ids. */
async function applyAndRecord(tx: Db, apply: ApplyStoreEvent, delivery: StoreDelivery): Promise<StoreDeliveryOutcome> {
  const { integration, meaning } = delivery;
  const outcome: StoreEventResult =
    "event" in meaning
      ? await apply(tx, { orgId: integration.orgId, integrationId: integration.id, source: integration.kind as StoreEventContext["source"], storeName: integration.name, isDemo: integration.isDemo }, meaning.event)
      : { result: "ignored", detail: meaning.ignored, orderId: null };
  await tx
    .update(storeWebhookDeliveries)
    .set({ result: outcome.result, detail: outcome.detail })
    .where(and(eq(storeWebhookDeliveries.integrationId, integration.id), inArray(storeWebhookDeliveries.deliveryId, delivery.deliveryIds)));
  await tx.update(storeIntegrations).set({ lastDeliveryAt: delivery.receivedAt }).where(eq(storeIntegrations.id, integration.id));
  return outcome;
}

/**
 * How long delivery ids are kept. A store delivery older than STORE_DELIVERY_MAX_AGE_MS (48 hours; the generic
 * endpoint's five minutes) is refused as stale before its id is looked up, so a month is more than the dedupe
 * needs; the rest is a month of delivery history (what each delivery did) for finding out why an order looks
 * the way it does.
 */
export const STORE_DELIVERY_KEEP_DAYS = 30;
export const STORE_DELIVERY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Deletes the delivery ids older than STORE_DELIVERY_KEEP_DAYS (any process may run it: deleting twice is harmless). */
export async function purgeOldDeliveries(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - STORE_DELIVERY_KEEP_DAYS * 24 * 60 * 60 * 1000);
  const deleted = await db.delete(storeWebhookDeliveries).where(lt(storeWebhookDeliveries.receivedAt, before)).returning({ id: storeWebhookDeliveries.deliveryId });
  return deleted.length;
}

/** Runs purgeOldDeliveries every hour in this process (server/index.ts); stop() waits for a run under way. */
export function startDeliveryPurge(db: Db, log: { warn(obj: unknown, msg: string): void }): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= purgeOldDeliveries(db)
      .catch((error: unknown) => log.warn({ err: error }, "purging old store deliveries failed; it runs again in an hour"))
      .finally(() => {
        running = null;
      });
  }, STORE_DELIVERY_PURGE_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
