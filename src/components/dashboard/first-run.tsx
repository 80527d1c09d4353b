import { PhoneOutlined, RobotOutlined } from "@ant-design/icons";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import { AGENTS_ENTRY_PATH } from "../../config/resources";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";

const text = strings.dashboard.firstRun;

/** Whether the organisation has nothing to count yet: no agent, or agents but never a call. */
export function isFirstRun(setup: Dashboard["setup"]): boolean {
  return setup.agents === 0 || !setup.calls_ever;
}

/**
 * An empty organisation's dashboard: the next step instead of a page of zeros. No agent yet: the
 * Agents entry makes the first one from the default template. Agents but no call ever: the newest
 * edited agent, whose page has its test-call links (public page, web-call links).
 */
export function FirstRun({ setup }: { setup: Dashboard["setup"] }) {
  const noAgent = setup.agents === 0;
  return noAgent ? <FirstRunStep noAgent to={AGENTS_ENTRY_PATH} /> : <TestCallStep />;
}

/** The newest edited agent (the Agents entry's own choice), once the list has come. */
function TestCallStep() {
  const { agents } = useAgentList();
  const agentId = agents[0]?.id;
  return <FirstRunStep noAgent={false} to={agentId ? `/agent/${encodeURIComponent(agentId)}` : AGENTS_ENTRY_PATH} />;
}

function FirstRunStep({ noAgent, to }: { noAgent: boolean; to: string }) {
  return (
    <section className="dash-first-run" aria-labelledby="dash-first-run-title">
      <span className="dash-first-run__icon" aria-hidden>
        {noAgent ? <RobotOutlined /> : <PhoneOutlined />}
      </span>
      <h2 id="dash-first-run-title">{noAgent ? text.agentTitle : text.callTitle}</h2>
      <p>{noAgent ? text.agentBody : text.callBody}</p>
      <Link to={to} className="dash-first-run__action">
        {noAgent ? text.agentAction : text.callAction}
      </Link>
    </section>
  );
}
