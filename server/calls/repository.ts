/**
 * Call rows: the mapping to the API shape and the queries. Reads for a person go through the
 * organisation scope. Webhooks are the exception: a verified event names the call by our id (which
 * we sent to the provider as metadata) or the provider's call id, and the row found tells the
 * organisation; `findCallForEvent` is that cross-organisation read, and nothing else.
 */
import { and, eq, gte, isNull } from "drizzle-orm";
import { CALL_MESSAGE_ROLES, CALL_STATUSES, CALL_TYPES, type Call, type CallMessage, type CallStatus, type CallType } from "../../contract/call";
import type { CallListItem } from "../../contract/call-list";
import { CALL_OUTCOMES, callOutcome, type CallOutcome } from "../../contract/call-outcome";
import { SUCCESS_OUTCOMES, successOutcome, type SuccessOutcome } from "../../contract/success-outcome";
import { storedConfig, type AgentRow } from "../agents/repository";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { agents, calls } from "../db/schema";
import { microsToUsd } from "../wallet/money";

export type CallRow = typeof calls.$inferSelect;

/** A message as stored in calls.messages. */
export interface StoredCallMessage {
  role: CallMessage["role"];
  message: string;
  time: number;
  secondsFromStart: number;
}

const STATUS_RANK = new Map<string, number>(CALL_STATUSES.map((status, index) => [status, index]));

/** Whether moving from `current` to `next` goes forward in the lifecycle (a call never moves back). */
export function isLaterStatus(next: CallStatus, current: string): boolean {
  return (STATUS_RANK.get(next) ?? -1) > (STATUS_RANK.get(current) ?? -1);
}

function storedMessages(value: unknown): CallMessage[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const item = entry as Partial<StoredCallMessage> | null;
    if (!item || typeof item.message !== "string" || !CALL_MESSAGE_ROLES.includes(item.role as CallMessage["role"])) return [];
    return [{ role: item.role as CallMessage["role"], message: item.message, time: Number(item.time) || 0, seconds_from_start: Number(item.secondsFromStart) || 0 }];
  });
}

/** What a list item is read from: the row without its heavy columns, with its agent's name. */
export type CallListRow = Omit<CallRow, "orgId" | "messages" | "transcript" | "costBreakdown" | "structuredData" | "searchDigits" | "searchDocument" | "updatedAt" | "publicRequest" | "redactedAt"> & {
  agentName: string | null;
};

/**
 * The stored outcome (the generated column); a row built in memory rather than read back (no outcome)
 * gets the same mapping from the contract.
 */
export function callOutcomeOf(row: Pick<CallListRow, "outcome" | "status" | "endedReason">): CallOutcome {
  return (CALL_OUTCOMES as readonly (string | null)[]).includes(row.outcome) ? (row.outcome as CallOutcome) : callOutcome(row.status, row.endedReason);
}

/** The stored success_outcome (pass, fail), or null. */
export function successOf(row: Pick<CallListRow, "successOutcome">): SuccessOutcome | null {
  return (SUCCESS_OUTCOMES as readonly (string | null)[]).includes(row.successOutcome) ? (row.successOutcome as SuccessOutcome) : null;
}

/**
 * calls.success_outcome for a success evaluation arriving for a call of `agent`: counted under the
 * agent's rubric now (the call does not record the rubric it was judged by); without an agent (deleted),
 * under none. Every writer of success_evaluation writes this beside it.
 */
export function successOutcomeFor(evaluation: string | null | undefined, agent: Pick<AgentRow, "config"> | null | undefined): SuccessOutcome | null {
  return successOutcome(evaluation, agent ? storedConfig(agent).analysis_plan.success_evaluation_rubric : null);
}

/** A call as the list shows it (contract: callListItemSchema, the call without its heavy fields). */
export function toApiCallListItem(row: CallListRow): CallListItem {
  return {
    id: row.id,
    type: (CALL_TYPES as readonly string[]).includes(row.type) ? (row.type as CallType) : "outbound",
    status: (CALL_STATUSES as readonly string[]).includes(row.status) ? (row.status as CallStatus) : "queued",
    agent_id: row.agentId,
    agent_name: row.agentName ?? null,
    phone_number_id: row.phoneNumberId,
    customer_number: row.customerNumber,
    customer_name: row.customerName,
    started_at: isoTime(row.startedAt),
    ended_at: row.endedAt ? isoTime(row.endedAt) : null,
    duration_seconds: row.durationSeconds,
    ended_reason: row.endedReason,
    cost: row.costMicros === null ? null : microsToUsd(Number(row.costMicros)),
    recording_url: row.recordingUrl,
    stereo_recording_url: row.stereoRecordingUrl,
    summary: row.summary,
    success_evaluation: row.successEvaluation,
    outcome: callOutcomeOf(row),
    success: successOf(row),
    campaign_id: row.campaignId,
    campaign_contact_id: row.campaignContactId,
    provider_call_id: row.providerCallId,
    is_sandbox: row.isSandbox,
    created_at: isoTime(row.createdAt),
  };
}

/** A whole call: the list item and the heavy fields. */
export function toApiCall(row: CallRow, agentName?: string | null): Call {
  return {
    ...toApiCallListItem({ ...row, agentName: agentName ?? null }),
    cost_breakdown: row.costBreakdown ?? null,
    transcript: row.transcript,
    messages: storedMessages(row.messages),
    structured_data: row.structuredData ?? null,
  };
}

export function findCall(scope: OrgScope, id: string): Promise<CallRow | null> {
  return scope.first(calls, eq(calls.id, id));
}

/** The name of the call's agent, when it still exists in the organisation. */
export async function agentNameOf(scope: OrgScope, agentId: string | null): Promise<string | null> {
  if (!agentId) return null;
  return (await scope.first(agents, eq(agents.id, agentId)))?.name ?? null;
}

/**
 * Outbound calls the agent placed on its own (not for a campaign) since `since`: the daily cap on
 * public calls counts these, in the database, so it holds across processes.
 */
export function countAgentCallsSince(scope: OrgScope, agentId: string, since: Date): Promise<number> {
  return scope.count(calls, and(eq(calls.agentId, agentId), eq(calls.type, "outbound"), isNull(calls.campaignId), gte(calls.startedAt, since)));
}

/**
 * The call a verified webhook event is about: by our id when the event carries it (with the
 * organisation it names, when it names one), else by the provider's call id.
 */
export async function findCallForEvent(db: Db, ref: { callId: string | null; orgId: string | null; providerCallId: string | null }): Promise<CallRow | null> {
  if (ref.callId) {
    const where = ref.orgId ? and(eq(calls.id, ref.callId), eq(calls.orgId, ref.orgId)) : eq(calls.id, ref.callId);
    const [row] = await db.select().from(calls).where(where).limit(1);
    if (row) return row;
  }
  if (ref.providerCallId) {
    const [row] = await db.select().from(calls).where(eq(calls.providerCallId, ref.providerCallId)).limit(1);
    if (row) return row;
  }
  return null;
}
