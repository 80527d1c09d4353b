/**
 * The embedded sandbox payment provider (issue 15): what Stripe does, kept in our own database
 * (sandbox_stripe_objects) so any process answers for any object. Its objects are Stripe-shaped
 * (every top-level field of Stripe's own example objects, ../shared/vendor/stripe/fixtures3.json) with
 * ids cus_sbx_…, cs_sbx_…, pi_sbx_…, ch_sbx_…, pm_sbx_…, sub_sbx_…, in_sbx_…, re_sbx_…, evt_sbx_…, and
 * carry metadata.sandbox = "Sandbox". Its events are Stripe events, signed with the Stripe-Signature
 * scheme with its own secret and delivered to our POST /api/webhooks/stripe (through app.inject), so
 * both providers share one verified ingestion path.
 *
 * Test cards behave like Stripe's (contract/billing-shared.ts SANDBOX_TEST_CARDS): 4242… succeeds,
 * …0002 is declined, …9995 has insufficient funds, 4000002760003184 asks for authentication at
 * checkout (and for every later off-session charge). The checkout page is the console's
 * /billing?checkout=<session id>.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { SANDBOX_LABEL, SANDBOX_TEST_CARDS, type SandboxCardOutcome } from "../../../contract/billing-shared";
import { PLANS, type SelfServePlanId } from "../../../contract/plans";
import type { Db } from "../../db/client";
import { sandboxStripeObjects } from "../../db/schema";
import { STRIPE_SHAPES } from "./sandbox-shapes";
import { signPayload, verifyEvent } from "./signature";
import type { CardOnFile, CheckoutSessionState, OffSessionResult, PaymentEvent, SandboxPayments } from "./types";

type StripeObject = Record<string, unknown> & { id: string; object: string };

/** Where the sandbox posts its events: our own webhook route (see server/routes/stripe-webhook.ts). */
export type SandboxDelivery = (body: string, headers: Record<string, string>) => Promise<{ statusCode: number; body: string }>;

/** What the sandbox keeps beside a Stripe object (never sent in an event). */
interface Private {
  saveCard?: boolean;
  plan?: SelfServePlanId | null;
  description?: string;
  orgId?: string | null;
  /** For a payment method: how its card behaves. */
  outcome?: SandboxCardOutcome;
}

const now = () => Math.floor(Date.now() / 1000);
const token = (prefix: string) => `${prefix}_sbx_${randomBytes(12).toString("hex")}`;
const DAY = 86_400;
const EVENTS_KEPT = 1000;
const MONTH = 30 * DAY;

const DECLINES: Record<string, { code: string; declineCode: string; message: string }> = {
  declined: { code: "card_declined", declineCode: "generic_decline", message: "The card was declined." },
  insufficient_funds: { code: "card_declined", declineCode: "insufficient_funds", message: "The card has insufficient funds." },
  authentication_required: { code: "authentication_required", declineCode: "authentication_required", message: "The card asks for authentication: confirm the payment on-session." },
};

function shaped(object: string, fields: Record<string, unknown>): StripeObject {
  return { ...(STRIPE_SHAPES[object] ?? {}), object, livemode: false, ...fields } as unknown as StripeObject;
}

function cardOf(number: string): { outcome: SandboxCardOutcome | "unknown"; brand: string; last4: string } {
  const known = SANDBOX_TEST_CARDS.find((card) => card.number === number);
  return { outcome: known?.outcome ?? "unknown", brand: number.startsWith("4") ? "visa" : number.startsWith("5") ? "mastercard" : "card", last4: number.slice(-4) };
}

/** A plan's monthly price in cents (the sandbox's subscription prices). */
function planCents(plan: SelfServePlanId): number {
  return Math.round((PLANS[plan].price_usd_monthly ?? 0) * 100);
}

export interface SandboxPaymentsOptions {
  db: Db;
  log?: FastifyBaseLogger;
  /** Signs the events; default: STRIPE_WEBHOOK_SECRET's stand-in, random per process. */
  webhookSecret?: string;
}

