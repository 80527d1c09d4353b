import { Button } from "antd";
import { Suspense, useEffect, useRef, useState, type ReactNode } from "react";
import { lazyRetry } from "../../lib/lazy-retry";
import { useAuthSession } from "../../auth/session";
import { strings } from "../../config/strings";
import { FullAreaLoader } from "../full-area-loader";
import { StatusMessage } from "../status-message";

// Shown once per account at most; not part of the shell's first load.
const CreateFirstOrganization = lazyRetry(() =>
  import("../organization/create-first-organization").then((module) => ({ default: module.CreateFirstOrganization })),
);

/**
 * Everything in the shell belongs to an organisation. Spec §2: signed in with no active organisation
 * but with memberships, the first membership is made active; with none, the user creates one.
 */
export function RequireOrganization({ children }: { children: ReactNode }) {
  const session = useAuthSession();
  const first = session.organizations[0];
  const needsActivation = !session.activeOrganizationId && first !== undefined;
  const attempted = useRef<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!needsActivation || attempted.current === first.id) return;
    attempted.current = first.id;
    session.setActive(first.id).catch((cause: unknown) => {
      setError(cause instanceof Error && cause.message ? cause.message : strings.organization.switchFailed);
    });
  }, [needsActivation, first, session, attempt]);

  if (session.activeOrganizationId) return <>{children}</>;
  if (needsActivation && error) {
    return (
      <StatusMessage
        title={strings.organization.switchFailed}
        detail={error}
        action={
          <Button
            type="primary"
            onClick={() => {
              attempted.current = null;
              setError(null);
              setAttempt(attempt + 1);
            }}
          >
            {strings.boot.retry}
          </Button>
        }
      />
    );
  }
  if (needsActivation) return <FullAreaLoader />;
  return (
    <Suspense fallback={<FullAreaLoader />}>
      <CreateFirstOrganization />
    </Suspense>
  );
}
