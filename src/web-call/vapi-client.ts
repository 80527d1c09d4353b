/**
 * The `vapi` WebCallClient over @vapi-ai/web 2.7. This module is small; @vapi-ai/web (and the
 * daily-js it pulls in) is imported inside start() only, so neither is in any chunk a page loads
 * before the visitor presses Start.
 *
 * What the SDK does itself (read in node_modules/@vapi-ai/web/dist/vapi.js, 2.7.1), so it is not
 * repeated here: POST /call/web with {assistant | assistantId, assistantOverrides, squad | squadId},
 * joining the returned webCallUrl, the 1 s wait on mobile devices, the 1280x720 cloud recording when
 * artifactPlan.videoRecordingEnabled, sampling the remote audio level every 100 ms, and turning the
 * call's 'listening' app message into its own 'call-start' event.
 */
import type VapiSdk from "@vapi-ai/web";
import { strings } from "../config/strings";
import {
  assertAssistantOrSquad,
  callObjectUnavailable,
  Listeners,
  WebCallError,
  type WebCallClient,
  type WebCallListener,
  type WebCallMessage,
  type WebCallStarted,
  type WebCallStartRequest,
} from "./client";

/** The SDK reports `min(1, level / 0.15)`; multiplying back gives the summed level (exact below the cap). */
const SDK_VOLUME_NORMALISER = 0.15;

type VapiConstructor = new (apiToken: string, apiBaseUrl?: string, dailyCallConfig?: { avoidEval?: boolean }) => VapiSdk;

/**
 * daily-js loads its call machine from https://c.daily.co; by default it fetches the code and runs it
 * with Function(), which a Content-Security-Policy without 'unsafe-eval' refuses. `avoidEval` makes it
 * load the same bundle with a <script> element instead, which the web-call page's CSP allows
 * (server/plugins/security.ts).
 */
export const DAILY_CALL_CONFIG = { avoidEval: true } as const;

async function loadVapi(): Promise<VapiConstructor> {
  const module = await import("@vapi-ai/web");
  // A CommonJS module: depending on the bundler's interop the class is `default` or `default.default`.
  const exported = module.default as unknown as VapiConstructor | { default: VapiConstructor };
  return typeof exported === "function" ? exported : exported.default;
}

/** Reads a readable sentence out of whatever the SDK threw or emitted. */
export function describeVapiError(error: unknown): WebCallError {
  if (error instanceof WebCallError) return error;
  const record = (value: unknown): Record<string, unknown> | null =>
    value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  const outer = record(error);
  // An HTTP answer from Vapi's API (the SDK throws the fetch Response with `.error` = the body).
  const status = typeof outer?.status === "number" ? outer.status : null;
  if (status === 401 || status === 403) return new WebCallError(strings.webCall.publicKeyInvalid, "public-key");
  const inner = record(outer?.error);
  const candidates = [
    error instanceof Error ? error.message : null,
    outer?.message,
    inner?.message,
    record(inner?.error)?.message,
    outer?.errorMsg,
  ];
  const text = candidates.find((value): value is string => typeof value === "string" && value.trim() !== "");
  if (text && /public key|api key|unauthori[sz]ed|invalid key/i.test(text)) {
    return new WebCallError(strings.webCall.publicKeyInvalid, "public-key");
  }
  if (text && /Assistant or Squad/i.test(text)) {
    return new WebCallError(strings.webCall.assistantOrSquadRequired, "assistant-or-squad");
  }
  return new WebCallError(text ?? strings.webCall.startFailed, "start-failed");
}

export function readWebCall(call: unknown): WebCallStarted {
  const value = (call ?? {}) as {
    id?: unknown;
    webCallUrl?: unknown;
    artifactPlan?: { videoRecordingEnabled?: unknown };
    transport?: { assistantVideoEnabled?: unknown; callUrl?: unknown };
  };
  const text = (v: unknown) => (typeof v === "string" && v ? v : null);
  return {
    id: text(value.id),
    webCallUrl: text(value.webCallUrl) ?? text(value.transport?.callUrl),
    videoRecordingEnabled: value.artifactPlan?.videoRecordingEnabled === true,
    // Not in the 2.7 SDK's types nor in Vapi's published schema yet: read when present.
    assistantVideoEnabled: value.transport?.assistantVideoEnabled === true,
  };
}

export class VapiWebCallClient implements WebCallClient {
  readonly kind = "vapi" as const;
  private readonly listeners = new Listeners();
  private vapi: VapiSdk | null = null;
  private inCall = false;

  constructor(
    private readonly publicKey: string,
    private readonly load: () => Promise<VapiConstructor> = loadVapi,
    /** VAPI_API_URL; the SDK's default (https://api.vapi.ai) when absent. */
    private readonly apiUrl?: string,
  ) {}

  on(listener: WebCallListener): () => void {
    return this.listeners.on(listener);
  }

  private async sdk(): Promise<VapiSdk> {
    if (this.vapi) return this.vapi;
    const Vapi = await this.load();
    const vapi = new Vapi(this.publicKey, this.apiUrl, DAILY_CALL_CONFIG);
    vapi.on("call-start", () => {
      this.inCall = true;
      this.listeners.emit({ type: "listening" });
    });
    vapi.on("volume-level", (volume: number) =>
      this.listeners.emit({ type: "audio-level", level: Math.max(0, volume) * SDK_VOLUME_NORMALISER }),
    );
    vapi.on("speech-start", () => this.listeners.emit({ type: "speech-start" }));
    vapi.on("speech-end", () => this.listeners.emit({ type: "speech-end" }));
    vapi.on("message", (message: unknown) => {
      if (message && typeof message === "object") this.listeners.emit({ type: "message", message: message as WebCallMessage });
    });
    vapi.on("call-end", () => this.ended());
    vapi.on("error", (error: unknown) => this.listeners.emit({ type: "error", error: describeVapiError(error) }));
    this.vapi = vapi;
    return vapi;
  }

  async start(request: WebCallStartRequest): Promise<WebCallStarted> {
    assertAssistantOrSquad(request);
    const vapi = await this.sdk();
    let call: unknown;
    try {
      call = await vapi.start(
        (request.assistant ?? request.assistantId) as Parameters<VapiSdk["start"]>[0],
        request.assistantOverrides as Parameters<VapiSdk["start"]>[1],
        (request.squad ?? request.squadId) as Parameters<VapiSdk["start"]>[2],
      );
    } catch (error) {
      throw describeVapiError(error);
    }
    // null: a call was already starting on this client.
    if (!call) throw new WebCallError(strings.webCall.startFailed, "start-failed");
    this.inCall = true;
    this.listeners.emit({ type: "call-start" });
    return readWebCall(call);
  }

  /** 'call-end' once per call, whether the SDK reports it or stop() ends the call first. */
  private ended(): void {
    if (!this.inCall) return;
    this.inCall = false;
    this.listeners.emit({ type: "call-end" });
  }

  async stop(): Promise<void> {
    if (!this.vapi) return;
    await this.vapi.stop();
    this.ended();
  }

  setMuted(muted: boolean): void {
    if (!this.vapi || !this.inCall) throw callObjectUnavailable();
    this.vapi.setMuted(muted);
  }

  isMuted(): boolean {
    return this.inCall && this.vapi ? this.vapi.isMuted() : false;
  }
}
