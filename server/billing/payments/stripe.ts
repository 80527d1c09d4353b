/**
 * The Stripe payment provider (issue 15): PaymentProvider (./types.ts) over the `stripe` npm package
 * (23.1, API version 2026-10-28.endive). STRIPE_API_URL (config.apiUrl) points the client at another
 * host (a local stand-in in tests). Every POST/DELETE carries an idempotency key derived from our own row
 * id, and is one of the operations in ../shared/vendor/stripe/openapi-requests.json
 * (tests/server/stripe-contract.test.ts checks both). What each method sends:
 *
 * - createCustomer: POST /v1/customers {name, email?, metadata {org_id}}; key `customer-<orgId>`.
 * - createTopUpCheckout: POST /v1/checkout/sessions, mode payment, customer, client_reference_id =
 *   topUpId, line_items[0] = {price_data {currency usd, unit_amount = cents, product_data {name
 *   "Wallet top-up"}}, quantity 1}, payment_intent_data {setup_future_usage off_session when saveCard,
 *   metadata {top_up_id, org_id}}, metadata {top_up_id, org_id}, success_url, cancel_url;
 *   key `top-up-<topUpId>`.
 * - getCheckoutSession: GET /v1/checkout/sessions/{id} expanding payment_intent.payment_method and
 *   payment_intent.latest_charge (the saved card and the receipt URL).
 * - chargeOffSession: POST /v1/payment_intents {amount, currency usd, customer, payment_method,
 *   off_session, confirm, metadata {top_up_id, org_id}, expand [latest_charge]}; key `reload-<topUpId>`.
 *   Stripe answers a decline with a 402 card error: authentication_required (or a PaymentIntent left in
 *   requires_action) answers requires_action, any other card error answers failed with Stripe's
 *   sentence; other errors (network, invalid request) throw.
 * - refund: POST /v1/refunds {payment_intent, amount, metadata {refund_id}}; key `refund-<refundId>`.
 * - createSubscriptionCheckout: POST /v1/checkout/sessions, mode subscription, customer,
 *   client_reference_id = orgId, line_items[0] = {price: STRIPE_PRICE_<PLAN>} or {price_data {currency
 *   usd, unit_amount = the plan's monthly price in cents, recurring {interval month}, product_data {name
 *   "<Plan> plan"}}}, quantity 1, metadata {org_id, plan}, subscription_data.metadata {org_id, plan};
 *   key `subscribe-<orgId>-<plan>-<nonce>`.
 * - getSubscription: GET /v1/subscriptions/{id} (the webhook reads a subscription event's subscription as it
 *   is now: Stripe's events may arrive out of order); null when Stripe answers 404.
 * - updateSubscription: GET /v1/subscriptions/{id} (for its item id), then POST /v1/subscriptions/{id}
 *   {items [{id, price | price_data {currency, product = the current item's product, unit_amount,
 *   recurring}}], proration_behavior create_prorations, metadata {plan}}; key `plan-<subId>-<plan>-<nonce>`.
 * - cancelSubscription: POST /v1/subscriptions/{id} {cancel_at_period_end true} (key
 *   `cancel-<subId>-<nonce>`), or DELETE /v1/subscriptions/{id} (key `cancel-now-<subId>-<nonce>`).
 * - createPortalSession: POST /v1/billing_portal/sessions {customer, return_url}; key
 *   `portal-<customerId>-<minute>-<hash of return_url>` (a double click within the minute gets the same session).
 * - verifyWebhook: stripe.webhooks.constructEvent with STRIPE_WEBHOOK_SECRET, tolerance 300 s; any
 *   failure throws WebhookSignatureError.
 *
 * planOfStripeSubscription reads the plan back from a subscription object (for the subscription events).
 */
import { createHash } from "node:crypto";
import Stripe from "stripe";
import type { StripeConfig } from "../../config";
import { PLANS, SELF_SERVE_PLANS, type SelfServePlanId } from "../../../contract/plans";
import type { CardOnFile, OffSessionResult, PaymentEvent, PaymentProvider } from "./types";
import { WebhookSignatureError } from "./webhook-error";

