/**
 * POST /api/webhooks/stripe (issue 15): Stripe's events, or the sandbox payment provider's (which signs
 * them alike and posts them here through app.inject). The raw body is what is signed, so this plugin
 * (and only it) keeps the body as bytes; after verifying (Stripe-Signature, 300 s tolerance), the event
 * id goes into stripe_events in the same transaction as its effects (server/billing/events.ts): a
 * repeated delivery answers 200 and changes nothing. A subscription event is applied with the subscription
 * as the provider has it now (Stripe's events may arrive out of order). Unknown types are recorded and ignored. A bad
 * signature answers 400 {detail, code} and changes nothing.
 */
import { eq } from "drizzle-orm";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { API_BASE, errorBodySchema } from "../../contract";
import { billingPaths } from "../../contract/billing-shared";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { stripeEvents } from "../db/schema";
import { currentSubscriptionEvent, dispatchPaymentEvent, preparePaymentEvent } from "../billing/events";
import { planSettings } from "../billing/plan-limits";
import { isSandboxPayments } from "../billing/payments/sandbox";
import { WebhookSignatureError } from "../billing/payments/signature";
import type { PaymentEvent, PaymentProvider } from "../billing/payments/types";
import { ApiError } from "../plugins/errors";
import { walletPolicy } from "../wallet/wallet";

const STRIPE_BODY_LIMIT = 1024 * 1024;
/** Stripe retries politely; this only stops a flood from one address. */
const STRIPE_WEBHOOKS_PER_IP_PER_MINUTE = 1200;

const receivedSchema = z.object({ received: z.literal(true), duplicate: z.boolean(), result: z.enum(["applied", "ignored", "duplicate"]) });

export interface StripeWebhookOptions {
  db: Db;
  config: AppConfig;
  payments: PaymentProvider;
}

export const stripeWebhookRoutes: FastifyPluginAsyncZod<StripeWebhookOptions> = async (app, { db, config, payments }) => {
  // The signed bytes, untouched (this plugin's routes only).
  app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: STRIPE_BODY_LIMIT }, (_request, body, done) => done(null, body));

  // The sandbox delivers its events here, through the same verification.
  if (isSandboxPayments(payments)) {
    payments.connect(async (body, headers) => {
      const response = await app.inject({ method: "POST", url: `${API_BASE}${billingPaths.stripeWebhook}`, headers, payload: body });
      return { statusCode: response.statusCode, body: response.body };
    });
  }

  const wallet = walletPolicy(config);
  const plans = planSettings(config);

  app.post(
    billingPaths.stripeWebhook,
    {
      bodyLimit: STRIPE_BODY_LIMIT,
      config: { public: true, rateLimit: { max: STRIPE_WEBHOOKS_PER_IP_PER_MINUTE, timeWindow: "1 minute" } },
      schema: {
        tags: ["webhook"],
        summary: "Stripe's events (signed)",
        description:
          "A Stripe event, verified by `Stripe-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\">`, several v1 allowed, at most 300 s old) " +
          "with STRIPE_WEBHOOK_SECRET (or the sandbox payment provider's own secret). Each event id is processed once: a repeat answers 200 with duplicate true. " +
          "Handles checkout.session.completed / async_payment_succeeded / async_payment_failed / expired, payment_intent.succeeded / payment_failed, " +
          "customer.subscription.created / updated / deleted, invoice.paid / payment_failed; other types are recorded and ignored. A bad signature answers 400.",
        response: { 200: receivedSchema, 400: errorBodySchema, 413: errorBodySchema, 429: errorBodySchema },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.from(typeof request.body === "string" ? request.body : "");
      const header = request.headers["stripe-signature"];
      let event: PaymentEvent;
      try {
        event = payments.verifyWebhook(raw, Array.isArray(header) ? header.join(",") : header);
      } catch (error) {
        if (error instanceof WebhookSignatureError) throw ApiError.badRequest(`The Stripe webhook was refused: ${error.message}`);
        throw error;
      }
      const [seen] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eqId(event.id)).limit(1);
      if (seen) return { received: true as const, duplicate: true, result: "duplicate" as const };
      // Reads of the provider, before the transaction (no row waits on the network).
      event = await currentSubscriptionEvent(payments, event);
      const checkout = await preparePaymentEvent(payments, event);
      const result = await db.transaction(async (tx) => {
        const recorded = await tx.insert(stripeEvents).values({ id: event.id, type: event.type }).onConflictDoNothing().returning({ id: stripeEvents.id });
        if (recorded.length === 0) return "duplicate" as const;
        return dispatchPaymentEvent(tx, event, { wallet, plans, isSandbox: payments.mode === "sandbox", checkout });
      });
      if (result !== "duplicate") request.log.info({ eventId: event.id, type: event.type, result }, "stripe event processed");
      return { received: true as const, duplicate: result === "duplicate", result };
    },
  );
};


const eqId = (id: string) => eq(stripeEvents.id, id);
