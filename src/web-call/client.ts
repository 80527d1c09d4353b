/**
 * One interface for voice in the browser (ARCHITECTURE.md §5): `vapi` over @vapi-ai/web (loaded on
 * Start only) and `sandbox`, which plays the same events locally. The web-call page and its state
 * machine (controller.ts) only ever see this interface.
 */
import { strings } from "../config/strings";
import type { SandboxCallServer } from "./sandbox-client";

/** Spec §3 "Web call creation request": assistant or assistantId, assistantOverrides, squad or squadId. */
export interface WebCallStartRequest {
  /** An inline assistant definition (Vapi's CreateAssistantDTO). */
  assistant?: Record<string, unknown>;
  assistantId?: string;
  /** e.g. `{ variableValues: { name } }` */
  assistantOverrides?: WebCallAssistantOverrides;
  /** An inline squad definition (Vapi's CreateSquadDTO). */
  squad?: Record<string, unknown>;
  squadId?: string;
}

export interface WebCallAssistantOverrides {
  variableValues?: Record<string, unknown>;
  firstMessage?: string;
  [key: string]: unknown;
}

/**
 * What the client read from the created web call (spec §3 "Response fields read"). The Vapi SDK joins
 * `webCallUrl` itself and starts the 1280x720 recording when `videoRecordingEnabled` is set.
 */
export interface WebCallStarted {
  id: string | null;
  webCallUrl: string | null;
  videoRecordingEnabled: boolean;
  assistantVideoEnabled: boolean;
}

/** A transcript line or any other message the call sends ('message' event). */
export interface WebCallMessage {
  type: string;
  role?: string;
  transcriptType?: "partial" | "final";
  transcript?: string;
  [key: string]: unknown;
}

export type WebCallEvent =
  /** The call exists (created and joined). */
  | { type: "call-start" }
  /** The call's 'listening' message: the assistant is ready, the call is active. */
  | { type: "listening" }
  /** The remote (assistant) audio level, summed over participants, sampled every 100 ms. Not normalised. */
  | { type: "audio-level"; level: number }
  | { type: "speech-start" }
  | { type: "speech-end" }
  | { type: "message"; message: WebCallMessage }
  | { type: "call-end" }
  | { type: "error"; error: Error };

export type WebCallListener = (event: WebCallEvent) => void;

export interface WebCallClient {
  readonly kind: "vapi" | "sandbox";
  /** Creates the web call and joins it. Rejects with 'Assistant or Squad must be provided.' without either. */
  start(request: WebCallStartRequest): Promise<WebCallStarted>;
  /** Leaves the call; 'call-end' follows. Safe to call when no call runs. */
  stop(): Promise<void>;
  /** Throws 'Call object is not available.' when no call runs. */
  setMuted(muted: boolean): void;
  isMuted(): boolean;
  /** Returns the unsubscribe function. */
  on(listener: WebCallListener): () => void;
}

/** Spec §9: the remote audio level is sampled every 100 ms. */
export const AUDIO_LEVEL_SAMPLE_MS = 100;
/** Spec §4, §9: joining waits 1 s on mobile devices. */
export const MOBILE_JOIN_DELAY_MS = 1000;

/** An error whose message is meant for the visitor (the spec's exact sentences). */
export class WebCallError extends Error {
  constructor(
    message: string,
    readonly code: "public-key" | "assistant-or-squad" | "no-call" | "start-failed",
  ) {
    super(message);
    this.name = "WebCallError";
  }
}

/** Spec §5: the web-call start requires an assistant or a squad. */
export function assertAssistantOrSquad(request: WebCallStartRequest): void {
  const has = (value: unknown) => (typeof value === "string" ? value.trim() !== "" : value != null);
  if (!has(request.assistant) && !has(request.assistantId) && !has(request.squad) && !has(request.squadId)) {
    throw new WebCallError(strings.webCall.assistantOrSquadRequired, "assistant-or-squad");
  }
}

export function callObjectUnavailable(): WebCallError {
  return new WebCallError(strings.webCall.callObjectUnavailable, "no-call");
}

/** The same test the Vapi SDK uses before its 1 s mobile wait. */
export function isMobileDevice(userAgent: string = typeof navigator === "undefined" ? "" : navigator.userAgent): boolean {
  return /android|iphone|ipad|ipod|iemobile|blackberry|bada/i.test(userAgent);
}

/** A tiny listener set shared by both implementations. */
export class Listeners {
  private readonly listeners = new Set<WebCallListener>();

  on(listener: WebCallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: WebCallEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  clear(): void {
    this.listeners.clear();
  }
}

export interface WebCallClientOptions {
  voiceMode: "sandbox" | "vapi";
  vapiPublicKey: string | null;
  /** VAPI_API_URL (GET /api/config): where @vapi-ai/web creates the call; Vapi's own API when absent. */
  vapiApiUrl?: string | null;
  /** The agent's greeting, for the sandbox's transcript. */
  greeting?: string;
  /** The server's side of a sandbox call (the public web-call page), so the call is recorded. */
  sandboxServer?: SandboxCallServer;
}

/**
 * Picks the implementation for the server's voice mode. Called on Start: the Vapi client's module is
 * small and imports @vapi-ai/web (and daily-js) only inside its own start().
 * Vapi mode without a public key fails with the spec's 'public key invalid'.
 */
export async function createWebCallClient(options: WebCallClientOptions): Promise<WebCallClient> {
  if (options.voiceMode === "vapi") {
    if (!options.vapiPublicKey) throw new WebCallError(strings.webCall.publicKeyInvalid, "public-key");
    const { VapiWebCallClient } = await import("./vapi-client");
    return new VapiWebCallClient(options.vapiPublicKey, undefined, options.vapiApiUrl ?? undefined);
  }
  const { SandboxWebCallClient } = await import("./sandbox-client");
  return new SandboxWebCallClient({ greeting: options.greeting, ...(options.sandboxServer ? { server: options.sandboxServer } : {}) });
}
