/**
 * Sandbox calls outlive no process: their events are timers. A call still running when the server stopped
 * (or seeded as running by the demo) would stay 'in-progress' for good, and hold wallet credit. At start-up
 * the sandbox ends each of them the way it ends any call, through the same signed webhook events:
 *
 * - a browser sandbox web call (provider id `sandbox-web-…`): as the page would have, at its length
 *   (SANDBOX_WEB_CALL_MAX_SECONDS, or the agent's max_duration_seconds) plus the grace the page has; at
 *   once when that is past;
 * - any other call in progress: a conversation like every answered sandbox call's, ending SANDBOX_CALL_SECONDS
 *   from now, or at the agent's max_duration_seconds when that comes first (ended "exceeded-max-duration");
 * - a call never answered (queued, ringing): ended unanswered, at no cost.
 *
 * Each event is processed once (server/webhooks/ingest.ts), so two processes resuming the same call, or a
 * restart while the end is on its way, end it once and debit it once.
 *
 * With several processes on one database, an unfinished call may belong to a process that is alive. So:
 * - a call in the sandbox's ledger (sandbox-ledger.ts: every phone call placed since the ledger exists)
 *   plays the rest of its own script, exactly as its placer's timers do (the same events at the same
 *   times; the ingest takes each once), never an invented end;
 * - a campaign call is left alone: the dialler's reaper owns it. It asks the ledger once the call's lease
 *   runs out, and gives back the attempt of a call that never reached the sandbox (its placer died
 *   between the claim and the request), which an invented end here would have counted as dialled.
 */
import { and, eq, isNull, ne } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { DEFAULT_AGENT_CONFIG } from "../../contract/agent";
import type { CallType } from "../../contract/call";
import type { Db } from "../db/client";
import { agents, calls, sandboxProviderCalls } from "../db/schema";
import { webhookDelivery } from "../routes/webhooks";
import { resolveWebhookSecret } from "../webhooks/secret";
import {
  createSandboxCalls,
  isSandboxWebProviderCallId,
  sandboxResumedEnd,
  sandboxWebCallEnd,
  sandboxWebCallLatestEnd,
  type SandboxCalls,
  type SandboxRunningCall,
} from "./sandbox-calls";
import { ledgerScript } from "./sandbox-ledger";
import type { ProviderCallStatus } from "./types";

/** Ends every unfinished sandbox call (see the file comment); answers how many it took on. */
export async function resumeSandboxCalls(db: Db, sandbox: SandboxCalls, options: { callSeconds: number; now?: number }): Promise<number> {
  const now = options.now ?? Date.now();
  const rows = await db
    .select({ call: calls, config: agents.config, ledger: sandboxProviderCalls })
    .from(calls)
    .leftJoin(agents, eq(agents.id, calls.agentId))
    .leftJoin(sandboxProviderCalls, eq(sandboxProviderCalls.callId, calls.id))
    .where(and(eq(calls.isSandbox, true), ne(calls.status, "ended"), isNull(calls.campaignContactId)));
  for (const { call: row, config: agentConfig, ledger } of rows) {
    if (ledger) {
      const placedAt = ledger.placedAt.getTime();
      sandbox.play(row.id, ledgerScript(ledger).map((event) => ({ at: placedAt + event.at, message: event.message })));
      continue;
    }
    const config = agentConfig ?? DEFAULT_AGENT_CONFIG;
    const running: SandboxRunningCall = {
      callId: row.id,
      orgId: row.orgId,
      agentId: row.agentId,
      config,
      type: row.type as CallType,
      providerCallId: row.providerCallId,
      phoneNumberId: row.phoneNumberId,
      customerNumber: row.customerNumber,
      customerName: row.customerName,
      variableValues: row.customerName ? { name: row.customerName } : {},
      startedAt: row.startedAt.getTime(),
    };
    if (row.type === "web" && isSandboxWebProviderCallId(row.providerCallId)) {
      // Delivered at that moment, or at once when it is past.
      sandbox.play(row.id, sandboxWebCallEnd(running, sandboxWebCallLatestEnd(running.startedAt, config), "exceeded-max-duration"));
    } else {
      sandbox.play(row.id, sandboxResumedEnd(running, row.status as ProviderCallStatus, now, options.callSeconds));
    }
  }
  return rows.length;
}

/**
 * At start-up (server/index.ts, after the demo seed): ends the unfinished sandbox calls through the app's
 * own webhook route. The sandbox provider's engine plays them; in Vapi mode (seeded calls are sandbox
 * calls there too) an engine of their own does, which `close` stops.
 */
export async function resumeSandboxCallsAtStartUp(app: FastifyInstance): Promise<{ count: number; close: () => Promise<void> }> {
  let own: SandboxCalls | null = null;
  let sandbox = app.voice.sandboxCalls;
  if (!sandbox) {
    own = createSandboxCalls({ callSeconds: app.config.calls.sandboxCallSeconds });
    // Vapi mode: the webhook secret is configured or derived from the private key, the same every time.
    own.connect(webhookDelivery(app, resolveWebhookSecret(app.config).secret));
    sandbox = own;
  }
  const count = await resumeSandboxCalls(app.db, sandbox, { callSeconds: app.config.calls.sandboxCallSeconds });
  return { count, close: async () => own?.close() };
}
