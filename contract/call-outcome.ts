/**
 * What became of a call: one mapping, shared by the dashboard (GET /dashboard/ outcomes and answer
 * rate), the call list (its `outcome` field and filter) and campaigns. No zod: the console reads it.
 *
 * In this order, the first rule that holds:
 * 1. status `failed` → failed (a provider may report a call that never started this way);
 * 2. status not `ended` (queued, ringing, in-progress, forwarding) → in_progress;
 * 3. ended reason `customer-busy` → busy;
 * 4. ended reason `customer-did-not-answer` → no_answer;
 * 5. ended reason `voicemail` → voicemail;
 * 6. an ended reason that says the call failed to connect (FAILED_ENDED_REASON_PATTERN: an error, a
 *    pipeline, provider or transport failure, an assistant that could not be started) → failed;
 * 7. every other ended call (including one without an ended reason) → answered: it reached a person.
 *
 * Voicemail is not answered. answer_rate = answered ÷ ended calls (every outcome but in_progress).
 * The database keeps the same mapping as the stored generated column calls.outcome (server/calls/outcome-sql.ts
 * builds its SQL from the constants below), so filters and sums never disagree with this function.
 */

export const CALL_OUTCOMES = ["answered", "busy", "no_answer", "voicemail", "failed", "in_progress"] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Statuses of a call that is over (the rest are in progress). `failed` is not one of ours, but a provider may send it. */
export const ENDED_STATUSES = ["ended", "failed"] as const;

/** Ended reasons with an outcome of their own. */
export const OUTCOME_ENDED_REASONS = {
  busy: "customer-busy",
  no_answer: "customer-did-not-answer",
  voicemail: "voicemail",
} as const;

/**
 * Ended reasons of a call that failed to connect: a POSIX regular expression PostgreSQL (`~`) and
 * JavaScript read alike (only `|`, `^`, `$`, literals and `.` escaped as `\.`). Vapi's endedReason
 * enumeration (vendor/vapi/openapi.json, 627 values) was read against it: every `…-error-…`,
 * `…-failed…` and `…fault…` reason (pipeline-error-*, call.start.error-*, twilio-failed-to-connect-call,
 * sip-gateway-failed-to-connect-call, …), and the ones that name no error but mean the call never
 * reached a conversation (assistant-not-found, assistant-request-returned-*, worker-shutdown,
 * phone-call-provider-closed-websocket, vonage-rejected, …).
 */
export const FAILED_ENDED_REASON_PATTERN = [
  "error",
  "failed",
  "fault",
  "^pipeline-",
  "^assistant-not-",
  "^assistant-request-returned-",
  "^assistant-join-timed-out$",
  "^worker-shutdown$",
  "^phone-call-provider-",
  "^vonage-rejected$",
  "^twilio-reported-customer-misdialed$",
  "^customer-did-not-give-microphone-permission$",
  "^call\\.ringing\\.sip-inbound-caller-hungup-before-call-connect$",
].join("|");

const FAILED_REASON = new RegExp(FAILED_ENDED_REASON_PATTERN);

/** The outcome of a call with this status and ended reason (the rules in the file comment). */
export function callOutcome(status: string, endedReason: string | null | undefined): CallOutcome {
  if (status === "failed") return "failed";
  if (status !== "ended") return "in_progress";
  if (endedReason === OUTCOME_ENDED_REASONS.busy) return "busy";
  if (endedReason === OUTCOME_ENDED_REASONS.no_answer) return "no_answer";
  if (endedReason === OUTCOME_ENDED_REASONS.voicemail) return "voicemail";
  if (endedReason && FAILED_REASON.test(endedReason)) return "failed";
  return "answered";
}
