/**
 * The sandbox provider's own record of the phone calls it placed (sandbox_provider_calls): what Vapi's
 * side would know. Each call is written here before its timers start, with the clock at placing and the
 * request, so its whole script (sandboxCallScript: pure) can be rebuilt anywhere. Any process can then
 * answer "what became of call X?" for a call placed by a process that died, and answer it exactly as the
 * dead process's timers would have played it: the same outcome, the same times, the same events (which
 * the ingest processes once, whoever delivers them first).
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { sandboxProviderCalls } from "../db/schema";
import { sandboxCallScript, type SandboxEvent } from "./sandbox-calls";
import type { CallLookup, PhoneCallRequest } from "./types";

type LedgerRow = typeof sandboxProviderCalls.$inferSelect;

/** The request as stored: everything but the abort signal and deadline. */
function storedRequest(request: PhoneCallRequest): Record<string, unknown> {
  const { signal: _signal, placeBy: _placeBy, ...rest } = request;
  return rest as unknown as Record<string, unknown>;
}

/**
 * Records a placed call; answers false (recording nothing) when the request's placeBy has passed by the
 * database's clock as the row is written: a request that reaches the provider after its placer's deadline
 * is not placed, however long it was held up on its way (the dialler's reaper may already count it as
 * never received).
 */
export async function recordSandboxCall(db: Db, request: PhoneCallRequest, placed: { providerCallId: string; placedAt: number; callSeconds: number }): Promise<boolean> {
  const placeBy = request.placeBy ? request.placeBy.toISOString() : null;
  const result = (await db.execute(sql`
    insert into sandbox_provider_calls (call_id, provider_call_id, org_id, customer_number, placed_at, call_seconds, request)
    select ${request.callId}::uuid, ${placed.providerCallId}, ${request.orgId}, ${request.customer.number}, ${new Date(placed.placedAt).toISOString()}::timestamptz,
      ${placed.callSeconds}, ${JSON.stringify(storedRequest(request))}::jsonb
    where ${placeBy}::timestamptz is null or clock_timestamp() <= ${placeBy}::timestamptz
    returning call_id`)) as unknown as { rows: unknown[] };
  return result.rows.length > 0;
}

export async function findSandboxCall(db: Db, callId: string): Promise<LedgerRow | null> {
  const [row] = await db.select().from(sandboxProviderCalls).where(eq(sandboxProviderCalls.callId, callId)).limit(1);
  return row ?? null;
}

/** The script the call played (or plays) from its ledger row. */
export function ledgerScript(row: LedgerRow): SandboxEvent[] {
  return sandboxCallScript(row.request as unknown as PhoneCallRequest, row.providerCallId, row.placedAt.getTime(), row.callSeconds);
}

const isEnd = (event: SandboxEvent) => event.message.type === "end-of-call-report" || (event.message.type === "status-update" && event.message.status === "ended");

/**
 * What the sandbox answers about a call at `now`: unknown without a ledger row; ended once the script's
 * end has come (its tool calls, ended status and end-of-call report, for the ingest); else active.
 */
export function sandboxLookup(row: LedgerRow | null, now: number): CallLookup {
  if (!row) return { state: "unknown" };
  const script = ledgerScript(row);
  const placedAt = row.placedAt.getTime();
  const end = script.find(isEnd);
  if (!end || placedAt + end.at > now) return { state: "active", providerCallId: row.providerCallId };
  const endedReason = typeof end.message.endedReason === "string" ? end.message.endedReason : null;
  const messages = script.filter((event) => isEnd(event) || event.message.type === "tool-calls").map((event) => event.message);
  return { state: "ended", providerCallId: row.providerCallId, endedReason, messages };
}
