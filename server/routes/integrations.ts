/**
 * /integration routes (issue 16 §2): the organisation's store connections. Members list and show them;
 * admins create, rename, rotate and delete them (resource `order`, action `manage`,
 * contract/permissions.ts). Another organisation's integration answers 404.
 *
 * Decisions a user notices:
 * - The secret is answered whole only by POST /integration/ (201) and POST /integration/{id}/rotate-secret;
 *   every other answer has `secret_hint`, its last four characters. Rotating stops the old secret at once.
 * - Shopify makes its own signing key (a shop's admin shows it under Settings → Notifications → Webhooks;
 *   an app signs with its client secret): give it as `secret` when creating, or later to rotate-secret.
 *   WooCommerce and the generic endpoint take the secret we generate.
 * - Deleting keeps the orders (they lose their integration, not their history or calls).
 * - `follow_up`: settings of the integration's own (the same fields and rules as PUT /order/follow-up:
 *   its orders are then dialled by its own follow-up), or null: the organisation's settings apply again.
 *   Both are the orders core's (server/orders/settings.ts: saveFollowUpSettings, removeIntegrationFollowUp):
 *   orders waiting in the integration's follow-up move to the organisation's (or, when it has none, their
 *   waiting calls are cancelled and they stay open). Deleting an integration drops its follow-up the same way.
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { can, errorBodySchema, type Action } from "../../contract";
import { deletedResponseSchema } from "../../contract/list";
import {
  INTEGRATION_KINDS,
  INTEGRATIONS_MAX,
  ORDER_PATHS,
  integrationCreateSchema,
  integrationIdParamsSchema,
  integrationListResponseSchema,
  integrationResponseSchema,
  integrationRotateSecretSchema,
  integrationUpdateSchema,
  integrationWithSecretResponseSchema,
} from "../../contract/order";
import { pagingQuerySchema } from "../../contract/list";
import { concurrentCallCapacity, currentPlan, planSettings } from "../billing/plan-limits";
import type { CampaignSignals } from "../campaigns/signals";
import type { AppConfig } from "../config";
import type { SecretBox } from "../crypto/credentials";
import type { Db } from "../db/client";
import {
  createIntegration,
  deleteIntegration,
  findIntegration,
  listIntegrations,
  renameIntegration,
  rotateIntegrationSecret,
  setIntegrationFollowUp,
  toApiIntegrations,
  type IntegrationRow,
} from "../orders/integrations";
import { ApiError } from "../plugins/errors";

export interface IntegrationRoutesOptions {
  db: Db;
  config: AppConfig;
  box: SecretBox;
  /** Wakes the dialler when an integration's follow-up changes. */
  signals: CampaignSignals;
}

const tags = ["order"];
const security = [{ bearerAuth: [] }];
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", manage: "manage" };

/** POST …/rotate-secret may come without a body: read as {}. */
const noBodyIsEmpty = async (request: FastifyRequest) => {
  if (request.body === undefined) request.body = {};
};

export const integrationRoutes: FastifyPluginAsyncZod<IntegrationRoutesOptions> = async (app, { db, config, box, signals }) => {
  const publicUrl = config.publicUrl;
  const plans = planSettings(config);

  function allowed(request: FastifyRequest, action: Action) {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "order", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} store integrations: ask an admin.`);
    return { identity, scope };
  }

  const one = async (row: IntegrationRow) => (await toApiIntegrations(db, publicUrl, [row]))[0]!;

  app.get(
    ORDER_PATHS.integrations,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's store integrations, oldest first",
        description: "Each with its webhook_url (what to paste into the store), secret_hint, how many orders came from it and when it last delivered.",
        querystring: pagingQuerySchema(),
        response: { 200: integrationListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "list");
      const { page, limit } = request.query;
      const { rows, total } = await listIntegrations(scope, page, limit);
      return { data: await toApiIntegrations(db, publicUrl, rows), total, page, limit };
    },
  );

  app.post(
    ORDER_PATHS.integrations,
    {
      schema: {
        tags,
        security,
        summary: "Connect a store (admins)",
        description:
          `kind: ${INTEGRATION_KINDS.join(", ")}. Answers 201 with the webhook_url to give the store and the secret, shown only here ` +
          "(and on rotation): 32 random bytes, base64url — or `secret` as given, for Shopify, whose admin shows its own signing key. " +
          `At most ${INTEGRATIONS_MAX} integrations per organisation (409).`,
        body: integrationCreateSchema,
        response: { 201: integrationWithSecretResponseSchema, ...errors, 409: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { identity, scope } = allowed(request, "manage");
      const { row, secret } = await createIntegration(db, box, scope.orgId, { ...request.body, createdBy: identity.userId });
      return reply.status(201).send({ data: { ...(await one(row)), secret } });
    },
  );

  app.get(
    "/integration/:id",
    { schema: { tags, security, summary: "One store integration", params: integrationIdParamsSchema, response: { 200: integrationResponseSchema, ...errors } } },
    async (request) => {
      const { scope } = allowed(request, "show");
      return { data: await one(await findIntegration(scope, request.params.id)) };
    },
  );

  app.put(
    "/integration/:id",
    {
      schema: {
        tags,
        security,
        summary: "Rename a store integration, or give it follow-up settings of its own (admins)",
        description:
          "name; follow_up: the integration's own follow-up settings (the fields and rules of PUT /order/follow-up), or null for the organisation's again " +
          "(orders waiting in its own follow-up move to the organisation's; without one, their waiting calls are cancelled and they stay open).",
        params: integrationIdParamsSchema,
        body: integrationUpdateSchema,
        response: { 200: integrationResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { identity, scope } = allowed(request, "manage");
      const { name, follow_up: followUp } = request.body;
      let row = await findIntegration(scope, request.params.id);
      // The follow-up first: when it is refused (400) the name is not changed either.
      if (followUp !== undefined) {
        const concurrencyLimit = concurrentCallCapacity(await currentPlan(db, scope.orgId, plans), plans);
        await setIntegrationFollowUp({ db, orgId: scope.orgId, userId: identity.userId, concurrencyLimit, signals }, row.id, followUp);
      }
      if (name !== undefined) row = await renameIntegration(scope, row.id, name);
      return { data: await one(row) };
    },
  );

  app.delete(
    "/integration/:id",
    {
      schema: {
        tags,
        security,
        summary: "Disconnect a store (admins)",
        description:
          "Its deliveries stop verifying at once. Its orders stay, with their calls and history, no longer linked to an integration. " +
          "Orders waiting in its own follow-up (if it had one) move to the organisation's (without one, their waiting calls are cancelled).",
        params: integrationIdParamsSchema,
        response: { 200: deletedResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { identity, scope } = allowed(request, "manage");
      await deleteIntegration({ db, orgId: scope.orgId, userId: identity.userId, signals }, request.params.id);
      return { data: { id: request.params.id } };
    },
  );

  app.post(
    "/integration/:id/rotate-secret",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Give a store integration a new secret (admins)",
        description:
          "A new generated secret, or `secret` as given (Shopify's signing key). The old one stops verifying deliveries at once: paste the new one into the store. " +
          "The answer is the only one that carries it.",
        params: integrationIdParamsSchema,
        body: integrationRotateSecretSchema,
        response: { 200: integrationWithSecretResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { scope } = allowed(request, "manage");
      const { row, secret } = await rotateIntegrationSecret(scope, box, request.params.id, request.body.secret);
      return { data: { ...(await one(row)), secret } };
    },
  );
};
