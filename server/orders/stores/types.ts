/**
 * What a store adapter (shopify.ts, woocommerce.ts, generic.ts) gives the webhook route: whether a
 * delivery is genuine (verify), and what it means for our orders (toStoreEvent). Both are pure: no
 * database, no clock but the `now` they are given, so they are unit-tested with the stores' own
 * payloads (tests/server/fixtures/stores/).
 */
import type { StoreEvent } from "../store-events";

export type { StoreEvent, StoreEventContext, StoreEventResult, StoreOrderInput } from "../store-events";

/** Request headers as Fastify gives them (lower-case names). */
export type Headers = Record<string, string | string[] | undefined>;

/**
 * A verified delivery: the ids it is processed once by, and its topic; or why it was refused. 401: the
 * signature or its time does not hold (nothing about the body is trusted); 400: a correctly signed body
 * that is not what the endpoint takes.
 *
 * `deliveryIds`: the store's delivery id, and for Shopify and WooCommerce also `sha256:<hex of the body>`.
 * Their signature covers the body only, so a delivery captured on the way could be sent again under a new
 * delivery-id header: the same bytes are still the same delivery. (The generic endpoint signs its id.)
 */
export type Verification = { ok: true; deliveryIds: string[]; topic: string; payload: unknown } | { ok: false; status: 400 | 401; reason: string };

/**
 * What a verified delivery means: an event for applyStoreEvent; nothing to do (and why: recorded, 200);
 * or, for our own generic format only, a body that breaks it (400, nothing recorded, so the sender can
 * fix it and send the same id again). Shopify's and WooCommerce's odd payloads are ignored, not refused:
 * they would retry a refused delivery for hours and then drop the subscription.
 */
export type AdapterResult = { event: StoreEvent } | { ignored: string } | { invalid: string };

export interface StoreAdapter {
  verify(headers: Headers, rawBody: Buffer, secret: string, now: number): Verification;
  toStoreEvent(topic: string, payload: unknown): AdapterResult;
}
