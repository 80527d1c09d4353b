/**
 * The embedded demo store (issue 18, orders: "the demo store sends that paid event itself for its demo
 * orders"). In the sandbox an answered follow-up call ends with the customer agreeing to complete the
 * purchase (order `calling`, call_outcome `completed`), and an order only turns `recovered` when the store's
 * paid event arrives. A real shop sends that event when the customer pays; the demo store, which has no
 * customers, sends it itself: a signed generic `order.paid` to our own POST /webhooks/store/{id}, through the
 * same verification, transaction and attribution as any store's delivery.
 *
 * How: a sweep (every DEMO_STORE_INTERVAL_MS, sandbox voice mode only) looks for orders of an integration
 * marked is_demo (only the seed makes one: the API cannot) that are calling, with call_outcome completed,
 * unpaid, whose reaching call ended DEMO_STORE_PAY_AFTER_MS ago or more, and pays each in full. Chosen over a
 * hook in the call's settling because it needs nothing from that transaction and survives anything: a
 * process that stops before sending, a failed post, a lost answer — the next sweep (in any process) sends
 * it again. The delivery id is `demo-paid-<order id>`, so however often it is sent, and by however many
 * processes, the order is paid once (a repeat answers duplicate). Orders of any other integration are never
 * touched: the sandbox never marks a real store's order paid.
 */
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { API_BASE } from "../../contract/api";
import { ORDER_PATHS, minorToMajor } from "../../contract/order-shared";
import type { GenericStoreEvent } from "../../contract/store-webhook";
import type { SecretBox } from "../crypto/credentials";
import type { Db } from "../db/client";
import { orders, storeIntegrations } from "../db/schema";
import { signedHeaders } from "../webhooks/signature";
import { openStoreSecret } from "./integrations";

export const DEMO_STORE_NAME = "Demo store";
/** How long after the call the demo customer "pays": a short moment, so the console shows the order calling first. */
export const DEMO_STORE_PAY_AFTER_MS = 20_000;
export const DEMO_STORE_INTERVAL_MS = 5_000;
const BATCH = 20;

export const demoPaidDeliveryId = (orderId: string) => `demo-paid-${orderId}`;

/** The generic order.paid event the demo store sends for an order (paid in full, now). */
export function demoPaidEvent(order: { id: string; externalId: string; totalMinor: number; currency: string }, now: Date): GenericStoreEvent {
  return {
    id: demoPaidDeliveryId(order.id),
    event: "order.paid",
    created_at: now.toISOString(),
    order: { id: order.externalId, paid_amount: minorToMajor(order.totalMinor, order.currency), currency: order.currency, paid_at: now.toISOString() },
  };
}

export interface DemoStoreOptions {
  db: Db;
  box: SecretBox;
  /** Posts a signed delivery to our own route (app.inject); answers its status. */
  post: (url: string, body: string, headers: Record<string, string>) => Promise<{ statusCode: number; body: string }>;
  payAfterMs?: number;
  log?: Pick<FastifyInstance["log"], "warn" | "info">;
}

/** One sweep: sends the paid event of every demo order due (see the file comment). Answers how many were sent and taken. */
export async function sendDemoPayments(options: DemoStoreOptions, now = new Date()): Promise<number> {
  const { db, box, post, log } = options;
  const due = await db
    .select({ order: { id: orders.id, externalId: orders.externalId, totalMinor: orders.totalMinor, currency: orders.currency }, integration: { id: storeIntegrations.id, secretSealed: storeIntegrations.secretSealed } })
    .from(orders)
    .innerJoin(storeIntegrations, and(eq(storeIntegrations.id, orders.integrationId), eq(storeIntegrations.orgId, orders.orgId)))
    .where(
      and(
        eq(storeIntegrations.isDemo, true),
        eq(orders.status, "calling"),
        eq(orders.callOutcome, "completed"),
        isNull(orders.paidAt),
        lte(orders.reachedAt, new Date(now.getTime() - (options.payAfterMs ?? DEMO_STORE_PAY_AFTER_MS))),
      ),
    )
    .orderBy(asc(orders.reachedAt))
    .limit(BATCH);
  let sent = 0;
  for (const { order, integration } of due) {
    const body = JSON.stringify(demoPaidEvent(order, now));
    const response = await post(`${API_BASE}${ORDER_PATHS.genericWebhook(integration.id)}`, body, signedHeaders(openStoreSecret(box, integration), body, now.getTime()));
    if (response.statusCode === 200) sent++;
    else log?.warn({ orderId: order.id, status: response.statusCode, body: response.body.slice(0, 300) }, "the demo store's paid event was refused; the next sweep sends it again");
  }
  return sent;
}

export interface DemoStore {
  /** One sweep now (tests). */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/** Runs the demo store's sweep in this process (server/index.ts, sandbox voice mode only). */
export function startDemoStore(app: FastifyInstance, options: { intervalMs?: number; payAfterMs?: number } = {}): DemoStore {
  const store: DemoStoreOptions = {
    db: app.db,
    box: app.secretBox,
    post: async (url, body, headers) => {
      const response = await app.inject({ method: "POST", url, headers, payload: body });
      return { statusCode: response.statusCode, body: response.body };
    },
    ...(options.payAfterMs !== undefined ? { payAfterMs: options.payAfterMs } : {}),
    log: app.log,
  };
  let running: Promise<number> | null = null;
  const tick = () => {
    running ??= sendDemoPayments(store)
      .catch((error: unknown) => {
        app.log.warn({ err: error }, "the demo store's sweep failed; it runs again shortly");
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? DEMO_STORE_INTERVAL_MS);
  timer.unref();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
