/**
 * PLACEHOLDER (helper "pay"): the Stripe implementation of PaymentProvider is written by another helper,
 * whose file replaces this one on merge. Only here so the project type-checks.
 */
import type { FastifyBaseLogger } from "fastify";
import type { StripeConfig } from "../../config";
import type { PaymentProvider } from "./types";

export function createStripePayments(_config: StripeConfig, _log: FastifyBaseLogger): PaymentProvider {
  throw new Error("Stripe payments are not built yet (server/billing/payments/stripe.ts is a placeholder)");
}
