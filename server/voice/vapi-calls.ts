/**
 * Vapi phone calls: POST /call with a CreateCallDTO.
 *
 * `CreateCallDTO` has no top-level `metadata`, so our call id travels in `assistantOverrides.metadata`
 * ({callId, orgId, agentId}: the assistant's own metadata is replaced by it for this call); Vapi echoes
 * it back in every webhook as `message.call.assistantOverrides.metadata`, which is how an event finds
 * its record even before POST /call has answered.
 */
import type { VapiAssistantOptions } from "./vapi-assistant";
import type { VapiHttp } from "./vapi";
import { VoiceProviderError, type PhoneCallRequest, type ProviderCallStatus, type VoiceProvider } from "./types";

/** Vapi's limit on `customer.name`. */
const CUSTOMER_NAME_MAX = 40;

export interface VapiCallPayload {
  assistantId: string;
  phoneNumberId: string;
  customer: { number: string; name?: string };
  assistantOverrides: { variableValues: Record<string, string>; metadata: { callId: string; orgId: string; agentId: string } };
}

/** The CreateCallDTO for one outbound call. Pure. */
export function toVapiCall(request: PhoneCallRequest): VapiCallPayload {
  if (!request.assistantId) throw new VoiceProviderError("The agent is not saved at Vapi yet: save the agent, then try again.");
  if (!request.phoneNumber.providerNumberId) {
    throw new VoiceProviderError("This phone number is not set up at Vapi: save it again in Phone Numbers, then try again.");
  }
  const name = request.customer.name?.trim();
  return {
    assistantId: request.assistantId,
    phoneNumberId: request.phoneNumber.providerNumberId,
    customer: { number: request.customer.number, ...(name ? { name: Array.from(name).slice(0, CUSTOMER_NAME_MAX).join("").trimEnd() } : {}) },
    assistantOverrides: {
      variableValues: { ...request.variableValues },
      metadata: { callId: request.callId, orgId: request.orgId, agentId: request.agent.id },
    },
  };
}

const STATUSES: readonly ProviderCallStatus[] = ["queued", "ringing", "in-progress", "forwarding", "ended"];

export function vapiCallMethods(http: VapiHttp, mapping: VapiAssistantOptions): Pick<VoiceProvider, "startPhoneCall"> {
  void mapping;
  return {
    async startPhoneCall(request) {
      const payload = toVapiCall(request);
      try {
        const body = await http.request<{ id?: unknown; status?: unknown }>("POST", "/call", { json: payload });
        const status = STATUSES.find((candidate) => candidate === body?.status) ?? "queued";
        return { providerCallId: http.idOf(body, "call"), status };
      } catch (error) {
        throw http.fail(error, "place the call");
      }
    },
  };
}