/** Seconds a signed webhook stays acceptable (Stripe's default, said out loud). */
export const STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;

export interface StripeLog {
  warn: (object: Record<string, unknown>, message?: string) => void;
}

/** The Stripe constructor's host/port/protocol for STRIPE_API_URL (https://api.stripe.com gives the defaults). */
export function stripeHostOptions(apiUrl: string): { host: string; port: number; protocol: "http" | "https" } {
  const url = new URL(apiUrl);
  const protocol = url.protocol === "http:" ? "http" : "https";
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`STRIPE_API_URL must be http(s): ${apiUrl}`);
  const port = url.port ? Number(url.port) : protocol === "http" ? 80 : 443;
  return { host: url.hostname, port, protocol };
}

const idOf = (value: unknown): string | null => {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") return (value as { id: string }).id;
  return null;
};

function cardOf(paymentMethod: unknown): CardOnFile | null {
  if (!paymentMethod || typeof paymentMethod !== "object") return null;
  const pm = paymentMethod as Stripe.PaymentMethod;
  if (!pm.card) return null;
  return { paymentMethodId: pm.id, brand: pm.card.brand, last4: pm.card.last4, expMonth: pm.card.exp_month, expYear: pm.card.exp_year };
}

function receiptOf(charge: unknown): string | null {
  if (!charge || typeof charge !== "object") return null;
  return (charge as Stripe.Charge).receipt_url ?? null;
}

const CHECKOUT_STATUSES = ["open", "complete", "expired"] as const;
const PAYMENT_STATUSES = ["paid", "unpaid", "no_payment_required"] as const;

/** Stripe's enums are open-ended (a newer API value may arrive); anything we do not know reads as `fallback`. */
function knownOr<T extends string>(value: string | null | undefined, known: readonly T[], fallback: T, log: StripeLog | undefined, sessionId: string): T {
  if (value && (known as readonly string[]).includes(value)) return value as T;
  log?.warn({ sessionId, value }, "checkout session with a status this code does not know");
  return fallback;
}

function planCents(plan: SelfServePlanId): number {
  const usd = PLANS[plan].price_usd_monthly;
  if (usd === null) throw new Error(`plan ${plan} has no monthly price`);
  return Math.round(usd * 100);
}

/**
 * The self-serve plan a Stripe subscription object (an event's data.object) is on: its item's price id
 * when it is a configured STRIPE_PRICE_*, else metadata.plan (what Checkout and updateSubscription set),
 * else its item's monthly unit_amount matched against the plans' prices; null when none says. A plan
 * changed in the customer portal only changes the price, so configure the price ids in production.
 */
export function planOfStripeSubscription(config: Pick<StripeConfig, "prices">, subscription: Record<string, unknown>): SelfServePlanId | null {
  const items = (subscription.items as { data?: { price?: { id?: unknown; unit_amount?: unknown } }[] } | undefined)?.data ?? [];
  const price = items[0]?.price;
  for (const plan of SELF_SERVE_PLANS) {
    if (price?.id && config.prices[plan] === price.id) return plan;
  }
  const metadataPlan = (subscription.metadata as Record<string, unknown> | undefined)?.plan;
  if (typeof metadataPlan === "string" && (SELF_SERVE_PLANS as readonly string[]).includes(metadataPlan)) return metadataPlan as SelfServePlanId;
  if (typeof price?.unit_amount === "number") return SELF_SERVE_PLANS.find((plan) => planCents(plan) === price.unit_amount) ?? null;
  return null;
}

