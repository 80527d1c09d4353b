/**
 * Subscription events from the payment provider (Stripe's or the sandbox's): STUB to be built by the
 * plans work. The Stripe webhook's dispatcher (server/billing/events.ts) calls this for
 * checkout.session.completed in subscription mode, customer.subscription.created/updated/deleted,
 * invoice.paid and invoice.payment_failed, inside the transaction that records the event id (so each
 * event has one effect). Answers whether it handled the event.
 */
import type { Db } from "../db/client";
import type { PaymentEvent } from "./payments/types";
import type { PlanSettings } from "./plan-limits";

export async function applySubscriptionEvent(_tx: Db, _event: PaymentEvent, _settings: PlanSettings): Promise<boolean> {
  return false;
}
