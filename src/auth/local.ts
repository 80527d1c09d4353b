import { createAuthClient } from "better-auth/react";
import { organizationClient } from "better-auth/client/plugins";
import { apiPaths, API_BASE } from "../../contract/api";
import type { ApiToken } from "../../contract/auth-token";
import { normaliseRole } from "../../contract/roles";
import { strings } from "../config/strings";
import {
  organizationSlug,
  type AuthSession,
  type AuthSessionStore,
  type SessionOrganization,
  type SessionStatus,
  type SessionUser,
} from "./session";

/**
 * Local accounts (the embedded default): better-auth at /api/auth with its organization plugin.
 * The browser holds better-auth's HttpOnly session cookie, which this code cannot read; our own API is
 * called with a short-lived signed token (a few minutes) that getToken() fetches from GET /api/auth/token
 * with that cookie, every 10 s through the token store. The answer also says whose session it is and which
 * organisation is active, so the refresh notices a session that ended or changed in another tab.
 */
export function createLocalAuthClient(origin: string = window.location.origin) {
  return createAuthClient({
    baseURL: origin,
    basePath: `${API_BASE}${apiPaths.auth}`,
    plugins: [organizationClient()],
    // Resolve fetch on every call rather than once, so a replaced global fetch (tests) is used.
    fetchOptions: { customFetchImpl: (input, init) => globalThis.fetch(input, init) },
  });
}

type LocalAuthClient = ReturnType<typeof createLocalAuthClient>;

interface LocalState {
  status: SessionStatus;
  user: SessionUser | null;
  organizations: SessionOrganization[];
  activeOrganizationId: string | null;
  /**
   * The organisation the server's session says is active, even one the user no longer belongs to
   * (activeOrganizationId is null then): what each token refresh is compared with, so that such a
   * session does not look changed, and load everything again, every 10 s.
   */
  sessionActiveOrganizationId: string | null;
  /** The last short-lived bearer token fetched (kept when a refresh fails, as the token store does). */
  token: string | null;
}

const SIGNED_OUT: LocalState = {
  status: "signedOut",
  user: null,
  organizations: [],
  activeOrganizationId: null,
  sessionActiveOrganizationId: null,
  token: null,
};

interface BetterAuthError {
  message?: string | undefined;
  status?: number;
}

/**
 * better-auth refuses to let the last member holding the organization plugin's creator role leave
 * ("You cannot leave the organization as the only owner"); ours is "admin" (server/auth/local.ts).
 */
const CREATOR_ROLE = "admin";
const isCreatorRole = (role: string | null | undefined) => (role ?? "").split(",").map((part) => part.trim()).includes(CREATOR_ROLE);

function failure(error: BetterAuthError | null | undefined, fallback: string): Error {
  return new Error(error?.message || fallback);
}

export class LocalAuthSessionStore implements AuthSessionStore {
  private state: LocalState = { ...SIGNED_OUT, status: "loading" };
  private snapshot: AuthSession;
  private listeners = new Set<() => void>();
  private loadSequence = 0;

  private started = false;

  constructor(private readonly client: LocalAuthClient = createLocalAuthClient()) {
    this.snapshot = this.buildSnapshot();
  }

