import { useList } from "@refinedev/core";
import type { Agent } from "../../contract/agent";
import { AGENT_LIST_MAX_LIMIT } from "../../contract/paging";
import { strings } from "../config/strings";

/**
 * The organisation's agents (GET /agent/), newest edited first. Spec §8: when the list fails the
 * person sees 'Failed to fetch agents' and an empty list. The resolver and the editor's switcher share
 * this query, so opening Agents fetches the list once.
 */
export function useAgentList() {
  const { result, query } = useList<Agent>({
    resource: "agent",
    pagination: { currentPage: 1, pageSize: AGENT_LIST_MAX_LIMIT },
    // Several parts of a screen read the list; one toast (the same key) however many fail with it.
    errorNotification: () => ({ key: "agent-list-failed", type: "error", message: strings.agents.fetchFailed }),
  });
  return {
    agents: query.isError ? [] : result.data,
    total: query.isError ? 0 : (result.total ?? result.data.length),
    isLoading: query.isPending,
    isFetching: query.isFetching,
    isError: query.isError,
    refetch: query.refetch,
  };
}
