/**
 * Vapi phone calls: POST /call with a CreateCallDTO, and asking about one afterwards (GET /call/{id},
 * or GET /call listed by caller number and creation time when its id never came back to us).
 *
 * `CreateCallDTO` has no top-level `metadata`, so our call id travels in `assistantOverrides.metadata`
 * ({callId, orgId, agentId}: the assistant's own metadata is replaced by it for this call); Vapi echoes
 * it back in every webhook as `message.call.assistantOverrides.metadata`, which is how an event finds
 * its record even before POST /call has answered, and how lookupCall recognises the call in a list.
 *
 * A campaign call also carries the opt-out tool as `assistantOverrides["tools:append"]` (a function tool
 * added to the assistant's own tools for this call only), and an order follow-up call the order-outcome
 * tool after it; their `tool-calls` webhooks go to the assistant's server URL, ours.
 */
import type { VapiAssistantOptions } from "./vapi-assistant";
import type { VapiHttp } from "./vapi";
import { VoiceProviderError, type CallLookup, type CallLookupRef, type PhoneCallRequest, type ProviderCallStatus, type VoiceProvider } from "./types";

/** Vapi's limit on `customer.name`. */
const CUSTOMER_NAME_MAX = 40;

export interface VapiFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] } };
}

export interface VapiCallPayload {
  assistantId: string;
  phoneNumberId: string;
  customer: { number: string; name?: string };
  assistantOverrides: {
    variableValues: Record<string, string>;
    metadata: { callId: string; orgId: string; agentId: string };
    "tools:append"?: VapiFunctionTool[];
  };
}

/** The CreateCallDTO for one outbound call. Pure. */
export function toVapiCall(request: PhoneCallRequest): VapiCallPayload {
  if (!request.assistantId) throw new VoiceProviderError("The agent is not saved at Vapi yet: save the agent, then try again.");
  if (!request.phoneNumber.providerNumberId) {
    throw new VoiceProviderError("This phone number is not set up at Vapi: save it again in Phone Numbers, then try again.");
  }
  const name = request.customer.name?.trim();
  const tools = [request.optOutTool, request.orderOutcomeTool].filter((tool): tool is NonNullable<typeof tool> => tool !== undefined);
  return {
    assistantId: request.assistantId,
    phoneNumberId: request.phoneNumber.providerNumberId,
    customer: { number: request.customer.number, ...(name ? { name: Array.from(name).slice(0, CUSTOMER_NAME_MAX).join("").trimEnd() } : {}) },
    assistantOverrides: {
      variableValues: { ...request.variableValues },
      metadata: { callId: request.callId, orgId: request.orgId, agentId: request.agent.id },
      ...(tools.length > 0 ? { "tools:append": tools.map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) } : {}),
    },
  };
}

const STATUSES: readonly ProviderCallStatus[] = ["queued", "ringing", "in-progress", "forwarding", "ended"];

/** How far around our row's time a call is looked for in GET /call (Vapi's createdAt is its own clock). */
const LOOKUP_BEFORE_MS = 5 * 60_000;
const LOOKUP_AFTER_MS = 30 * 60_000;
/** GET /call's largest page. */
const LIST_LIMIT = 1000;

/** The ended reason Vapi's record is read as when the call it once answered for is gone (deleted there). */
export const VAPI_CALL_GONE_ENDED_REASON = "provider-lookup-failed-call-not-found";

type VapiCallRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is VapiCallRecord => Boolean(value) && typeof value === "object" && !Array.isArray(value);

function metadataCallId(call: VapiCallRecord): string | null {
  const overrides = isRecord(call.assistantOverrides) ? call.assistantOverrides : {};
  const metadata = isRecord(overrides.metadata) ? overrides.metadata : {};
  return typeof metadata.callId === "string" ? metadata.callId : null;
}

