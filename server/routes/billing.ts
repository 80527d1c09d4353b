/**
 * /billing routes of the ledger work (issue 15): GET /billing/ (the summary), GET /billing/ledger and its
 * CSV export, GET /billing/usage, and the spend caps (GET for members, PUT for admins). Reading writes
 * nothing, except that GET /billing/ also runs auto-reload for the organisation (maybeAutoReload) once it
 * has read the summary, without waiting for it. Top-ups, auto-reload, the card and documents are other routes.
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, type Action } from "../../contract";
import {
  billingPaths,
  billingSummaryResponseSchema,
  ledgerListSchema,
  ledgerQuerySchema,
  spendCapsRequestSchema,
  spendCapsResponseSchema,
  usageQuerySchema,
  usageResponseSchema,
} from "../../contract/billing";
import { maybeAutoReload } from "../billing/auto-reload";
import { ledgerCsvStream, ledgerExportFileName, listLedger, readUsage } from "../billing/ledger";
import { replaceSpendCaps, spendCapStandings, toApiSpendCap } from "../billing/spend-caps";
import { readBillingSummary } from "../billing/summary";
import type { PaymentProvider } from "../billing/payments/types";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";
import { walletPolicy } from "../wallet/wallet";

const tags = ["billing"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema };

export interface BillingRouteOptions {
  db: Db;
  config: AppConfig;
  /** For the auto-reload GET /billing/ runs (default: app.payments). */
  payments?: PaymentProvider;
}

export const billingRoutes: FastifyPluginAsyncZod<BillingRouteOptions> = async (app, { db, config, payments }) => {
  const policy = walletPolicy(config);

  /**
   * A balance already under the threshold (a debit whose trigger was missed, a server restarted mid-way)
   * is reloaded when someone opens billing. Fire and forget: maybeAutoReload never throws and logs its
   * own errors; the answer does not wait for the payment provider.
   */
  function autoReloadInBackground(orgId: string): void {
    const provider = payments ?? app.payments;
    if (!provider) return;
    void maybeAutoReload({ db, config, payments: provider, log: app.log }, orgId).catch((error: unknown) => app.log.error({ err: error, orgId }, "auto-reload on GET /billing/ failed"));
  }

  function allowed(request: FastifyRequest, action: Action, refused: string) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "billing", action)) throw ApiError.forbidden(refused);
    return scope;
  }

  app.get(
    billingPaths.billing,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's billing summary",
        description:
          "Balance, available (balance less what calls not ended yet hold), this month's call spend in the organisation's time zone, auto-reload and its state, " +
          "the spend caps with their progress, the card on file, the payments mode (sandbox or stripe), banners (alerts) and a checkout top-up still pending " +
          "(of the last hour). Members may read it. Opening it also starts auto-reload when the balance is already under its threshold (in the background: " +
          "the answer shows the state before it; read again to see the reload).",
        response: { 200: billingSummaryResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "show", "Your role may not view billing.");
      const data = await readBillingSummary(db, scope.orgId, { policy, payments: config.modes.payments });
      autoReloadInBackground(scope.orgId);
      return { data };
    },
  );

  app.get(
    billingPaths.ledger,
    {
      schema: {
        tags,
        security,
        summary: "The wallet's ledger, newest first",
        description:
          "Every entry with the balance after it and its agent's name. Filters: startDate/endDate (days in the organisation's time zone, endDate included), " +
          "kind (one or several, comma-separated), agentId, q (the description, or a call or top-up id), minAmount/maxAmount (the amount's size in USD).",
        querystring: ledgerQuerySchema,
        response: { 200: ledgerListSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "list", "Your role may not view the ledger.");
      const { rows, total } = await listLedger(db, scope.orgId, request.query);
      return { data: rows, total, page: request.query.page, limit: request.query.limit };
    },
  );

  app.get(
    billingPaths.ledgerExport,
    {
      schema: {
        tags,
        security,
        summary: "The wallet's ledger as CSV",
        description:
          "The ledger's filters and order, every matching entry (page and limit are ignored), streamed as text/csv with a header row. " +
          "Cells that could start a spreadsheet formula (= + - @) begin with '.",
        querystring: ledgerQuerySchema,
        produces: ["text/csv"],
        response: { 200: z.string().describe("CSV: a header row, then one row per ledger entry"), ...errors },
      },
    },
    async (request, reply) => {
      const scope = allowed(request, "list", "Your role may not export the ledger.");
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${ledgerExportFileName()}"`)
        .header("cache-control", "no-store")
        .send(ledgerCsvStream(db, scope.orgId, request.query) as unknown as string);
    },
  );

  app.get(
    billingPaths.usage,
    {
      schema: {
        tags,
        security,
        summary: "Call usage per day and agent",
        description:
          "The call debits rolled up by day (in the organisation's time zone; every day of the range, days without usage as zeros), per agent and in total, " +
          "with cost components that add up exactly to the cost. Default: the last 30 days. Agents: agent_id null for calls without an agent; an agent deleted " +
          "since keeps its id with agent_name null.",
        querystring: usageQuerySchema,
        response: { 200: usageResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "show", "Your role may not view usage.");
      return { data: await readUsage(db, scope.orgId, request.query) };
    },
  );

  app.get(
    billingPaths.spendCaps,
    {
      schema: {
        tags,
        security,
        summary: "The spend caps with their progress",
        description: "Caps per organisation or agent, per day or month (the organisation's time zone), with what was spent in the current period and when it resets.",
        response: { 200: spendCapsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const scope = allowed(request, "list", "Your role may not view spend caps.");
      return { data: (await spendCapStandings(db, scope.orgId)).map(toApiSpendCap) };
    },
  );

  app.put(
    billingPaths.spendCaps,
    {
      schema: {
        tags,
        security,
        summary: "Replace the spend caps (admins)",
        description:
          "The whole list at once, in one transaction: caps not in it are removed. An agent cap's agent_id must be one of the organisation's agents (else 404). " +
          "A new call that would pass a cap is refused with 403 spend_cap_reached; a campaign pauses itself with pause_code spend_cap.",
        body: spendCapsRequestSchema,
        response: { 200: spendCapsResponseSchema, ...errors, 404: errorBodySchema },
      },
    },
    async (request) => {
      const scope = allowed(request, "edit", "Your role may not change spend caps: ask an admin.");
      await replaceSpendCaps(db, scope.orgId, request.body.caps);
      return { data: (await spendCapStandings(db, scope.orgId)).map(toApiSpendCap) };
    },
  );
};
