import { Button, Flex, Result } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useAuthSession, useAuthUi } from "../../../auth/session";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { strings } from "../../../config/strings";

/**
 * /agent/private/:agentID: a shared agent link (spec §2, §6). Needs sign-in; cloning the agent into
 * the user's account arrives in a later issue, so signed in it says so and offers the dashboard.
 * "Go to Login" shows the sign-in screen right here, so the user comes back to this link.
 */
export default function PrivateAgentPage() {
  const { status } = useAuthSession();
  const { SignIn } = useAuthUi();
  const navigate = useNavigate();
  const [wantsSignIn, setWantsSignIn] = useState(false);

  if (status === "loading") return <FullAreaLoader />;
  if (status === "signedOut" && wantsSignIn) return <SignIn />;

  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      {status === "signedOut" ? (
        <Result
          status="warning"
          title={strings.privateAgent.loginRequired}
          extra={
            <Button type="primary" onClick={() => setWantsSignIn(true)}>
              {strings.privateAgent.goToLogin}
            </Button>
          }
        />
      ) : (
        <Result
          status="info"
          title={strings.privateAgent.notBuiltTitle}
          subTitle={strings.privateAgent.notBuilt}
          extra={
            <Button type="primary" onClick={() => navigate("/dashboard")}>
              {strings.privateAgent.goToDashboard}
            </Button>
          }
        />
      )}
    </Flex>
  );
}
