import { eq, inArray } from "drizzle-orm";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { can, errorBodySchema, inviteBodySchema, inviteResponseSchema, organizationParamsSchema } from "../../contract";
import type { AuthProvider } from "../auth/types";
import type { Db } from "../db/client";
import { memberships, users } from "../db/schema";
import { ApiError } from "../plugins/errors";

/** POST /api/organization/:organizationId/invite (spec §7, §8 Invitation). */
export const organizationRoutes: FastifyPluginAsyncZod<{ db: Db; provider: AuthProvider }> = async (app, { db, provider }) => {
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
      const { invitationUrl } = await provider.invite({ scope, inviterUserId: identity.userId, email, role: request.body.role, log: request.log });
      return { status: "success" as const, ...(invitationUrl ? { invitation_url: invitationUrl } : {}) };
    },
  );
};
