import { act, render, renderHook, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { InviteMemberModal } from "../../src/components/organization/invite-member-modal";
import { useInviteMember } from "../../src/hooks/use-invite-member";
import { createAccessControlProvider } from "../../src/providers/access-control";
import {
  ACME,
  ConsoleProviders,
  FakeSession,
  findScreen,
  installFetchFake,
  json,
  renderConsole,
  signedInAs,
} from "./test-utils";

const INVITE_PATH = `/api/organization/${ACME.id}/invite`;

async function openInviteDialog(user: ReturnType<typeof userEvent.setup>) {
  await findScreen("Dashboard");
  await user.click(screen.getByRole("button", { name: "Switch organization" }));
  await user.click(await screen.findByRole("menuitem", { name: "Invite member" }));
  return screen.findByRole("dialog", { name: "Invite member" });
}

describe("inviting a member from the organisation switcher", () => {
  it("sends the invitation for the active organisation and says so", async () => {
    const fetch = installFetchFake().on("POST", INVITE_PATH, () => json({ status: "success" }));
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    expect(within(dialog).getByText("Member (org:member)")).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    await screen.findByText("Invitation sent successfully!");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Invite member" })).not.toBeInTheDocument());
    const [request] = fetch.to("POST", INVITE_PATH);
    expect(request?.body).toEqual({ email_address: "grace@example.com", role: "org:member" });
    expect(request?.headers.get("authorization")).toBe("Bearer token-1");
  });

  it("with local accounts shows the invitation link to hand over, with a copy button, until Done", async () => {
    const link = "http://localhost:3000/invitation/5b0c4c1e-8f1e-4e55-9d51-0f6c1d9a2b11";
    const fetch = installFetchFake().on("POST", INVITE_PATH, () => json({ status: "success", invitation_url: link }));
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    const shared = await screen.findByRole("dialog", { name: "Share the invitation link" });
    expect(within(shared).getByText(/Send this link to grace@example.com/)).toBeInTheDocument();
    expect(within(shared).getByText(link)).toBeInTheDocument();
    expect(within(shared).getByRole("button", { name: /copy/i })).toBeInTheDocument();
    await user.click(within(shared).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("can invite an admin", async () => {
    const fetch = installFetchFake().on("POST", INVITE_PATH, () => json({ status: "success" }));
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    await user.type(within(dialog).getByLabelText("Email"), "linus@example.com");
    await user.click(within(dialog).getByLabelText("Role"));
    await user.click(await screen.findByText("Admin (org:admin)"));
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    await screen.findByText("Invitation sent successfully!");
    expect(fetch.to("POST", INVITE_PATH)[0]?.body).toEqual({ email_address: "linus@example.com", role: "org:admin" });
  });

  it("shows the server's detail when the invitation fails, and keeps the dialog open", async () => {
    const fetch = installFetchFake().on("POST", INVITE_PATH, () =>
      json({ detail: "grace@example.com is already a member of this organization.", code: "conflict" }, 409),
    );
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    await screen.findByText("grace@example.com is already a member of this organization.");
    expect(screen.getByRole("dialog", { name: "Invite member" })).toBeInTheDocument();
    expect(screen.queryByText("Invitation sent successfully!")).not.toBeInTheDocument();
  });

  it("says 'Failed to send invitation' when the server gives no detail", async () => {
    const fetch = installFetchFake().on("POST", INVITE_PATH, () => new Response("", { status: 500 }));
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    await screen.findByText("Failed to send invitation");
  });

  it("shows the button loading while the request runs", async () => {
    let answer: (response: Response) => void = () => undefined;
    const fetch = installFetchFake().on("POST", INVITE_PATH, () => new Promise<Response>((resolve) => (answer = resolve)));
    const { user } = renderConsole({ fetch });

    const dialog = await openInviteDialog(user);
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    const send = within(dialog).getByRole("button", { name: "Send invitation" });
    await user.click(send);

    await waitFor(() => expect(send).toHaveClass("ant-btn-loading"));
    answer(json({ status: "success" }));
    await screen.findByText("Invitation sent successfully!");
  });

  it("sends nothing and says 'No organization selected' without an active organisation", async () => {
    const fetch = installFetchFake();
    const session = new FakeSession({ activeOrganizationId: null });
    const user = userEvent.setup();
    render(
      <ConsoleProviders session={session}>
        <InviteMemberModal open onClose={() => undefined} />
      </ConsoleProviders>,
    );

    const dialog = await screen.findByRole("dialog", { name: "Invite member" });
    await user.type(within(dialog).getByLabelText("Email"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));

    await screen.findByText("No organization selected");
    expect(fetch.requests).toEqual([]);
  });
});

describe("useInviteMember's answer", () => {
  function renderInvite(session: FakeSession) {
    const wrapper = ({ children }: { children: ReactNode }) => (
      <ConsoleProviders session={session}>{children}</ConsoleProviders>
    );
    return renderHook(() => useInviteMember(), { wrapper });
  }

  it("is true after a success and false after a failure, loading in between", async () => {
    let status = 200;
    installFetchFake().on("POST", INVITE_PATH, () =>
      status === 200 ? json({ status: "success" }) : json({ detail: "Nope", code: "forbidden" }, status),
    );
    const { result } = renderInvite(new FakeSession());
    expect(result.current.isLoading).toBe(false);

    let pending!: Promise<boolean>;
    act(() => {
      pending = result.current.invite({ email_address: "grace@example.com" });
    });
    expect(result.current.isLoading).toBe(true);
    await act(async () => expect(await pending).toBe(true));
    expect(result.current.isLoading).toBe(false);

    status = 403;
    await act(async () => expect(await result.current.invite({ email_address: "grace@example.com" })).toBe(false));
  });

  it("is false without an active organisation", async () => {
    const fetch = installFetchFake();
    const { result } = renderInvite(new FakeSession({ activeOrganizationId: null }));
    await act(async () => expect(await result.current.invite({ email_address: "grace@example.com" })).toBe(false));
    expect(fetch.requests).toEqual([]);
  });
});

describe("who may invite", () => {
  it("offers Invite member to an admin", async () => {
    const { user } = renderConsole({ session: signedInAs("org:admin") });
    await findScreen("Dashboard");
    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    await screen.findByRole("menuitem", { name: "Invite member" });
  });

  it("hides Invite member from a member", async () => {
    const { user } = renderConsole({ session: signedInAs("org:member") });
    await findScreen("Dashboard");
    await user.click(screen.getByRole("button", { name: "Switch organization" }));

    await screen.findByRole("menuitem", { name: "Create organization" });
    expect(screen.getByRole("menuitem", { name: "Leave organization" })).toBeInTheDocument();
    expect(screen.queryByRole("menuitem", { name: "Invite member" })).not.toBeInTheDocument();
  });

  it("answers from the contract's permission table", async () => {
    let role: "org:admin" | "org:member" | null = "org:member";
    const accessControl = createAccessControlProvider(() => role);
    expect(await accessControl.can({ resource: "organization", action: "invite" })).toMatchObject({ can: false });
    expect(await accessControl.can({ resource: "agent", action: "create" })).toMatchObject({ can: true });
    expect(await accessControl.can({ resource: "phonenumber", action: "delete" })).toMatchObject({ can: false });
    role = "org:admin";
    expect(await accessControl.can({ resource: "organization", action: "invite" })).toMatchObject({ can: true });
    role = null;
    expect(await accessControl.can({ resource: "agent", action: "list" })).toMatchObject({ can: false });
    expect(await accessControl.can({ resource: "spaceship", action: "list" })).toMatchObject({ can: false });
  });
});

describe("the invitation link's page (/invitation/:invitationId)", () => {
  const INITECH = { id: "org_initech", name: "Initech", role: "org:member" as const };

  it("asks a signed-out visitor to sign in, then joins the organisation and opens its dashboard", async () => {
    const session = new FakeSession({ status: "signedOut", user: null, organizations: [], activeOrganizationId: null });
    session.accounts.set("grace@example.com", { password: "correct horse", name: "Grace Hopper" });
    session.invitations.set("inv-1", { ...INITECH, email: "grace@example.com" });
    const { user, pathname } = renderConsole({ session, path: "/invitation/inv-1" });

    await user.type(await screen.findByLabelText("Email"), "grace@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    await screen.findByText("You joined Initech.");
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
    expect(session.acceptInvitation).toHaveBeenCalledWith("inv-1");
    expect(session.getSnapshot().activeOrganizationId).toBe(INITECH.id);
  });

  it("says whose account it is when the link was meant for another email, and offers to sign out", async () => {
    const session = new FakeSession();
    session.invitations.set("inv-2", { ...INITECH, email: "someone-else@example.com" });
    const { user } = renderConsole({ session, path: "/invitation/inv-2" });

    await screen.findByRole("heading", { name: "This invitation cannot be used" });
    expect(screen.getByText(/You are not the recipient of the invitation\. You are signed in as ada@example\.com/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Sign out" }));
    expect(session.signOut).toHaveBeenCalled();
    expect(session.getSnapshot().organizations.map((org) => org.id)).not.toContain(INITECH.id);
  });

  it("says an unknown, used or expired link cannot be used, with a way to the dashboard", async () => {
    const { user, pathname } = renderConsole({ path: "/invitation/no-such-invitation" });
    await screen.findByRole("heading", { name: "This invitation cannot be used" });
    expect(screen.getByText("Invitation not found")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Sign out" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Go to Dashboard" }));
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
  });
});
