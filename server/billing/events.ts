/**
 * What a Stripe event (Stripe's or the sandbox's) does (issue 15). POST /webhooks/stripe records the
 * event id in stripe_events and calls dispatchPaymentEvent in the same transaction, so each event has
 * its effect once however often it is delivered. Unknown types are recorded and ignored.
 *
 * Anything that must ask the provider (the card a checkout saved) is read before the transaction
 * (preparePaymentEvent): nothing waits on the network while rows are locked.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { billingAccounts, organizations, topUps } from "../db/schema";
import { appendLedgerEntry, type WalletPolicy } from "../wallet/wallet";
import { recordReloadFailure } from "./auto-reload";
import { recordDocument } from "./documents";
import type { PlanSettings } from "./plan-limits";
import type { CheckoutSessionState, PaymentEvent, PaymentProvider } from "./payments/types";
import { applySubscriptionEvent } from "./subscription-events";
import { creditTopUpOnce, expireTopUp } from "./top-ups";

export interface PaymentEventContext {
  wallet: WalletPolicy;
  plans: PlanSettings;
  isSandbox: boolean;
  /** What preparePaymentEvent read of the provider. */
  checkout?: CheckoutSessionState | null;
}

export type DispatchResult = "applied" | "ignored";

const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
]);

type Obj = Record<string, unknown>;
const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const meta = (object: Obj): Record<string, string> => (object.metadata && typeof object.metadata === "object" ? (object.metadata as Record<string, string>) : {});
/** An expandable field: the id, or the expanded object's id. */
const idOf = (value: unknown): string | null => str(value) ?? (value && typeof value === "object" ? str((value as Obj).id) : null);

/** The top-up a checkout session is for: metadata.top_up_id, else client_reference_id. */
function topUpIdOfSession(session: Obj): string | null {
  const id = str(meta(session).top_up_id) ?? str(session.client_reference_id);
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

/** Reads of the provider an event needs, before its transaction. */
export async function preparePaymentEvent(payments: PaymentProvider, event: PaymentEvent): Promise<CheckoutSessionState | null> {
  if (event.type !== "checkout.session.completed" && event.type !== "checkout.session.async_payment_succeeded") return null;
  const session = event.data.object;
  if (session.mode !== "payment" || session.payment_status !== "paid" || !topUpIdOfSession(session)) return null;
  const id = str(session.id);
  return id ? payments.getCheckoutSession(id) : null;
}

/**
 * Stripe does not promise the order of its events: a customer.subscription.created / updated is applied
 * with the subscription as the provider has it now (when the provider can say: getSubscription), so a
 * late, older copy cannot undo a newer change (say give back a plan after customer.subscription.deleted).
 * Before the transaction, like preparePaymentEvent. A subscription the provider no longer knows keeps the
 * event's copy.
 */
export async function currentSubscriptionEvent(payments: PaymentProvider, event: PaymentEvent): Promise<PaymentEvent> {
  if (event.type !== "customer.subscription.created" && event.type !== "customer.subscription.updated") return event;
  const id = str(event.data.object.id);
  if (!id || !payments.getSubscription) return event;
  const current = await payments.getSubscription(id);
  return current ? { ...event, data: { ...event.data, object: current } } : event;
}

/** Applies one event inside the transaction that records its id. */
export async function dispatchPaymentEvent(tx: Db, event: PaymentEvent, ctx: PaymentEventContext): Promise<DispatchResult> {
  const object = event.data.object;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      if (object.mode === "subscription") return (await applySubscriptionEvent(tx, event, ctx.plans)) ? "applied" : "ignored";
      const topUpId = topUpIdOfSession(object);
      // Paid later (bank debits): checkout.session.async_payment_succeeded will follow.
      if (!topUpId || object.payment_status !== "paid") return "ignored";
      const credited = await creditTopUpOnce(tx, topUpId, ctx.wallet, {
        paymentIntentId: idOf(object.payment_intent),
        receiptUrl: ctx.checkout?.receiptUrl ?? null,
        card: ctx.checkout?.card ?? null,
      });
      return credited ? "applied" : "ignored";
    }
    case "checkout.session.async_payment_failed": {
      const topUpId = topUpIdOfSession(object);
      if (!topUpId) return "ignored";
      const changed = await tx
        .update(topUps)
        .set({ status: "failed", failureCode: "payment_failed", failureMessage: "The payment did not go through.", updatedAt: new Date() })
        .where(eq(topUps.id, topUpId))
        .returning({ status: topUps.status });
      return changed.length > 0 ? "applied" : "ignored";
    }
    case "checkout.session.expired": {
      if (object.mode === "subscription") return (await applySubscriptionEvent(tx, event, ctx.plans)) ? "applied" : "ignored";
      const topUpId = topUpIdOfSession(object);
      return topUpId && (await expireTopUp(tx, topUpId)) ? "applied" : "ignored";
    }
    case "payment_intent.succeeded": {
      const topUpId = str(meta(object).top_up_id);
      if (!topUpId) return "ignored";
      const [row] = await tx.select({ kind: topUps.kind }).from(topUps).where(eq(topUps.id, topUpId)).limit(1);
      // Checkout top-ups are credited by their session's events (which know the saved card).
      if (row?.kind !== "auto_reload") return "ignored";
      return (await creditTopUpOnce(tx, topUpId, ctx.wallet, { paymentIntentId: str(object.id) })) ? "applied" : "ignored";
    }
    case "payment_intent.payment_failed": {
      const topUpId = str(meta(object).top_up_id);
      if (!topUpId) return "ignored";
      const error = (object.last_payment_error ?? {}) as Obj;
      const code = str(error.code) ?? "card_declined";
      const requiresAction = code === "authentication_required" || object.status === "requires_action";
      const recorded = await recordReloadFailure(tx, topUpId, {
        kind: requiresAction ? "requires_action" : "failed",
        code: requiresAction ? code : (str(error.decline_code) ?? code),
        message: str(error.message) ?? "The card was declined.",
        paymentIntentId: str(object.id),
      });
      return recorded ? "applied" : "ignored";
    }
    case "charge.refunded":
      return (await applyOutsideRefund(tx, object, ctx.wallet)) ? "applied" : "ignored";
    default:
      break;
  }
  if (SUBSCRIPTION_EVENTS.has(event.type)) {
    const handled = await applySubscriptionEvent(tx, event, ctx.plans);
    if (event.type === "invoice.paid") await recordInvoice(tx, object, ctx.isSandbox);
    return handled ? "applied" : "ignored";
  }
  return "ignored";
}