export class SandboxPaymentProvider implements SandboxPayments {
  readonly mode = "sandbox" as const;
  readonly webhookSecret: string;
  private readonly db: Db;
  private readonly log: FastifyBaseLogger | undefined;
  private delivery: SandboxDelivery | null = null;
  private held: string[] | null = null;
  /** The latest events made (at most EVENTS_KEPT), in order: tests read them. */
  readonly events: PaymentEvent[] = [];

  constructor(options: SandboxPaymentsOptions) {
    this.db = options.db;
    this.log = options.log;
    this.webhookSecret = options.webhookSecret ?? `whsec_sbx_${randomBytes(24).toString("hex")}`;
  }

  /** Connects the sandbox to the webhook route (the app does it at start-up). */
  connect(delivery: SandboxDelivery): void {
    this.delivery = delivery;
  }

  /** Tests: keep events back (a webhook that never arrives) until releaseEvents. */
  holdEvents(): void {
    this.held ??= [];
  }

  /** Delivers what was held (in order) and delivers at once again. Answers the bodies delivered. */
  async releaseEvents(): Promise<string[]> {
    const bodies = this.held ?? [];
    this.held = null;
    for (const body of bodies) await this.deliver(body);
    return bodies;
  }

  /** Drops what was held (those webhooks never arrive) and delivers at once again. */
  dropHeldEvents(): number {
    const count = this.held?.length ?? 0;
    this.held = null;
    return count;
  }

  /** Signs and posts one body; answers the route's status. */
  async deliver(body: string, timestamp?: number): Promise<{ statusCode: number; body: string }> {
    if (!this.delivery) return { statusCode: 0, body: "" };
    const headers = { "content-type": "application/json", "stripe-signature": signPayload(this.webhookSecret, body, timestamp) };
    const answer = await this.delivery(body, headers);
    if (answer.statusCode >= 300) this.log?.warn({ statusCode: answer.statusCode, body: answer.body }, "the sandbox's Stripe event was refused by the webhook route");
    return answer;
  }

  // ------------------------------------------------------------------------------------------ storage

  private async put(object: StripeObject, extra: Private = {}, orgId: string | null = null): Promise<StripeObject> {
    const data = { ...object, _sandbox: extra };
    await this.db
      .insert(sandboxStripeObjects)
      .values({ id: object.id, object: object.object, orgId: orgId ?? extra.orgId ?? null, data })
      .onConflictDoUpdate({ target: sandboxStripeObjects.id, set: { data, updatedAt: new Date() } });
    return object;
  }

  private async get(id: string | null | undefined): Promise<{ object: StripeObject; extra: Private; orgId: string | null } | null> {
    if (!id) return null;
    const [row] = await this.db.select().from(sandboxStripeObjects).where(eq(sandboxStripeObjects.id, id)).limit(1);
    if (!row || row.object === "idempotency") return null;
    const { _sandbox, ...object } = row.data as StripeObject & { _sandbox?: Private };
    return { object: object as StripeObject, extra: _sandbox ?? {}, orgId: row.orgId };
  }

