/**
 * An order's timeline (order_events; GET /order/{id}/timeline): abandoned, imported, queued, each call,
 * the outcome the agent reported, paid, stopped, cancelled… Written in the same transaction as the
 * change it records, so the timeline never says what did not happen.
 */
import { randomUUID } from "node:crypto";
import type { ORDER_EVENT_KINDS } from "../../contract/order";
import type { Db } from "../db/client";
import { orderEvents } from "../db/schema";

export type OrderEventKind = (typeof ORDER_EVENT_KINDS)[number];

export interface OrderEventInput {
  orgId: string;
  orderId: string;
  kind: OrderEventKind;
  detail: string;
  callId?: string | null;
  /** The person's user id (null: the store, the dialler, the agent). */
  actor?: string | null;
  at?: Date;
}

export async function recordOrderEvent(tx: Db, event: OrderEventInput): Promise<void> {
  await recordOrderEvents(tx, [event]);
}

/** Several events in one statement (a claim's calls, an import). */
export async function recordOrderEvents(tx: Db, events: readonly OrderEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const now = new Date();
  for (let i = 0; i < events.length; i += 2000) {
    await tx.insert(orderEvents).values(
      events.slice(i, i + 2000).map((event) => ({
        id: randomUUID(),
        orgId: event.orgId,
        orderId: event.orderId,
        kind: event.kind,
        detail: event.detail,
        callId: event.callId ?? null,
        actor: event.actor ?? null,
        createdAt: event.at ?? now,
      })),
    );
  }
}
