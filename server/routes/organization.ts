import { eq, inArray } from "drizzle-orm";
import { orgScope } from "../data/orgScope";
import { assertSeatAvailable, planSettings } from "../billing/plan-limits";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  can,
  errorBodySchema,
  inviteBodySchema,
  inviteResponseSchema,
  organizationParamsSchema,
  organizationSettingsPatchSchema,
  organizationSettingsPath,
  organizationSettingsResponseSchema,
} from "../../contract";
import type { AuthProvider } from "../auth/types";
import type { Db } from "../db/client";
import { memberships, users } from "../db/schema";
import { databaseTimeZone, organizationSettings, setOrganizationTimeZone } from "../organizations/settings";
import { ApiError } from "../plugins/errors";

const organizationNotFound = () => ApiError.notFound("Organisation not found");

/**
 * POST /api/organization/:organizationId/invite (spec §7, §8 Invitation), and GET / PATCH
 * /api/organization/settings (the active organisation's settings: its time zone).
 */
export const organizationRoutes: FastifyPluginAsyncZod<{ db: Db; provider: AuthProvider }> = async (app, { db, provider }) => {
  const plans = planSettings(app.config);
  app.get(
    organizationSettingsPath,
    {
      schema: {
        tags: ["organization"],
        summary: "The active organisation's settings",
        description:
          "Members and admins. `timezone` (an IANA name, default UTC): the dashboard's days are cut in it, and the console " +
          "passes it to the call list (`timezone`) so a day of the dashboard opens exactly the calls it counted.",
        security: [{ bearerAuth: [] }],
        response: { 200: organizationSettingsResponseSchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "organization", "show")) throw ApiError.forbidden("Your role may not view the organisation's settings.");
      const settings = await organizationSettings(db, scope.orgId);
      if (!settings) throw organizationNotFound();
      return { data: settings };
    },
  );

  app.patch(
    organizationSettingsPath,
    {
      schema: {
        tags: ["organization"],
        summary: "Change the active organisation's settings",
        description:
          "Admins only. `timezone`: an IANA time-zone name the database knows (Europe/Berlin, America/New_York, UTC; " +
          "fixed offsets are refused: a name keeps daylight saving right). The dashboard's figures are cut again in the " +
          "new zone at once; calls keep their times.",
        security: [{ bearerAuth: [] }],
        body: organizationSettingsPatchSchema,
        response: { 200: organizationSettingsResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "organization", "edit")) throw ApiError.forbidden("Only organisation admins can change the organisation's settings.");
      const timezone = await databaseTimeZone(db, request.body.timezone);
      if (!timezone) {
        throw ApiError.badRequest(`timezone: ${request.body.timezone} is not a time zone the database knows; use a name such as Europe/Berlin, America/New_York or UTC`);
      }
      const settings = await setOrganizationTimeZone(db, scope.orgId, timezone);
      if (!settings) throw organizationNotFound();
      return { data: settings };
    },
  );

  app.post(
    "/organization/:organizationId/invite",
    {
      schema: {
        tags: ["organization"],
        summary: "Invite someone to the caller's active organisation",
        description:
          "Admins only. Local accounts: answers `invitation_url`, the link to hand over; the person joins by opening it and " +
          "signing up or signing in with the invited email (the link alone, or the email alone, is not enough). " +
          "Clerk: Clerk sends the invitation email. A pending invitation for the same email is refreshed.",
        security: [{ bearerAuth: [] }],
        params: organizationParamsSchema,
        body: inviteBodySchema,
        response: {
          200: inviteResponseSchema,
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
          502: errorBodySchema,
        },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      // Another organisation's id answers as if it did not exist.
      if (request.params.organizationId !== scope.orgId) throw ApiError.notFound("Organisation not found");
      if (!can(identity.role, "organization", "invite")) {
        throw ApiError.forbidden("Only organisation admins can invite members.");
      }
      const email = request.body.email_address.trim().toLowerCase();
      const sameEmail = db.select({ id: users.id }).from(users).where(eq(users.email, email));
      if ((await scope.count(memberships, inArray(memberships.userId, sameEmail))) > 0) {
        throw ApiError.conflict(`${email} is already a member of this organisation.`);
      }
      // The plan's seats (members and pending invitations) are checked and the invitation made under the
      // organisation's row lock, in one transaction: invitations at once take turns (plan-limits.ts).
      const { invitationUrl } = await db.transaction(async (tx) => {
        await assertSeatAvailable(tx, scope.orgId, plans, email);
        return provider.invite({ scope: orgScope(tx, scope.orgId), tx, inviterUserId: identity.userId, email, role: request.body.role, log: request.log });
      });
      return { status: "success" as const, ...(invitationUrl ? { invitation_url: invitationUrl } : {}) };
    },
  );
};
