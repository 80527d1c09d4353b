import { Select } from "antd";
import { useNavigate } from "react-router";
import type { Agent } from "../../../contract/agent";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";

/** The organisation's agents, newest edited first; picking one opens it. */
export function AgentSwitcher({ current }: { current: Agent }) {
  const { agents, isLoading } = useAgentList();
  const navigate = useNavigate();
  // The open agent is always listed, also when the list failed (spec §8: then the list is empty).
  const listed = agents.some((agent) => agent.id === current.id) ? agents : [current, ...agents];

  return (
    <Select
      aria-label={strings.agents.switcher}
      className="agent-switcher"
      value={current.id}
      loading={isLoading}
      showSearch
      optionFilterProp="label"
      popupMatchSelectWidth={false}
      options={listed.map((agent) => ({ value: agent.id, label: agent.agent_name }))}
      onChange={(id: string) => navigate(`/agent/${encodeURIComponent(id)}`)}
    />
  );
}
