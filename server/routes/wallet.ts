import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { can, errorBodySchema } from "../../contract";
import { walletPaths, walletResponseSchema } from "../../contract/wallet";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";
import { readWallet, walletPolicy } from "../wallet/wallet";

/** GET /wallet/: the organisation's balance and latest ledger entries (members may read it). */
export const walletRoutes: FastifyPluginAsyncZod<{ db: Db; config: AppConfig }> = async (app, { db, config }) => {
  const policy = walletPolicy(config);

  app.get(
    walletPaths.wallet,
    {
      schema: {
        tags: ["wallet"],
        security: [{ bearerAuth: [] }],
        summary: "The organisation's wallet",
        description:
          "Balance in USD and the latest ledger entries, newest first: the starting credit (STARTING_CREDIT_USD, given when the wallet " +
          "is first opened), top-ups, and one debit per call from its cost. Calls are refused below MIN_BALANCE_USD.",
        response: { 200: walletResponseSchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const identity = request.requireIdentity();
      const scope = request.requireOrg();
      if (!can(identity.role, "billing", "show")) throw ApiError.forbidden("Your role may not view the wallet.");
      return { data: await readWallet(db, scope.orgId, policy) };
    },
  );
};
