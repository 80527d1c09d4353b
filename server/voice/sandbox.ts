import { createSandboxCalls } from "./sandbox-calls";
import type { VoiceProvider } from "./types";

export interface SandboxProviderOptions {
  /** SANDBOX_CALL_SECONDS: how long a simulated call takes from queued to ended (default 6). */
  callSeconds?: number;
}

/**
 * The embedded default: agents and files stay in our database and DATA_DIR; nothing leaves the machine.
 * Phone calls are simulated in time and report through our own webhook route (sandbox-calls.ts).
 */
export function createSandboxVoiceProvider(options: SandboxProviderOptions = {}): VoiceProvider {
  const calls = createSandboxCalls(options.callSeconds === undefined ? {} : { callSeconds: options.callSeconds });
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
      return calls.start(request);
    },
    // Sandbox numbers live only in our database.
    async savePhoneNumber() {
      return { providerNumberId: null };
    },
    async deletePhoneNumber() {},
    connectWebhooks(delivery) {
      calls.connect(delivery);
    },
    sandboxCalls: calls,
    close: () => calls.close(),
  };
}
