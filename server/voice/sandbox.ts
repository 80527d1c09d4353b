import { randomUUID } from "node:crypto";
import type { Db } from "../db/client";
import { createSandboxCalls } from "./sandbox-calls";
import { findSandboxCall, recordSandboxCall, sandboxLookup } from "./sandbox-ledger";
import { CallGivenUpError, VoiceProviderError, type VoiceProvider } from "./types";

export interface SandboxProviderOptions {
  /** SANDBOX_CALL_SECONDS: how long a simulated call takes from queued to ended (default 6). */
  callSeconds?: number;
}

/**
 * The embedded default: agents and files stay in our database and DATA_DIR; nothing leaves the machine.
 * Phone calls are simulated in time and report through our own webhook route (sandbox-calls.ts). Each
 * placed call is first written to the sandbox's ledger (sandbox-ledger.ts, once the app has given it
 * the database), which is how any process answers lookupCall for it, even after its placer died.
 */
export function createSandboxVoiceProvider(options: SandboxProviderOptions = {}): VoiceProvider {
  const calls = createSandboxCalls(options.callSeconds === undefined ? {} : { callSeconds: options.callSeconds });
  let db: Db | null = null;
  return {
    mode: "sandbox",
    async saveAssistant() {
      return { assistantId: null };
    },
    async deleteAssistant() {},
    async uploadFile() {
      return { providerFileId: null };
    },
    async deleteFile() {},
    async startPhoneCall(request) {
      // A request given up is never placed: the dialler's reaper may already count it as never received.
      if (request.signal?.aborted || (request.placeBy && Date.now() > request.placeBy.getTime())) throw new CallGivenUpError();
      const placed = { providerCallId: `sandbox-${randomUUID()}`, placedAt: Date.now() };
      // The ledger first: once a call's events may be sent, the sandbox can answer for it.
      if (db && !(await recordSandboxCall(db, request, { ...placed, callSeconds: calls.callSeconds }))) throw new CallGivenUpError();
      return calls.start(request, placed);
    },
    async lookupCall(ref) {
      if (!db) throw new VoiceProviderError("The sandbox keeps no record of its calls in this process (no database).");
      return sandboxLookup(await findSandboxCall(db, ref.callId), Date.now());
    },
    // Sandbox numbers live only in our database.
    async savePhoneNumber() {
      return { providerNumberId: null };
    },
    async deletePhoneNumber() {},
    connectWebhooks(delivery) {
      calls.connect(delivery);
    },
    useDatabase(database) {
      db = database;
    },
    sandboxCalls: calls,
    close: () => calls.close(),
  };
}
