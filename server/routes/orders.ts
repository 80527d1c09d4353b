/**
 * /order routes (issue 16; issue 18's orders part): the orders the purchase-completion agent follows
 * up, their follow-up settings, imports, call now, stop, mark as paid, the timeline and the KPI figures.
 * Every read and write is scoped to the caller's organisation (another organisation's order answers
 * 404); the organisation comes from the token only. Permissions (contract/permissions.ts): members list,
 * show, create and edit orders (call now and stop are edits); admins also delete them and "manage"
 * (follow-up settings, mark as paid). Errors are {detail, code}; the order's 409s add `status` (the
 * order's) or `next_call_at` where they help. The store webhooks and integrations are another file's.
 */
import multipart from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, formatByteLimit, type Action } from "../../contract";
import { deletedResponseSchema } from "../../contract/list";
import {
  CALLING_HOURS_RULE,
  MAX_CALLS_PER_NUMBER_PER_24H,
  ORDER_CSV_COLUMNS,
  ORDER_IMPORT_MAX_BYTES,
  ORDER_PATHS,
  ORDER_STATUSES,
  followUpSettingsInputSchema,
  followUpSettingsResponseSchema,
  orderCallSchema,
  orderCreateSchema,
  orderIdParamsSchema,
  orderImportJsonSchema,
  orderImportResponseSchema,
  orderListQuerySchema,
  orderListResponseSchema,
  orderMarkPaidSchema,
  orderResponseSchema,
  orderStatsQuerySchema,
  orderStatsResponseSchema,
  orderTimelineResponseSchema,
  orderUpdateSchema,
} from "../../contract/order";
import { concurrentCallCapacity, currentPlan, planSettings } from "../billing/plan-limits";
import type { CampaignSignals } from "../campaigns/signals";
import { checkJsonOrUpload, CSV_UPLOAD_OPTIONS, readCsvUpload } from "../campaigns/upload";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { importOrders, orderRowsFromCsv, orderRowsFromJson } from "../orders/import";
import { listOrders, orderNotFound, orderStats, orderTimeline, readOrder } from "../orders/repository";
import { callNow, createOrder, deleteOrder, markPaid, stopOrder, updateOrder, type OrderContext } from "../orders/service";
import { readFollowUpSettings, saveFollowUpSettings } from "../orders/settings";
import { ApiError } from "../plugins/errors";

export interface OrderRoutesOptions {
  db: Db;
  config: AppConfig;
  signals: CampaignSignals;
}

const tags = ["order"];
const security = [{ bearerAuth: [] }];
/** A 409 about an order: its status, and when the next call may go where that is the answer. */
export const orderConflictSchema = errorBodySchema.extend({ status: z.enum(ORDER_STATUSES).optional(), next_call_at: z.string().nullable().optional() });
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", create: "add", edit: "edit, call or stop", delete: "delete", manage: "manage" };

/** Action routes take an empty JSON object or no body (a JSON null is refused like any other wrong type). */
const noBodyIsEmpty = async (request: FastifyRequest) => {
  if (request.body === undefined) request.body = {};
};