  /** The first subscriber starts the first load (a store React created and dropped never asks). */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.started) {
      this.started = true;
      void this.load();
    }
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): AuthSession => this.snapshot;

  private setState(next: LocalState): void {
    this.state = next;
    this.snapshot = this.buildSnapshot();
    for (const listener of this.listeners) listener();
  }

  /** Reads the session, the organisations and the user's role in each. The newest load wins. */
  async load(): Promise<void> {
    const sequence = ++this.loadSequence;
    try {
      await this.read(sequence);
    } catch {
      // The auth server could not be reached: a first load shows the sign-in screen, whose own
      // request then says what is wrong; a later one keeps what the user already sees.
      if (sequence === this.loadSequence && this.state.status === "loading") this.setState(SIGNED_OUT);
    }
  }

  private async read(sequence: number): Promise<void> {
    const { data, error } = await this.client.getSession();
    if (error) throw failure(error, strings.auth.signInFailed);
    if (sequence !== this.loadSequence) return;
    if (!data?.session || !data.user) {
      this.setState(SIGNED_OUT);
      return;
    }

    const { data: listed, error: listError } = await this.client.organization.list();
    // Without the list the console would wrongly offer to create a first organisation: keep what is shown.
    if (listError) throw failure(listError, strings.organization.switchFailed);
    const activeId = data.session.activeOrganizationId ?? null;
    const organizations = await Promise.all(
      (listed ?? []).map(async (org): Promise<SessionOrganization> => {
        // The list carries no role; ask for the user's role in each organisation.
        const { data: member } = await this.client.organization.getActiveMemberRole({
          query: { organizationId: org.id },
        });
        // Only the active organisation can be left from the switcher: count its admins, no other's.
        const onlyAdmin = org.id === activeId && isCreatorRole(member?.role) && (await this.adminCount(org.id)) === 1;
        return { id: org.id, name: org.name, role: normaliseRole(member?.role), ...(onlyAdmin ? { onlyAdmin } : {}) };
      }),
    );
    if (sequence !== this.loadSequence) return;

    this.setState({
      status: "signedIn",
      user: {
        id: data.user.id,
        name: data.user.name || data.user.email,
        email: data.user.email,
        ...(data.user.image ? { imageUrl: data.user.image } : {}),
      },
      organizations,
      activeOrganizationId: organizations.some((org) => org.id === activeId) ? activeId : null,
      sessionActiveOrganizationId: activeId,
      // Same person: keep the last token until the token store fetches the next one.
      token: this.state.user?.id === data.user.id ? this.state.token : null,
    });
  }

  /** How many members hold the creator role (one request, no rows: limit 1 and the total); null when unknown. */
  private async adminCount(organizationId: string): Promise<number | null> {
    const { data, error } = await this.client.organization.listMembers({
      query: { organizationId, filterField: "role", filterOperator: "eq", filterValue: CREATOR_ROLE, limit: 1 },
    });
    return error || typeof data?.total !== "number" ? null : data.total;
  }

  /** A short-lived bearer token for the session in the cookie; null once the session has ended. */
  private async getToken(): Promise<string | null> {
    const { data, error } = await this.client.$fetch<{ data: ApiToken }>(apiPaths.authToken.slice(apiPaths.auth.length), {
      method: "GET",
      // The session changed or ended elsewhere are answers too: no retries, no cache.
      cache: "no-store",
    });
    if (error) {
      if (error.status !== 401) return this.state.token;
      // Signed out (in another tab, or the session expired): let the console see it.
      this.state = { ...this.state, token: null };
      if (this.state.status === "signedIn") void this.load();
      return null;
    }
    if (!data?.data) return this.state.token;
    const { token, userId, activeOrganizationId } = data.data;
    const changed = userId !== this.state.user?.id || activeOrganizationId !== this.state.sessionActiveOrganizationId;
    this.state = { ...this.state, token };
    if (changed) void this.load();
    return token;
  }

  private async signIn(email: string, password: string): Promise<void> {
    const { error } = await this.client.signIn.email({ email, password });
    // 429: too many failed passwords; the server's sentence says for how long.
    if (error) throw failure(error, error.status === 429 ? strings.auth.tooManyAttempts : strings.auth.signInFailed);
    await this.load();
  }

  private async signUp(name: string, email: string, password: string): Promise<void> {
    const { error } = await this.client.signUp.email({ name, email, password });
    if (error) throw failure(error, strings.auth.signUpFailed);
    await this.load();
  }

  private async acceptInvitation(invitationId: string): Promise<SessionOrganization> {
    const { data, error } = await this.client.organization.acceptInvitation({ invitationId });
    if (error || !data) throw Object.assign(failure(error, strings.invitation.failedFallback), { status: error?.status });
    await this.load();
    const joined = this.state.organizations.find((org) => org.id === data.member.organizationId);
    return joined ?? { id: data.member.organizationId, name: data.member.organizationId, role: normaliseRole(data.member.role) };
  }

  private async signOut(): Promise<void> {
    this.loadSequence += 1;
    try {
      await this.client.signOut();
    } finally {
      this.setState(SIGNED_OUT);
    }
  }

  private async setActive(organizationId: string): Promise<void> {
    const { error } = await this.client.organization.setActive({ organizationId });
    if (error) throw failure(error, strings.organization.switchFailed);
    await this.load();
  }

  private async createOrganization(name: string): Promise<SessionOrganization> {
    const { data, error } = await this.client.organization.create({ name, slug: organizationSlug(name) });
    if (error || !data) throw failure(error, strings.organization.createFailed);
    // better-auth makes a new organisation active; say so explicitly so it holds whatever the server's option.
    await this.client.organization.setActive({ organizationId: data.id });
    await this.load();
    return { id: data.id, name: data.name, role: "org:admin" };
  }

  private async leaveOrganization(organizationId: string): Promise<void> {
    const { error } = await this.client.organization.leave({ organizationId });
    if (error) throw failure(error, strings.organization.leaveFailed);
    await this.load();
  }

  private buildSnapshot(): AuthSession {
    const { status, user, organizations, activeOrganizationId } = this.state;
    return {
      mode: "local",
      status,
      user,
      organizations,
      activeOrganizationId,
      getToken: () => this.getToken(),
      signOut: () => this.signOut(),
      setActive: (id) => this.setActive(id),
      createOrganization: (name) => this.createOrganization(name),
      leaveOrganization: (id) => this.leaveOrganization(id),
      passwordAuth: {
        signIn: (email, password) => this.signIn(email, password),
        signUp: (name, email, password) => this.signUp(name, email, password),
        acceptInvitation: (invitationId) => this.acceptInvitation(invitationId),
      },
    };
  }
}
