import { useNotification } from "@refinedev/core";
import { Button } from "antd";
import { useEffect, useRef, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { useAuthSession } from "../../auth/session";
import { FullAreaLoader } from "../../components/full-area-loader";
import { StatusMessage } from "../../components/status-message";
import { strings } from "../../config/strings";

/**
 * /invitation/:invitationId (local accounts): the link an admin hands over. Shown inside RequireSession,
 * so a signed-out visitor signs up or signs in first and stays on this page. Joining needs both the
 * link and the invited email; the organisation joined becomes the active one, then /dashboard.
 */
export default function InvitationPage() {
  const { invitationId = "" } = useParams();
  const session = useAuthSession();
  const navigate = useNavigate();
  const { open } = useNotification();
  const [failure, setFailure] = useState<{ detail: string; wrongAccount: boolean } | null>(null);
  const started = useRef(false);
  const accept = session.passwordAuth?.acceptInvitation;

  useEffect(() => {
    if (!accept || started.current) return;
    started.current = true;
    accept(invitationId).then(
      (organization) => {
        open?.({ type: "success", message: strings.invitation.joined(organization.name) });
        navigate("/dashboard", { replace: true });
      },
      (error: Error & { status?: number }) => setFailure({ detail: error.message || strings.invitation.failedFallback, wrongAccount: error.status === 403 }),
    );
  }, [accept, invitationId, navigate, open]);

  // Clerk sends its own invitation emails and links; nothing to do here.
  if (!accept) {
    return (
      <StatusMessage
        title={strings.invitation.clerk}
        action={
          <Button type="primary" onClick={() => navigate("/dashboard", { replace: true })}>
            {strings.privateAgent.goToDashboard}
          </Button>
        }
      />
    );
  }
  if (!failure) return <FullAreaLoader label={strings.invitation.joining} />;
  return (
    <StatusMessage
      title={strings.invitation.failedTitle}
      detail={failure.wrongAccount && session.user ? `${failure.detail}. ${strings.invitation.wrongAccount(session.user.email)}` : failure.detail}
      action={
        <>
          {failure.wrongAccount && <Button onClick={() => void session.signOut()}>{strings.invitation.signOut}</Button>}{" "}
          <Button type="primary" onClick={() => navigate("/dashboard", { replace: true })}>
            {strings.privateAgent.goToDashboard}
          </Button>
        </>
      }
    />
  );
}
