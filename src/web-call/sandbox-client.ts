/**
 * The `sandbox` WebCallClient (voiceMode "sandbox"): no provider, no microphone. It plays what a Vapi
 * web call would send, in time: 'call-start', the 'listening' message, the assistant's audio level every
 * 100 ms (speaking while it "says" a line, silent in between), transcript messages built from the
 * agent's greeting, and 'call-end' when stopped or after `maxDurationMs`.
 *
 * With `server` (the public web-call page), the call is real on the server's side: starting asks the
 * server to start a sandbox web call (a call record of type web, which its sandbox fills through the
 * signed webhook route: transcript, summary, cost), and ending the call here ends it there. The script's
 * lines and timing come from contract/web-call-sandbox.ts, which the server's transcript follows.
 */
import { sandboxLineMs, SANDBOX_WEB_CALL_MAX_SECONDS, SANDBOX_WEB_CALL_TIMING, sandboxWebCallOpening, type SandboxWebCallEndReason } from "../../contract/web-call-sandbox";
import { strings } from "../config/strings";
import {
  assertAssistantOrSquad,
  AUDIO_LEVEL_SAMPLE_MS,
  callObjectUnavailable,
  isMobileDevice,
  Listeners,
  MOBILE_JOIN_DELAY_MS,
  WebCallError,
  type WebCallClient,
  type WebCallEvent,
  type WebCallListener,
  type WebCallStarted,
  type WebCallStartRequest,
} from "./client";

/** The server's side of a sandbox web call (POST /webcall/public/{slug}/call and …/end). */
export interface SandboxCallServer {
  /** Starts the call on the server; rejects with a sentence for the visitor when it is refused. */
  start(): Promise<{ id: string; maxDurationSeconds: number }>;
  /** Ends it: the visitor pressed End Call, or the assistant said its closing line. */
  end(id: string, reason: SandboxWebCallEndReason): Promise<void>;
}

export interface SandboxOptions {
  /** The agent's first message; the spec's default greeting when absent. */
  greeting?: string;
  /** The call ends by itself after this long (after its closing line). Default 60 s. */
  maxDurationMs?: number;
  /** How long creating the call takes. Default 400 ms. */
  connectMs?: number;
  /** From 'call-start' to the 'listening' message. Default 600 ms. */
  listenDelayMs?: number;
  /** Defaults to the user agent test the Vapi SDK uses. */
  mobile?: boolean;
  /** The server's side of the call (see the file comment); without it the call stays in the browser. */
  server?: SandboxCallServer;
}

/** One 100 ms sample of the script: the assistant's level and what else happens at that moment. */
interface Frame {
  level: number;
  events: WebCallEvent[];
}

const SPEECH_TAIL_MS = 1000;

/** A voice-like level between 0.02 and 0.14 (above the 0.01 speaking threshold), moving every sample. */
export function sandboxSpeechLevel(frame: number): number {
  const t = frame * 0.9;
  return 0.02 + 0.12 * Math.abs(Math.sin(t)) * (0.55 + 0.45 * Math.abs(Math.sin(t * 2.3 + 1)));
}

function silence(ms: number): Frame[] {
  return Array.from({ length: Math.round(ms / AUDIO_LEVEL_SAMPLE_MS) }, () => ({ level: 0, events: [] }));
}

/** The assistant says `text`: speech-start, voice levels, the final transcript, then speech-end 1 s later. */
function line(text: string, pauseMs: number): Frame[] {
  const ms = sandboxLineMs(text);
  const speech: Frame[] = Array.from({ length: Math.round(ms / AUDIO_LEVEL_SAMPLE_MS) }, (_, i) => ({
    level: sandboxSpeechLevel(i),
    events: [],
  }));
  speech[0]!.events.push({ type: "speech-start" });
  speech[speech.length - 1]!.events.push({
    type: "message",
    message: { type: "transcript", role: "assistant", transcriptType: "final", transcript: text },
  });
  const after = silence(Math.max(pauseMs, SPEECH_TAIL_MS));
  after[SPEECH_TAIL_MS / AUDIO_LEVEL_SAMPLE_MS - 1]!.events.push({ type: "speech-end" });
  return [...speech, ...after];
}

/** The whole call, sample by sample, from the 'listening' message to just before 'call-end'. */
export function sandboxScript(greeting: string, maxDurationMs: number): Frame[] {
  const opening = sandboxWebCallOpening(greeting).flatMap(({ text }) => line(text, SANDBOX_WEB_CALL_TIMING.pauseAfterLineMs));
  const closing = line(strings.webCall.sandboxEndMessage, 0);
  const total = Math.round(maxDurationMs / AUDIO_LEVEL_SAMPLE_MS);
  const waiting = Math.max(0, total - opening.length - closing.length - 5);
  return [...silence(SANDBOX_WEB_CALL_TIMING.leadInMs), ...opening, ...silence(waiting * AUDIO_LEVEL_SAMPLE_MS), ...closing];
}

