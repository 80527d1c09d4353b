/**
 * The Vapi credential our assistants reference (`server.credentialId`) so that Vapi signs what it posts
 * to our webhook: an HMAC webhook credential (Vapi's CreateWebhookCredentialDTO, provider "webhook",
 * authenticationPlan type "hmac", SHA-256, hex, `x-signature` over `{timestamp}.{body}`, `x-timestamp`).
 *
 * - VAPI_WEBHOOK_CREDENTIAL_ID given: that one is used and nothing is registered (it must sign with
 *   VAPI_WEBHOOK_SECRET as above).
 * - Otherwise it is registered once, when the first assistant is saved, with POST /credential, and its
 *   id kept in DATA_DIR/vapi-webhook-credential.json beside a fingerprint of the secret and API URL it was
 *   made for (another secret or Vapi account registers a new one). Several processes on different
 *   machines each register their own copy once; set VAPI_WEBHOOK_CREDENTIAL_ID to share one.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { vapiErrorMessage, VAPI_UNREACHABLE } from "../voice/vapi";
import { VoiceProviderError } from "../voice/types";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./signature";

export const CREDENTIAL_FILE = "vapi-webhook-credential.json";

/** The body of POST /credential (Vapi's CreateWebhookCredentialDTO). */
export function webhookCredentialPayload(secret: string) {
  return {
    provider: "webhook",
    name: "Voice agent platform webhooks",
    authenticationPlan: {
      type: "hmac",
      secretKey: secret,
      algorithm: "sha256",
      signatureHeader: SIGNATURE_HEADER,
      timestampHeader: TIMESTAMP_HEADER,
      includeTimestamp: true,
      payloadFormat: "{timestamp}.{body}",
      signatureEncoding: "hex",
    },
  } as const;
}

export interface VapiCredentialOptions {
  apiUrl: string;
  privateKey: string;
  secret: string;
  dataDir: string;
  /** VAPI_WEBHOOK_CREDENTIAL_ID */
  configuredId: string | null;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Answers the credential id, registering it the first time; a failure is retried on the next call. */
export function vapiWebhookCredential(options: VapiCredentialOptions): () => Promise<string> {
  let pending: Promise<string> | null = null;
  const fingerprint = createHash("sha256").update(`${options.apiUrl}\n${options.secret}`).digest("hex").slice(0, 32);
  const file = join(options.dataDir, CREDENTIAL_FILE);

  function saved(): string | null {
    try {
      if (!existsSync(file)) return null;
      const stored = JSON.parse(readFileSync(file, "utf8")) as { fingerprint?: unknown; credentialId?: unknown };
      return stored.fingerprint === fingerprint && typeof stored.credentialId === "string" && stored.credentialId ? stored.credentialId : null;
    } catch {
      return null;
    }
  }

  async function register(): Promise<string> {
    const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
    let response: Response;
    try {
      response = await doFetch(`${options.apiUrl.replace(/\/+$/, "")}/credential`, {
        method: "POST",
        headers: { authorization: `Bearer ${options.privateKey}`, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(webhookCredentialPayload(options.secret)),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
    } catch {
      throw new VoiceProviderError(VAPI_UNREACHABLE);
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      const said = vapiErrorMessage(text);
      throw new VoiceProviderError(
        `Vapi could not register the webhook credential (HTTP ${response.status})${said ? `: ${said}` : ""}. ` +
          "Check VAPI_PRIVATE_KEY, or create an HMAC webhook credential in Vapi and set VAPI_WEBHOOK_SECRET and VAPI_WEBHOOK_CREDENTIAL_ID.",
        response.status,
      );
    }
    let id: unknown;
    try {
      id = (JSON.parse(text) as { id?: unknown }).id;
    } catch {
      id = undefined;
    }
    if (typeof id !== "string" || !id) throw new VoiceProviderError("Vapi did not answer with the webhook credential id. Try again later.");
    try {
      mkdirSync(options.dataDir, { recursive: true });
      writeFileSync(file, `${JSON.stringify({ fingerprint, credentialId: id })}\n`, { mode: 0o600 });
    } catch {
      // Not fatal: the next start registers another one.
    }
    return id;
  }

  return () => {
    if (options.configuredId) return Promise.resolve(options.configuredId);
    pending ??= Promise.resolve(saved() ?? register()).catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
}