  /**
   * Runs `make` once per idempotency key, as Stripe does: the key is claimed first (insert … on conflict
   * do nothing), so concurrent requests with one key make one object; the others wait for its result.
   */
  private async once(key: string, make: () => Promise<string>): Promise<string> {
    const id = `idem_${key}`;
    const claimed = await this.db.insert(sandboxStripeObjects).values({ id, object: "idempotency", data: { result: null } }).onConflictDoNothing().returning({ id: sandboxStripeObjects.id });
    if (claimed.length > 0) {
      try {
        const result = await make();
        await this.db.update(sandboxStripeObjects).set({ data: { result }, updatedAt: new Date() }).where(eq(sandboxStripeObjects.id, id));
        return result;
      } catch (error) {
        // A failed request does not hold its key (Stripe lets it be retried).
        await this.db.delete(sandboxStripeObjects).where(eq(sandboxStripeObjects.id, id));
        throw error;
      }
    }
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const [row] = await this.db.select().from(sandboxStripeObjects).where(eq(sandboxStripeObjects.id, id)).limit(1);
      if (!row) return this.once(key, make);
      const result = (row.data as { result: string | null }).result;
      if (result) return result;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`The sandbox's request with idempotency key ${key} is still in progress.`);
  }

  private async emit(type: string, object: StripeObject, previous?: Record<string, unknown>, idempotencyKey: string | null = null): Promise<PaymentEvent> {
    const event = shaped("event", {
      id: token("evt"),
      api_version: "2026-10-28.endive",
      created: now(),
      data: { object, ...(previous ? { previous_attributes: previous } : {}) },
      pending_webhooks: 1,
      request: { id: null, idempotency_key: idempotencyKey },
      type,
    }) as unknown as PaymentEvent;
    this.events.push(event);
    // A long-running sandbox keeps only the latest ones.
    if (this.events.length > EVENTS_KEPT) this.events.splice(0, this.events.length - EVENTS_KEPT);
    const body = JSON.stringify(event);
    if (this.held) this.held.push(body);
    else await this.deliver(body);
    return event;
  }

  private metadata(fields: Record<string, string>): Record<string, string> {
    return { ...fields, sandbox: SANDBOX_LABEL };
  }

  // ------------------------------------------------------------------------------------- the interface

  async createCustomer(input: { orgId: string; name: string; email: string | null }): Promise<{ customerId: string }> {
    const customerId = await this.once(`customer-${input.orgId}`, async () => {
      const customer = shaped("customer", {
        id: token("cus"),
        created: now(),
        currency: "usd",
        balance: 0,
        delinquent: false,
        name: input.name,
        email: input.email,
        description: SANDBOX_LABEL,
        metadata: this.metadata({ org_id: input.orgId }),
        invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
        preferred_locales: [],
      });
      await this.put(customer, { orgId: input.orgId });
      return customer.id;
    });
    return { customerId };
  }

  private checkoutUrl(sessionId: string): string {
    return `/billing?checkout=${encodeURIComponent(sessionId)}`;
  }

  private async createCheckout(input: {
    key: string;
    orgId: string;
    customerId: string;
    mode: "payment" | "subscription";
    amountCents: number;
    saveCard: boolean;
    plan: SelfServePlanId | null;
    description: string;
    metadata: Record<string, string>;
    clientReferenceId: string | null;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ sessionId: string; url: string }> {
    const sessionId = await this.once(input.key, async () => {
      const id = token("cs");
      const session = shaped("checkout.session", {
        id,
        mode: input.mode,
        status: "open",
        payment_status: "unpaid",
        amount_subtotal: input.amountCents,
        amount_total: input.amountCents,
        currency: "usd",
        created: now(),
        expires_at: now() + DAY,
        customer: input.customerId,
        client_reference_id: input.clientReferenceId,
        metadata: this.metadata(input.metadata),
        payment_intent: null,
        subscription: null,
        invoice: null,
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        url: this.checkoutUrl(id),
        payment_method_types: ["card"],
        custom_fields: [],
      });
      await this.put(session, { saveCard: input.saveCard, plan: input.plan, description: input.description, orgId: input.orgId });
      return id;
    });
    return { sessionId, url: this.checkoutUrl(sessionId) };
  }

  async createTopUpCheckout(input: { topUpId: string; orgId: string; customerId: string; amountCents: number; saveCard: boolean; successUrl: string; cancelUrl: string }) {
    return this.createCheckout({
      key: `top-up-${input.topUpId}`,
      orgId: input.orgId,
      customerId: input.customerId,
      mode: "payment",
      amountCents: input.amountCents,
      saveCard: input.saveCard,
      plan: null,
      description: `Wallet top-up of $${(input.amountCents / 100).toFixed(2)}`,
      metadata: { top_up_id: input.topUpId, org_id: input.orgId },
      clientReferenceId: input.topUpId,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
    });
  }

  async createSubscriptionCheckout(input: { orgId: string; customerId: string; plan: SelfServePlanId; nonce: string; successUrl: string; cancelUrl: string }) {
    return this.createCheckout({
      key: `subscribe-${input.orgId}-${input.plan}-${input.nonce}`,
      orgId: input.orgId,
      customerId: input.customerId,
      mode: "subscription",
      amountCents: planCents(input.plan),
      saveCard: true,
      plan: input.plan,
      description: `${input.plan} plan, monthly`,
      metadata: { org_id: input.orgId, plan: input.plan },
      clientReferenceId: input.orgId,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
    });
  }

  async getCheckoutSession(sessionId: string): Promise<CheckoutSessionState> {
    const found = await this.get(sessionId);
    if (!found || found.object.object !== "checkout.session") throw new Error(`No such checkout session: ${sessionId}`);
    let session = found.object;
    // Stripe expires an open session after expires_at.
    if (session.status === "open" && Number(session.expires_at) <= now()) {
      session = { ...session, status: "expired" };
      await this.put(session, found.extra, found.orgId);
    }
    const intent = await this.get(session.payment_intent as string | null);
    const charge = intent ? await this.get(intent.object.latest_charge as string | null) : null;
    let card: CardOnFile | null = null;
    if (intent && (found.extra.saveCard || session.mode === "subscription")) card = await this.cardOf(intent.object.payment_method as string | null);
    return {
      id: session.id,
      status: session.status as CheckoutSessionState["status"],
      paymentStatus: session.payment_status as CheckoutSessionState["paymentStatus"],
      paymentIntentId: (session.payment_intent as string | null) ?? null,
      subscriptionId: (session.subscription as string | null) ?? null,
      customerId: (session.customer as string | null) ?? null,
      metadata: Object.fromEntries(Object.entries((session.metadata as Record<string, string>) ?? {}).filter(([key]) => key !== "sandbox")),
      card,
      receiptUrl: (charge?.object.receipt_url as string | null) ?? null,
    };
  }

  private async cardOf(paymentMethodId: string | null): Promise<CardOnFile | null> {
    const method = await this.get(paymentMethodId);
    if (!method) return null;
    const card = method.object.card as { brand: string; last4: string; exp_month: number; exp_year: number };
    return { paymentMethodId: method.object.id, brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year };
  }

  async readCheckout(sessionId: string): Promise<Record<string, unknown> | null> {
    const found = await this.get(sessionId);
    if (!found || found.object.object !== "checkout.session") return null;
    const state = await this.getCheckoutSession(sessionId);
    const session = found.object;
    return {
      id: session.id,
      org_id: found.orgId,
      mode: session.mode,
      amount_usd: Number(session.amount_total ?? 0) / 100,
      description: found.extra.description ?? "",
      plan: found.extra.plan ?? null,
      status: state.status,
      save_card: Boolean(found.extra.saveCard),
      success_url: session.success_url,
      cancel_url: session.cancel_url,
      sandbox: true,
    };
  }

  /** Makes a payment intent (and its charge when it succeeds) for a card. */
  private async paymentIntent(input: {
    orgId: string | null;
    customerId: string | null;
    amountCents: number;
    paymentMethodId: string;
    metadata: Record<string, string>;
    outcome: SandboxCardOutcome | "unknown" | "succeeds";
    offSession: boolean;
    saveCard: boolean;
    card: { brand: string; last4: string; exp_month: number; exp_year: number };
  }): Promise<StripeObject> {
    const id = token("pi");
    const decline = input.outcome === "succeeds" ? null : (DECLINES[input.outcome] ?? DECLINES.declined!);
    let chargeId: string | null = null;
    if (!decline) {
      chargeId = token("ch");
      const charge = shaped("charge", {
        id: chargeId,
        amount: input.amountCents,
        amount_captured: input.amountCents,
        amount_refunded: 0,
        captured: true,
        created: now(),
        currency: "usd",
        customer: input.customerId,
        description: SANDBOX_LABEL,
        disputed: false,
        metadata: this.metadata(input.metadata),
        paid: true,
        refunded: false,
        payment_intent: id,
        payment_method: input.paymentMethodId,
        payment_method_details: { type: "card", card: { ...input.card, funding: "credit", country: "US" } },
        receipt_url: null,
        status: "succeeded",
      });
      await this.put(charge, {}, input.orgId);
    }
    const intent = shaped("payment_intent", {
      id,
      amount: input.amountCents,
      amount_capturable: 0,
      amount_received: decline ? 0 : input.amountCents,
      capture_method: "automatic",
      confirmation_method: "automatic",
      created: now(),
      currency: "usd",
      customer: input.customerId,
      description: SANDBOX_LABEL,
      latest_charge: chargeId,
      last_payment_error: decline
        ? { type: "card_error", code: decline.code, decline_code: decline.declineCode, message: decline.message, payment_method: { id: input.paymentMethodId, object: "payment_method" } }
        : null,
      metadata: this.metadata(input.metadata),
      next_action: decline && decline.code === "authentication_required" && !input.offSession ? { type: "use_stripe_sdk" } : null,
      payment_method: input.paymentMethodId,
      payment_method_types: ["card"],
      setup_future_usage: input.saveCard ? "off_session" : null,
      status: decline ? (decline.code === "authentication_required" && !input.offSession ? "requires_action" : "requires_payment_method") : "succeeded",
    });
    await this.put(intent, {}, input.orgId);
    return intent;
  }

  async payCheckout(sessionId: string, card: { number: string; expMonth: number; expYear: number; authenticated: boolean }) {
    const found = await this.get(sessionId);
    if (!found || found.object.object !== "checkout.session") throw new Error(`No such checkout session: ${sessionId}`);
    const state = await this.getCheckoutSession(sessionId);
    const { outcome, brand, last4 } = cardOf(card.number);
    if (state.status === "complete") return { status: "complete" as const, outcome, detail: "This checkout is paid already." };
    if (state.status === "expired") return { status: "declined" as const, outcome, detail: "This checkout has expired: start a new one." };
    const date = new Date();
    if (card.expYear < date.getUTCFullYear() || (card.expYear === date.getUTCFullYear() && card.expMonth < date.getUTCMonth() + 1)) {
      return { status: "declined" as const, outcome, detail: "The card has expired (expired_card)." };
    }
    if (outcome === "unknown") {
      return { status: "declined" as const, outcome, detail: `The sandbox takes its test cards only: ${SANDBOX_TEST_CARDS.map((test) => `${test.number} (${test.label})`).join(", ")}.` };
    }
    if (outcome === "declined" || outcome === "insufficient_funds") {
      return { status: "declined" as const, outcome, detail: `${DECLINES[outcome]!.message} (${DECLINES[outcome]!.declineCode})` };
    }
    if (outcome === "authentication_required" && !card.authenticated) {
      return { status: "requires_action" as const, outcome, detail: "The bank asks you to confirm this payment (3D Secure): confirm it to continue." };
    }
    const session = found.object;
    const orgId = found.orgId;
    const customerId = session.customer as string | null;
    const cardFields = { brand, last4, exp_month: card.expMonth, exp_year: card.expYear };
    const method = shaped("payment_method", {
      id: token("pm"),
      type: "card",
      created: now(),
      customer: customerId,
      card: { ...cardFields, funding: "credit", country: "US" },
      billing_details: { address: null, email: null, name: null, phone: null },
      metadata: this.metadata({}),
    });
    await this.put(method, { outcome, orgId }, orgId);
    const metadata = Object.fromEntries(Object.entries((session.metadata as Record<string, string>) ?? {}).filter(([key]) => key !== "sandbox"));
    const saveCard = Boolean(found.extra.saveCard) || session.mode === "subscription";
    const intent = await this.paymentIntent({
      orgId,
      customerId,
      amountCents: Number(session.amount_total ?? 0),
      paymentMethodId: method.id,
      metadata,
      outcome: "succeeds",
      offSession: false,
      saveCard,
      card: cardFields,
    });
    if (saveCard && customerId) {
      const customer = await this.get(customerId);
      if (customer) {
        const settings = (customer.object.invoice_settings as Record<string, unknown>) ?? {};
        await this.put({ ...customer.object, invoice_settings: { ...settings, default_payment_method: method.id } }, customer.extra, orgId);
      }
    }

    let completed: StripeObject = { ...session, status: "complete", payment_status: "paid", payment_intent: intent.id };
    if (session.mode === "subscription" && found.extra.plan) {
      const subscription = await this.makeSubscription(orgId, customerId, found.extra.plan, method.id);
      const invoice = await this.makeInvoice(orgId, customerId, subscription, Number(session.amount_total ?? 0), "subscription_create");
      completed = { ...completed, payment_intent: null, subscription: subscription.id, invoice: invoice.id };
      await this.put(completed, found.extra, orgId);
      await this.emit("checkout.session.completed", completed);
      await this.emit("customer.subscription.created", subscription);
      await this.emit("invoice.paid", invoice);
    } else {
      await this.put(completed, found.extra, orgId);
      await this.emit("checkout.session.completed", completed);
    }
    return { status: "complete" as const, outcome, detail: "Paid." };
  }

  /** The sandbox's "cancel" on its checkout page: the session expires (Stripe expires it after 24 h). */
  async expireCheckout(sessionId: string): Promise<boolean> {
    const found = await this.get(sessionId);
    if (!found || found.object.object !== "checkout.session" || found.object.status !== "open") return false;
    const expired = { ...found.object, status: "expired" };
    await this.put(expired, found.extra, found.orgId);
    await this.emit("checkout.session.expired", expired);
    return true;
  }

  /** Tests: moves a session's expiry into the past (as if 24 h went by). */
  async ageCheckout(sessionId: string, seconds: number): Promise<void> {
    const found = await this.get(sessionId);
    if (!found) return;
    await this.put({ ...found.object, expires_at: Number(found.object.expires_at) - seconds, created: Number(found.object.created) - seconds }, found.extra, found.orgId);
  }

  async chargeOffSession(input: { topUpId: string; orgId: string; customerId: string; paymentMethodId: string; amountCents: number }): Promise<OffSessionResult> {
    const intentId = await this.once(`reload-${input.topUpId}`, async () => {
      const method = await this.get(input.paymentMethodId);
      const outcome: SandboxCardOutcome = method?.extra.outcome ?? "declined";
      const card = (method?.object.card as { brand: string; last4: string; exp_month: number; exp_year: number } | undefined) ?? { brand: "card", last4: "0000", exp_month: 12, exp_year: 2034 };
      const intent = await this.paymentIntent({
        orgId: input.orgId,
        customerId: input.customerId,
        amountCents: input.amountCents,
        paymentMethodId: input.paymentMethodId,
        metadata: { top_up_id: input.topUpId, org_id: input.orgId },
        outcome,
        offSession: true,
        saveCard: false,
        card: { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year },
      });
      return intent.id;
    });
    const intent = (await this.get(intentId))!.object;
    // Stripe's events arrive beside the answer (the caller may see either first).
    await this.emit(intent.status === "succeeded" ? "payment_intent.succeeded" : "payment_intent.payment_failed", intent, undefined, `reload-${input.topUpId}`);
    if (intent.status === "succeeded") return { status: "succeeded", paymentIntentId: intent.id, receiptUrl: null };
    const error = intent.last_payment_error as { code: string; message: string };
    if (error.code === "authentication_required") return { status: "requires_action", paymentIntentId: intent.id, code: error.code, message: error.message };
    return { status: "failed", paymentIntentId: intent.id, code: (error as { decline_code?: string }).decline_code ?? error.code, message: error.message };
  }

  async refund(input: { refundId: string; paymentIntentId: string; amountCents: number }): Promise<{ refundId: string }> {
    const refundId = await this.once(`refund-${input.refundId}`, async () => {
      const intent = await this.get(input.paymentIntentId);
      if (!intent) throw new Error(`No such payment intent: ${input.paymentIntentId}`);
      const charge = await this.get(intent.object.latest_charge as string | null);
      if (!charge) throw new Error(`The payment ${input.paymentIntentId} has no charge to refund.`);
      const refunded = Number(charge.object.amount_refunded ?? 0) + input.amountCents;
      if (refunded > Number(charge.object.amount)) throw new Error("The refund is more than what is left of the charge.");
      const refund = shaped("refund", {
        id: token("re"),
        amount: input.amountCents,
        charge: charge.object.id,
        created: now(),
        currency: "usd",
        metadata: this.metadata({ refund_id: input.refundId }),
        payment_intent: input.paymentIntentId,
        reason: "requested_by_customer",
        status: "succeeded",
      });
      await this.put(refund, {}, intent.orgId);
      const updated = { ...charge.object, amount_refunded: refunded, refunded: refunded >= Number(charge.object.amount) };
      await this.put(updated, charge.extra, charge.orgId);
      await this.emit("charge.refunded", updated);
      return refund.id;
    });
    return { refundId };
  }

  private async makeSubscription(orgId: string | null, customerId: string | null, plan: SelfServePlanId, paymentMethodId: string | null): Promise<StripeObject> {
    const start = now();
    const subscription = shaped("subscription", {
      id: token("sub"),
      created: start,
      start_date: start,
      billing_cycle_anchor: start,
      currency: "usd",
      customer: customerId,
      collection_method: "charge_automatically",
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      current_period_start: start,
      current_period_end: start + MONTH,
      default_payment_method: paymentMethodId,
      default_tax_rates: [],
      discounts: [],
      description: SANDBOX_LABEL,
      items: { object: "list", data: [this.subscriptionItem(plan, start)], has_more: false, url: "/v1/subscription_items" },
      metadata: this.metadata({ org_id: orgId ?? "", plan }),
      status: "active",
    });
    await this.put(subscription, { plan, orgId }, orgId);
    return subscription;
  }

  private subscriptionItem(plan: SelfServePlanId, start: number) {
    return {
      id: token("si"),
      object: "subscription_item",
      created: start,
      current_period_start: start,
      current_period_end: start + MONTH,
      metadata: {},
      quantity: 1,
      price: {
        id: `price_sbx_${plan}`,
        object: "price",
        active: true,
        currency: "usd",
        lookup_key: plan,
        metadata: { plan },
        nickname: plan,
        product: `prod_sbx_${plan}`,
        recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
        type: "recurring",
        unit_amount: planCents(plan),
      },
    };
  }

  private async makeInvoice(orgId: string | null, customerId: string | null, subscription: StripeObject, amountCents: number, reason: string): Promise<StripeObject> {
    const id = token("in");
    const created = now();
    const invoice = shaped("invoice", {
      id,
      number: `SBX-${randomBytes(3).toString("hex").toUpperCase()}`,
      account_country: "US",
      amount_due: amountCents,
      amount_paid: amountCents,
      amount_remaining: 0,
      amount_shipping: 0,
      attempt_count: 1,
      attempted: true,
      auto_advance: false,
      billing_reason: reason,
      collection_method: "charge_automatically",
      created,
      currency: "usd",
      customer: customerId,
      customer_tax_ids: [],
      default_tax_rates: [],
      discounts: [],
      description: SANDBOX_LABEL,
      hosted_invoice_url: null,
      lines: { object: "list", data: [{ id: token("il"), object: "line_item", amount: amountCents, currency: "usd", description: `${String((subscription.metadata as Record<string, string>).plan)} plan (Sandbox)`, period: { start: created, end: created + MONTH } }], has_more: false },
      metadata: this.metadata({ org_id: orgId ?? "", plan: String((subscription.metadata as Record<string, string>).plan) }),
      parent: { type: "subscription_details", subscription_details: { subscription: subscription.id, metadata: subscription.metadata } },
      period_start: created,
      period_end: created + MONTH,
      status: "paid",
      status_transitions: { paid_at: created, finalized_at: created },
      subscription: subscription.id,
      subtotal: amountCents,
      total: amountCents,
      total_discount_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: created,
    });
    await this.put(invoice, {}, orgId);
    return invoice;
  }

  async updateSubscription(input: { subscriptionId: string; plan: SelfServePlanId; nonce: string }): Promise<void> {
    await this.once(`plan-${input.subscriptionId}-${input.plan}-${input.nonce}`, async () => {
      const found = await this.get(input.subscriptionId);
      if (!found || found.object.object !== "subscription") throw new Error(`No such subscription: ${input.subscriptionId}`);
      const previous = { items: found.object.items, metadata: found.object.metadata, cancel_at_period_end: found.object.cancel_at_period_end };
      const start = Number(found.object.current_period_start ?? now());
      const updated = {
        ...found.object,
        cancel_at_period_end: false,
        cancel_at: null,
        items: { ...(found.object.items as object), data: [this.subscriptionItem(input.plan, start)] },
        metadata: { ...(found.object.metadata as Record<string, string>), plan: input.plan },
      };
      await this.put(updated, { ...found.extra, plan: input.plan }, found.orgId);
      await this.emit("customer.subscription.updated", updated, previous);
      return updated.id;
    });
  }

  async cancelSubscription(input: { subscriptionId: string; atPeriodEnd: boolean; nonce: string }): Promise<void> {
    await this.once(`cancel-${input.subscriptionId}-${input.atPeriodEnd}-${input.nonce}`, async () => {
      const found = await this.get(input.subscriptionId);
      if (!found || found.object.object !== "subscription") throw new Error(`No such subscription: ${input.subscriptionId}`);
      if (input.atPeriodEnd) {
        const updated = { ...found.object, cancel_at_period_end: true, cancel_at: found.object.current_period_end };
        await this.put(updated, found.extra, found.orgId);
        await this.emit("customer.subscription.updated", updated, { cancel_at_period_end: false, cancel_at: null });
      } else {
        const ended = { ...found.object, status: "canceled", canceled_at: now(), ended_at: now() };
        await this.put(ended, found.extra, found.orgId);
        await this.emit("customer.subscription.deleted", ended);
      }
      return found.object.id;
    });
  }

  async createPortalSession(_input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    return { url: "/subscriptions?portal=sandbox" };
  }

  verifyWebhook(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent {
    return verifyEvent(this.webhookSecret, rawBody, signatureHeader);
  }

  /** The sandbox's objects of one organisation and kind (tests, the console's labels). */
  async objectsOf(orgId: string, object: string): Promise<StripeObject[]> {
    const rows = await this.db.select().from(sandboxStripeObjects).where(and(eq(sandboxStripeObjects.orgId, orgId), eq(sandboxStripeObjects.object, object))).orderBy(sql`${sandboxStripeObjects.createdAt}`);
    return rows.map((row) => {
      const { _sandbox: _ignored, ...object } = row.data as StripeObject & { _sandbox?: Private };
      return object as StripeObject;
    });
  }
}

export function isSandboxPayments(provider: { mode: string }): provider is SandboxPaymentProvider {
  return provider.mode === "sandbox" && provider instanceof SandboxPaymentProvider;
}

/** A fresh id for a sandbox refund row when the caller has none. */
export const sandboxRefundId = () => randomUUID();
