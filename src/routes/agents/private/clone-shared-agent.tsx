import { Button, Card, Flex, Result, Spin, Typography } from "antd";
import { useNavigate } from "react-router";
import { strings } from "../../../config/strings";
import { useCloneSharedAgent } from "../../../hooks/use-clone-shared-agent";

/** 'Cloning Agent' while the copy is made; the card of spec §2 when it cannot be. */
export function CloneSharedAgent({ agentID, cloneKey }: { agentID: string; cloneKey: string | null }) {
  const state = useCloneSharedAgent(agentID, cloneKey);
  const navigate = useNavigate();

  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      {state.status === "cloning" ? (
        <Card style={{ width: 420, maxWidth: "100%", textAlign: "center" }}>
          <Flex vertical align="center" gap={12} role="status" aria-live="polite">
            <Spin size="large" />
            <Typography.Title level={3} style={{ margin: 0 }}>
              {strings.privateAgent.cloning}
            </Typography.Title>
            <Typography.Text type="secondary">{strings.privateAgent.cloningDetail}</Typography.Text>
          </Flex>
        </Card>
      ) : (
        <Card style={{ width: 480, maxWidth: "100%" }}>
          <Result
            status="error"
            title={state.message}
            extra={
              <Button type="primary" onClick={() => navigate("/dashboard")}>
                {strings.privateAgent.goToDashboard}
              </Button>
            }
          />
        </Card>
      )}
    </Flex>
  );
}
