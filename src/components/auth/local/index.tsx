import { Suspense } from "react";
import { lazyRetry } from "../../../lib/lazy-retry";
import type { AuthUi } from "../../../auth/session";
import { FullAreaLoader } from "../../full-area-loader";
import { LocalOrganizationSwitcher } from "./organization-switcher";
import { LocalUserButton } from "./user-button";

// The sign-in form is loaded only when someone is signed out, not by a signed-in user's shell.
const LocalSignInForm = lazyRetry(() => import("./sign-in"));

function LocalSignIn() {
  return (
    <Suspense fallback={<FullAreaLoader />}>
      <LocalSignInForm />
    </Suspense>
  );
}

/** The antd widgets local mode places in the shell (Clerk mode brings Clerk's own). */
export const localUi: AuthUi = {
  SignIn: LocalSignIn,
  OrganizationSwitcher: LocalOrganizationSwitcher,
  UserButton: LocalUserButton,
};
