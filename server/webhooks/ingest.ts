/**
 * Turning verified Vapi events into call records — one path for Vapi's events and the sandbox's.
 *
 * Each event is processed once, however often it arrives: its key
 * (`{provider call id}:{type}:{status}`) is inserted into webhook_events in the same transaction as the
 * change, first, so a second delivery — even a concurrent one, which waits on the first's key — finds
 * the key taken and changes nothing. An event about no call we know (an organisation deleted mid-call,
 * another system's call) changes nothing and records no key.
 *
 * - status-update moves the call's status forward only (queued → ringing → in-progress → forwarding →
 *   ended); the first event of an inbound or web call creates its record when the assistant is one of
 *   our agents (by the provider's assistant id, or the agent named in the metadata we gave it).
 * - end-of-call-report completes the record (transcript, messages, recordings, analysis, ended reason,
 *   cost and its breakdown, times, duration) and debits the organisation's wallet once.
 * - When either leaves the call ended, `onCallEnded` runs in the same transaction (campaigns settle the
 *   call's contact there: server/campaigns/settle.ts), so a call's end and what it means for its contact
 *   are written together or not at all.
 *
 * Lock order: the organisation's row (FOR NO KEY UPDATE, before anything the call's triggers lock), then the
 * call, then the campaign contact; see lockOrganisationForCalls in server/wallet/wallet.ts.
 */
import { randomUUID } from "node:crypto";
import { and, eq, or, type SQL } from "drizzle-orm";
import type { CallStatus } from "../../contract/call";
import { findCallForEvent, isLaterStatus, successOutcomeFor, type CallRow } from "../calls/repository";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, calls, phoneNumbers, webhookEvents } from "../db/schema";
import { usdToMicros } from "../wallet/money";
import { debitCallOnce, lockOrganisationForCalls, type WalletPolicy } from "../wallet/wallet";
import { callReport, eventCall, eventStatus, type EventCall, type Json } from "./vapi-message";

export interface IngestContext {
  db: Db;
  wallet: WalletPolicy;
  /** Records first seen through a webhook are sandbox calls when the sandbox is the provider. */
  isSandbox: boolean;
  /**
   * Runs inside the ingest's transaction when an event leaves the call ended (status ended or failed),
   * with the row as written; `event` says which: the end-of-call report is the last word on the call.
   * It must not lock a campaign row (the dialler's claim holds campaigns while it inserts calls).
   */
  onCallEnded?: (tx: Db, row: CallRow, event: "status-update" | "end-of-call-report") => Promise<unknown>;
  /** After the transaction that debited a call commits (auto-reload: server/billing/auto-reload.ts). */
  onDebited?: (orgId: string) => void;
}

export type IngestResult = "applied" | "duplicate" | "ignored";

/** When the provider sent the event (`timestamp`, epoch milliseconds), else now. */
const sentAt = (message: Json): Date => (typeof message.timestamp === "number" && Number.isFinite(message.timestamp) ? new Date(message.timestamp) : new Date());

/** Thrown inside a transaction to leave it without a trace. */
class NothingToDo extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function eventKey(ref: EventCall, type: string, status: string | null): string | null {
  const id = ref.providerCallId ?? ref.callId;
  return id ? `${id}:${type}:${status ?? ""}` : null;
}

async function claim(tx: Db, key: string): Promise<boolean> {
  const rows = await tx.insert(webhookEvents).values({ eventKey: key }).onConflictDoNothing().returning({ key: webhookEvents.eventKey });
  return rows.length > 0;
}

/** Which of our agents the event's assistant is (verified events only: the id is the provider's). */
async function agentOf(tx: Db, ref: EventCall): Promise<{ id: string; orgId: string } | null> {
  let where: SQL | undefined;
  if (ref.assistantId) where = eq(agents.providerAssistantId, ref.assistantId);
  else if (ref.agentId) where = ref.agentOrgId ? and(eq(agents.id, ref.agentId), eq(agents.orgId, ref.agentOrgId)) : eq(agents.id, ref.agentId);
  if (!where) return null;
  const [agent] = await tx.select({ id: agents.id, orgId: agents.orgId }).from(agents).where(where).limit(1);
  return agent ?? null;
}

