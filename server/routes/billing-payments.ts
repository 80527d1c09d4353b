/**
 * Billing's payment routes (issue 15): top-ups (Checkout), refunds, auto-reload, documents, the card,
 * the provider's portal, and the sandbox payment provider's checkout page API. Members read; admins
 * move money (can(role, "billing", "edit")). Another organisation's record answers 404.
 */
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, type Action } from "../../contract";
import {
  autoReloadRequestSchema,
  autoReloadSchema,
  billingDocumentListSchema,
  billingDocumentResponseSchema,
  billingPaths,
  billingUrlResponseSchema,
  refundRequestSchema,
  sandboxCheckoutResponseSchema,
  sandboxCheckoutSchema,
  sandboxPayRequestSchema,
  sandboxPayResultSchema,
  topUpCreatedSchema,
  topUpRequestSchema,
  topUpResponseSchema,
} from "../../contract/billing";
import { pagingQuerySchema } from "../../contract/list";
import { ensureBillingAccount } from "../billing/account";
import { readAutoReload, updateAutoReload } from "../billing/auto-reload";
import { documentById, listDocuments, toApiDocument } from "../billing/documents";
import { isSandboxPayments } from "../billing/payments/sandbox";
import type { PaymentProvider } from "../billing/payments/types";
import { ensureCustomer, refreshTopUp, refundTopUp, startTopUp, toApiTopUp, topUpById, type PaymentDeps } from "../billing/top-ups";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { billingAccounts, organizations } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { microsToUsd, usdToMicros } from "../wallet/money";

