import { VoiceProviderError, type VoiceProvider } from "./types";

/** The embedded default: agents and files stay in our database and DATA_DIR; nothing leaves the machine. */
export function createSandboxVoiceProvider(): VoiceProvider {
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
    async startPhoneCall() {
      throw new VoiceProviderError("The sandbox does not place calls yet.");
    },
    // Sandbox numbers live only in our database.
    async savePhoneNumber() {
      return { providerNumberId: null };
    },
    async deletePhoneNumber() {},
  };
}