/**
 * A Call object from GET /call as what the webhooks would have said at its end: a status-update (ended)
 * and an end-of-call-report with its artifact, analysis, cost and times. Pure.
 */
export function vapiEndedMessages(call: VapiCallRecord): Record<string, unknown>[] {
  const endedReason = typeof call.endedReason === "string" ? call.endedReason : undefined;
  const timestamp = typeof call.endedAt === "string" ? Date.parse(call.endedAt) : Date.now();
  const customer = isRecord(call.customer) ? { customer: call.customer } : {};
  return [
    { type: "status-update", status: "ended", timestamp, ...(endedReason ? { endedReason } : {}), ...customer, call },
    {
      type: "end-of-call-report",
      timestamp,
      ...(endedReason ? { endedReason } : {}),
      ...(typeof call.cost === "number" ? { cost: call.cost } : {}),
      ...(typeof call.startedAt === "string" ? { startedAt: call.startedAt } : {}),
      ...(typeof call.endedAt === "string" ? { endedAt: call.endedAt } : {}),
      artifact: isRecord(call.artifact) ? call.artifact : {},
      analysis: isRecord(call.analysis) ? call.analysis : {},
      ...customer,
      call,
    },
  ];
}

function lookupOf(call: VapiCallRecord): CallLookup {
  const providerCallId = String(call.id);
  if (call.status !== "ended") return { state: "active", providerCallId };
  return { state: "ended", providerCallId, endedReason: typeof call.endedReason === "string" ? call.endedReason : null, messages: vapiEndedMessages(call) };
}

export function vapiCallMethods(http: VapiHttp, mapping: VapiAssistantOptions): Pick<VoiceProvider, "startPhoneCall" | "lookupCall"> {
  void mapping;
  return {
    async startPhoneCall(request) {
      const payload = toVapiCall(request);
      try {
        const body = await http.request<{ id?: unknown; status?: unknown }>("POST", "/call", { json: payload }, request.signal ? { signal: request.signal } : {});
        const status = STATUSES.find((candidate) => candidate === body?.status) ?? "queued";
        return { providerCallId: http.idOf(body, "call"), status };
      } catch (error) {
        throw http.fail(error, "place the call");
      }
    },

    async lookupCall(ref: CallLookupRef): Promise<CallLookup> {
      if (ref.providerCallId) {
        try {
          const call = await http.request<VapiCallRecord>("GET", `/call/${encodeURIComponent(ref.providerCallId)}`);
          if (isRecord(call) && typeof call.id === "string") return lookupOf(call);
        } catch (error) {
          // It answered for this call once: gone now (deleted at Vapi) reads as ended, failed.
          if (http.isNotFound(error)) {
            const call = { id: ref.providerCallId, status: "ended", endedReason: VAPI_CALL_GONE_ENDED_REASON, assistantOverrides: { metadata: { callId: ref.callId, orgId: ref.orgId } } };
            return lookupOf(call);
          }
          throw http.fail(error, "look up the call");
        }
      }
      // Our id only: the calls from that number created around our row's time, matched by our metadata.
      const query = new URLSearchParams({
        createdAtGe: new Date(ref.placedAt.getTime() - LOOKUP_BEFORE_MS).toISOString(),
        createdAtLe: new Date(ref.placedAt.getTime() + LOOKUP_AFTER_MS).toISOString(),
        limit: String(LIST_LIMIT),
      });
      if (ref.phoneNumber?.providerNumberId) query.set("phoneNumberId", ref.phoneNumber.providerNumberId);
      let list: unknown;
      try {
        list = await http.request<unknown>("GET", `/call?${query.toString()}`);
      } catch (error) {
        throw http.fail(error, "look up the call");
      }
      const found = (Array.isArray(list) ? list : []).find((call): call is VapiCallRecord => isRecord(call) && typeof call.id === "string" && metadataCallId(call) === ref.callId);
      return found ? lookupOf(found) : { state: "unknown" };
    },
  };
}
