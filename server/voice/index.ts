import { API_BASE } from "../../contract/api";
import type { AppConfig } from "../config";
import { VAPI_WEBHOOK_PATH } from "../webhooks/paths";
import { resolveWebhookSecret } from "../webhooks/secret";
import { vapiWebhookCredential } from "../webhooks/vapi-credential";
import { createSandboxVoiceProvider } from "./sandbox";
import type { VoiceProvider } from "./types";
import { createVapiVoiceProvider } from "./vapi";

export type { VoiceProvider } from "./types";

/**
 * Chooses the voice provider once, at start-up: Vapi when VAPI_PRIVATE_KEY is set, else the sandbox.
 *
 * In Vapi mode the assistants point their server URL at PUBLIC_URL + /api/webhooks/vapi and reference
 * an HMAC webhook credential (server/webhooks/vapi-credential.ts), registered the first time an
 * assistant is saved; an agent's own server_url does not replace ours (see vapi-assistant.ts).
 */
export function createVoiceProvider(config: AppConfig): VoiceProvider {
  if (config.modes.voice === "vapi" && config.vapi.privateKey) {
    const base = { privateKey: config.vapi.privateKey, apiUrl: config.vapi.apiUrl, publicUrl: config.publicUrl, webhookPath: `${API_BASE}${VAPI_WEBHOOK_PATH}` };
    const credential = vapiWebhookCredential({
      apiUrl: config.vapi.apiUrl,
      privateKey: config.vapi.privateKey,
      secret: resolveWebhookSecret(config).secret,
      dataDir: config.dataDir,
      configuredId: config.webhooks.vapiCredentialId,
    });
    const vapi = createVapiVoiceProvider(base);
    return {
      ...vapi,
      // Only the assistant carries the credential: made once it is known.
      async saveAssistant(agent, assistantId) {
        const webhookCredentialId = await credential();
        return createVapiVoiceProvider({ ...base, webhookCredentialId }).saveAssistant(agent, assistantId);
      },
    };
  }
  return createSandboxVoiceProvider({ callSeconds: config.calls.sandboxCallSeconds });
}
