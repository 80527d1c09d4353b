/**
 * The store webhooks (issue 16 §2): POST /webhooks/shopify/{integrationId}, /webhooks/woocommerce/{integrationId}
 * and /webhooks/store/{integrationId} (the generic signed JSON, which the embedded demo store also posts to).
 * Public, verified by signature over the raw body (this plugin keeps JSON bodies as bytes for its own routes).
 *
 * In order:
 * 1. the integration must exist and be of the path's kind, else 404 {detail, code} (the same answer for both);
 * 2. WooCommerce's ping when a webhook is saved (`webhook_id=<n>`, no topic, unsigned) answers 200 ignored;
 * 3. the signature (server/orders/stores/<kind>.ts): anything forged, stale or altered answers 401 and
 *    changes nothing, like the Vapi webhook; a correctly signed body we cannot read answers 400;
 * 4. in ONE transaction: the delivery id goes into store_webhook_deliveries (a delivery id seen before answers
 *    200 `duplicate` and changes nothing), the event is applied (applyStoreEvent, the orders core's), the
 *    delivery's result is recorded and the integration's last_delivery_at set. A delivery that means nothing
 *    for our orders (another topic, no phone number, a refunded order) is recorded as ignored, with why.
 * Rate-limited per client address and integration. Bodies up to 1 MB (Shopify's large orders run to ~100 KB).
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorBodySchema } from "../../contract";
import { GENERIC_EVENTS, INTEGRATION_KIND_LABELS, ORDER_PATHS, SHOPIFY_TOPICS, WOOCOMMERCE_TOPICS, type IntegrationKind } from "../../contract/order-shared";
import { genericStoreEventSchema, storeDeliveryResponseSchema, type StoreDeliveryResponse } from "../../contract/store-webhook";
import type { SecretBox } from "../crypto/credentials";
import type { Db } from "../db/client";
import { integrationForWebhook, openStoreSecret } from "../orders/integrations";
import { recordStoreDelivery, type ApplyStoreEvent } from "../orders/store-deliveries";
import { STORE_ADAPTERS } from "../orders/stores";
import { isPing } from "../orders/stores/woocommerce";
import { ApiError } from "../plugins/errors";

export const STORE_WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** Per client address and integration: a busy shop's checkouts/update bursts stay well under it; a flood does not. */
export const STORE_WEBHOOKS_PER_IP_PER_MINUTE = 1200;

export interface StoreWebhookRoutesOptions {
  db: Db;
  box: SecretBox;
  /** The orders core's applyStoreEvent (server/orders/store-events.ts). */
  applyStoreEvent: ApplyStoreEvent;
  /** The clock deliveries are judged by (tests move it). */
  now?: () => number;
}

const paramsSchema = z.object({ integrationId: z.uuid({ error: "the integration id must be a UUID" }) });

const ROUTES: Record<IntegrationKind, { path: string; summary: string; description: string }> = {
  shopify: {
    path: ORDER_PATHS.shopifyWebhook(":integrationId"),
    summary: "Shopify's webhooks (signed)",
    description:
      `Topics ${SHOPIFY_TOPICS.join(", ")} (X-Shopify-Topic; any other topic answers 200 ignored), JSON format. Verified by X-Shopify-Hmac-Sha256: ` +
      "base64 HMAC-SHA256 of the raw body with the integration's secret (the shop's signing key). Processed once per X-Shopify-Webhook-Id; " +
      "stale when X-Shopify-Triggered-At is over 48 hours old. Consent to be called comes from note_attributes call_consent, call_consent_source, call_consent_at.",
  },
  woocommerce: {
    path: ORDER_PATHS.woocommerceWebhook(":integrationId"),
    summary: "WooCommerce's webhooks (signed)",
    description:
      `Topics ${WOOCOMMERCE_TOPICS.join(", ")} (X-WC-Webhook-Topic), API version v3. Verified by X-WC-Webhook-Signature: base64 HMAC-SHA256 of the raw body ` +
      "with the integration's secret. Processed once per X-WC-Webhook-Delivery-ID; stale when the order's date_modified_gmt is over 48 hours old. " +
      "WooCommerce's ping (webhook_id=…, form-encoded) answers 200 with no effect. Consent to be called comes from meta_data call_consent, call_consent_source, call_consent_at.",
  },
  generic: {
    path: ORDER_PATHS.genericWebhook(":integrationId"),
    summary: "Any store's signed JSON events",
    description:
      `Events ${GENERIC_EVENTS.join(", ")}. Signed like the Vapi webhook: x-timestamp (Unix seconds or milliseconds, at most 5 minutes off) and ` +
      "x-signature = hex HMAC-SHA256 of `{x-timestamp}.{raw body}` with the integration's secret. Processed once per body `id`. " +
      "A body that breaks the format answers 400 naming the field (and is not recorded: fix it and send the same id again).",
  },
};

