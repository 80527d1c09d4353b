/**
 * /campaign routes (issue 13): outbound campaigns, their contacts and their history. Every read and
 * write is scoped to the caller's organisation (another organisation's campaign answers 404); members
 * list, show, create, edit and run campaigns, admins also delete them (contract/permissions.ts). The
 * do-not-call list is server/routes/dnc.ts.
 *
 * Decisions a user notices:
 * - A transition that does not apply to the current state answers 409 `{detail, code: "conflict",
 *   status}` with the current state; so do an edit the state does not allow (running: agent_id and
 *   phone_number_id need a pause; completed/cancelled: only the name), a delete of a campaign that is
 *   not a draft or finished, and an import into a campaign that is not a draft or paused.
 * - An edit compares values: a field sent back unchanged (an edit form sends them all) is not an edit,
 *   so it is never refused for the state and records no event.
 * - Start (and resume) needs an agent and a caller number that still exist, and start at least one
 *   contact: 400 naming every missing one. With start_at in the future the campaign becomes
 *   `scheduled` (the dialler starts it then); started_at is set when it first runs. Start, resume and
 *   schedule edits recompute when each waiting contact may be called.
 * - Pause is a person's (`pause_code` manual, `pause_reason` "Paused by <name>"): calls in progress
 *   finish. Cancel stops every contact still waiting (status cancelled) and sets completed_at; calls in
 *   progress finish.
 * - next_window_at shows only for campaigns that will dial (running, scheduled); a draft or paused
 *   campaign waits for a person first.
 * - Imports (CSV in the multipart field `file`, or JSON `{contacts}`; server/campaigns/contacts-import.ts)
 *   answer 200 with a report even when every row was refused. Numbers on the do-not-call list are
 *   stored with status `dnc` (counted in the report and the campaign's counts, listed, never dialled);
 *   duplicates (in the file or already in the campaign) are counted and skipped; invalid rows (bad
 *   number, unknown zone, a row wider than the header, over-long values) are reported by row (1 = the
 *   first contact; blank lines are not rows) and skipped. Known columns match ignoring case, spaces
 *   and dashes ("Phone Number"); every other column becomes a variable named as written. A file that
 *   cannot be read at all (no number column, a quote never closed, a repeated column) is 400 and
 *   imports nothing.
 * - The export writes the contacts in import order with one column per variable; cells that could
 *   start a spreadsheet formula begin with ' (numbers too: '+1415…), which a re-import drops.
 * - progress: calls placed, ended and answered per bucket from the campaign's start (the bucket size
 *   grows with the campaign's span: at most 120 points); events: the newest 100.
 */
import { concurrentCallCapacity, currentPlan, planSettings } from "../billing/plan-limits";
import multipart from "@fastify/multipart";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { can, errorBodySchema, formatByteLimit, type Action } from "../../contract";
import {
  CAMPAIGN_ACTIONS,
  CAMPAIGN_CONTACTS_MAX,
  CAMPAIGN_PATHS,
  CAMPAIGN_STATUSES,
  CONTACT_CSV_COLUMNS,
  CONTACT_IMPORT_MAX_BYTES,
  campaignContactListQuerySchema,
  campaignContactListResponseSchema,
  campaignCreateSchema,
  campaignEventListResponseSchema,
  campaignIdParamsSchema,
  campaignListQuerySchema,
  campaignListResponseSchema,
  campaignProgressSchema,
  campaignResponseSchema,
  campaignUpdateSchema,
  contactImportJsonSchema,
  contactImportResponseSchema,
  type CampaignAction,
} from "../../contract/campaign";
import { deletedResponseSchema } from "../../contract/list";
import { campaignEventList, campaignProgress } from "../campaigns/activity";
import { contactExportFileName, contactsCsvStream, listContacts } from "../campaigns/contacts";
import { contactRowsFromCsv, contactRowsFromJson, importContacts } from "../campaigns/contacts-import";
import { findCampaign, listCampaigns, toApiCampaigns, type CampaignRow } from "../campaigns/repository";
import { campaignNotFound, createCampaign, deleteCampaign, transitionCampaign, updateCampaign, type CampaignContext } from "../campaigns/service";
import type { CampaignSignals } from "../campaigns/signals";
import { checkJsonOrUpload, CSV_UPLOAD_OPTIONS, readCsvUpload } from "../campaigns/upload";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { campaignContacts } from "../db/schema";
import { ApiError } from "../plugins/errors";

