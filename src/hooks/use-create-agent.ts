import { useDataProvider, useInvalidate } from "@refinedev/core";
import { useCallback } from "react";
import { apiPaths } from "../../contract/api";
import type { Agent, AgentTemplateKey } from "../../contract/agent";

/** What a new agent starts from: a template (POST /agent/template) or only the defaults (POST /agent/). */
export type NewAgentChoice = { template: AgentTemplateKey; agent_name?: string } | { blank: true; agent_name?: string };

/**
 * Creates an agent and resolves to it; rejects with the data provider's ApiError (the server's detail as
 * its message). The agent list is refetched so the switcher shows the new agent.
 */
export function useCreateAgent() {
  const dataProvider = useDataProvider();
  const invalidate = useInvalidate();

  return useCallback(
    async (choice: NewAgentChoice): Promise<Agent> => {
      const provider = dataProvider();
      const name = choice.agent_name?.trim();
      let agent: Agent;
      if ("template" in choice) {
        if (!provider.custom) throw new Error("The data provider has no custom()");
        const { data } = await provider.custom<{ data: Agent }>({
          url: apiPaths.agentFromTemplate,
          method: "post",
          payload: { template: choice.template, ...(name ? { agent_name: name } : {}) },
        });
        agent = data.data;
      } else {
        const { data } = await provider.create<Agent>({ resource: "agent", variables: name ? { agent_name: name } : {} });
        agent = data;
      }
      void invalidate({ resource: "agent", invalidates: ["list"] });
      return agent;
    },
    [dataProvider, invalidate],
  );
}
