import { createContext, useContext, type ComponentType } from "react";
import type { Role } from "../../contract/roles";

/**
 * The one view of "who is signed in, in which organisation" the console reads. Two implementations:
 * `local.ts` (better-auth, the embedded default) and `clerk.tsx` (@clerk/react), chosen at boot from
 * GET /api/config. Nothing else in the console knows which one runs.
 */
export type AuthMode = "local" | "clerk";
export type SessionStatus = "loading" | "signedOut" | "signedIn";

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  imageUrl?: string;
}

export interface SessionOrganization {
  id: string;
  name: string;
  role: Role;
  /**
   * Set (true) when the user is the organisation's only admin: the identity service refuses to let
   * them leave it, so the console does not offer to. Absent when unknown or not the case.
   */
  onlyAdmin?: true;
}

/** Email + password accounts; only the local implementation has them (Clerk brings its own screens). */
export interface PasswordAuth {
  /** Rejects with an Error whose message is the server's sentence. */
  signIn(email: string, password: string): Promise<void>;
  signUp(name: string, email: string, password: string): Promise<void>;
  /**
   * Joins the organisation of an invitation link (the signed-in email must be the invited one) and
   * makes it active. Rejects with the server's sentence and `status` (400 unknown/used/expired, 403 not yours).
   */
  acceptInvitation(invitationId: string): Promise<SessionOrganization>;
}

export interface AuthSession {
  readonly mode: AuthMode;
  readonly status: SessionStatus;
  readonly user: SessionUser | null;
  readonly organizations: readonly SessionOrganization[];
  readonly activeOrganizationId: string | null;
  /** A fresh bearer token for our API, or null when signed out. */
  getToken(): Promise<string | null>;
  signOut(): Promise<void>;
  setActive(organizationId: string): Promise<void>;
  /** Creates the organisation and makes it the active one. */
  createOrganization(name: string): Promise<SessionOrganization>;
  leaveOrganization(organizationId: string): Promise<void>;
  readonly passwordAuth?: PasswordAuth;
}

/** A session that changes over time, read with useSyncExternalStore. */
export interface AuthSessionStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): AuthSession;
}

/** The sign-in and account widgets differ per implementation; the shell places them. */
export interface AuthUi {
  SignIn: ComponentType;
  OrganizationSwitcher: ComponentType<{ expanded: boolean }>;
  UserButton: ComponentType<{ expanded: boolean }>;
}

export interface AuthContextValue {
  session: AuthSession;
  ui: AuthUi;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

function useAuthContext(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuthSession must be used inside an auth session provider");
  return value;
}

export function useAuthSession(): AuthSession {
  return useAuthContext().session;
}

export function useAuthUi(): AuthUi {
  return useAuthContext().ui;
}

export function activeOrganization(session: AuthSession): SessionOrganization | null {
  return session.organizations.find((org) => org.id === session.activeOrganizationId) ?? null;
}

export function activeRole(session: AuthSession): Role | null {
  return activeOrganization(session)?.role ?? null;
}

/** Organisation slugs must be unique; a short random tail keeps two "Acme" organisations apart. */
export function organizationSlug(name: string): string {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  const tail = Math.random().toString(36).slice(2, 8);
  return `${base || "org"}-${tail}`;
}
