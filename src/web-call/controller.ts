/**
 * The web call's state machine (spec §4 "Web call", §9 constants), free of React so it can be tested
 * with fake timers:
 *
 *   idle ──Start──▶ loading ──'listening'──▶ active ──stop / 'call-end'──▶ ended ──Start──▶ loading …
 *                     │ error (clears loading)
 *                     ▼
 *                    idle (with the error's message)
 *
 * While active: speaking starts when the remote audio level exceeds 0.01 and ends 1 s after it falls
 * (a louder sample within that second cancels the end); the volume is the level divided by 0.15,
 * capped at 1; the bar lights round(volume × 10) of its 10 segments.
 */
import { strings } from "../config/strings";
import {
  assertAssistantOrSquad,
  callObjectUnavailable,
  WebCallError,
  type WebCallClient,
  type WebCallEvent,
  type WebCallStarted,
  type WebCallStartRequest,
} from "./client";

export const SPEAKING_THRESHOLD = 0.01;
export const VOLUME_NORMALISER = 0.15;
export const SPEECH_END_DELAY_MS = 1000;
export const VOLUME_SEGMENTS = 10;

export type WebCallStatus = "idle" | "loading" | "active" | "ended";

export interface WebCallState {
  status: WebCallStatus;
  /** Whether the assistant is speaking (level rule above). */
  speaking: boolean;
  /** 0 to 1. */
  volume: number;
  muted: boolean;
  /** The running call is the sandbox's (labelled "Sandbox"). */
  sandbox: boolean;
  /** The last final transcript line, shown as a caption. */
  caption: { role: string; text: string } | null;
  /** A sentence for the visitor; `code` says which (e.g. "public-key"). */
  error: { message: string; code: WebCallError["code"] } | null;
  call: WebCallStarted | null;
}

export const initialWebCallState: WebCallState = {
  status: "idle",
  speaking: false,
  volume: 0,
  muted: false,
  sandbox: false,
  caption: null,
  error: null,
  call: null,
};

export function normaliseVolume(level: number): number {
  if (!Number.isFinite(level) || level <= 0) return 0;
  return Math.min(level / VOLUME_NORMALISER, 1);
}

/** How many of the bar's 10 segments are lit for a volume between 0 and 1. */
export function litSegments(volume: number): number {
  return Math.round(Math.min(Math.max(volume, 0), 1) * VOLUME_SEGMENTS);
}

export type WebCallAction =
  | { type: "start" }
  | { type: "client"; sandbox: boolean }
  | { type: "started"; call: WebCallStarted }
  | { type: "listening" }
  | { type: "level"; level: number }
  | { type: "speech-end" }
  | { type: "caption"; role: string; text: string }
  | { type: "muted"; muted: boolean }
  | { type: "ended" }
  | { type: "error"; error: WebCallError }
  /** A problem that changes no state (e.g. muting without a call). */
  | { type: "notice"; error: WebCallError };

export function webCallReducer(state: WebCallState, action: WebCallAction): WebCallState {
  switch (action.type) {
    case "start":
      return { ...initialWebCallState, status: "loading" };
    case "client":
      return { ...state, sandbox: action.sandbox };
    case "started":
      return state.status === "loading" || state.status === "active" ? { ...state, call: action.call } : state;
    case "listening":
      return state.status === "loading" || state.status === "active" ? { ...state, status: "active" } : state;
    case "level": {
      if (state.status !== "active") return state;
      const speaking = action.level > SPEAKING_THRESHOLD ? true : state.speaking;
      return { ...state, volume: normaliseVolume(action.level), speaking };
    }
    case "speech-end":
      return { ...state, speaking: false };
    case "caption":
      return state.status === "active" ? { ...state, caption: { role: action.role, text: action.text } } : state;
    case "muted":
      return { ...state, muted: action.muted };
    case "ended":
      if (state.status === "idle" || state.status === "ended") return state;
      return { ...state, status: "ended", speaking: false, volume: 0, muted: false };
    case "error":
      // An error clears loading; during an active call the call goes on (the provider reports non-fatal
      // problems, e.g. noise cancellation failing to start, on the same channel).
      return {
        ...state,
        status: state.status === "loading" ? "idle" : state.status,
        error: { message: action.error.message, code: action.error.code },
      };
    case "notice":
      return { ...state, error: { message: action.error.message, code: action.error.code } };
  }
}

