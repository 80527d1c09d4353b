import type { AgentConfig } from "../../contract/agent";
import type { Db } from "../db/client";
import type { SandboxCalls } from "./sandbox-calls";

/** What the provider needs to build an assistant for one of our agents. */
export interface AgentForSync {
  id: string;
  orgId: string;
  config: AgentConfig;
  /** The agent's knowledge-base files with the provider's ids (config.knowledge_base_files resolved). */
  knowledgeBase: { id: string; name: string; providerFileId: string | null }[];
}

export interface FileForUpload {
  name: string;
  mimeType: string;
  bytes: Buffer;
}

/** A call's lifecycle as Vapi reports it. */
export type ProviderCallStatus = "queued" | "ringing" | "in-progress" | "forwarding" | "ended";

/**
 * A function tool given to the assistant for one call (Vapi: an `assistantOverrides["tools:append"]`
 * entry `{type: "function", function: {name, description, parameters}}`); its `tool-calls` webhook comes
 * to our server URL like the assistant's other events.
 */
export interface FunctionToolSpec {
  /** a-z, A-Z, 0-9, _ and -, at most 64 (Vapi's OpenAIFunction.name). */
  name: string;
  description: string;
  /** A JSON Schema object: {type: "object", properties, required?}. */
  parameters: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };
}

/** An outbound phone call to place (POST /call/, POST /call/public and campaigns' dialler). */
export interface PhoneCallRequest {
  /** Our call id; sent to the provider as metadata so its webhooks find the record. */
  callId: string;
  orgId: string;
  agent: AgentForSync;
  /** The provider's assistant id for the agent (null in the sandbox). */
  assistantId: string | null;
  phoneNumber: { id: string; number: string; providerNumberId: string | null };
  customer: { number: string; name: string | null };
  /** assistantOverrides.variableValues, e.g. {name}. */
  variableValues: Record<string, string>;
  /** A campaign's call: its contact and which attempt this is (the sandbox's ledger keeps it; Vapi is not told). */
  campaign?: { campaignId: string; contactId: string; attempt: number };
  /**
   * The tool the assistant calls when the customer asks not to be called again (campaign calls): sent
   * with the call; the sandbox calls it on its …04 numbers.
   */
  optOutTool?: FunctionToolSpec;
  /**
   * The tool the assistant reports an order follow-up call's outcome with (order follow-up calls only:
   * server/orders/outcome.ts): sent with the call after the opt-out tool; the sandbox calls it on
   * answered calls (…00 "completed", …05 "declined").
   */
  orderOutcomeTool?: FunctionToolSpec;
  /** Gives up the request (the dialler stops waiting well before its claim's lease runs out). */
  signal?: AbortSignal;
  /**
   * Not to be placed after this instant (the dialler's deadline, well before its claim's lease runs out):
   * the sandbox refuses a request that reaches its ledger later (CallGivenUpError), whatever held it up.
   */
  placeBy?: Date;
}

/** What the reaper knows of a call whose end never came, to ask the provider about it by our id. */
export interface CallLookupRef {
  callId: string;
  orgId: string;
  /** The provider's id when the placing request was answered; null when it never was (or its answer was lost). */
  providerCallId: string | null;
  /** When our call row was written (just before the placing request). */
  placedAt: Date;
  /** The caller number the call was placed from (Vapi lists calls by it). */
  phoneNumber: { id: string; providerNumberId: string | null } | null;
}

/**
 * The provider's answer about one of our calls:
 * - unknown: it never received the call (the placing process died between its claim and the request);
 * - active: the call is on (or still being connected);
 * - ended: it is over; `messages` are the webhook messages (Vapi's ServerMessage `message` objects:
 *   tool-calls first, then status-update ended, end-of-call-report) that record its end, for the
 *   ordinary ingest path.
 */
export type CallLookup =
  | { state: "unknown" }
  | { state: "active"; providerCallId: string }
  | { state: "ended"; providerCallId: string; endedReason: string | null; messages: Record<string, unknown>[] };

