import type { ReactNode } from "react";
import { useAuthSession, useAuthUi } from "../../auth/session";
import { FullAreaLoader } from "../full-area-loader";

/**
 * Spec §2: a protected area shows a loader while authentication loads, the sign-in screen when
 * signed out, otherwise its content. It reads the session itself rather than Refine's <Authenticated>,
 * which would unmount the shell into its loader on every re-check.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const { status } = useAuthSession();
  const { SignIn } = useAuthUi();
  if (status === "loading") return <FullAreaLoader />;
  if (status === "signedOut") return <SignIn />;
  return <>{children}</>;
}
