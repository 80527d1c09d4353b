import { useDelete } from "@refinedev/core";
import { App } from "antd";
import { useCallback } from "react";
import { useNavigate } from "react-router";
import type { Agent } from "../../../contract/agent";
import { AGENTS_ENTRY_PATH } from "../../config/resources";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";
import { SKIP_UNSAVED_GUARD } from "./unsaved-changes-guard";

/**
 * Delete after a confirmation (DELETE /agent/{id}), then open the next agent, or the Agents entry
 * (which opens the most recent one, or makes a first agent when none is left).
 */
export function useDeleteAgent(agent: Agent) {
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const { agents } = useAgentList();
  const { mutateAsync } = useDelete<Agent>();

  return useCallback(() => {
    modal.confirm({
      title: strings.agents.deleteConfirmTitle,
      content: strings.agents.deleteConfirmBody(agent.agent_name),
      okText: strings.agents.delete,
      okButtonProps: { danger: true },
      cancelText: strings.agents.cancel,
      onOk: async () => {
        try {
          await mutateAsync({
            resource: "agent",
            id: agent.id,
            successNotification: () => ({ type: "success", message: strings.agents.deleted }),
            errorNotification: (error) => ({ type: "error", message: strings.agents.deleteFailed, description: error?.message }),
          });
        } catch {
          return; // the toast says why; the agent stays open
        }
        const next = agents.find((candidate) => candidate.id !== agent.id);
        navigate(next ? `/agent/${encodeURIComponent(next.id)}` : AGENTS_ENTRY_PATH, {
          replace: true,
          state: { [SKIP_UNSAVED_GUARD]: true },
        });
      },
    });
  }, [agent.agent_name, agent.id, agents, modal, mutateAsync, navigate]);
}