/**
 * Where the sandbox delivers the webhook events it simulates: the app's own webhook route (through
 * app.inject), signed with `secret` so they pass the same verification as Vapi's.
 */
export interface WebhookDelivery {
  secret: string;
  /** Posts a raw JSON body with these headers to the webhook route; answers the status and body. */
  post(body: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
  log?: { warn(details: object, message: string): void };
}

/** What the provider needs to register one of our phone numbers. */
export interface PhoneNumberForSync {
  id: string;
  orgId: string;
  name: string;
  /** E.164 */
  number: string;
  provider: "vapi" | "twilio" | "vonage" | "telnyx" | "byo";
  /** The assistant that answers inbound calls (null: none). */
  assistantId: string | null;
  /** Carrier credentials for an imported number (decrypted only for this call). */
  credentials: { twilioAccountSid: string; twilioAuthToken: string } | null;
}

/**
 * The voice provider (ARCHITECTURE.md §6): one interface, two implementations chosen at start-up —
 * `vapi` (VAPI_PRIVATE_KEY) and `sandbox` (the embedded default, nothing leaves the machine).
 * Calls, phone numbers and webhooks join this interface in the Calls issue.
 */
export interface VoiceProvider {
  readonly mode: "sandbox" | "vapi";
  /** Creates the provider's assistant (assistantId null) or updates it; answers the assistant id (null: the sandbox keeps none). */
  saveAssistant(agent: AgentForSync, assistantId: string | null): Promise<{ assistantId: string | null }>;
  /**
   * The ids among `toolIds` that name no tool at the provider (Vapi: GET /tool/{id}). Absent in the
   * sandbox, which has no tools to look up.
   */
  missingTools?(toolIds: string[]): Promise<string[]>;
  /** Deletes the provider's assistant; one that is already gone counts as deleted. */
  deleteAssistant(assistantId: string): Promise<void>;
  /** Uploads a knowledge-base file; answers the provider's file id (null: the sandbox keeps the bytes locally). */
  uploadFile(file: FileForUpload): Promise<{ providerFileId: string | null }>;
  deleteFile(providerFileId: string): Promise<void>;
  /** Places an outbound phone call; the rest of its life arrives as webhook events. */
  startPhoneCall(request: PhoneCallRequest): Promise<{ providerCallId: string; status: ProviderCallStatus }>;
  /**
   * Asks the provider about one of our calls by our call id (or its own id when known): whether it ever
   * received it, whether it is on, how it ended. Whichever process placed the call, even one that died.
   */
  lookupCall(ref: CallLookupRef): Promise<CallLookup>;
  /** Creates (providerNumberId null) or updates the provider's phone number; null: the sandbox keeps none. */
  savePhoneNumber(input: PhoneNumberForSync, providerNumberId: string | null): Promise<{ providerNumberId: string | null }>;
  /** Releases the provider's phone number; one that is already gone counts as deleted. */
  deletePhoneNumber(providerNumberId: string): Promise<void>;
  /** The sandbox: where to deliver the webhook events of the calls it simulates (Vapi posts its own). */
  connectWebhooks?(delivery: WebhookDelivery): void;
  /** The sandbox: the database its ledger of placed calls lives in (given when the app is built). */
  useDatabase?(db: Db): void;
  /** The sandbox's simulated calls (sandbox mode only): the browser's sandbox web calls are played here too. */
  readonly sandboxCalls?: SandboxCalls;
  /** Stops background work (the sandbox's simulated calls); the app calls it when it closes. */
  close?(): Promise<void>;
}

/** The provider refused or could not be reached; `detail` is a sentence a person can act on. */
export class VoiceProviderError extends Error {
  constructor(
    readonly detail: string,
    readonly providerStatus: number | null = null,
  ) {
    super(detail);
    this.name = "VoiceProviderError";
  }
}

/** The request was given up (its signal, or its placeBy passed) before the provider answered: it may or may not have the call. */
export class CallGivenUpError extends VoiceProviderError {
  constructor(detail = "The request to place the call was given up before the voice provider answered.") {
    super(detail, null);
    this.name = "CallGivenUpError";
  }
}
