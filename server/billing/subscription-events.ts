/**
 * Subscription events from the payment provider (Stripe's or the sandbox's). The Stripe webhook's
 * dispatcher calls applySubscriptionEvent for each event, inside the transaction that records the event
 * id (so each event has one effect). It answers whether it handled the event.
 *
 * - checkout.session.completed in subscription mode: the customer and subscription ids, and the plan
 *   from the session's metadata {org_id, plan}.
 * - customer.subscription.created / updated: the plan (the price id against STRIPE_PRICE_STARTER /
 *   STRIPE_PRICE_PRO, else metadata.plan), the status (unpaid counts as past_due,
 *   incomplete_expired as canceled; incomplete changes nothing), current_period_end (the subscription's
 *   or its first item's, as newer API versions put it), cancel_at_period_end, and past_due_since when it
 *   turns past_due (cleared when it is paid again). A plan change is applied only from these events (the
 *   sandbox delivers them before POST /subscription/change answers).
 * - customer.subscription.deleted: back to Free, status canceled, no subscription.
 * - invoice.paid: an invoice document (billing_documents, one per invoice id); a past-due subscription is
 *   active again.
 * - invoice.payment_failed: past_due (past_due_since kept from the first failure).
 *
 * The organisation is the event's metadata.org_id, else the account holding the subscription id, else
 * the customer id. An event for none is not handled (false).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { PLAN_IDS, type PlanId, type SubscriptionStatus } from "../../contract/plans";
import type { Db } from "../db/client";
import { billingAccounts, billingDocuments, organizations } from "../db/schema";
import { ensureBillingAccount } from "./account";
import type { PaymentEvent } from "./payments/types";
import type { PlanSettings } from "./plan-limits";

type StripeObject = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
const obj = (value: unknown): StripeObject => (value && typeof value === "object" && !Array.isArray(value) ? (value as StripeObject) : {});
/** An id field that may be expanded into its object. */
const idOf = (value: unknown): string | null => str(value) ?? str(obj(value).id);
const isPlan = (value: unknown): value is PlanId => typeof value === "string" && (PLAN_IDS as readonly string[]).includes(value);

function metadataOf(object: StripeObject): Record<string, string> {
  return obj(object.metadata) as Record<string, string>;
}

function firstItem(subscription: StripeObject): StripeObject {
  const items = obj(subscription.items).data;
  return Array.isArray(items) ? obj(items[0]) : {};
}

/**
 * The plan of a subscription: its price id against the configured prices (STRIPE_PRICE_*) first, else its
 * metadata, else its price's metadata. The price comes first because a plan changed in Stripe's customer
 * portal moves only the price: the metadata Checkout wrote still names the plan it was bought on.
 */
export function planOfSubscription(subscription: StripeObject, settings: PlanSettings): PlanId | null {
  const item = firstItem(subscription);
  const priceId = idOf(item.price) ?? idOf(item.plan);
  const prices = settings.prices;
  if (priceId && prices) {
    if (prices.starter && priceId === prices.starter) return "starter";
    if (prices.pro && priceId === prices.pro) return "pro";
  }
  const fromMetadata = metadataOf(subscription).plan;
  if (isPlan(fromMetadata)) return fromMetadata;
  const fromPriceMetadata = metadataOf(obj(item.price)).plan;
  return isPlan(fromPriceMetadata) ? fromPriceMetadata : null;
}

/** Stripe's status as ours; null: changes nothing (incomplete: the first payment is still under way). */
function statusOf(value: unknown): SubscriptionStatus | null {
  switch (value) {
    case "active":
    case "trialing":
    case "past_due":
    case "canceled":
      return value;
    case "unpaid":
      return "past_due";
    case "incomplete_expired":
      return "canceled";
    case "paused":
      return "past_due";
    default:
      return null;
  }
}

function periodEndOf(subscription: StripeObject): Date | null {
  const seconds = num(subscription.current_period_end) ?? num(firstItem(subscription).current_period_end);
  return seconds === null ? null : new Date(seconds * 1000);
}

/** The organisation the object belongs to: metadata.org_id (an existing organisation), else by subscription id, else by customer id. */
async function organisationOf(tx: Db, ids: { orgId: string | null; subscriptionId: string | null; customerId: string | null }): Promise<string | null> {
  if (ids.orgId) {
    const [org] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, ids.orgId)).limit(1);
    if (org) return org.id;
  }
  if (ids.subscriptionId) {
    const [row] = await tx.select({ orgId: billingAccounts.orgId }).from(billingAccounts).where(eq(billingAccounts.subscriptionId, ids.subscriptionId)).limit(1);
    if (row) return row.orgId;
  }
  if (ids.customerId) {
    const [row] = await tx.select({ orgId: billingAccounts.orgId }).from(billingAccounts).where(eq(billingAccounts.customerId, ids.customerId)).limit(1);
    if (row) return row.orgId;
  }
  return null;
}

/** The row under its lock (made first with DEFAULT_PLAN when missing). */
async function lockedAccount(tx: Db, orgId: string, settings: PlanSettings) {
  await ensureBillingAccount(tx, orgId, settings.defaultPlan);
  const [row] = await tx.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).for("update");
  return row!;
}

async function update(tx: Db, orgId: string, changes: Partial<typeof billingAccounts.$inferInsert>): Promise<void> {
  await tx.update(billingAccounts).set({ ...changes, updatedAt: new Date() }).where(eq(billingAccounts.orgId, orgId));
}

/** The subscription id an invoice is for (invoice.subscription, or parent.subscription_details.subscription in newer API versions). */
function invoiceSubscriptionId(invoice: StripeObject): string | null {
  return idOf(invoice.subscription) ?? idOf(obj(obj(invoice.parent).subscription_details).subscription);
}