/** Our phone number for the provider's phone-number id (the sandbox sends our own id). */
async function phoneNumberOf(tx: Db, orgId: string, providerNumberId: string | null): Promise<string | null> {
  if (!providerNumberId) return null;
  const byProvider = eq(phoneNumbers.providerNumberId, providerNumberId);
  const row = await orgScope(tx, orgId).first(phoneNumbers, UUID.test(providerNumberId) ? or(byProvider, eq(phoneNumbers.id, providerNumberId)) : byProvider);
  return row?.id ?? null;
}

/** The call the event is about; an inbound or web call first seen is created. */
async function callFor(ctx: IngestContext, tx: Db, ref: EventCall, status: CallStatus): Promise<CallRow | null> {
  const found = await findCallForEvent(tx, ref);
  if (found) return found;
  if (!ref.providerCallId || (ref.type !== "inbound" && ref.type !== "web")) return null;
  const agent = await agentOf(tx, ref);
  if (!agent) return null;
  const [created] = await tx
    .insert(calls)
    .values({
      id: randomUUID(),
      orgId: agent.orgId,
      type: ref.type,
      status,
      agentId: agent.id,
      phoneNumberId: await phoneNumberOf(tx, agent.orgId, ref.phoneNumberId),
      customerNumber: ref.customerNumber,
      customerName: ref.customerName,
      providerCallId: ref.providerCallId,
      isSandbox: ctx.isSandbox,
      startedAt: ref.createdAt ?? new Date(),
    })
    // Two first events of one call at once: calls_provider_call_id_unique lets one through.
    .onConflictDoNothing()
    .returning();
  return created ?? (await findCallForEvent(tx, ref));
}

/**
 * The organisation's row (FOR NO KEY UPDATE), then the call's row (FOR UPDATE), read again under its lock:
 * the changes are computed from the row as it is, not as it was before another writer (the dialler
 * ending a call it could not place, a concurrent event) committed.
 */
async function lockCall(tx: Db, found: CallRow): Promise<CallRow> {
  await lockOrganisationForCalls(tx, found.orgId);
  const [row] = await tx.select().from(calls).where(eq(calls.id, found.id)).for("update");
  if (!row) throw new NothingToDo();
  return row;
}

/**
 * One ingest transaction per organisation at a time in this process. They take turns on the
 * organisation's row in the database anyway (every write of calls locks it: migration 0006), so waiting
 * here instead costs little; it keeps them from holding pooled connections while they wait, and keeps the
 * queue at the row short, so that a dialler's claim (which takes the row too) waits for the event being
 * processed, not for every event queued behind it (bench:campaign: the claims' wait for the row went from
 * about 60 ms to 7 ms at the median).
 */
const organisationTurns = new Map<string, Promise<unknown>>();
function inOrganisationTurn<T>(orgId: string | null, work: () => Promise<T>): Promise<T> {
  if (!orgId) return work();
  const run = (organisationTurns.get(orgId) ?? Promise.resolve()).then(work, work);
  const done = run.then(
    () => undefined,
    () => undefined,
  );
  organisationTurns.set(orgId, done);
  void done.then(() => {
    if (organisationTurns.get(orgId) === done) organisationTurns.delete(orgId);
  });
  return run;
}

/** The organisation an event is about, as cheaply as possible: our metadata names it, else the call we know. */
async function organisationOf(ctx: IngestContext, ref: EventCall): Promise<string | null> {
  if (ref.orgId) return ref.orgId;
  return (await findCallForEvent(ctx.db, ref))?.orgId ?? null;
}

async function inTransaction(ctx: IngestContext, ref: EventCall, work: (tx: Db) => Promise<IngestResult>): Promise<IngestResult> {
  try {
    return await inOrganisationTurn(await organisationOf(ctx, ref), () => ctx.db.transaction((tx) => work(tx)));
  } catch (error) {
    if (error instanceof NothingToDo) return "ignored";
    throw error;
  }
}