/** The path is validated as usual; the body's failure (it is bytes here) is not held against it: it is judged after its signature. */
function pathErrorOnly(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (error && error.validationContext !== "body") throw error;
}

const notFound = () => ApiError.notFound("Store integration not found: check the webhook address (it names the integration and its kind).");
const answer = (result: StoreDeliveryResponse["data"]["result"], detail: string | null, orderId: string | null = null): StoreDeliveryResponse => ({
  data: { result, detail, order_id: orderId },
});

export const storeWebhookRoutes: FastifyPluginAsyncZod<StoreWebhookRoutesOptions> = async (app, { db, box, applyStoreEvent, now = Date.now }) => {
  // The signed bytes, untouched (this plugin's routes only); WooCommerce's ping is form-encoded.
  app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: STORE_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer", bodyLimit: STORE_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  for (const kind of Object.keys(ROUTES) as IntegrationKind[]) {
    const route = ROUTES[kind];
    const adapter = STORE_ADAPTERS[kind];
    app.post(
      route.path,
      {
        bodyLimit: STORE_WEBHOOK_BODY_LIMIT,
        config: {
          public: true,
          rateLimit: {
            max: STORE_WEBHOOKS_PER_IP_PER_MINUTE,
            timeWindow: "1 minute",
            keyGenerator: (request: FastifyRequest) => `${request.ip} ${String((request.params as { integrationId?: unknown }).integrationId ?? "").slice(0, 64)}`,
          },
        },
        // The body is verified before it is read: the generic format's schema is here for the OpenAPI
        // document and is checked in the handler, after the signature (an unsigned body is never judged).
        attachValidation: true,
        schema: {
          tags: ["webhook"],
          summary: route.summary,
          description: route.description,
          params: paramsSchema,
          ...(kind === "generic" ? { body: genericStoreEventSchema } : {}),
          response: { 200: storeDeliveryResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 413: errorBodySchema, 429: errorBodySchema },
        },
      },
      async (request) => {
        pathErrorOnly(request);
        const integration = await integrationForWebhook(db, request.params.integrationId);
        if (!integration || integration.kind !== kind) throw notFound();
        const body: unknown = request.body;
        const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : "");
        if (kind === "woocommerce" && isPing(request.headers, raw)) return answer("ignored", "WooCommerce's ping when a webhook is saved: the address works. Nothing to do.");

        const verified = adapter.verify(request.headers, raw, openStoreSecret(box, integration), now());
        if (!verified.ok) throw verified.status === 401 ? ApiError.unauthorized(verified.reason) : ApiError.badRequest(verified.reason);
        const meaning = adapter.toStoreEvent(verified.topic, verified.payload);
        if ("invalid" in meaning) throw ApiError.badRequest(meaning.invalid);

        const recorded = await recordStoreDelivery(db, applyStoreEvent, {
          integration,
          deliveryIds: verified.deliveryIds,
          topic: verified.topic,
          meaning,
          receivedAt: new Date(now()),
        });
        request.log.info({ integrationId: integration.id, kind, topic: verified.topic, result: recorded.result }, `${INTEGRATION_KIND_LABELS[kind]} delivery ${recorded.result}`);
        // Committed: this process's dialler looks at once (a follow-up delay of 0 calls now, not at the next tick).
        if (recorded.wake) app.campaignSignals.changed(recorded.wake);
        return answer(recorded.result, recorded.detail, recorded.orderId);
      },
    );
  }
};

