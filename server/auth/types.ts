import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Db } from "../db/client";
import type { Role } from "../../contract";
import type { OrgScope } from "../data/orgScope";

/** Who is calling, taken only from a verified bearer token (never from the body or the query). */
export interface Identity {
  userId: string;
  /** The caller's active organisation, or null when none is chosen (or they are no longer a member). */
  orgId: string | null;
  /** The caller's role in the active organisation, in wire form; null when orgId is null. */
  role: Role | null;
}

export interface InvitationRequest {
  /** The caller's organisation (already checked to be the one in the path). */
  scope: OrgScope;
  inviterUserId: string;
  /** Lower-case. */
  email: string;
  role: Role;
  log: FastifyBaseLogger;
  /**
   * The route's transaction (it holds the organisation's row lock and checked the plan's seats): `scope`
   * is on it, and any other read of the invitation goes through it too (PGlite has one connection).
   */
  tx?: Db;
}

/** One interface for both sign-in services (ARCHITECTURE.md §2): local accounts or Clerk. */
export interface AuthProvider {
  readonly mode: "local" | "clerk";
  /** The identity in a bearer token, or null when the token is not valid (expired, forged, revoked). */
  verify(token: string): Promise<Identity | null>;
  /**
   * Sends an invitation to join the organisation (the route has checked role and membership).
   * Answers the link to hand to the invited person when the provider sends no email itself (local).
   */
  invite(request: InvitationRequest): Promise<{ invitationUrl?: string }>;
  /** Mounts the provider's own HTTP routes (local mode: better-auth under /api/auth). */
  registerRoutes?(app: FastifyInstance): Promise<void>;
  /** Content-Security-Policy additions the console needs for this provider (Clerk's hosts). */
  readonly csp?: Partial<Record<"scriptSrc" | "connectSrc" | "imgSrc" | "frameSrc" | "workerSrc", string[]>>;
}
