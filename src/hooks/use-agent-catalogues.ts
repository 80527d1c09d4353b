import { useCustom } from "@refinedev/core";
import { apiPaths } from "../../contract/api";
import type {
  LlmCatalogEntry,
  TranscriberCatalogEntry,
  VoiceCatalogEntry,
  VoiceModelCatalogEntry,
} from "../../contract/catalog";

/** One catalogue list; it changes only with a deploy, so it is fetched once per session. */
function useCatalogue<T>(url: string) {
  const { result, query } = useCustom<{ data: T[] }>({
    url,
    method: "get",
    queryOptions: { staleTime: Infinity, gcTime: Infinity },
    // A missing catalogue is not worth a toast: the editor keeps the agent's values and says so inline.
    errorNotification: false,
  });
  const entries = Array.isArray(result.data?.data) ? result.data.data : [];
  return { entries, isError: query.isError, isLoading: query.isPending };
}

/** What the editor offers in its selects: GET /llm/, /voice/, /voice/models, /transcriber/ (spec §7). */
export function useAgentCatalogues() {
  const llms = useCatalogue<LlmCatalogEntry>(apiPaths.llms);
  const voices = useCatalogue<VoiceCatalogEntry>(apiPaths.voices);
  const voiceModels = useCatalogue<VoiceModelCatalogEntry>(apiPaths.voiceModels);
  const transcribers = useCatalogue<TranscriberCatalogEntry>(apiPaths.transcribers);
  return {
    llms: llms.entries,
    voices: voices.entries,
    voiceModels: voiceModels.entries,
    transcribers: transcribers.entries,
    isError: llms.isError || voices.isError || voiceModels.isError || transcribers.isError,
  };
}

export type AgentCatalogues = ReturnType<typeof useAgentCatalogues>;