export class SandboxWebCallClient implements WebCallClient {
  readonly kind = "sandbox" as const;
  private readonly listeners = new Listeners();
  private readonly options: Required<Omit<SandboxOptions, "server">>;
  private readonly server: SandboxCallServer | null;
  /** The server's id of the running call, when the server runs one. */
  private serverCallId: string | null = null;
  private timers: ReturnType<typeof setTimeout>[] = [];
  private ticker: ReturnType<typeof setInterval> | null = null;
  private readonly waits = new Set<() => void>();
  private running = false;
  private inCall = false;
  private endedByAssistant = false;
  private maxDurationMs: number;
  private muted = false;

  constructor(options: SandboxOptions = {}) {
    this.options = {
      greeting: options.greeting?.trim() || strings.webCall.defaultGreeting,
      maxDurationMs: options.maxDurationMs ?? SANDBOX_WEB_CALL_MAX_SECONDS * 1000,
      connectMs: options.connectMs ?? 400,
      listenDelayMs: options.listenDelayMs ?? 600,
      mobile: options.mobile ?? isMobileDevice(),
    };
    this.server = options.server ?? null;
    this.maxDurationMs = this.options.maxDurationMs;
  }

  /** Ends the server's call once (a failure is only logged: the call ends there by itself at its length). */
  private endOnServer(): void {
    const id = this.serverCallId;
    this.serverCallId = null;
    if (!id || !this.server) return;
    this.server.end(id, this.endedByAssistant ? "assistant-ended-call" : "customer-ended-call").catch((error: unknown) => {
      console.warn("web call: ending the sandbox call on the server failed", error);
    });
  }

  on(listener: WebCallListener): () => void {
    return this.listeners.on(listener);
  }

  /** Waits `ms`; stop() cuts the wait short (start() then finds the call stopped). */
  private later(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.waits.add(resolve);
      this.timers.push(
        setTimeout(() => {
          this.waits.delete(resolve);
          resolve();
        }, ms),
      );
    });
  }

  async start(request: WebCallStartRequest): Promise<WebCallStarted> {
    assertAssistantOrSquad(request);
    if (this.running) throw new WebCallError(strings.webCall.startFailed, "start-failed");
    this.running = true;
    this.muted = false;
    this.endedByAssistant = false;
    let id = `sandbox-${Math.random().toString(36).slice(2, 10)}`;
    if (this.server) {
      let started: { id: string; maxDurationSeconds: number };
      try {
        started = await this.server.start();
      } catch (error) {
        this.running = false;
        throw error instanceof WebCallError ? error : new WebCallError(error instanceof Error && error.message ? error.message : strings.webCall.startFailed, "start-failed");
      }
      id = started.id;
      this.serverCallId = started.id;
      this.maxDurationMs = Math.min(this.options.maxDurationMs, started.maxDurationSeconds * 1000);
      // Stopped while the server was starting it: end it there too.
      if (!this.running) {
        this.endOnServer();
        return { id, webCallUrl: null, videoRecordingEnabled: false, assistantVideoEnabled: false };
      }
    }
    await this.later(this.options.connectMs);
    // Like the Vapi SDK: on mobile devices joining waits 1 s.
    if (this.options.mobile) await this.later(MOBILE_JOIN_DELAY_MS);
    if (!this.running) return { id, webCallUrl: null, videoRecordingEnabled: false, assistantVideoEnabled: false };
    this.inCall = true;
    this.listeners.emit({ type: "call-start" });
    this.timers.push(setTimeout(() => this.listen(), this.options.listenDelayMs));
    return { id, webCallUrl: null, videoRecordingEnabled: false, assistantVideoEnabled: false };
  }

  private listen(): void {
    if (!this.inCall) return;
    this.listeners.emit({ type: "message", message: { type: "status-update", status: "in-progress" } });
    this.listeners.emit({ type: "listening" });
    const frames = sandboxScript(this.options.greeting, this.maxDurationMs);
    let index = 0;
    this.ticker = setInterval(() => {
      const frame = frames[index++];
      if (!frame) {
        this.endedByAssistant = true;
        void this.stop();
        return;
      }
      this.listeners.emit({ type: "audio-level", level: frame.level });
      for (const event of frame.events) this.listeners.emit(event);
    }, AUDIO_LEVEL_SAMPLE_MS);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    for (const resolve of this.waits) resolve();
    this.waits.clear();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    const wasInCall = this.inCall;
    this.running = false;
    this.inCall = false;
    this.endOnServer();
    if (wasInCall) this.listeners.emit({ type: "call-end" });
  }

  setMuted(muted: boolean): void {
    if (!this.inCall) throw callObjectUnavailable();
    this.muted = muted;
  }

  isMuted(): boolean {
    return this.inCall && this.muted;
  }
}
