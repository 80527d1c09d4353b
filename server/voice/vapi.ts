/**
 * The `vapi` voice provider: Vapi's REST API over fetch (ARCHITECTURE.md §6).
 *
 * - assistants: POST /assistant, PATCH /assistant/{id} (a PATCH that finds no assistant — deleted in
 *   Vapi's dashboard — creates a new one), DELETE /assistant/{id} (404 counts as deleted);
 * - knowledge-base files: POST /file (multipart/form-data, one `file` part), DELETE /file/{id} (404 counts as deleted);
 * - tools: GET /tool/{id}, to refuse an agent's `model_tool_id` that names no tool (404).
 *
 * Every request carries `Authorization: Bearer VAPI_PRIVATE_KEY` and gives up after `timeoutMs`.
 * Failures become VoiceProviderError with a sentence a person can act on, taken from Vapi's error body.
 */
import { toVapiAssistant, toVapiAssistantUpdate, type VapiAssistantOptions } from "./vapi-assistant";
import { vapiCallMethods } from "./vapi-calls";
import { vapiPhoneNumberMethods } from "./vapi-phone-numbers";
import { CallGivenUpError, VoiceProviderError, type AgentForSync, type FileForUpload, type VoiceProvider } from "./types";

export interface VapiProviderOptions extends VapiAssistantOptions {
  privateKey: string;
  /** VAPI_API_URL, e.g. https://api.vapi.ai (no trailing slash needed). */
  apiUrl: string;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  /** For tests (default: the global fetch). */
  fetch?: typeof fetch;
}

export const DEFAULT_VAPI_TIMEOUT_MS = 15_000;

/** The Vapi HTTP client as the per-area modules (vapi-calls.ts, vapi-phone-numbers.ts) use it. */
export interface VapiHttp {
  /** `signal`: the caller may give up sooner than the timeout. */
  request<T>(method: string, path: string, body?: { json: unknown } | { form: FormData }, options?: { signal?: AbortSignal }): Promise<T | null>;
  /** The `id` of a created object, or a VoiceProviderError naming what is missing. */
  idOf(body: { id?: unknown } | null, what: string): string;
  /** Turns a Vapi HTTP failure into a VoiceProviderError about `action` ("place the call"); passes others through. */
  fail(error: unknown, action: string): unknown;
  isNotFound(error: unknown): boolean;
}

export const VAPI_UNREACHABLE = "The voice provider could not be reached: check the network and VAPI_API_URL, then try again.";

/** Vapi answered with an error status; `message` is what its body says (NestJS: `message` string or array). */
class VapiHttpError extends Error {
  constructor(
    readonly status: number,
    readonly providerMessage: string | null,
  ) {
    super(providerMessage ?? `Vapi answered ${status}`);
  }
}

/** The readable part of a Vapi error body: `message` (string or list), else `error`, else the text itself. */
export function vapiErrorMessage(body: string): string | null {
  const text = body.trim();
  if (!text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // An HTML error page from a proxy is no use to a person.
    return text.startsWith("<") ? null : text.slice(0, 300);
  }
  if (parsed && typeof parsed === "object") {
    const record = parsed as Record<string, unknown>;
    const message = record.message;
    if (Array.isArray(message)) {
      const parts = message.filter((part): part is string => typeof part === "string" && part.trim() !== "");
      if (parts.length > 0) {
        const shown = parts.slice(0, 5).join("; ");
        return parts.length > 5 ? `${shown}; and ${parts.length - 5} more` : shown;
      }
    }
    if (typeof message === "string" && message.trim()) return message.trim();
    if (typeof record.error === "string" && record.error.trim()) return record.error.trim();
  }
  return null;
}

/** `action`: what we asked, e.g. "save the agent". */
function describeFailure(error: VapiHttpError, action: string): VoiceProviderError {
  const said = error.providerMessage ? `: ${error.providerMessage}` : "";
  const status = error.status;
  let detail: string;
  if (status === 401 || status === 403) {
    detail = `Vapi refused the API key (HTTP ${status})${said}. Check VAPI_PRIVATE_KEY.`;
  } else if (status === 429) {
    detail = `Vapi is rate-limiting requests (HTTP 429)${said}. Wait a moment and try again.`;
  } else if (status >= 500) {
    detail = `The voice provider failed to ${action} (Vapi answered ${status})${said}. Try again later.`;
  } else {
    detail = `Vapi could not ${action} (HTTP ${status})${said}`;
  }
  return new VoiceProviderError(detail, status);
}

