import { useOne } from "@refinedev/core";
import { Button, Result } from "antd";
import { useEffect } from "react";
import { useNavigate, useParams } from "react-router";
import type { Agent } from "../../../../contract/agent";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { AGENTS_ENTRY_PATH } from "../../../config/resources";
import { strings } from "../../../config/strings";
import { AgentEditor } from "./agent-editor";
import { LatestAgentRedirect } from "./latest-agent-redirect";

/** /agent/:agentID (spec §2 EditAgent). The Agents entry (/agent/new) resolves to the latest agent. */
export default function AgentEditRoute() {
  const { agentID = "" } = useParams();
  useEffect(() => {
    document.title = `${strings.screens.editAgent} · ${strings.appName}`;
  }, []);
  if (`/agent/${agentID}` === AGENTS_ENTRY_PATH) return <LatestAgentRedirect />;
  // A new editor per agent: switching agents starts from that agent's saved settings.
  return <EditAgentPage key={agentID} agentID={agentID} />;
}

function EditAgentPage({ agentID }: { agentID: string }) {
  const navigate = useNavigate();
  const { result: agent, query } = useOne<Agent>({
    resource: "agent",
    id: agentID,
    // Said on the page instead: a toast would vanish and leave an empty screen.
    errorNotification: false,
  });

  if (query.isPending) return <FullAreaLoader />;
  if (query.isError || !agent) {
    const missing = query.error?.statusCode === 404 || query.error?.statusCode === 400;
    return (
      <Result
        status={missing ? "404" : "error"}
        title={<h1 className="agent-editor__title">{missing ? strings.agents.notFound : strings.agents.loadFailed}</h1>}
        subTitle={missing ? strings.agents.notFoundDetail : query.error?.message}
        extra={
          <Button type="primary" onClick={() => navigate(AGENTS_ENTRY_PATH)}>
            {strings.agents.openAgents}
          </Button>
        }
      />
    );
  }
  return <AgentEditor agent={agent} />;
}