export async function ingestStatusUpdate(ctx: IngestContext, message: Json): Promise<IngestResult> {
  const status = eventStatus(message);
  const ref = eventCall(message);
  const key = eventKey(ref, "status-update", status);
  // scheduled, not-found, deletion-failed: nothing a call record shows.
  if (!status || !key) return "ignored";
  return inTransaction(ctx, ref, async (tx) => {
    if (!(await claim(tx, key))) return "duplicate";
    const found = await callFor(ctx, tx, ref, status);
    if (!found) throw new NothingToDo();
    const row = await lockCall(tx, found);
    const changes: Partial<typeof calls.$inferInsert> = {};
    if (!row.providerCallId && ref.providerCallId) changes.providerCallId = ref.providerCallId;
    if (isLaterStatus(status, row.status)) changes.status = status;
    if (status === "ended") {
      const endedReason = typeof message.endedReason === "string" ? message.endedReason : null;
      if (endedReason && !row.endedReason) changes.endedReason = endedReason;
      if (!row.endedAt) changes.endedAt = sentAt(message);
    }
    if (!row.customerNumber && ref.customerNumber) changes.customerNumber = ref.customerNumber;
    if (!row.customerName && ref.customerName) changes.customerName = ref.customerName;
    let written = row;
    if (Object.keys(changes).length > 0) [written = row] = await orgScope(tx, row.orgId).update(calls, { ...changes, updatedAt: new Date() }, eq(calls.id, row.id));
    if (ctx.onCallEnded && (written.status === "ended" || written.status === "failed")) await ctx.onCallEnded(tx, written, "status-update");
    return "applied";
  });
}

function debitDescription(row: CallRow, durationSeconds: number | null): string {
  const what = row.type === "inbound" ? "Inbound call" : row.type === "web" ? "Web call" : "Call";
  const who = row.customerNumber ? ` ${row.type === "inbound" ? "from" : "to"} ${row.customerNumber}` : "";
  return `${what}${who}${durationSeconds !== null ? ` (${durationSeconds} s)` : ""}`;
}

export async function ingestEndOfCallReport(ctx: IngestContext, message: Json): Promise<IngestResult> {
  const ref = eventCall(message);
  const key = eventKey(ref, "end-of-call-report", null);
  if (!key) return "ignored";
  let debitedOrg: string | null = null;
  const result = await inTransaction(ctx, ref, async (tx) => {
    if (!(await claim(tx, key))) return "duplicate";
    const found = await callFor(ctx, tx, ref, "ended");
    if (!found) throw new NothingToDo();
    const row = await lockCall(tx, found);
    const report = callReport(message);
    const costMicros = report.cost !== null ? usdToMicros(report.cost) : row.costMicros;
    const durationSeconds = report.durationSeconds ?? row.durationSeconds;
    // The evaluation counted under the agent's rubric as it is now (a report without one keeps the call's).
    const agent = report.successEvaluation !== null && row.agentId ? await orgScope(tx, row.orgId).first(agents, eq(agents.id, row.agentId)) : null;
    const successOutcome = report.successEvaluation !== null ? successOutcomeFor(report.successEvaluation, agent) : row.successOutcome;
    const [written] = await orgScope(tx, row.orgId).update(
      calls,
      {
        status: "ended",
        providerCallId: row.providerCallId ?? ref.providerCallId,
        endedReason: report.endedReason ?? row.endedReason,
        transcript: report.transcript ?? row.transcript,
        messages: report.messages.length > 0 ? report.messages : row.messages,
        recordingUrl: report.recordingUrl ?? row.recordingUrl,
        stereoRecordingUrl: report.stereoRecordingUrl ?? row.stereoRecordingUrl,
        summary: report.summary ?? row.summary,
        structuredData: report.structuredData ?? row.structuredData,
        successEvaluation: report.successEvaluation ?? row.successEvaluation,
        successOutcome,
        costMicros,
        costBreakdown: report.costBreakdown ?? row.costBreakdown,
        startedAt: report.startedAt ?? row.startedAt,
        endedAt: report.endedAt ?? row.endedAt ?? sentAt(message),
        durationSeconds,
        customerNumber: row.customerNumber ?? ref.customerNumber,
        customerName: row.customerName ?? ref.customerName,
        updatedAt: new Date(),
      },
      eq(calls.id, row.id),
    );
    if (costMicros !== null && costMicros > 0) {
      if (await debitCallOnce(tx, { orgId: row.orgId, callId: row.id, agentId: row.agentId, costMicros, description: debitDescription(row, durationSeconds) }, ctx.wallet)) debitedOrg = row.orgId;
    }
    if (ctx.onCallEnded && written) await ctx.onCallEnded(tx, written, "end-of-call-report");
    return "applied";
  });
  // Committed: the balance may now be under the auto-reload threshold.
  if (debitedOrg && result === "applied") ctx.onDebited?.(debitedOrg);
  return result;
}
