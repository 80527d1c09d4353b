import type { VapiAssistantOptions } from "./vapi-assistant";
import type { VapiHttp } from "./vapi";
import { VoiceProviderError, type VoiceProvider } from "./types";

/** Vapi phone calls: POST /call (CreateCallDTO). */
export function vapiCallMethods(http: VapiHttp, mapping: VapiAssistantOptions): Pick<VoiceProvider, "startPhoneCall"> {
  void http;
  void mapping;
  return {
    async startPhoneCall() {
      throw new VoiceProviderError("Placing calls through Vapi is not built yet.");
    },
  };
}
