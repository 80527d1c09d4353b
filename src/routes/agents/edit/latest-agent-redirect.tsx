import { useNotification } from "@refinedev/core";
import { Button, Result } from "antd";
import { useEffect, useRef, useState } from "react";
import { Navigate, useNavigate } from "react-router";
import { DEFAULT_TEMPLATE_KEY, type Agent } from "../../../../contract/agent";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { strings } from "../../../config/strings";
import { useAgentList } from "../../../hooks/use-agent-list";
import { useCreateAgent } from "../../../hooks/use-create-agent";

/**
 * The sidebar's Agents item (spec §2 "/agent/:agentID"): opens the most recently edited agent (the first
 * of GET /agent/); an organisation with none gets its first from the default template. Either way the
 * address is replaced, so Back does not return here. Under StrictMode both effect runs share one request.
 */
export function LatestAgentRedirect() {
  const { agents, isLoading, isFetching, isError, refetch } = useAgentList();
  const createAgent = useCreateAgent();
  const navigate = useNavigate();
  const { open } = useNotification();
  const creation = useRef<Promise<Agent> | null>(null);
  const [creationFailed, setCreationFailed] = useState(false);
  const latest = agents[0];
  // Decide "none" on a fresh answer only: a cached empty list may be out of date.
  const needsFirstAgent = !isLoading && !isFetching && !isError && !latest && !creationFailed;

  useEffect(() => {
    if (!needsFirstAgent) return;
    let active = true;
    creation.current ??= createAgent({ template: DEFAULT_TEMPLATE_KEY });
    creation.current.then(
      (agent) => active && navigate(`/agent/${encodeURIComponent(agent.id)}`, { replace: true }),
      (error: unknown) => {
        if (!active) return;
        open?.({ type: "error", message: strings.agents.firstAgentFailed, description: (error as Error)?.message });
        setCreationFailed(true);
      },
    );
    return () => {
      active = false;
    };
  }, [needsFirstAgent, createAgent, navigate, open]);

  if (latest) return <Navigate to={`/agent/${encodeURIComponent(latest.id)}`} replace />;
  if (isError || creationFailed) {
    return (
      <Result
        status="warning"
        title={<h1 className="agent-editor__title">{strings.screens.editAgent}</h1>}
        subTitle={isError ? strings.agents.noAgents : strings.agents.firstAgentFailed}
        extra={
          <Button
            type="primary"
            onClick={() => {
              creation.current = null;
              setCreationFailed(false);
              void refetch();
            }}
          >
            {strings.agents.retry}
          </Button>
        }
      />
    );
  }
  return <FullAreaLoader />;
}
