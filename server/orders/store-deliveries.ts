/**
 * A verified store delivery, processed once (issue 16 §2): in ONE transaction the delivery id is recorded
 * in store_webhook_deliveries (its primary key is (integration, delivery id): a second copy, even one
 * arriving while the first is still being applied, waits for it and then finds the row), the event is
 * applied by the orders core, the delivery's result is written beside it and the integration's
 * last_delivery_at moves. A replay answers `duplicate` and writes nothing at all.
 */
import { and, eq } from "drizzle-orm";
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
  deliveryId: string;
  topic: string;
  /** What the adapter made of it (never `invalid`: those are refused before this). */
  meaning: Exclude<AdapterResult, { invalid: string }>;
  receivedAt: Date;
}

export type StoreDeliveryOutcome = { result: "applied" | "ignored" | "duplicate"; detail: string | null; orderId: string | null };

export const DUPLICATE_DETAIL = "This delivery was processed before: nothing changed.";

export async function recordStoreDelivery(db: Db, apply: ApplyStoreEvent, delivery: StoreDelivery): Promise<StoreDeliveryOutcome> {
  const { integration, meaning } = delivery;
  return db.transaction(async (tx) => {
    // The organisation's row first, as every writer of orders, contacts and calls takes it (applyStoreEvent takes it again).
    if ("event" in meaning) await lockOrganisationForCalls(tx, integration.orgId);
    const inserted = await tx
      .insert(storeWebhookDeliveries)
      .values({ integrationId: integration.id, deliveryId: delivery.deliveryId, orgId: integration.orgId, topic: delivery.topic, result: "ignored", receivedAt: delivery.receivedAt })
      .onConflictDoNothing()
      .returning({ deliveryId: storeWebhookDeliveries.deliveryId });
    if (inserted.length === 0) return { result: "duplicate" as const, detail: DUPLICATE_DETAIL, orderId: null };

    const outcome: StoreEventResult =
      "event" in meaning
        ? await apply(tx, { orgId: integration.orgId, integrationId: integration.id, source: integration.kind as StoreEventContext["source"], storeName: integration.name, isDemo: integration.isDemo }, meaning.event)
        : { result: "ignored", detail: meaning.ignored, orderId: null };
    await tx
      .update(storeWebhookDeliveries)
      .set({ result: outcome.result, detail: outcome.detail })
      .where(and(eq(storeWebhookDeliveries.integrationId, integration.id), eq(storeWebhookDeliveries.deliveryId, delivery.deliveryId)));
    await tx.update(storeIntegrations).set({ lastDeliveryAt: delivery.receivedAt }).where(eq(storeIntegrations.id, integration.id));
    return outcome;
  });
}
