import type { AppConfig } from "../config";
import { createSandboxVoiceProvider } from "./sandbox";
import type { VoiceProvider } from "./types";
import { createVapiVoiceProvider } from "./vapi";

export type { VoiceProvider } from "./types";

/** Chooses the voice provider once, at start-up: Vapi when VAPI_PRIVATE_KEY is set, else the sandbox. */
export function createVoiceProvider(config: AppConfig): VoiceProvider {
  if (config.modes.voice === "vapi" && config.vapi.privateKey) {
    return createVapiVoiceProvider({ privateKey: config.vapi.privateKey, apiUrl: config.vapi.apiUrl, publicUrl: config.publicUrl });
  }
  return createSandboxVoiceProvider();
}
