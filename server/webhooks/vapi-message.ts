/**
 * Reading Vapi's ServerMessage (`{message: {type, …}}`) defensively: the fields we use, by the names of
 * Vapi's OpenAPI schemas (ServerMessageStatusUpdate, ServerMessageEndOfCallReport,
 * ServerMessageToolCalls, Call, Artifact, Analysis), with the older top-level fields real payloads
 * still carry (recordingUrl, costBreakdown, durationSeconds) as fallbacks. Anything missing or of the
 * wrong type reads as absent.
 */
import type { CallStatus, CallType } from "../../contract/call";
import { CALL_STATUSES } from "../../contract/call";
import type { StoredCallMessage } from "../calls/repository";

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => Boolean(value) && typeof value === "object" && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = (value: unknown): string | null => (typeof value === "string" && UUID.test(value) ? value : null);

/** Who and what an event is about. */
export interface EventCall {
  providerCallId: string | null;
  type: CallType | null;
  /** Our call id and organisation, from the metadata we sent with POST /call. */
  callId: string | null;
  orgId: string | null;
  /** Which of our agents: the provider's assistant id, or the agent named in the assistant's metadata. */
  assistantId: string | null;
  agentId: string | null;
  agentOrgId: string | null;
  /** The provider's phone-number id (the sandbox sends ours). */
  phoneNumberId: string | null;
  customerNumber: string | null;
  customerName: string | null;
  createdAt: Date | null;
}

const CALL_TYPES: Record<string, CallType> = {
  inboundPhoneCall: "inbound",
  outboundPhoneCall: "outbound",
  webCall: "web",
  "vapi.websocketCall": "web",
};

export function date(value: unknown): Date | null {
  const raw = text(value);
  if (!raw) return null;
  const parsed = new Date(raw);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

export function eventCall(message: Json): EventCall {
  const call = isObject(message.call) ? message.call : {};
  const overrides = isObject(call.assistantOverrides) && isObject(call.assistantOverrides.metadata) ? call.assistantOverrides.metadata : {};
  const assistant = isObject(message.assistant) ? message.assistant : isObject(call.assistant) ? call.assistant : {};
  const assistantMetadata = isObject(assistant.metadata) ? assistant.metadata : {};
  const customer = isObject(message.customer) ? message.customer : isObject(call.customer) ? call.customer : {};
  return {
    providerCallId: text(call.id),
    type: CALL_TYPES[String(call.type)] ?? null,
    callId: uuid(overrides.callId),
    orgId: text(overrides.orgId),
    assistantId: text(call.assistantId),
    agentId: uuid(overrides.agentId) ?? uuid(assistantMetadata.agentId),
    agentOrgId: text(overrides.orgId) ?? text(assistantMetadata.orgId),
    phoneNumberId: text(call.phoneNumberId),
    customerNumber: text(customer.number),
    customerName: text(customer.name),
    createdAt: date(call.createdAt),
  };
}

export function eventStatus(message: Json): CallStatus | null {
  return CALL_STATUSES.find((status) => status === message.status) ?? null;
}

/** What an end-of-call report fills in on the call record. */
export interface CallReport {
  endedReason: string | null;
  transcript: string | null;
  messages: StoredCallMessage[];
  recordingUrl: string | null;
  stereoRecordingUrl: string | null;
  summary: string | null;
  structuredData: Record<string, unknown> | null;
  successEvaluation: string | null;
  /** USD */
  cost: number | null;
  costBreakdown: Record<string, unknown> | null;
  startedAt: Date | null;
  endedAt: Date | null;
  durationSeconds: number | null;
}

/** The spoken turns: Vapi's "bot" is our "assistant"; system prompts and tool calls are left out. */
function spokenMessages(value: unknown): StoredCallMessage[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    if (!isObject(entry) || typeof entry.message !== "string") return [];
    const role = entry.role === "bot" || entry.role === "assistant" ? "assistant" : entry.role === "user" ? "user" : null;
    if (!role) return [];
    return [{ role, message: entry.message, time: num(entry.time) ?? 0, secondsFromStart: num(entry.secondsFromStart) ?? 0 }];
  });
}

export function callReport(message: Json): CallReport {
  const call = isObject(message.call) ? message.call : {};
  const artifact = isObject(message.artifact) ? message.artifact : isObject(call.artifact) ? call.artifact : {};
  const analysis = isObject(message.analysis) ? message.analysis : isObject(call.analysis) ? call.analysis : {};
  const recording = isObject(artifact.recording) ? artifact.recording : {};
  const mono = isObject(recording.mono) ? recording.mono : {};
  const startedAt = date(message.startedAt) ?? date(call.startedAt);
  const endedAt = date(message.endedAt) ?? date(call.endedAt);
  const reported = num(message.durationSeconds) ?? num(call.durationSeconds);
  const measured = startedAt && endedAt ? Math.max(0, (endedAt.getTime() - startedAt.getTime()) / 1000) : null;
  const seconds = reported ?? measured;
  const evaluation = analysis.successEvaluation;
  return {
    endedReason: text(message.endedReason) ?? text(call.endedReason),
    transcript: typeof artifact.transcript === "string" ? artifact.transcript : text(message.transcript),
    messages: spokenMessages(artifact.messages ?? call.messages),
    recordingUrl: text(mono.combinedUrl) ?? text(artifact.recordingUrl) ?? text(message.recordingUrl),
    stereoRecordingUrl: text(recording.stereoUrl) ?? text(artifact.stereoRecordingUrl) ?? text(message.stereoRecordingUrl),
    summary: text(analysis.summary),
    structuredData: isObject(analysis.structuredData) ? analysis.structuredData : null,
    // The schema says string; some rubrics arrive as a number or boolean.
    successEvaluation: typeof evaluation === "string" || typeof evaluation === "number" || typeof evaluation === "boolean" ? String(evaluation) : null,
    cost: num(message.cost) ?? num(call.cost),
    costBreakdown: isObject(call.costBreakdown) ? call.costBreakdown : isObject(message.costBreakdown) ? message.costBreakdown : null,
    startedAt,
    endedAt,
    // Whole seconds, rounded up: a call that connected lasted at least a second.
    durationSeconds: seconds === null ? null : Math.ceil(seconds),
  };
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** `toolCallList` (or the calls inside `toolWithToolCallList`); arguments arrive as a JSON string or an object. */
export function toolCalls(message: Json): ToolCall[] {
  const list = Array.isArray(message.toolCallList)
    ? message.toolCallList
    : Array.isArray(message.toolWithToolCallList)
      ? message.toolWithToolCallList.map((entry) => (isObject(entry) ? entry.toolCall : null))
      : [];
  return list.flatMap((entry) => {
    if (!isObject(entry) || !text(entry.id)) return [];
    const fn = isObject(entry.function) ? entry.function : {};
    let args: unknown = fn.arguments;
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        args = {};
      }
    }
    return [{ id: entry.id as string, name: text(fn.name) ?? "", arguments: isObject(args) ? args : {} }];
  });
}