function invoiceOrgId(invoice: StripeObject): string | null {
  return str(metadataOf(invoice).org_id) ?? str(metadataOf(obj(obj(invoice.parent).subscription_details)).org_id) ?? str(metadataOf(obj(invoice.subscription_details)).org_id);
}

export async function applySubscriptionEvent(tx: Db, event: PaymentEvent, settings: PlanSettings): Promise<boolean> {
  const object = obj(event.data?.object);
  const now = new Date(event.created ? event.created * 1000 : Date.now());
  switch (event.type) {
    case "checkout.session.completed": {
      if (object.mode !== "subscription") return false;
      const metadata = metadataOf(object);
      const subscriptionId = idOf(object.subscription);
      const customerId = idOf(object.customer);
      const orgId = await organisationOf(tx, { orgId: str(metadata.org_id) ?? str(object.client_reference_id), subscriptionId, customerId });
      if (!orgId) return false;
      const account = await lockedAccount(tx, orgId, settings);
      const plan = isPlan(metadata.plan) ? metadata.plan : (account.plan as PlanId);
      await update(tx, orgId, {
        plan,
        subscriptionId: subscriptionId ?? account.subscriptionId,
        customerId: customerId ?? account.customerId,
        subscriptionStatus: "active",
        pastDueSince: null,
        cancelAtPeriodEnd: false,
      });
      return true;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated": {
      const subscriptionId = idOf(object.id);
      const customerId = idOf(object.customer);
      const orgId = await organisationOf(tx, { orgId: str(metadataOf(object).org_id), subscriptionId, customerId });
      if (!orgId) return false;
      const account = await lockedAccount(tx, orgId, settings);
      // An event about a subscription the organisation no longer holds (replaced by a newer one) changes nothing.
      if (account.subscriptionId && subscriptionId && account.subscriptionId !== subscriptionId && account.subscriptionStatus !== "canceled" && event.type === "customer.subscription.updated") {
        return true;
      }
      const status = statusOf(object.status);
      const plan = planOfSubscription(object, settings);
      const changes: Partial<typeof billingAccounts.$inferInsert> = {
        subscriptionId: subscriptionId ?? account.subscriptionId,
        customerId: customerId ?? account.customerId,
        cancelAtPeriodEnd: object.cancel_at_period_end === true,
      };
      const periodEnd = periodEndOf(object);
      if (periodEnd) changes.currentPeriodEnd = periodEnd;
      if (status === "canceled") {
        changes.plan = "free";
        changes.subscriptionStatus = "canceled";
        changes.pastDueSince = null;
      } else if (status) {
        if (plan) changes.plan = plan;
        changes.subscriptionStatus = status;
        if (status === "past_due") changes.pastDueSince = account.pastDueSince ?? now;
        else changes.pastDueSince = null;
      }
      await update(tx, orgId, changes);
      return true;
    }
    case "customer.subscription.deleted": {
      const subscriptionId = idOf(object.id);
      const orgId = await organisationOf(tx, { orgId: str(metadataOf(object).org_id), subscriptionId, customerId: idOf(object.customer) });
      if (!orgId) return false;
      const account = await lockedAccount(tx, orgId, settings);
      // Only the subscription the organisation holds ends its plan.
      if (account.subscriptionId && subscriptionId && account.subscriptionId !== subscriptionId) return true;
      await update(tx, orgId, { plan: "free", subscriptionStatus: "canceled", subscriptionId: null, pastDueSince: null, cancelAtPeriodEnd: false, currentPeriodEnd: null });
      return true;
    }
    case "invoice.paid": {
      const subscriptionId = invoiceSubscriptionId(object);
      const orgId = await organisationOf(tx, { orgId: invoiceOrgId(object), subscriptionId, customerId: idOf(object.customer) });
      if (!orgId) return false;
      const invoiceId = idOf(object.id);
      const cents = num(object.amount_paid) ?? 0;
      if (invoiceId && cents > 0) {
        const lines = obj(object.lines).data;
        const line = Array.isArray(lines) ? str(obj(lines[0]).description) : null;
        await tx
          .insert(billingDocuments)
          .values({
            id: randomUUID(),
            orgId,
            kind: "invoice",
            number: str(object.number) ?? invoiceId,
            amountMicros: Math.round(cents) * 10_000,
            description: str(object.description) ?? line ?? "Subscription",
            providerId: invoiceId,
            url: str(object.hosted_invoice_url),
            isSandbox: settings.payments === "sandbox",
          })
          .onConflictDoNothing();
      }
      const account = await lockedAccount(tx, orgId, settings);
      if (account.subscriptionStatus === "past_due" && (!subscriptionId || subscriptionId === account.subscriptionId)) {
        await update(tx, orgId, { subscriptionStatus: "active", pastDueSince: null });
      }
      return true;
    }
    case "invoice.payment_failed": {
      const subscriptionId = invoiceSubscriptionId(object);
      const orgId = await organisationOf(tx, { orgId: invoiceOrgId(object), subscriptionId, customerId: idOf(object.customer) });
      if (!orgId) return false;
      const account = await lockedAccount(tx, orgId, settings);
      // An invoice of another (old) subscription, or an organisation without a paid plan: nothing to fall behind on.
      if (subscriptionId && account.subscriptionId && subscriptionId !== account.subscriptionId) return true;
      if (account.plan === "free" || account.subscriptionStatus === "canceled") return true;
      await update(tx, orgId, { subscriptionStatus: "past_due", pastDueSince: account.pastDueSince ?? now });
      return true;
    }
    default:
      return false;
  }
}
