/**
 * Payments behind one interface (issue 15), chosen at start-up like the voice provider: Stripe when
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set (server/billing/payments/stripe.ts), else the
 * embedded sandbox (server/billing/payments/sandbox.ts), which keeps Stripe-shaped objects in
 * sandbox_stripe_objects and delivers Stripe-shaped, Stripe-signed events to our own
 * POST /api/webhooks/stripe: both share one verified ingestion path.
 *
 * Every POST/DELETE carries an idempotency key derived from our own row id (`idempotencyKey`), and is one
 * of the operations in ../shared/vendor/stripe/openapi-requests.json. Amounts cross this interface in
 * cents (Stripe's unit); our rows keep micro-dollars.
 */
import type { PaymentMode, SandboxCardOutcome } from "../../../contract/billing-shared";
import type { SelfServePlanId } from "../../../contract/plans";

/** A Stripe event (or the sandbox's, shaped alike): what POST /webhooks/stripe processes once by id. */
export interface PaymentEvent {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  [key: string]: unknown;
}

export interface CardOnFile {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** A Checkout Session as we read it back (GET /v1/checkout/sessions/{id}). */
export interface CheckoutSessionState {
  id: string;
  /** open | complete | expired */
  status: "open" | "complete" | "expired";
  /** paid | unpaid | no_payment_required */
  paymentStatus: "paid" | "unpaid" | "no_payment_required";
  paymentIntentId: string | null;
  subscriptionId: string | null;
  customerId: string | null;
  /** Our own ids as sent in metadata (top_up_id, org_id, plan). */
  metadata: Record<string, string>;
  /** The card it saved (setup_future_usage off_session), when known. */
  card: CardOnFile | null;
  receiptUrl: string | null;
}

export type OffSessionResult =
  | { status: "succeeded"; paymentIntentId: string; receiptUrl: string | null }
  /** The card asked for authentication: never retried off-session (the admin confirms on-session). */
  | { status: "requires_action"; paymentIntentId: string | null; code: string; message: string }
  | { status: "failed"; paymentIntentId: string | null; code: string; message: string };

export interface PaymentProvider {
  readonly mode: PaymentMode;

  /** The provider's customer for an organisation (made once: idempotency key `customer-<orgId>`). */
  createCustomer(input: { orgId: string; name: string; email: string | null }): Promise<{ customerId: string }>;

  /**
   * Checkout in payment mode for a top-up: line_items[0].price_data.unit_amount = cents, quantity 1,
   * payment_intent_data.setup_future_usage = off_session when saveCard, metadata {top_up_id, org_id},
   * client_reference_id = topUpId. Idempotency key `top-up-<topUpId>`.
   */
  createTopUpCheckout(input: {
    topUpId: string;
    orgId: string;
    customerId: string;
    amountCents: number;
    saveCard: boolean;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ sessionId: string; url: string }>;

  /** Reads a Checkout Session (the return to /billing and the reconciliation sweep). */
  getCheckoutSession(sessionId: string): Promise<CheckoutSessionState>;

  /**
   * Optional: the subscription as the provider has it now (GET /v1/subscriptions/{id}), null when it does
   * not exist. Stripe does not promise the order of its events, so the webhook applies
   * customer.subscription.created / updated with this rather than with the event's (maybe older) copy.
   * A provider without it (the sandbox, which delivers in order) has its events applied as sent.
   */
  getSubscription?(subscriptionId: string): Promise<Record<string, unknown> | null>;

  /**
   * Charges the saved card off-session (auto-reload): POST /v1/payment_intents with confirm, off_session,
   * metadata {top_up_id, org_id}. Idempotency key `reload-<topUpId>`. Declines answer, they do not throw.
   */
  chargeOffSession(input: { topUpId: string; orgId: string; customerId: string; paymentMethodId: string; amountCents: number }): Promise<OffSessionResult>;

  /** Refunds (part of) a top-up's payment. Idempotency key `refund-<refundId>`. */
  refund(input: { refundId: string; paymentIntentId: string; amountCents: number }): Promise<{ refundId: string }>;

  /**
   * Checkout in subscription mode for a first paid plan: the configured price id, or price_data with
   * recurring monthly. metadata {org_id, plan}. Idempotency key `subscribe-<orgId>-<plan>-<nonce>`.
   */
  createSubscriptionCheckout(input: { orgId: string; customerId: string; plan: SelfServePlanId; nonce: string; successUrl: string; cancelUrl: string }): Promise<{ sessionId: string; url: string }>;

  /** Moves an existing subscription to another plan (POST /v1/subscriptions/{id}, proration). Key `plan-<orgId>-<plan>-<nonce>`. */
  updateSubscription(input: { subscriptionId: string; plan: SelfServePlanId; nonce: string }): Promise<void>;

  /** Cancels at period end (POST /v1/subscriptions/{id} cancel_at_period_end) or at once (DELETE). */
  cancelSubscription(input: { subscriptionId: string; atPeriodEnd: boolean; nonce: string }): Promise<void>;

  /** The customer portal (cards, invoices, plan): POST /v1/billing_portal/sessions. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;

  /**
   * Verifies a webhook delivery (Stripe-Signature: t=…,v1=…, HMAC-SHA256 of "t.body", constant-time,
   * within the tolerance) and answers the event; throws WebhookSignatureError otherwise.
   */
  verifyWebhook(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent;
}

/** The sandbox's own extra surface: what Stripe's hosted pages do in Stripe mode. */
export interface SandboxPayments extends PaymentProvider {
  readonly mode: "sandbox";
  /** The checkout page's data (GET /billing/sandbox/checkout/{id}), org-checked by the route. */
  readCheckout(sessionId: string): Promise<Record<string, unknown> | null>;
  /** Pays a sandbox checkout with a test card; on success it delivers checkout.session.completed. */
  payCheckout(sessionId: string, card: { number: string; expMonth: number; expYear: number; authenticated: boolean }): Promise<{ status: "complete" | "declined" | "requires_action"; outcome: SandboxCardOutcome | "unknown"; detail: string }>;
}
