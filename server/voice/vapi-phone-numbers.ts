import type { VapiHttp } from "./vapi";
import { VoiceProviderError, type VoiceProvider } from "./types";

/** Vapi phone numbers: bought from Vapi or imported from a carrier (POST/PATCH/DELETE /phone-number). */
export function vapiPhoneNumberMethods(http: VapiHttp): Pick<VoiceProvider, "savePhoneNumber" | "deletePhoneNumber"> {
  void http;
  return {
    async savePhoneNumber() {
      throw new VoiceProviderError("Phone numbers through Vapi are not built yet.");
    },
    async deletePhoneNumber() {},
  };
}
