/**
 * /subscription routes (issue 15): the plans, the organisation's subscription and usage, a preview of a
 * change, the change itself and the payment provider's customer portal. Members read; admins change
 * (contract/permissions.ts "subscription").
 *
 * POST /subscription/change {plan}:
 * - enterprise: 409, contact sales; the plan the organisation is on: 409.
 * - a paid plan without a live subscription: Checkout in subscription mode (`url`); the plan changes when
 *   checkout.session.completed / customer.subscription.created arrive (subscription-events.ts).
 * - a paid plan with a subscription: the provider's subscription is updated; the plan is applied from
 *   customer.subscription.updated, always from the event (the sandbox delivers it before answering, so
 *   the answer already shows the new plan; with Stripe it follows within seconds).
 * - free: the subscription is cancelled at the period's end (the plan stays until
 *   customer.subscription.deleted); without a subscription it is applied at once.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { can, errorBodySchema, type Action } from "../../contract";
import { PLAN_ORDER, PLANS, SALES_EMAIL, type SelfServePlanId } from "../../contract/plans";
import {
  planChangeRequestSchema,
  planChangeResultSchema,
  planPreviewQuerySchema,
  planPreviewResponseSchema,
  plansResponseSchema,
  subscriptionResponseSchema,
} from "../../contract/subscription";
import { z } from "zod";
import { ensureBillingAccount } from "../billing/account";
import type { PaymentProvider } from "../billing/payments/types";
import { effectivePlan, planSettings } from "../billing/plan-limits";
import { hasLiveSubscription, previewPlanChange, readSubscription } from "../billing/subscription";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { billingAccounts, organizations, users } from "../db/schema";
import { ApiError } from "../plugins/errors";

const tags = ["subscription"];
const security = [{ bearerAuth: [] }];
const errors = { 401: errorBodySchema, 403: errorBodySchema };

export const SUBSCRIPTION_PATHS = {
  plans: "/subscription/plans",
  show: "/subscription/",
  preview: "/subscription/preview",
  change: "/subscription/change",
  portal: "/subscription/portal",
} as const;

/** No fields: an empty JSON object (as the campaign actions take). */
const portalRequestSchema = z.strictObject({});
const portalResponseSchema = z.object({ data: z.object({ url: z.string() }) });

export interface SubscriptionRoutesOptions {
  db: Db;
  config: AppConfig;
  /** The payment provider buildApp made (Stripe or the sandbox). */
  payments: PaymentProvider;
}

