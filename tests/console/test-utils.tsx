import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { MemoryRouter, useLocation, type Location } from "react-router";
import { expect, vi } from "vitest";
import type { Role } from "../../contract/roles";
import { SessionStoreProvider } from "../../src/auth/provider";
import type {
  AuthSession,
  AuthSessionStore,
  SessionOrganization,
  SessionStatus,
  SessionUser,
} from "../../src/auth/session";
import { localUi } from "../../src/components/auth/local";
import { AntdRoot } from "../../src/providers/antd-root";
import { RefineRoot } from "../../src/providers/refine-root";
import { ConsoleRoutes } from "../../src/routes";
import { installFetchFake, RESTARTING, type failingList, type FetchFake } from "./fetch-fake";

export { FetchFake, installFetchFake, json, type RecordedRequest } from "./fetch-fake";

// ---------------------------------------------------------------------------------------------
// A fake AuthSession: the same interface the local and Clerk implementations give the console.
// ---------------------------------------------------------------------------------------------

export const ADA: SessionUser = { id: "user_ada", name: "Ada Lovelace", email: "ada@example.com" };
export const ACME: SessionOrganization = { id: "org_acme", name: "Acme Calls", role: "org:admin" };
export const GLOBEX: SessionOrganization = { id: "org_globex", name: "Globex", role: "org:member" };

interface FakeState {
  status: SessionStatus;
  user: SessionUser | null;
  organizations: SessionOrganization[];
  activeOrganizationId: string | null;
}

export class FakeSession implements AuthSessionStore {
  private state: FakeState;
  private snapshot!: AuthSession;
  private listeners = new Set<() => void>();
  /** What getToken() answers; change it to simulate the identity provider issuing a new token. */
  token = "token-1";
  readonly getToken = vi.fn(async () => (this.state.status === "signedIn" ? this.token : null));
  readonly setActive = vi.fn(async (organizationId: string) => this.update({ activeOrganizationId: organizationId }));
  readonly signOut = vi.fn(async () =>
    this.update({ status: "signedOut", user: null, organizations: [], activeOrganizationId: null }),
  );
  /** Which credentials sign in; any other pair fails with better-auth's sentence. */
  readonly accounts = new Map<string, { password: string; name: string }>();
  /** Invitation ids that can be accepted, and the organisation each joins; any other id fails as better-auth does. */
  readonly invitations = new Map<string, SessionOrganization & { email: string }>();
  readonly acceptInvitation = vi.fn(async (invitationId: string): Promise<SessionOrganization> => {
    const invitation = this.invitations.get(invitationId);
    if (!invitation) throw Object.assign(new Error("Invitation not found"), { status: 400 });
    if (invitation.email !== this.state.user?.email) {
      throw Object.assign(new Error("You are not the recipient of the invitation"), { status: 403 });
    }
    this.invitations.delete(invitationId);
    const joined: SessionOrganization = { id: invitation.id, name: invitation.name, role: invitation.role };
    this.update({ organizations: [...this.state.organizations, joined], activeOrganizationId: joined.id });
    return joined;
  });

