import { Button, Flex, Result } from "antd";
import { useState } from "react";
import { useParams, useSearchParams } from "react-router";
import { useAuthSession, useAuthUi } from "../../../auth/session";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { RequireOrganization } from "../../../components/session/require-organization";
import { strings } from "../../../config/strings";
import { CloneSharedAgent } from "./clone-shared-agent";

/**
 * /agent/private/:agentID?key=…, a shared agent link (spec §2, §4, §6, §8). Needs sign-in: signed out it
 * asks to log in, and "Go to Login" shows the sign-in screen right here, so the person comes back to this
 * link. Signed in, the agent is cloned into the active organisation, if its owner lets this link (its
 * `key`) copy it; otherwise the card says 'Agent not found or access denied'.
 */
export default function PrivateAgentPage() {
  const { status } = useAuthSession();
  const { SignIn } = useAuthUi();
  const { agentID = "" } = useParams();
  const [searchParams] = useSearchParams();
  const cloneKey = searchParams.get("key");
  const [wantsSignIn, setWantsSignIn] = useState(false);

  if (status === "loading") return <FullAreaLoader />;
  if (status === "signedOut" && wantsSignIn) return <SignIn />;
  if (status === "signedOut") {
    return (
      <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
        <Result
          status="warning"
          title={strings.privateAgent.loginRequired}
          extra={
            <Button type="primary" onClick={() => setWantsSignIn(true)}>
              {strings.privateAgent.goToLogin}
            </Button>
          }
        />
      </Flex>
    );
  }
  return (
    // The clone lands in the active organisation: activate the first membership, or create one first.
    <RequireOrganization>
      <CloneSharedAgent key={`${agentID}?${cloneKey ?? ""}`} agentID={agentID} cloneKey={cloneKey} />
    </RequireOrganization>
  );
}
