/**
 * The sandbox web call's script, shared by the browser (src/web-call/sandbox-client.ts plays it) and the
 * server (server/voice/sandbox-calls.ts writes the same lines into the call record's transcript), so the
 * record says what the visitor heard. No imports: the public page's chunk takes this file as it is.
 *
 * The assistant says the agent's first message, then LINES, one after another; it closes with END_MESSAGE
 * when the call reaches its length (a visitor who presses End Call first does not hear it).
 */
export const SANDBOX_WEB_CALL_LINES = [
  "This is a sandbox call: no audio leaves your browser, and the voice is simulated.",
  "In a real call I would answer you here. Press End Call whenever you are done.",
] as const;

export const SANDBOX_WEB_CALL_END_MESSAGE = "Thank you for calling. Have a great day!";

/** The spec's default greeting (§9), said when the agent has no first message. */
export const SANDBOX_WEB_CALL_DEFAULT_GREETING = "Hello! How can I help you today?";

/** A sandbox web call lasts at most this long (or the agent's max_duration_seconds when shorter). */
export const SANDBOX_WEB_CALL_MAX_SECONDS = 60;

/** How the page ends its sandbox web call (POST /webcall/public/{slug}/call/{id}/end's `reason`). */
export const SANDBOX_WEB_CALL_END_REASONS = ["customer-ended-call", "assistant-ended-call"] as const;
export type SandboxWebCallEndReason = (typeof SANDBOX_WEB_CALL_END_REASONS)[number];

export const SANDBOX_WEB_CALL_TIMING = {
  /** Silence between the 'listening' message and the first line. */
  leadInMs: 500,
  pauseAfterLineMs: 2000,
  msPerCharacter: 55,
  minLineMs: 1500,
  maxLineMs: 4500,
} as const;

/** How long the assistant takes to say `text`. */
export function sandboxLineMs(text: string): number {
  const { msPerCharacter, minLineMs, maxLineMs } = SANDBOX_WEB_CALL_TIMING;
  return Math.min(maxLineMs, Math.max(minLineMs, text.length * msPerCharacter));
}

/** The opening lines with when each starts and ends, in ms after the call's 'listening' message. */
export function sandboxWebCallOpening(greeting: string): { text: string; startMs: number; endMs: number }[] {
  const lines = [greeting.trim() || SANDBOX_WEB_CALL_DEFAULT_GREETING, ...SANDBOX_WEB_CALL_LINES];
  let at = SANDBOX_WEB_CALL_TIMING.leadInMs;
  return lines.map((text) => {
    const startMs = at;
    const endMs = startMs + sandboxLineMs(text);
    at = endMs + SANDBOX_WEB_CALL_TIMING.pauseAfterLineMs;
    return { text, startMs, endMs };
  });
}
