import type { AppConfig } from "../config";
import { createSandboxVoiceProvider } from "./sandbox";
import type { VoiceProvider } from "./types";

export type { VoiceProvider } from "./types";

/** Chooses the voice provider once, at start-up, from the configuration. */
export function createVoiceProvider(config: AppConfig): VoiceProvider {
  // The Vapi implementation is added by the Agents issue's provider work (server/voice/vapi.ts).
  void config;
  return createSandboxVoiceProvider();
}