  constructor(initial: Partial<FakeState> = {}) {
    this.state = {
      status: "signedIn",
      user: ADA,
      organizations: [ACME, GLOBEX],
      activeOrganizationId: ACME.id,
      ...initial,
    };
    this.rebuild();
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.snapshot;

  update(patch: Partial<FakeState>): void {
    this.state = { ...this.state, ...patch };
    this.rebuild();
    for (const listener of this.listeners) listener();
  }

  private rebuild(): void {
    this.snapshot = {
      mode: "local",
      ...this.state,
      getToken: this.getToken,
      signOut: this.signOut,
      setActive: this.setActive,
      createOrganization: async (name) => {
        const created: SessionOrganization = { id: `org_${name.toLowerCase()}`, name, role: "org:admin" };
        this.update({ organizations: [...this.state.organizations, created], activeOrganizationId: created.id });
        return created;
      },
      leaveOrganization: async (organizationId) => {
        const organizations = this.state.organizations.filter((org) => org.id !== organizationId);
        this.update({
          organizations,
          activeOrganizationId: this.state.activeOrganizationId === organizationId ? null : this.state.activeOrganizationId,
        });
      },
      passwordAuth: {
        signIn: async (email, password) => {
          const account = this.accounts.get(email);
          if (!account || account.password !== password) throw new Error("Invalid email or password");
          this.update({ status: "signedIn", user: { id: `user_${email}`, name: account.name, email } });
        },
        signUp: async (name, email, password) => {
          this.accounts.set(email, { name, password });
          this.update({ status: "signedIn", user: { id: `user_${email}`, name, email }, organizations: [] });
        },
        acceptInvitation: this.acceptInvitation,
      },
    };
  }
}

export function signedInAs(role: Role, overrides: Partial<FakeState> = {}): FakeSession {
  return new FakeSession({
    organizations: [{ ...ACME, role }],
    activeOrganizationId: ACME.id,
    ...overrides,
  });
}

// ---------------------------------------------------------------------------------------------
// The render helper: the console's real providers and routes, with the fake session.
// ---------------------------------------------------------------------------------------------

function LocationProbe({ onChange }: { onChange: (location: Location) => void }) {
  onChange(useLocation());
  return null;
}

/** The providers console.tsx mounts (antd, the session with local mode's widgets, Refine). */
export function ConsoleProviders({
  session,
  path = "/dashboard",
  onLocation,
  children,
}: {
  session: FakeSession;
  path?: string;
  onLocation?: (location: Location) => void;
  children: ReactNode;
}) {
  return (
    <MemoryRouter initialEntries={[path]}>
      <AntdRoot motion={false}>
        <SessionStoreProvider store={session} ui={localUi}>
          <RefineRoot>{children}</RefineRoot>
        </SessionStoreProvider>
      </AntdRoot>
      {onLocation && <LocationProbe onChange={onLocation} />}
    </MemoryRouter>
  );
}

/** Renders the console's routes at `path`, signed in as Ada (admin of Acme Calls) unless told otherwise. */
export function renderConsole({
  path = "/dashboard",
  session = new FakeSession(),
  fetch = installFetchFake(),
}: { path?: string; session?: FakeSession; fetch?: FetchFake } = {}) {
  let current: Location | null = null;
  const user = userEvent.setup();
  const result = render(
    <ConsoleProviders session={session} path={path} onLocation={(location) => (current = location)}>
      <ConsoleRoutes />
    </ConsoleProviders>,
  );
  return {
    ...result,
    user,
    session,
    fetch,
    /** The path the console shows now. */
    pathname: () => current?.pathname ?? "",
    /** Its query string (decoded, as a person would read it in the address bar). */
    search: () => decodeURIComponent(current?.search ?? ""),
  };
}

/** Waits until the shell is on screen with the given screen title. */
export async function findScreen(title: string) {
  return screen.findByRole("heading", { level: 1, name: title });
}

export async function waitForPath(read: () => string, expected: string) {
  await waitFor(() => expect(read()).toBe(expected));
}

/**
 * The open dialog titled `title`. Not `findByRole("dialog", { name })` once a tooltip has been shown:
 * under NODE_ENV=test rc-util gives every generated id the same value, "test-id", so a tooltip shown
 * earlier (its popup, id "test-id", stays in the page) comes first for a later dialog's
 * aria-labelledby="test-id", and the dialog is named after the tooltip. In a browser the ids differ.
 */
export function findDialog(title: string): Promise<HTMLElement> {
  return waitFor(() => {
    const dialog = screen.queryAllByRole("dialog").find((candidate) => within(candidate).queryAllByText(title).length > 0);
    if (!dialog) throw new Error(`No open dialog titled "${title}"`);
    return dialog;
  });
}

/**
 * A list answered by failingList: it says it could not be loaded (`title`, the server's detail) and never
 * claims to be empty (`empty`, its "none yet" text), neither after the failure nor while Retry is on its
 * way; once the answer is released, `shown` finds its rows and the error is gone.
 */
export async function retryFailedList(
  list: ReturnType<typeof failingList>,
  user: ReturnType<typeof userEvent.setup>,
  { title, empty, shown, retry = "Retry" }: { title: string; empty: string; shown: () => Promise<unknown>; retry?: string },
): Promise<void> {
  await screen.findByText(title);
  expect(screen.getByText(RESTARTING)).toBeInTheDocument();
  expect(screen.queryByText(empty)).toBeNull();
  list.recover();
  await user.click(screen.getByRole("button", { name: retry }));
  await waitFor(() => expect(list.asked()).toBe(1));
  expect(screen.queryByText(empty)).toBeNull();
  list.release();
  await shown();
  expect(screen.queryByText(title)).toBeNull();
}

/**
 * Answers the console's narrow-screen query (max-width 767.98 px) as a 390 px phone would, until the
 * returned function puts matchMedia back (jsdom matches no media query: every screen is a desktop).
 */
export function asPhone(): () => void {
  const original = window.matchMedia;
  window.matchMedia = ((query: string) => ({ ...original(query), media: query, matches: /max-width: 767/.test(query) })) as typeof window.matchMedia;
  return () => {
    window.matchMedia = original;
  };
}
