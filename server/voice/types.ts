import type { AgentConfig } from "../../contract/agent";

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

/**
 * The voice provider (ARCHITECTURE.md §6): one interface, two implementations chosen at start-up —
 * `vapi` (VAPI_PRIVATE_KEY) and `sandbox` (the embedded default, nothing leaves the machine).
 * Calls, phone numbers and webhooks join this interface in the Calls issue.
 */
export interface VoiceProvider {
  readonly mode: "sandbox" | "vapi";
  /** Creates the provider's assistant (assistantId null) or updates it; answers the assistant id (null: the sandbox keeps none). */
  saveAssistant(agent: AgentForSync, assistantId: string | null): Promise<{ assistantId: string | null }>;
  /** Deletes the provider's assistant; one that is already gone counts as deleted. */
  deleteAssistant(assistantId: string): Promise<void>;
  /** Uploads a knowledge-base file; answers the provider's file id (null: the sandbox keeps the bytes locally). */
  uploadFile(file: FileForUpload): Promise<{ providerFileId: string | null }>;
  deleteFile(providerFileId: string): Promise<void>;
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
