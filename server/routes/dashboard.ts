import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { planSettings } from "../billing/plan-limits";
import { can, errorBodySchema } from "../../contract";
import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS, dashboardPath, dashboardQuerySchema, dashboardResponseSchema } from "../../contract/dashboard";
import type { AppConfig } from "../config";
import { readDashboard } from "../dashboard/dashboard";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";
import { walletPolicy } from "../wallet/wallet";

/** GET /dashboard/ (spec §7): how the active organisation's calls went over a period (members and admins). */
export const dashboardRoutes: FastifyPluginAsyncZod<{ db: Db; config: AppConfig }> = async (app, { db, config }) => {
  const plans = planSettings(config);
  const wallet = walletPolicy(config);

  app.get(
    dashboardPath,
    {
      schema: {
        tags: ["dashboard"],
        security: [{ bearerAuth: [] }],
        summary: "The organisation's calls over a period, beside the period before it",
        description:
          "startDate/endDate: calendar days YYYY-MM-DD in the organisation's time zone (GET /organization/settings), endDate included whole; " +
          `default the last ${DASHBOARD_DEFAULT_DAYS} days, today included (endDate alone: the ${DASHBOARD_DEFAULT_DAYS} days ending then; ` +
          `startDate alone: until today); at most ${DASHBOARD_MAX_DAYS} days. agentId: only that agent's calls (an id that is not one of the ` +
          "organisation's agents has no calls, as in GET /call/). A call counts on the day it started: every figure equals what GET /call/ " +
          "and GET /call/export give for the same startDate, endDate, timezone and agentId. Rates are fractions (null when nothing to divide by), " +
          "money USD, minutes rounded to 0.1. `previous` is the same number of days just before.",
        querystring: dashboardQuerySchema,
        response: { 200: dashboardResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "dashboard", "list")) throw ApiError.forbidden("Your role may not view the dashboard.");
      return { data: await readDashboard(db, { orgId: scope.orgId, query: request.query, wallet, plans }) };
    },
  );
};