export function createVapiVoiceProvider(options: VapiProviderOptions): VoiceProvider {
  const base = options.apiUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULT_VAPI_TIMEOUT_MS;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const mapping: VapiAssistantOptions = {
    publicUrl: options.publicUrl,
    webhookPath: options.webhookPath ?? null,
    webhookCredentialId: options.webhookCredentialId ?? null,
  };

  async function request<T>(method: string, path: string, body?: { json: unknown } | { form: FormData }, requestOptions: { signal?: AbortSignal } = {}): Promise<T | null> {
    const headers: Record<string, string> = { authorization: `Bearer ${options.privateKey}`, accept: "application/json" };
    let payload: string | FormData | undefined;
    if (body && "json" in body) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body.json);
    } else if (body) {
      // fetch sets multipart/form-data with its boundary.
      payload = body.form;
    }
    let response: Response;
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = requestOptions.signal ? AbortSignal.any([timeout, requestOptions.signal]) : timeout;
      response = await doFetch(`${base}${path}`, { method, headers, body: payload, signal });
    } catch (error) {
      const name = (error as Error)?.name;
      if (requestOptions.signal?.aborted) throw new CallGivenUpError("The request to the voice provider was given up before it was answered.");
      if (name === "TimeoutError" || name === "AbortError") {
        throw new VoiceProviderError(`The voice provider did not answer within ${Number((timeoutMs / 1000).toFixed(1))} seconds. Try again.`);
      }
      throw new VoiceProviderError(VAPI_UNREACHABLE);
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new VoiceProviderError(VAPI_UNREACHABLE, response.status);
    }
    if (!response.ok) throw new VapiHttpError(response.status, vapiErrorMessage(text));
    if (!text.trim()) return null;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new VoiceProviderError("The voice provider answered with something that is not JSON. Try again later.", response.status);
    }
  }

  function idOf(body: { id?: unknown } | null, what: string): string {
    if (body && typeof body.id === "string" && body.id) return body.id;
    throw new VoiceProviderError(`The voice provider did not answer with the ${what} id. Try again later.`);
  }

  async function createAssistant(agent: AgentForSync): Promise<string> {
    try {
      return idOf(await request<{ id?: unknown }>("POST", "/assistant", { json: toVapiAssistant(agent, mapping) }), "assistant");
    } catch (error) {
      throw error instanceof VapiHttpError ? describeFailure(error, "save the agent") : error;
    }
  }

  /** What the calls and phone-number modules share with this one: the HTTP client and its error mapping. */
  const http: VapiHttp = {
    request,
    idOf,
    fail: (error, action) => (error instanceof VapiHttpError ? describeFailure(error, action) : error),
    isNotFound: (error) => error instanceof VapiHttpError && error.status === 404,
  };

  return {
    mode: "vapi",
    ...vapiCallMethods(http, mapping),
    ...vapiPhoneNumberMethods(http),

    async saveAssistant(agent: AgentForSync, assistantId: string | null) {
      if (!assistantId) return { assistantId: await createAssistant(agent) };
      try {
        const body = await request<{ id?: unknown }>("PATCH", `/assistant/${encodeURIComponent(assistantId)}`, {
          json: toVapiAssistantUpdate(agent, mapping),
        });
        return { assistantId: body && typeof body.id === "string" && body.id ? body.id : assistantId };
      } catch (error) {
        // Deleted at Vapi (e.g. in its dashboard): make a new one rather than leave the agent without.
        if (error instanceof VapiHttpError && error.status === 404) return { assistantId: await createAssistant(agent) };
        throw error instanceof VapiHttpError ? describeFailure(error, "save the agent") : error;
      }
    },

    async missingTools(toolIds: string[]) {
      const found = await Promise.all(
        toolIds.map(async (toolId) => {
          try {
            await request("GET", `/tool/${encodeURIComponent(toolId)}`);
            return null;
          } catch (error) {
            // 404: no such tool; 400: Vapi refused the id itself (not a UUID).
            if (error instanceof VapiHttpError && (error.status === 404 || error.status === 400)) return toolId;
            throw error instanceof VapiHttpError ? describeFailure(error, "check the agent's tools") : error;
          }
        }),
      );
      return found.filter((toolId): toolId is string => toolId !== null);
    },

    async deleteAssistant(assistantId: string) {
      try {
        await request("DELETE", `/assistant/${encodeURIComponent(assistantId)}`);
      } catch (error) {
        if (error instanceof VapiHttpError && error.status === 404) return;
        throw error instanceof VapiHttpError ? describeFailure(error, "delete the agent") : error;
      }
    },

    async uploadFile(file: FileForUpload) {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.name);
      try {
        return { providerFileId: idOf(await request<{ id?: unknown }>("POST", "/file", { form }), "file") };
      } catch (error) {
        throw error instanceof VapiHttpError ? describeFailure(error, "upload the file") : error;
      }
    },

    async deleteFile(providerFileId: string) {
      try {
        await request("DELETE", `/file/${encodeURIComponent(providerFileId)}`);
      } catch (error) {
        if (error instanceof VapiHttpError && error.status === 404) return;
        throw error instanceof VapiHttpError ? describeFailure(error, "delete the file") : error;
      }
    },
  };
}
