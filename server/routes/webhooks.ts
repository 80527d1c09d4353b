/**
 * POST /api/webhooks/vapi: where Vapi (and the sandbox, which simulates it) posts `{message: {type, …}}`.
 *
 * Public (no bearer token of a person) and verified by signature instead (server/webhooks/signature.ts)
 * over the raw body: this plugin parses JSON bodies as text for its own route only, verifies, then
 * parses. Anything unverified answers 401 and changes nothing. No per-IP rate limit: Vapi posts every
 * call's events from a few addresses, and an unverified request costs one HMAC.
 *
 * status-update and end-of-call-report go to server/webhooks/ingest.ts, tool-calls to the tool
 * registry (by default the campaigns' opt-out tool, the orders' record_order_outcome and the calendar's booking tools), each tool call
 * answered once (a retry gets the first answer: server/webhooks/tools.ts); every other type is
 * acknowledged (200) and ignored.
 * A campaign call's end settles its contact in the ingest's transaction (server/campaigns/settle.ts), then
 * nudges this process's dialler (CampaignSignals) to fill the line it freed.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { API_BASE, errorBodySchema } from "../../contract";
import { bookingToolHandlers } from "../calendar/tools";
import type { CalendarSync } from "../calendar/sync";
import { campaignToolHandlers } from "../campaigns/opt-out";
import { settleOnCallEnded } from "../campaigns/settle";
import { orderToolHandlers } from "../orders/outcome";
import type { CampaignSignals } from "../campaigns/signals";
import { findCallForEvent } from "../calls/repository";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { ApiError } from "../plugins/errors";
import type { FastifyInstance } from "fastify";
import type { VoiceProvider, WebhookDelivery } from "../voice/types";
import { walletPolicy } from "../wallet/wallet";
import { maybeAutoReload } from "../billing/auto-reload";
import { ingestEndOfCallReport, ingestStatusUpdate, type IngestContext } from "../webhooks/ingest";
import { VAPI_WEBHOOK_PATH } from "../webhooks/paths";
import { resolveWebhookSecret } from "../webhooks/secret";
import { verifyWebhook } from "../webhooks/signature";
import { answerToolCalls, createToolRegistry, type ToolRegistry } from "../webhooks/tools";
import { eventCall, isObject } from "../webhooks/vapi-message";

/** End-of-call reports carry the whole transcript, the call and the assistant: more than the API's 1 MB. */
const WEBHOOK_BODY_LIMIT = 16 * 1024 * 1024;

const acknowledgedSchema = z.object({ received: z.literal(true) });
const toolCallsResponseSchema = z.object({
  results: z.array(z.object({ toolCallId: z.string(), name: z.string(), result: z.string().optional(), error: z.string().optional() })),
});

export interface WebhookRouteOptions {
  db: Db;
  voice: VoiceProvider;
  config: AppConfig;
  /** The tools `tool-calls` may run (default: the campaigns' opt-out tool and the booking tools). */
  tools?: ToolRegistry;
  /** The outside calendars the booking tools read busy times from and write bookings to (default: none). */
  calendarSync?: CalendarSync;
  /** Told when a campaign call ends (the dialler fills the freed line at once). */
  campaignSignals?: CampaignSignals;
}

/**
 * Where the sandbox posts its signed events: this app's own webhook route (through inject), signed with
 * the secret the route verifies with (in sandbox mode without VAPI_WEBHOOK_SECRET a random one per process:
 * pass the route's own).
 */
export function webhookDelivery(app: FastifyInstance, secret: string): WebhookDelivery {
  return {
    secret,
    post: async (body, headers) => {
      const response = await app.inject({ method: "POST", url: `${API_BASE}${VAPI_WEBHOOK_PATH}`, headers, payload: body });
      return { statusCode: response.statusCode, body: response.body };
    },
    log: app.log,
  };
}

/** The tools a `tool-calls` message may run: the campaigns' opt-out tool, the order-outcome tool and the calendar's booking tools. */
export function defaultToolRegistry(db: Db, calendarSync?: CalendarSync): ToolRegistry {
  return createToolRegistry({ ...campaignToolHandlers(db), ...orderToolHandlers(db), ...bookingToolHandlers({ db, ...(calendarSync ? { calendarSync } : {}) }) });
}

export const webhookRoutes: FastifyPluginAsyncZod<WebhookRouteOptions> = async (app, { db, voice, config, calendarSync, tools = defaultToolRegistry(db, calendarSync), campaignSignals }) => {
  const { secret } = resolveWebhookSecret(config);
  const ingest: IngestContext = {
    db,
    isSandbox: voice.mode === "sandbox",
    wallet: walletPolicy(config),
    // Auto-reload after a debit, outside the ingest (a slow card never holds up the webhook's answer).
    onDebited: (orgId) => void maybeAutoReload({ db, config, payments: app.payments, log: app.log }, orgId),
  };
  /** The ingest for one event: settles a campaign call's contact, and says which campaign's line it freed. */
  const ingestFor = (ended: Set<string>): IngestContext => ({
    ...ingest,
    onCallEnded: async (tx, row, event) => {
      const settled = await settleOnCallEnded(tx, row, event);
      if (settled) ended.add(settled.campaignId);
    },
  });

  // The raw text is what is signed: keep it, parse after verifying (this plugin's routes only).
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  // The sandbox delivers its simulated events here, through the same verification.
  voice.connectWebhooks?.(webhookDelivery(app, secret));
  app.addHook("onClose", async () => {
    await voice.close?.();
  });

  app.post(
    VAPI_WEBHOOK_PATH,
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      config: { public: true, rateLimit: false },
      schema: {
        tags: ["webhook"],
        summary: "Vapi's server messages (signed)",
        description:
          "Vapi's ServerMessage `{message: {type, …}}`, verified by `x-signature` (hex HMAC-SHA256 of `{x-timestamp}.{raw body}`, " +
          "timestamp in Unix seconds or milliseconds, at most 5 minutes off) or `Authorization: Bearer <VAPI_WEBHOOK_SECRET>`. " +
          "Each event is processed once. `tool-calls` answers `{results: [{toolCallId, name, result | error}]}`; every other type `{received: true}`.",
        response: { 200: z.union([toolCallsResponseSchema, acknowledgedSchema]), 400: errorBodySchema, 401: errorBodySchema, 413: errorBodySchema },
      },
    },
    async (request) => {
      const rawBody = typeof request.body === "string" ? request.body : "";
      const verified = verifyWebhook({ secret, headers: request.headers, rawBody });
      if (!verified.ok) throw ApiError.unauthorized(verified.reason);

      let parsed: unknown;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        throw ApiError.badRequest("The webhook body is not JSON.");
      }
      const message = isObject(parsed) && isObject(parsed.message) ? parsed.message : null;
      if (!message || typeof message.type !== "string") throw ApiError.badRequest("The webhook body must be {message: {type, …}} (Vapi's ServerMessage).");

      const ended = new Set<string>();
      switch (message.type) {
        case "status-update":
          await ingestStatusUpdate(ingestFor(ended), message);
          break;
        case "end-of-call-report":
          await ingestEndOfCallReport(ingestFor(ended), message);
          break;
        case "tool-calls":
          return answerToolCalls(tools, message, await findCallForEvent(db, eventCall(message)), { db, log: request.log });
        default:
          break;
      }
      // After the commit: the dialler's claim then sees the line free.
      for (const campaignId of ended) campaignSignals?.changed(campaignId);
      return { received: true as const };
    },
  );
};