export interface CampaignRoutesOptions {
  db: Db;
  config: AppConfig;
  signals: CampaignSignals;
}

const tags = ["campaign"];
const security = [{ bearerAuth: [] }];
/** A 409 names the campaign's current state. */
export const campaignConflictSchema = errorBodySchema.extend({ status: z.enum(CAMPAIGN_STATUSES) });
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

const VERBS: Partial<Record<Action, string>> = { list: "view", show: "view", create: "create", edit: "edit or run", delete: "delete" };

/** Action routes take no fields: an empty JSON object, or no body at all (read as {} by noBodyIsEmpty). */
const actionBodySchema = z.strictObject({});
const noBodyIsEmpty = async (request: FastifyRequest) => {
  if (request.body === undefined) request.body = {};
};

const ACTION_SUMMARY: Record<CampaignAction, [string, string]> = {
  start: [
    "Start a draft campaign",
    "draft → running, or scheduled when schedule.start_at is in the future. Needs an agent and a caller number that still exist and at least one contact (400 naming what is missing). Waiting contacts get their next calling time.",
  ],
  pause: ["Pause a running or scheduled campaign", "No new calls start; calls in progress finish. pause_code becomes manual."],
  resume: ["Resume a paused campaign", "paused → running (or scheduled before start_at). Needs an agent and a caller number that still exist. Waiting contacts get their next calling time."],
  cancel: ["Cancel a campaign", "From any state that is not final. Contacts still waiting become cancelled; calls in progress finish."],
};