export const subscriptionRoutes: FastifyPluginAsyncZod<SubscriptionRoutesOptions> = async (app, { db, config, payments }) => {
  const settings = planSettings(config);
  const paymentsMode = config.modes.payments;

  function allowed(request: FastifyRequest, action: Action) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "subscription", action)) {
      throw ApiError.forbidden(action === "edit" ? "Only organisation admins can change the plan." : "Your role may not view the subscription.");
    }
    return { scope, userId: identity.userId };
  }

  /** The provider's customer for the organisation, made once and kept on the billing row. */
  async function customerOf(orgId: string, userId: string): Promise<string> {
    const account = await ensureBillingAccount(db, orgId, settings.defaultPlan);
    if (account.customerId) return account.customerId;
    const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
    const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
    const { customerId } = await payments.createCustomer({ orgId, name: org?.name ?? orgId, email: user?.email ?? null });
    await db.update(billingAccounts).set({ customerId, updatedAt: new Date() }).where(eq(billingAccounts.orgId, orgId));
    return customerId;
  }

  app.get(
    SUBSCRIPTION_PATHS.plans,
    {
      schema: {
        tags,
        security,
        summary: "The plans, cheapest first",
        description: "Each plan's monthly price (null: custom), limits (null: no limit) and whether it is bought through sales.",
        response: { 200: plansResponseSchema, ...errors },
      },
    },
    async (request) => {
      allowed(request, "list");
      return { data: PLAN_ORDER.map((id) => PLANS[id]) };
    },
  );

  app.get(
    SUBSCRIPTION_PATHS.show,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's plan, its status, limits and usage",
        description:
          "usage: what the organisation has now of each limit (campaign_contacts: its largest campaign's). over_limits: what it is over " +
          "(after a downgrade: kept, but nothing new of that kind). grace_ends_at: when a past-due subscription falls back to Free.",
        response: { 200: subscriptionResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "show");
      return { data: await readSubscription(db, scope.orgId, settings, paymentsMode) };
    },
  );

  app.get(
    SUBSCRIPTION_PATHS.preview,
    {
      schema: {
        tags,
        security,
        summary: "What changing to a plan would do",
        description:
          "The limits that change, the monthly price difference, what the organisation would be over on the new plan (kept, but " +
          "nothing new of that kind), and `retention`: how many calls' transcripts and recordings the retention sweep deletes under " +
          "the new plan's days (the sweep's own rule, as of when the plan applies) and when the sweep runs next.",
        querystring: planPreviewQuerySchema,
        response: { 200: planPreviewResponseSchema, 400: errorBodySchema, ...errors },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "show");
      return { data: await previewPlanChange(db, scope.orgId, request.query.plan, settings, config.billing.sweepSeconds * 1000) };
    },
  );

  app.post(
    SUBSCRIPTION_PATHS.change,
    {
      schema: {
        tags,
        security,
        summary: "Change the plan (admins)",
        description:
          "Enterprise: 409 (contact sales). The current plan: 409. A paid plan without a subscription: answers `url`, the checkout to pay " +
          "at; the plan changes once it is paid. With a subscription: the subscription is moved to the plan (prorated) and the answer " +
          "shows it once the provider has confirmed it. Free: the subscription is cancelled at the end of the period (cancel_at_period_end).",
        body: planChangeRequestSchema,
        response: { 200: planChangeResultSchema, 400: errorBodySchema, ...errors, 409: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request) => {
      const { scope, userId } = allowed(request, "edit");
      const orgId = scope.orgId;
      const to = request.body.plan;
      if (PLANS[to].contact_sales) {
        throw ApiError.conflict(`${PLANS[to].name} is arranged with sales: write to ${SALES_EMAIL} and we will set it up.`);
      }
      const account = await ensureBillingAccount(db, orgId, settings.defaultPlan);
      const from = effectivePlan(account, settings);
      const live = hasLiveSubscription(account);
      if (from === to && !(to !== "free" && account.cancelAtPeriodEnd && live)) {
        throw ApiError.conflict(`The organisation is already on the ${PLANS[to].name} plan.`);
      }
      const nonce = randomUUID();
      let url: string | null = null;
      if (to === "free") {
        if (live) {
          await payments.cancelSubscription({ subscriptionId: account.subscriptionId!, atPeriodEnd: true, nonce });
        } else {
          // Nothing to cancel (a plan given without a subscription): Free at once.
          await db.update(billingAccounts).set({ plan: "free", subscriptionStatus: "active", pastDueSince: null, cancelAtPeriodEnd: false, updatedAt: new Date() }).where(eq(billingAccounts.orgId, orgId));
        }
      } else if (live) {
        await payments.updateSubscription({ subscriptionId: account.subscriptionId!, plan: to as SelfServePlanId, nonce });
      } else {
        const customerId = await customerOf(orgId, userId);
        // Back to the plans screen, which says the payment went through (the plan moves when the provider's event arrives).
        const base = `${config.publicUrl}/subscriptions`;
        const checkout = await payments.createSubscriptionCheckout({
          orgId,
          customerId,
          plan: to as SelfServePlanId,
          nonce,
          successUrl: `${base}?subscription=success`,
          cancelUrl: `${base}?subscription=cancelled`,
        });
        url = checkout.url;
      }
      return { data: { url, subscription: await readSubscription(db, orgId, settings, paymentsMode) } };
    },
  );

  app.post(
    SUBSCRIPTION_PATHS.portal,
    {
      schema: {
        tags,
        security,
        summary: "Open the payment provider's customer portal (admins)",
        description: "Answers the portal's address: cards, invoices and the plan at Stripe (or the sandbox's page).",
        body: portalRequestSchema,
        response: { 200: portalResponseSchema, 400: errorBodySchema, ...errors, 502: errorBodySchema },
      },
    },
    async (request) => {
      const { scope, userId } = allowed(request, "manage");
      const customerId = await customerOf(scope.orgId, userId);
      const { url } = await payments.createPortalSession({ customerId, returnUrl: `${config.publicUrl}/billing` });
      return { data: { url } };
    },
  );
};