/**
 * A refund made at the provider (Stripe's dashboard) rather than through POST /billing/top-up/{id}/refund:
 * the charge's amount_refunded passed what we recorded, so the wallet gives back the difference (kind
 * refund). Our own refunds record theirs before asking the provider, so their charge.refunded finds
 * nothing left to do.
 */
async function applyOutsideRefund(tx: Db, charge: Obj, wallet: WalletPolicy): Promise<boolean> {
  const paymentIntentId = idOf(charge.payment_intent);
  const chargeId = str(charge.id);
  if (!paymentIntentId || !chargeId) return false;
  const [row] = await tx.select().from(topUps).where(eq(topUps.paymentIntentId, paymentIntentId)).for("update");
  if (!row || row.status !== "paid") return false;
  const refundedMicros = Math.min(row.amountMicros, Math.round(Number(charge.amount_refunded ?? 0)) * 10_000);
  const difference = refundedMicros - row.refundedMicros;
  if (!Number.isSafeInteger(difference) || difference <= 0) return false;
  const entry = await appendLedgerEntry(
    tx,
    {
      orgId: row.orgId,
      amountMicros: -difference,
      kind: "refund",
      description: `Refund of $${(difference / 1_000_000).toFixed(2)} made at the payment provider${row.isSandbox ? " (Sandbox)" : ""}`,
      topUpId: row.id,
      reference: `refund:${chargeId}:${refundedMicros}`,
    },
    wallet,
  );
  if (!entry) return false;
  await tx.update(topUps).set({ refundedMicros, updatedAt: new Date() }).where(eq(topUps.id, row.id));
  return true;
}

/** The invoice document of a paid invoice (once per invoice id): the organisation from metadata, else by customer. */
async function recordInvoice(tx: Db, invoice: Obj, isSandbox: boolean): Promise<void> {
  const invoiceId = str(invoice.id);
  if (!invoiceId) return;
  const parent = (invoice.parent ?? {}) as Obj;
  const details = (parent.subscription_details ?? {}) as Obj;
  let orgId = str(meta(invoice).org_id) ?? str(meta(details).org_id);
  if (!orgId) {
    const customerId = idOf(invoice.customer);
    if (customerId) {
      const [account] = await tx.select({ orgId: billingAccounts.orgId }).from(billingAccounts).where(eq(billingAccounts.customerId, customerId)).limit(1);
      orgId = account?.orgId ?? null;
    }
  }
  if (!orgId) return;
  const [exists] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  if (!exists) return;
  const cents = Number(invoice.amount_paid ?? invoice.total ?? 0);
  const lines = ((invoice.lines as Obj | undefined)?.data as Obj[] | undefined) ?? [];
  await recordInvoiceDocument(tx, {
    orgId,
    invoiceId,
    amountMicros: Math.round(cents) * 10_000,
    description: str(lines[0]?.description) ?? str(invoice.description) ?? "Subscription invoice",
    url: str(invoice.hosted_invoice_url),
    number: str(invoice.number),
    isSandbox,
  });
}

/** An invoice's document (the plans work may call it too): once per provider invoice id. */
export async function recordInvoiceDocument(
  tx: Db,
  input: { orgId: string; invoiceId: string; amountMicros: number; description: string; url: string | null; number: string | null; isSandbox: boolean },
): Promise<void> {
  await recordDocument(tx, {
    orgId: input.orgId,
    kind: "invoice",
    amountMicros: input.amountMicros,
    description: input.description,
    providerId: input.invoiceId,
    url: input.url,
    number: input.number,
    isSandbox: input.isSandbox,
  });
}