export const campaignRoutes: FastifyPluginAsyncZod<CampaignRoutesOptions> = async (app, { db, config, signals }) => {
  const installConcurrency = config.campaigns.orgConcurrentCalls;
  const plans = planSettings(config);

  /** The role's permission, then the organisation's limit of calls at once: its plan's (ORG_CONCURRENT_CALLS for a plan without one). */
  async function allowed(request: FastifyRequest, action: Action): Promise<CampaignContext> {
    const identity = request.requireIdentity();
    const scope = request.requireOrg();
    if (!can(identity.role, "campaign", action)) throw ApiError.forbidden(`Your role may not ${VERBS[action] ?? action} campaigns.`);
    const concurrencyLimit = concurrentCallCapacity(await currentPlan(db, scope.orgId, plans), plans);
    return { db, scope, userId: identity.userId, concurrencyLimit, signals, plans };
  }

  async function ownCampaign(ctx: CampaignContext, id: string) {
    const row = await findCampaign(ctx.scope, id);
    if (!row) throw campaignNotFound();
    return row;
  }

  const answer = async (ctx: CampaignContext, row: CampaignRow) => ({ data: (await toApiCampaigns(db, ctx.scope, [row], ctx.concurrencyLimit))[0]! });

  app.get(
    CAMPAIGN_PATHS.list,
    {
      schema: {
        tags,
        security,
        summary: "The organisation's campaigns, newest first",
        description: "status: one state; search: a part of the name (case-insensitive). Each campaign carries its contact counts and next_window_at.",
        querystring: campaignListQuerySchema,
        response: { 200: campaignListResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "list");
      const { page, limit } = request.query;
      const { rows, total } = await listCampaigns(ctx.scope, request.query);
      return { data: await toApiCampaigns(db, ctx.scope, rows, ctx.concurrencyLimit), total, page, limit };
    },
  );

  app.post(
    CAMPAIGN_PATHS.list,
    {
      schema: {
        tags,
        security,
        summary: "Create a campaign (a draft)",
        description:
          `agent_id and phone_number_id must be the organisation's own (400 otherwise) and may come later; max_concurrency is 1 to the organisation's limit of calls at once: its plan's concurrent calls (ORG_CONCURRENT_CALLS, now ${installConcurrency}, for a plan without a limit).`,
        body: campaignCreateSchema,
        response: { 201: campaignResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = await allowed(request, "create");
      const row = await createCampaign(ctx, request.body);
      return reply.status(201).send(await answer(ctx, row));
    },
  );

  app.get(
    "/campaign/:id",
    { schema: { tags, security, summary: "One campaign", params: campaignIdParamsSchema, response: { 200: campaignResponseSchema, ...errors } } },
    async (request) => {
      const ctx = await allowed(request, "show");
      return answer(ctx, await ownCampaign(ctx, request.params.id));
    },
  );

  app.put(
    "/campaign/:id",
    {
      schema: {
        tags,
        security,
        summary: "Edit a campaign",
        description:
          "Any of the fields; a field sent unchanged is not an edit. What may change depends on the state (EDITABLE_FIELDS): running campaigns take name, schedule, " +
          "max_concurrency and retry at once (the next dial uses them), agent_id and phone_number_id need a pause (409); completed and cancelled ones only the name. " +
          "A schedule edit recomputes when each waiting contact may be called, and moves contacts between queued and needs_timezone when the fallback zone comes or goes.",
        params: campaignIdParamsSchema,
        body: campaignUpdateSchema,
        response: { 200: campaignResponseSchema, ...errors, 409: campaignConflictSchema },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "edit");
      return answer(ctx, await updateCampaign(ctx, request.params.id, request.body));
    },
  );

  app.delete(
    "/campaign/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a campaign (admins)",
        description: "Drafts, completed and cancelled campaigns only (409 otherwise: cancel it first). Its contacts and events go with it; its calls stay in the call log.",
        params: campaignIdParamsSchema,
        response: { 200: deletedResponseSchema, ...errors, 409: campaignConflictSchema },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "delete");
      await deleteCampaign(ctx, request.params.id);
      return { data: { id: request.params.id } };
    },
  );

  for (const action of CAMPAIGN_ACTIONS) {
    const [summary, description] = ACTION_SUMMARY[action];
    app.post(
      `/campaign/:id/${action}`,
      {
        preValidation: noBodyIsEmpty,
        schema: {
          tags,
          security,
          summary,
          description: `${description} Any other state answers 409 {detail, code, status} naming the current one.`,
          params: campaignIdParamsSchema,
          body: actionBodySchema,
          response: { 200: campaignResponseSchema, ...errors, 409: campaignConflictSchema },
        },
      },
      async (request) => {
        const ctx = await allowed(request, "edit");
        return answer(ctx, await transitionCampaign(ctx, request.params.id, action));
      },
    );
  }

  app.get(
    "/campaign/:id/contacts",
    {
      schema: {
        tags,
        security,
        summary: "The campaign's contacts, in import order",
        description: "status, outcome: one value each; search: digits of the number (any spelling) or a part of the name.",
        params: campaignIdParamsSchema,
        querystring: campaignContactListQuerySchema,
        response: { 200: campaignContactListResponseSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "show");
      const campaign = await ownCampaign(ctx, request.params.id);
      const { page, limit } = request.query;
      const { data, total } = await listContacts(db, ctx.scope, campaign, request.query);
      return { data, total, page, limit };
    },
  );

  // The import takes multipart too: the parser lives only in this child context, so no other campaign
  // route accepts multipart bodies.
  await app.register(async (uploads) => {
    await uploads.register(multipart, CSV_UPLOAD_OPTIONS);
    uploads.withTypeProvider<ZodTypeProvider>().post(
      "/campaign/:id/contacts",
      {
        bodyLimit: CONTACT_IMPORT_MAX_BYTES,
        // The body schema is the JSON form's: a multipart request's (null) body is not held against it (checkJsonOrUpload).
        attachValidation: true,
        schema: {
          tags,
          security,
          summary: "Add contacts (CSV or JSON) to a draft or paused campaign",
          description:
            `A CSV (UTF-8, at most ${formatByteLimit(CONTACT_IMPORT_MAX_BYTES)}) in the multipart/form-data field "file", or JSON {contacts: [{number, name?, timezone?, variables?}]}. ` +
            `CSV columns: number (or ${CONTACT_CSV_COLUMNS.number.slice(1).join(", ")}; required), name, timezone (an IANA name); every other column becomes a variable named as in the header. ` +
            "Numbers may be written with spaces, dashes, dots and brackets and must then be E.164. Answers a report: accepted, duplicates (in the file or already in the campaign: skipped), " +
            "dnc (on the do-not-call list: stored as dnc, never called), invalid rows (row 1 = the first contact) and needs_timezone. " +
            `A campaign holds at most ${CAMPAIGN_CONTACTS_MAX.toLocaleString("en-US")} contacts. Any other state than draft or paused answers 409.`,
          params: campaignIdParamsSchema,
          body: contactImportJsonSchema,
          response: { 200: contactImportResponseSchema, ...errors, 409: campaignConflictSchema, 413: errorBodySchema },
        },
      },
      async (request) => {
        checkJsonOrUpload(request, "contacts");
        const ctx = await allowed(request, "edit");
        await ownCampaign(ctx, request.params.id);
        const rows = request.isMultipart() ? contactRowsFromCsv(await readCsvUpload(request, CONTACT_IMPORT_MAX_BYTES, "contacts")) : contactRowsFromJson(request.body);
        return { data: await importContacts(ctx, request.params.id, rows) };
      },
    );
  });

  app.get(
    "/campaign/:id/export",
    {
      schema: {
        tags,
        security,
        summary: "The campaign's contacts as CSV",
        description:
          "Columns: number, name, timezones (space-separated), status, outcome, attempts, last_call_id, last_ended_reason, then one per variable. " +
          "`x-total-count` says how many rows follow. Cells that could start a spreadsheet formula (= + - @) begin with '.",
        params: campaignIdParamsSchema,
        produces: ["text/csv"],
        response: { 200: z.string().describe("CSV: a header row, then one row per contact"), ...errors },
      },
    },
    async (request, reply) => {
      const ctx = await allowed(request, "show");
      const campaign = await ownCampaign(ctx, request.params.id);
      const total = await ctx.scope.count(campaignContacts, eq(campaignContacts.campaignId, campaign.id));
      const stream = await contactsCsvStream(db, ctx.scope, campaign);
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${contactExportFileName(campaign)}"`)
        .header("x-total-count", String(total))
        .header("cache-control", "no-store")
        // A stream skips the response serializer; the 200 schema above documents the CSV for OpenAPI.
        .send(stream as unknown as string);
    },
  );

  app.get(
    "/campaign/:id/progress",
    {
      schema: {
        tags,
        security,
        summary: "Calls placed and ended over time",
        description: "From the campaign's start until it finished (or now), per bucket of bucket_seconds (the size grows with the span, at most 120 points): calls placed, calls ended and answered.",
        params: campaignIdParamsSchema,
        response: { 200: campaignProgressSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "show");
      const campaign = await ownCampaign(ctx, request.params.id);
      return { data: await campaignProgress(db, ctx.scope, campaign) };
    },
  );

  app.get(
    "/campaign/:id/events",
    {
      schema: {
        tags,
        security,
        summary: "What happened to the campaign, newest first (at most 100)",
        description: "Starts, pauses with their reasons, resumes, edits, imports, completion. actor: the person's name (null for the dialler).",
        params: campaignIdParamsSchema,
        response: { 200: campaignEventListResponseSchema, ...errors },
      },
    },
    async (request) => {
      const ctx = await allowed(request, "show");
      await ownCampaign(ctx, request.params.id);
      return { data: await campaignEventList(db, ctx.scope, request.params.id) };
    },
  );
};