function asWebCallError(error: unknown): WebCallError {
  if (error instanceof WebCallError) return error;
  const message = error instanceof Error && error.message ? error.message : strings.webCall.startFailed;
  return new WebCallError(message, "start-failed");
}

type Schedule = (callback: () => void, ms: number) => ReturnType<typeof setTimeout>;

export class WebCallController {
  private state: WebCallState = initialWebCallState;
  private readonly subscribers = new Set<() => void>();
  private client: WebCallClient | null = null;
  private detach: (() => void) | null = null;
  private speechTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped by every start and stop, so a late answer from an abandoned start changes nothing. */
  private attempt = 0;

  constructor(
    private readonly createClient: () => Promise<WebCallClient>,
    private readonly schedule: Schedule = (callback, ms) => setTimeout(callback, ms),
  ) {}

  getState = (): WebCallState => this.state;

  subscribe = (subscriber: () => void): (() => void) => {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  };

  private dispatch(action: WebCallAction): void {
    const next = webCallReducer(this.state, action);
    if (next === this.state) return;
    this.state = next;
    for (const subscriber of [...this.subscribers]) subscriber();
  }

  private clearSpeechTimer(): void {
    if (this.speechTimer) clearTimeout(this.speechTimer);
    this.speechTimer = null;
  }

  private onLevel(level: number): void {
    this.dispatch({ type: "level", level });
    if (this.state.status !== "active") return;
    if (level > SPEAKING_THRESHOLD) {
      this.clearSpeechTimer();
    } else if (this.state.speaking && !this.speechTimer) {
      this.speechTimer = this.schedule(() => {
        this.speechTimer = null;
        this.dispatch({ type: "speech-end" });
      }, SPEECH_END_DELAY_MS);
    }
  }

  private onEvent = (event: WebCallEvent): void => {
    switch (event.type) {
      case "listening":
        this.dispatch({ type: "listening" });
        break;
      case "audio-level":
        this.onLevel(event.level);
        break;
      case "message": {
        const { message } = event;
        if (message.type === "transcript" && message.transcriptType !== "partial" && message.transcript) {
          this.dispatch({ type: "caption", role: message.role ?? "assistant", text: message.transcript });
        }
        break;
      }
      case "call-end":
        this.clearSpeechTimer();
        this.dispatch({ type: "ended" });
        break;
      case "error":
        if (this.state.status === "loading") this.dispatch({ type: "error", error: asWebCallError(event.error) });
        else console.warn("web call:", event.error.message);
        break;
      default:
        // call-start, speech-start/-end: the level rule above decides speaking, for both clients alike.
        break;
    }
  };

  /** Start: loading until the call's 'listening' message; an error clears loading and says why. */
  async start(request: WebCallStartRequest): Promise<void> {
    if (this.state.status === "loading" || this.state.status === "active") return;
    const attempt = ++this.attempt;
    this.clearSpeechTimer();
    this.dispatch({ type: "start" });
    try {
      assertAssistantOrSquad(request);
      if (!this.client) {
        const client = await this.createClient();
        if (attempt !== this.attempt) return;
        this.client = client;
        this.detach = client.on(this.onEvent);
      }
      this.dispatch({ type: "client", sandbox: this.client.kind === "sandbox" });
      const call = await this.client.start(request);
      if (attempt === this.attempt) this.dispatch({ type: "started", call });
    } catch (error) {
      if (attempt === this.attempt) this.dispatch({ type: "error", error: asWebCallError(error) });
    }
  }

  /** End Call: ended at once; the client's own 'call-end' changes nothing more. */
  async stop(): Promise<void> {
    this.attempt++;
    this.clearSpeechTimer();
    this.dispatch({ type: "ended" });
    try {
      await this.client?.stop();
    } catch (error) {
      console.warn("web call: stopping failed", error);
    }
  }

  /** Spec §5: muting with no active call gives 'Call object is not available.'. */
  setMuted(muted: boolean): void {
    try {
      if (!this.client || this.state.status !== "active") throw callObjectUnavailable();
      this.client.setMuted(muted);
      this.dispatch({ type: "muted", muted });
    } catch (error) {
      this.dispatch({ type: "notice", error: asWebCallError(error) });
    }
  }

  /** The page is going away: end any call and stop listening. The controller stays usable. */
  dispose(): void {
    if (this.state.status === "loading" || this.state.status === "active") void this.stop();
    this.clearSpeechTimer();
  }

  /** For tests and for leaving the page for good. */
  detachClient(): void {
    this.detach?.();
    this.detach = null;
    this.client = null;
  }
}