export const orderRoutes: FastifyPluginAsyncZod<OrderRoutesOptions> = async (app, { db, config, signals }) => {
  const plans = planSettings(config);

  function allowed(request: FastifyRequest, action: Action, what = "orders"): OrderContext {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "order", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} ${what}.`);
    return { db, orgId: scope.orgId, userId: identity.userId, signals };
  }

  async function answer(ctx: OrderContext, id: string) {
    const order = await readOrder(db, ctx.orgId, id);
    if (!order) throw orderNotFound();
    return { data: order };
  }

  app.get(
    ORDER_PATHS.list,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's orders, newest abandoned first",
        description:
          "status: one or several, comma-separated; startDate/endDate: days (YYYY-MM-DD) of abandoned_at in the organisation's time zone, endDate included; " +
          "search: a part of the customer's name, email, number (digits, any spelling) or the reference, case-insensitive; integrationId: one store's orders.",
        querystring: orderListQuerySchema,
        response: { 200: orderListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "list");
      const { page, limit } = request.query;
      const { data, total } = await listOrders(db, ctx.orgId, request.query);
      return { data, total, page, limit };
    },
  );

  app.post(
    ORDER_PATHS.list,
    {
      schema: {
        tags,
        security,
        summary: "Add an order by hand",
        description:
          "customer_number in E.164 (spaces and dashes are dropped); amounts in the currency's major unit (59.9 for $59.90). Without call_consent.given the order is " +
          "listed as no_consent and never dialled automatically. Its follow-up is planned at once (queued when automatic follow-up is on). The same reference again answers 409.",
        body: orderCreateSchema,
        response: { 201: orderResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request, reply) => {
      const ctx = allowed(request, "create");
      const id = await createOrder(ctx, request.body);
      return reply.status(201).send(await answer(ctx, id));
    },
  );

  app.get(
    ORDER_PATHS.stats,
    {
      schema: {
        tags,
        security,
        summary: "The KPI cards: orders, called, recovered, recovery rate, recovered revenue, time to recovery",
        description:
          "For the orders abandoned in startDate..endDate (days in the organisation's time zone, endDate included; all orders without dates). " +
          "recovery_rate = recovered ÷ orders called (null when none was called); recovered_revenue per currency, in its major unit.",
        querystring: orderStatsQuerySchema,
        response: { 200: orderStatsResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "list");
      return { data: await orderStats(db, ctx.orgId, request.query) };
    },
  );

  app.get(
    ORDER_PATHS.followUp,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's follow-up settings",
        description: "The defaults until the first save. state: running (automatic follow-up on), paused (with pause_reason: saving with enabled true resumes it) or off.",
        response: { 200: followUpSettingsResponseSchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "show");
      return { data: await readFollowUpSettings(db, ctx.orgId, null) };
    },
  );

  app.put(
    ORDER_PATHS.followUp,
    {
      schema: {
        tags,
        security,
        summary: "Save the follow-up settings (admins)",
        description:
          "enabled: whether new orders are queued automatically (needs agent_id and phone_number_id, the organisation's own). schedule: the campaign's shape; every window " +
          `must lie inside the calling hours (${CALLING_HOURS_RULE}), else 400. delay_minutes after abandonment; retry as a campaign's; attribution_days: a purchase this long ` +
          `after a call that reached the customer counts as recovered. At most ${MAX_CALLS_PER_NUMBER_PER_24H} calls to one number in 24 hours, always. Saving with enabled true ` +
          "resumes a paused follow-up and queues the open orders abandoned in the last day.",
        body: followUpSettingsInputSchema,
        response: { 200: followUpSettingsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = allowed(request, "manage", "follow-up settings");
      const concurrencyLimit = concurrentCallCapacity(await currentPlan(db, ctx.orgId, plans), plans);
      return { data: await saveFollowUpSettings({ ...ctx, concurrencyLimit }, null, request.body) };
    },
  );

  // The import takes multipart too: the parser lives only in this child context.
  await app.register(async (uploads) => {
    await uploads.register(multipart, CSV_UPLOAD_OPTIONS);
    uploads.withTypeProvider<ZodTypeProvider>().post(
      ORDER_PATHS.import,
      {
        bodyLimit: ORDER_IMPORT_MAX_BYTES,
        attachValidation: true,
        schema: {
          tags,
          security,
          summary: "Import orders (CSV or JSON)",
          description:
            `A CSV (UTF-8, at most ${formatByteLimit(ORDER_IMPORT_MAX_BYTES)}) in the multipart/form-data field "file", or JSON {orders: [POST /order/ bodies]}. ` +
            `CSV columns: ${Object.entries(ORDER_CSV_COLUMNS)
              .map(([column, names]) => (names.length > 1 ? `${column} (or ${names.filter((name) => name !== column).join(", ")})` : column))
              .join("; ")}. reference and customer_number are required. items: "Blue mug x2 12.00; Tote bag x1 35.90" (name xQUANTITY UNIT_PRICE, separated by ;). ` +
            "call_consent: true/yes/1 is consent to be called. A reference already known is updated; one repeated in the file is a duplicate. " +
            "Answers a report: accepted, updated, duplicates, no_consent, invalid rows (row 1 = the first order).",
          body: orderImportJsonSchema,
          response: { 200: orderImportResponseSchema, ...errors, 413: errorBodySchema },
        },
      },
      async (request) => {
        checkJsonOrUpload(request, "orders");
        const ctx = allowed(request, "create");
        const rows = request.isMultipart() ? orderRowsFromCsv(await readCsvUpload(request, ORDER_IMPORT_MAX_BYTES, "orders")) : orderRowsFromJson(request.body);
        return { data: await importOrders(ctx, rows) };
      },
    );
  });

  app.get(
    "/order/:id",
    { schema: { tags, security, summary: "One order", params: orderIdParamsSchema, response: { 200: orderResponseSchema, ...errors } } },
    async (request) => answer(allowed(request, "show"), request.params.id),
  );

  app.put(
    "/order/:id",
    {
      schema: {
        tags,
        security,
        summary: "Edit an order's details",
        description: "Any of the fields (the status moves only through actions and events). A new number, zone or consent re-plans the follow-up of an order not called yet; consent taken away stops a waiting call. 409 while a call is on the line.",
        params: orderIdParamsSchema,
        body: orderUpdateSchema,
        response: { 200: orderResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "edit");
      await updateOrder(ctx, request.params.id, request.body);
      return answer(ctx, request.params.id);
    },
  );

  app.post(
    "/order/:id/call",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Call now",
        description:
          "Queues the order's call at the front of its follow-up (202 with the order), whether automatic follow-up is on or not; the dialler still keeps to the concurrency, " +
          "the do-not-call list, spend caps and plan limits. 400 follow_up_not_set_up without an agent and caller number. 409: outside_calling_hours and number_call_limit " +
          "(with next_call_at), consent_required (send confirm_consent: true once the customer agreed to be called: recorded with your name), dnc, timezone_required, and " +
          "conflict for an order that cannot be called (paid, opted out, a call on the line, the follow-up paused).",
        params: orderIdParamsSchema,
        body: orderCallSchema,
        response: { 202: orderResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request, reply) => {
      const ctx = allowed(request, "edit");
      await callNow(ctx, request.params.id, request.body);
      return reply.status(202).send(await answer(ctx, request.params.id));
    },
  );

  app.post(
    "/order/:id/stop",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Stop the follow-up",
        description: "An open or calling order becomes cancelled (\"Stopped by <name>\"); a waiting call is cancelled, a call on the line finishes. Other states answer 409.",
        params: orderIdParamsSchema,
        body: z.strictObject({}),
        response: { 200: orderResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "edit");
      await stopOrder(ctx, request.params.id);
      return answer(ctx, request.params.id);
    },
  );

  app.post(
    "/order/:id/paid",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags,
        security,
        summary: "Mark as paid (admins)",
        description:
          "As the store's paid event would: recovered when a call reached the customer and the payment falls within the attribution window, else paid_without_call; " +
          "a waiting call is cancelled. amount defaults to the total, paid_at to now. An order already paid answers 409.",
        params: orderIdParamsSchema,
        body: orderMarkPaidSchema,
        response: { 200: orderResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "manage", "orders' payments");
      await markPaid(ctx, request.params.id, request.body);
      return answer(ctx, request.params.id);
    },
  );

  app.get(
    "/order/:id/timeline",
    {
      schema: {
        tags,
        security,
        summary: "What happened to the order, oldest first",
        description: "abandoned or imported, queued, each call (with its call_id), the outcome the agent reported, paid, stopped, cancelled, declined…",
        params: orderIdParamsSchema,
        response: { 200: orderTimelineResponseSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = allowed(request, "show");
      if (!(await readOrder(db, ctx.orgId, request.params.id))) throw orderNotFound();
      return { data: await orderTimeline(db, ctx.orgId, request.params.id) };
    },
  );
  // Registered last: the security suite runs the admin-only actions in route-table order, and the order must outlive mark-as-paid.
  app.delete(
    "/order/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete an order (admins)",
        description: "The order, its follow-up contact and its timeline go; its calls stay in Call Logs. 409 while a call is on the line.",
        params: orderIdParamsSchema,
        response: { 200: deletedResponseSchema, ...errors, 409: orderConflictSchema },
      },
    },
    async (request) => {
      const ctx = allowed(request, "delete");
      await deleteOrder(ctx, request.params.id);
      return { data: { id: request.params.id } };
    },
  );

};