const tags = ["billing"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
const idParams = z.object({ id: z.uuid({ error: "id must be a UUID" }) });
const sessionParams = z.object({ id: z.string().trim().min(1).max(200) });
const documentsQuerySchema = pagingQuerySchema({ maxLimit: 100, defaultLimit: 25 });
/** Action routes take no fields: an empty JSON object, or no body at all (read as {}). */
const actionBodySchema = z.strictObject({});
const noBodyIsEmpty = async (request: FastifyRequest) => {
  if (request.body === undefined) request.body = {};
};

const REFUSED: Partial<Record<Action, string>> = {
  show: "Your role may not view billing.",
  edit: "Only an admin can move money or change billing settings.",
};

export interface BillingPaymentRouteOptions {
  db: Db;
  config: AppConfig;
  payments: PaymentProvider;
}

export const billingPaymentRoutes: FastifyPluginAsyncZod<BillingPaymentRouteOptions> = async (app, { db, config, payments }) => {
  const deps: PaymentDeps = { db, config, payments, log: app.log };

  function allowed(request: FastifyRequest, action: Action) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "billing", action)) throw ApiError.forbidden(REFUSED[action] ?? "Your role may not do this.");
    return { orgId: scope.orgId, userId: identity.userId };
  }

  function sandbox() {
    if (!isSandboxPayments(payments)) throw ApiError.notFound("The sandbox checkout exists only when payments run in sandbox mode.");
    return payments;
  }

  // ----------------------------------------------------------------------------------------- top-ups

  app.post(
    billingPaths.topUp,
    {
      schema: {
        tags,
        security,
        summary: "Start a top-up (admin)",
        description:
          "Writes the top-up (pending) and starts the payment provider's Checkout for amount_usd; answers its URL (Stripe's hosted page, or the console's " +
          "sandbox checkout /billing?checkout=<id>). The wallet is credited once the payment is confirmed (webhook, return or reconciliation), exactly once. " +
          "save_card keeps the card for auto-reload.",
        body: topUpRequestSchema,
        response: { 201: topUpCreatedSchema, ...errors, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = allowed(request, "edit");
      const { topUpId, url } = await startTopUp(deps, { orgId, amountMicros: usdToMicros(request.body.amount_usd), saveCard: request.body.save_card, createdBy: userId, email: null });
      reply.code(201);
      return { data: { top_up_id: topUpId, url } };
    },
  );

  app.get(
    billingPaths.topUpById,
    {
      schema: {
        tags,
        security,
        summary: "A top-up",
        description: "While it is pending, asks the payment provider how its checkout stands and credits it when paid (the return to /billing).",
        params: idParams,
        response: { 200: topUpResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "show");
      const row = await topUpById(db, orgId, request.params.id);
      if (!row) throw ApiError.notFound("No such top-up in this organisation.");
      return { data: toApiTopUp(await refreshTopUp(deps, row)) };
    },
  );

  app.post(
    billingPaths.topUpRefund,
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Refund a top-up (admin)",
        description: "amount_usd defaults to what is left of the top-up; never more than that nor than the wallet's balance (409). The wallet is debited (kind refund) and the provider refunds the card.",
        params: idParams,
        body: refundRequestSchema,
        response: { 200: topUpResponseSchema, ...errors, 409: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const amount = request.body.amount_usd === undefined ? null : usdToMicros(request.body.amount_usd);
      return { data: toApiTopUp(await refundTopUp(deps, orgId, request.params.id, amount)) };
    },
  );

  // ------------------------------------------------------------------------------------- auto-reload

  app.put(
    billingPaths.autoReload,
    {
      schema: {
        tags,
        security,
        summary: "Auto-reload settings (admin)",
        description: "Enabling needs a saved card (409 otherwise). After AUTO_RELOAD_MAX_FAILURES failed charges it switches itself off; switching it on again starts afresh.",
        body: autoReloadRequestSchema,
        response: { 200: z.object({ data: autoReloadSchema }), ...errors, 409: errorBodySchema },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const data = await updateAutoReload(deps, orgId, request.body);
      return { data };
    },
  );

  app.post(
    billingPaths.autoReloadConfirm,
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Confirm auto-reload's card on-session (admin)",
        description: "When the card asked for authentication: a normal checkout top-up of the reload amount that saves the card again; once paid, auto-reload resumes.",
        body: actionBodySchema,
        response: { 201: topUpCreatedSchema, ...errors, 409: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = allowed(request, "edit");
      const account = await ensureBillingAccount(db, orgId, config.billing.defaultPlan);
      if (account.autoReloadAmountMicros <= 0) throw ApiError.conflict("Set up auto-reload (its amount) first.");
      const { topUpId, url } = await startTopUp(deps, { orgId, amountMicros: account.autoReloadAmountMicros, saveCard: true, createdBy: userId, email: null });
      reply.code(201);
      return { data: { top_up_id: topUpId, url } };
    },
  );

  // --------------------------------------------------------------------------------------- documents

  app.get(
    billingPaths.documents,
    {
      schema: {
        tags,
        security,
        summary: "Receipts and invoices, newest first",
        description: "url is the provider's hosted receipt or invoice, or /billing/documents/<id> (the console's printable page) for the sandbox's.",
        querystring: documentsQuerySchema,
        response: { 200: billingDocumentListSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "list");
      const { page, limit } = request.query;
      const { rows, total } = await listDocuments(db, orgId, page, limit);
      return { data: rows.map(toApiDocument), total, page, limit };
    },
  );

  app.get(
    billingPaths.documentById,
    {
      schema: {
        tags,
        security,
        summary: "One receipt or invoice (the printable page)",
        params: idParams,
        response: { 200: billingDocumentResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "show");
      const row = await documentById(db, orgId, request.params.id);
      if (!row) throw ApiError.notFound("No such document in this organisation.");
      const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
      return {
        data: { ...toApiDocument(row), organization_name: org?.name ?? "", lines: [{ description: row.description, amount_usd: microsToUsd(row.amountMicros) }] },
      };
    },
  );

  // ------------------------------------------------------------------------------------ card, portal

  app.delete(
    billingPaths.card,
    {
      schema: {
        tags,
        security,
        summary: "Remove the saved card (admin)",
        description: "Also switches auto-reload off (it has nothing to charge).",
        response: { 200: z.object({ data: z.object({ removed: z.boolean(), auto_reload: autoReloadSchema }) }), ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const before = await ensureBillingAccount(db, orgId, config.billing.defaultPlan);
      await db
        .update(billingAccounts)
        .set({ paymentMethodId: null, cardBrand: null, cardLast4: null, cardExpMonth: null, cardExpYear: null, autoReloadEnabled: false, updatedAt: new Date() })
        .where(eq(billingAccounts.orgId, orgId));
      return { data: { removed: before.paymentMethodId !== null, auto_reload: await readAutoReload(deps, orgId) } };
    },
  );

  app.post(
    billingPaths.portal,
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "The payment provider's customer portal (admin)",
        description: "Answers the URL to send the browser to (Stripe's portal; the sandbox's is /subscriptions?portal=sandbox).",
        body: actionBodySchema,
        response: { 200: billingUrlResponseSchema, ...errors, 502: errorBodySchema },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const customerId = await ensureCustomer(deps, orgId, null);
      try {
        const { url } = await payments.createPortalSession({ customerId, returnUrl: `${config.publicUrl.replace(/\/+$/, "")}/billing` });
        return { data: { url } };
      } catch (error) {
        request.log.error({ err: error }, "the payment provider refused the portal session");
        throw ApiError.upstream("The payment provider could not open its portal: try again in a moment.");
      }
    },
  );

  // ------------------------------------------------------------------------------ sandbox checkout

  async function sandboxCheckoutOf(orgId: string, id: string) {
    const provider = sandbox();
    const found = await provider.readCheckout(id);
    if (!found || found.org_id !== orgId) throw ApiError.notFound("No such checkout in this organisation.");
    const { org_id: _org, ...checkout } = found;
    return { provider, checkout: sandboxCheckoutSchema.parse(checkout) };
  }

  app.get(
    billingPaths.sandboxCheckout,
    {
      schema: {
        tags,
        security,
        summary: "The sandbox checkout page's data (sandbox payments only)",
        description: "What Stripe's hosted Checkout shows, for the console's dialog. 404 when payments run on Stripe.",
        params: sessionParams,
        response: { 200: sandboxCheckoutResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "show");
      const { checkout } = await sandboxCheckoutOf(orgId, request.params.id);
      return { data: checkout };
    },
  );

  app.post(
    billingPaths.sandboxCheckoutPay,
    {
      schema: {
        tags,
        security,
        summary: "Pay a sandbox checkout with a test card (admin, sandbox payments only)",
        description:
          "4242424242424242 succeeds; 4000000000000002 is declined; 4000000000009995 has insufficient funds; 4000002760003184 asks for authentication " +
          "(authenticated true completes it and saves a card that asks again for every off-session charge). On success the sandbox delivers the Stripe events.",
        params: sessionParams,
        body: sandboxPayRequestSchema,
        response: { 200: sandboxPayResultSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const { provider, checkout } = await sandboxCheckoutOf(orgId, request.params.id);
      const result = await provider.payCheckout(request.params.id, {
        number: request.body.card_number,
        expMonth: request.body.exp_month,
        expYear: request.body.exp_year,
        authenticated: request.body.authenticated,
      });
      return { data: { status: result.status, detail: result.detail, redirect_url: result.status === "complete" ? checkout.success_url : null } };
    },
  );

  app.post(
    billingPaths.sandboxCheckoutCancel,
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Leave a sandbox checkout without paying (admin, sandbox payments only)",
        description: "The checkout expires (its top-up too); answers the checkout.",
        params: sessionParams,
        body: actionBodySchema,
        response: { 200: sandboxCheckoutResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { orgId } = allowed(request, "edit");
      const { provider } = await sandboxCheckoutOf(orgId, request.params.id);
      await provider.expireCheckout(request.params.id);
      const { checkout } = await sandboxCheckoutOf(orgId, request.params.id);
      return { data: checkout };
    },
  );
};
