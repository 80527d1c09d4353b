/**
 * The payment provider chosen at start-up (issue 15): Stripe when STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET are set, else the embedded sandbox.
 */
import type { FastifyBaseLogger } from "fastify";
import type { AppConfig } from "../../config";
import type { Db } from "../../db/client";
import { SandboxPaymentProvider } from "./sandbox";
import { createStripePayments } from "./stripe";
import type { PaymentProvider } from "./types";

export function createPaymentProvider(config: AppConfig, db: Db, log: FastifyBaseLogger): PaymentProvider {
  if (config.billing.stripe) return createStripePayments(config.billing.stripe, log);
  return new SandboxPaymentProvider({ db, log });
}

export { SandboxPaymentProvider, isSandboxPayments } from "./sandbox";
export { WebhookSignatureError, signPayload, verifySignature, verifyEvent } from "./signature";
export type * from "./types";
