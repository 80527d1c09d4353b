import { UserAddOutlined } from "@ant-design/icons";
import {
  ClerkProvider,
  CreateOrganization,
  OrganizationSwitcher,
  SignIn,
  UserButton,
  useAuth,
  useOrganizationList,
  useUser,
} from "@clerk/react";
import { useCan } from "@refinedev/core";
import { Button, Flex, Modal, Tooltip } from "antd";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { useNavigate } from "react-router";
import { normaliseRole } from "../../contract/roles";
import { useOrganizationChangeDestination } from "../components/layout/shell-context";
import { OrganizationDialogs } from "../components/organization/lazy-dialogs";
import { strings } from "../config/strings";
import { AuthContext, useAuthSession, type AuthSession, type AuthUi, type SessionOrganization } from "./session";

/**
 * Clerk mode (production sign-in): @clerk/react with the publishable key from GET /api/config.
 * This module is its own lazy chunk; local mode never loads it.
 */
export default function ClerkSessionProvider({
  publishableKey,
  children,
}: {
  publishableKey: string;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <ClerkProvider
      publishableKey={publishableKey}
      routerPush={(to) => navigate(to)}
      routerReplace={(to) => navigate(to, { replace: true })}
      // Spec §2: sign-out returns to '/'.
      afterSignOutUrl="/"
    >
      <ClerkSessionBridge>{children}</ClerkSessionBridge>
    </ClerkProvider>
  );
}

/** Builds the AuthSession from Clerk's hooks. */
function ClerkSessionBridge({ children }: { children: ReactNode }) {
  const { isLoaded, isSignedIn, orgId, getToken, signOut } = useAuth();
  const { user } = useUser();
  const { isLoaded: listLoaded, userMemberships, createOrganization, setActive } = useOrganizationList({
    userMemberships: { infinite: true, pageSize: 50 },
  });

  const session = useMemo<AuthSession>(() => {
    const organizations: SessionOrganization[] = (userMemberships.data ?? []).map((membership) => ({
      id: membership.organization.id,
      name: membership.organization.name,
      role: normaliseRole(membership.role),
    }));
    const status = !isLoaded ? "loading" : !isSignedIn ? "signedOut" : listLoaded && user ? "signedIn" : "loading";
    const email = user?.primaryEmailAddress?.emailAddress ?? "";
    return {
      mode: "clerk",
      status,
      user: user
        ? { id: user.id, name: user.fullName || user.username || email, email, imageUrl: user.imageUrl }
        : null,
      organizations,
      activeOrganizationId: orgId ?? null,
      getToken: () => getToken(),
      signOut: () => signOut({ redirectUrl: "/" }),
      async setActive(organizationId) {
        if (!setActive) throw new Error(strings.organization.switchFailed);
        await setActive({ organization: organizationId });
      },
      async createOrganization(name) {
        if (!createOrganization || !setActive) throw new Error(strings.organization.createFailed);
        const created = await createOrganization({ name });
        await setActive({ organization: created.id });
        await userMemberships.revalidate?.();
        return { id: created.id, name: created.name, role: "org:admin" };
      },
      async leaveOrganization(organizationId) {
        if (!user) throw new Error(strings.organization.leaveFailed);
        await user.leaveOrganization(organizationId);
        await userMemberships.revalidate?.();
      },
    };
  }, [isLoaded, isSignedIn, orgId, getToken, signOut, user, listLoaded, userMemberships, createOrganization, setActive]);

  const value = useMemo(() => ({ session, ui: clerkUi }), [session]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

function ClerkSignIn() {
  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      <SignIn routing="hash" />
    </Flex>
  );
}

/** The class Clerk gives the "Create organization" action inside the switcher's popover. */
const CREATE_ORGANIZATION_ACTION = '[class*="organizationSwitcherPopoverActionButton__createOrganization"]';

const COLLAPSED_SWITCHER = {
  elements: {
    organizationPreviewTextContainer: { display: "none" },
    organizationSwitcherTriggerIcon: { display: "none" },
  },
};

function ClerkOrganizationSwitcher({ expanded }: { expanded: boolean }) {
  const destination = useOrganizationChangeDestination();
  const { data: invitePermission } = useCan({ resource: "organization", action: "invite" });
  const [dialog, setDialog] = useState<"create" | "invite" | null>(null);
  const { activeOrganizationId } = useAuthSession();

  // Clerk's <CreateOrganization> has no "created" callback: the new organisation becoming active is the sign.
  useEffect(() => {
    setDialog((open) => (open === "create" ? null : open));
  }, [activeOrganizationId]);

  // Spec §2: choosing "create organization" opens our dialog and suppresses Clerk's default action.
  // Clerk renders its popover outside React's tree, so the click is caught on the document, first.
  useEffect(() => {
    const intercept = (event: MouseEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!target?.closest(CREATE_ORGANIZATION_ACTION)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      setDialog("create");
    };
    document.addEventListener("click", intercept, true);
    return () => document.removeEventListener("click", intercept, true);
  }, []);

  return (
    <Flex vertical={!expanded} gap={8} align="center" style={{ width: "100%" }}>
      <OrganizationSwitcher
        hidePersonal
        // Collapsed, the switcher shows the organisation's avatar only, like the rest of the sidebar.
        appearance={expanded ? undefined : COLLAPSED_SWITCHER}
        afterCreateOrganizationUrl={destination}
        afterLeaveOrganizationUrl={destination}
        afterSelectOrganizationUrl={destination}
      />
      {invitePermission?.can && (
        <Tooltip title={strings.organization.invite} placement="right">
          <Button
            type="text"
            icon={<UserAddOutlined />}
            aria-label={strings.organization.invite}
            onClick={() => setDialog("invite")}
          />
        </Tooltip>
      )}
      <Modal open={dialog === "create"} footer={null} onCancel={() => setDialog(null)} destroyOnHidden width="auto">
        <CreateOrganization routing="hash" afterCreateOrganizationUrl={destination} skipInvitationScreen />
      </Modal>
      <OrganizationDialogs open={dialog === "invite" ? "invite" : null} onClose={() => setDialog(null)} onCreated={() => undefined} />
    </Flex>
  );
}

function ClerkUserButton({ expanded }: { expanded: boolean }) {
  return <UserButton showName={expanded} />;
}

const clerkUi: AuthUi = {
  SignIn: ClerkSignIn,
  OrganizationSwitcher: ClerkOrganizationSwitcher,
  UserButton: ClerkUserButton,
};
