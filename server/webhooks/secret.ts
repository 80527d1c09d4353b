/**
 * The secret that webhooks are verified with (VAPI_WEBHOOK_SECRET). When it is not set:
 *
 * - sandbox mode: a random one per process. Only the sandbox signs our webhooks there, with this secret,
 *   in this process; nothing outside needs to know it.
 * - vapi mode: derived from VAPI_PRIVATE_KEY (HMAC-SHA256 under a fixed label). Every process that
 *   shares the key derives the same secret with nothing to persist or distribute, it changes when the
 *   key is rotated, and the key cannot be recovered from it. The server registers it with Vapi as an
 *   HMAC webhook credential (server/webhooks/vapi-credential.ts) that its assistants reference.
 *
 * Set VAPI_WEBHOOK_SECRET to choose it yourself (at least 16 characters), e.g. to verify with a
 * credential made in Vapi's dashboard (then also set VAPI_WEBHOOK_CREDENTIAL_ID).
 */
import { createHmac, randomBytes } from "node:crypto";
import type { AppConfig } from "../config";

export type WebhookSecretSource = "configured" | "derived" | "generated";

export function resolveWebhookSecret(config: Pick<AppConfig, "webhooks" | "vapi" | "modes">): { secret: string; source: WebhookSecretSource } {
  if (config.webhooks.secret) return { secret: config.webhooks.secret, source: "configured" };
  if (config.modes.voice === "vapi" && config.vapi.privateKey) {
    const secret = createHmac("sha256", config.vapi.privateKey).update("voice-agent-platform/vapi-webhook-secret/v1").digest("base64url");
    return { secret, source: "derived" };
  }
  return { secret: randomBytes(32).toString("base64url"), source: "generated" };
}