export function createStripePayments(config: StripeConfig, log?: StripeLog): PaymentProvider {
  const stripe = new Stripe(config.secretKey, {
    ...stripeHostOptions(config.apiUrl),
    // Our idempotency keys make a retry safe; the caller (route or sweep) decides about retrying further.
    maxNetworkRetries: 1,
    timeout: 30_000,
    appInfo: { name: "voice-agent-platform" },
  });

  const priceFor = (plan: SelfServePlanId): string | null => config.prices[plan] ?? null;

  return {
    mode: "stripe",

    async createCustomer({ orgId, name, email }) {
      const customer = await stripe.customers.create(
        { name, ...(email ? { email } : {}), metadata: { org_id: orgId } },
        { idempotencyKey: `customer-${orgId}` },
      );
      return { customerId: customer.id };
    },

    async createTopUpCheckout({ topUpId, orgId, customerId, amountCents, saveCard, successUrl, cancelUrl }) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(`top-up amount must be whole cents above 0, got ${amountCents}`);
      const metadata = { top_up_id: topUpId, org_id: orgId };
      const session = await stripe.checkout.sessions.create(
        {
          mode: "payment",
          customer: customerId,
          client_reference_id: topUpId,
          line_items: [{ price_data: { currency: "usd", unit_amount: amountCents, product_data: { name: "Wallet top-up" } }, quantity: 1 }],
          payment_intent_data: { ...(saveCard ? { setup_future_usage: "off_session" as const } : {}), metadata },
          metadata,
          success_url: successUrl,
          cancel_url: cancelUrl,
        },
        { idempotencyKey: `top-up-${topUpId}` },
      );
      if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
      return { sessionId: session.id, url: session.url };
    },

    async getCheckoutSession(sessionId) {
      const session = await stripe.checkout.sessions.retrieve(sessionId, {
        expand: ["payment_intent.payment_method", "payment_intent.latest_charge"],
      });
      const intent = session.payment_intent && typeof session.payment_intent === "object" ? session.payment_intent : null;
      const metadata: Record<string, string> = {};
      for (const [key, value] of Object.entries(session.metadata ?? {})) if (typeof value === "string") metadata[key] = value;
      return {
        id: session.id,
        status: knownOr(session.status, CHECKOUT_STATUSES, "open", log, session.id),
        // A status newer than this code is not "paid": the sweep keeps the top-up pending until it reads one it knows.
        paymentStatus: knownOr(session.payment_status, PAYMENT_STATUSES, "unpaid", log, session.id),
        paymentIntentId: idOf(session.payment_intent),
        subscriptionId: idOf(session.subscription),
        customerId: idOf(session.customer),
        metadata,
        card: intent ? cardOf(intent.payment_method) : null,
        receiptUrl: intent ? receiptOf(intent.latest_charge) : null,
      };
    },

    async getSubscription(subscriptionId) {
      try {
        return (await stripe.subscriptions.retrieve(subscriptionId)) as unknown as Record<string, unknown>;
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null;
        throw error;
      }
    },

    async chargeOffSession({ topUpId, orgId, customerId, paymentMethodId, amountCents }): Promise<OffSessionResult> {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(`charge amount must be whole cents above 0, got ${amountCents}`);
      let intent: Stripe.PaymentIntent;
      try {
        intent = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: "usd",
            customer: customerId,
            payment_method: paymentMethodId,
            off_session: true,
            confirm: true,
            metadata: { top_up_id: topUpId, org_id: orgId },
            expand: ["latest_charge"],
          },
          { idempotencyKey: `reload-${topUpId}` },
        );
      } catch (error) {
        if (error instanceof Stripe.errors.StripeCardError) {
          const paymentIntentId = error.payment_intent?.id ?? null;
          if (error.code === "authentication_required" || error.payment_intent?.status === "requires_action") {
            return {
              status: "requires_action",
              paymentIntentId,
              code: "authentication_required",
              message: "The card needs authentication: confirm the charge in the console.",
            };
          }
          const code = error.decline_code ?? error.code ?? "card_declined";
          return { status: "failed", paymentIntentId, code, message: error.message || "The card was declined." };
        }
        throw error;
      }
      if (intent.status === "succeeded") return { status: "succeeded", paymentIntentId: intent.id, receiptUrl: receiptOf(intent.latest_charge) };
      if (intent.status === "requires_action") {
        return { status: "requires_action", paymentIntentId: intent.id, code: "authentication_required", message: "The card needs authentication: confirm the charge in the console." };
      }
      log?.warn({ paymentIntentId: intent.id, status: intent.status, topUpId }, "off-session charge did not succeed");
      const lastError = intent.last_payment_error;
      return {
        status: "failed",
        paymentIntentId: intent.id,
        code: lastError?.decline_code ?? lastError?.code ?? intent.status,
        message: lastError?.message ?? `The charge did not go through (Stripe says ${intent.status}).`,
      };
    },

    async refund({ refundId, paymentIntentId, amountCents }) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(`refund amount must be whole cents above 0, got ${amountCents}`);
      const refund = await stripe.refunds.create(
        { payment_intent: paymentIntentId, amount: amountCents, metadata: { refund_id: refundId } },
        { idempotencyKey: `refund-${refundId}` },
      );
      return { refundId: refund.id };
    },

    async createSubscriptionCheckout({ orgId, customerId, plan, nonce, successUrl, cancelUrl }) {
      const metadata = { org_id: orgId, plan };
      const price = priceFor(plan);
      const lineItem: Stripe.Checkout.SessionCreateParams.LineItem = price
        ? { price, quantity: 1 }
        : {
            price_data: { currency: "usd", unit_amount: planCents(plan), recurring: { interval: "month" }, product_data: { name: `${PLANS[plan].name} plan` } },
            quantity: 1,
          };
      const session = await stripe.checkout.sessions.create(
        {
          mode: "subscription",
          customer: customerId,
          client_reference_id: orgId,
          line_items: [lineItem],
          metadata,
          subscription_data: { metadata },
          success_url: successUrl,
          cancel_url: cancelUrl,
        },
        { idempotencyKey: `subscribe-${orgId}-${plan}-${nonce}` },
      );
      if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
      return { sessionId: session.id, url: session.url };
    },

    async updateSubscription({ subscriptionId, plan, nonce }) {
      const subscription = await stripe.subscriptions.retrieve(subscriptionId);
      const item = subscription.items.data[0];
      if (!item) throw new Error(`subscription ${subscriptionId} has no item to move to ${plan}`);
      const price = priceFor(plan);
      const product = idOf(item.price.product);
      if (!price && !product) throw new Error(`subscription ${subscriptionId}: no STRIPE_PRICE_${plan.toUpperCase()} and no product to price ${plan} against`);
      await stripe.subscriptions.update(
        subscriptionId,
        {
          items: [
            price
              ? { id: item.id, price }
              : { id: item.id, price_data: { currency: "usd", product: product!, unit_amount: planCents(plan), recurring: { interval: "month" } } },
          ],
          proration_behavior: "create_prorations",
          metadata: { plan },
        },
        { idempotencyKey: `plan-${subscriptionId}-${plan}-${nonce}` },
      );
    },

    async cancelSubscription({ subscriptionId, atPeriodEnd, nonce }) {
      if (atPeriodEnd) {
        await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey: `cancel-${subscriptionId}-${nonce}` });
      } else {
        await stripe.subscriptions.cancel(subscriptionId, {}, { idempotencyKey: `cancel-now-${subscriptionId}-${nonce}` });
      }
    },

    async createPortalSession({ customerId, returnUrl }) {
      // No row of ours: the customer, the minute and where it returns to (Stripe refuses a key reused with other parameters).
      const minute = Math.floor(Date.now() / 60_000);
      const returnTo = createHash("sha256").update(returnUrl).digest("hex").slice(0, 12);
      const session = await stripe.billingPortal.sessions.create(
        { customer: customerId, return_url: returnUrl },
        { idempotencyKey: `portal-${customerId}-${minute}-${returnTo}` },
      );
      return { url: session.url };
    },

    verifyWebhook(rawBody, signatureHeader) {
      if (!signatureHeader) throw new WebhookSignatureError("Missing Stripe-Signature header");
      try {
        const event = stripe.webhooks.constructEvent(rawBody, signatureHeader, config.webhookSecret, STRIPE_WEBHOOK_TOLERANCE_SECONDS);
        return event as unknown as PaymentEvent;
      } catch (error) {
        throw new WebhookSignatureError(error instanceof Error ? error.message : "Webhook signature did not verify");
      }
    },
  };
}
