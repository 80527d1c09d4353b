/**
 * Clerk (CLERK_PUBLISHABLE_KEY + CLERK_SECRET_KEY): session tokens verified with @clerk/backend
 * (networkless with CLERK_JWT_KEY), organisation and role read from the token's claims, and
 * invitations sent through Clerk's Backend API. Users, organisations and memberships first seen in a
 * verified token are written to our tables on the fly, so later tables can reference them.
 */
import { randomUUID } from "node:crypto";
import { createClerkClient, verifyToken } from "@clerk/backend";
import { isClerkAPIResponseError } from "@clerk/backend/errors";
import { eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { normaliseRole, ERROR_CODES } from "../../contract";
import type { ClerkConfig } from "../config";
import type { Db } from "../db/client";
import { memberships, organizations, users } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { storedRole } from "./roles";
import type { AuthProvider, Identity, InvitationRequest } from "./types";

/**
 * The email stored for a Clerk user whose token carries none (Clerk's default session token has no
 * email claim): a reserved `.invalid` address (RFC 2606) that can never be delivered to.
 */
export const placeholderEmail = (userId: string) => `${userId.toLowerCase()}@clerk-user.invalid`;

interface SessionClaims {
  sub: string;
  email?: unknown;
  name?: unknown;
  // Session token v2: o = {id, rol: "admin", slg}.
  o?: { id?: unknown; rol?: unknown; slg?: unknown } | undefined;
  // Session token v1.
  org_id?: unknown;
  org_role?: unknown;
  org_slug?: unknown;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);

/** The active organisation in a session token, v2 (`o`) first, then v1 (`org_*`). */
export function organisationClaims(claims: SessionClaims): { id: string; role: string | null; slug: string | null } | null {
  const v2Id = text(claims.o?.id);
  if (v2Id) return { id: v2Id, role: text(claims.o?.rol), slug: text(claims.o?.slg) };
  const v1Id = text(claims.org_id);
  if (v1Id) return { id: v1Id, role: text(claims.org_role), slug: text(claims.org_slug) };
  return null;
}

// Remembering what is already in the database keeps verified requests from writing on every call.
const SEEN_LIMIT = 50_000;
function remember<T>(seen: Map<string, T>, key: string, value: T) {
  if (seen.size >= SEEN_LIMIT) seen.clear();
  seen.set(key, value);
}

export function createClerkAuth(clerk: ClerkConfig, db: Db, log: FastifyBaseLogger): AuthProvider {
  const client = createClerkClient({
    secretKey: clerk.secretKey,
    publishableKey: clerk.publishableKey,
    apiUrl: clerk.apiUrl,
    // The SDK's usage telemetry would call Clerk's collector from the server; nothing here needs it.
    telemetry: { disabled: true },
  });
  const seenUsers = new Map<string, true>();
  const seenOrgs = new Map<string, true>();
  const seenRoles = new Map<string, string>();

  async function ensureUser(claims: SessionClaims) {
    const id = claims.sub;
    if (seenUsers.has(id)) return;
    const email = text(claims.email)?.toLowerCase() ?? null;
    const name = text(claims.name) ?? email?.split("@")[0] ?? "Clerk user";
    await db.insert(users).values({ id, name, email: email ?? placeholderEmail(id) }).onConflictDoNothing();
    const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, id)).limit(1);
    // The claimed email already belongs to another row (e.g. a former local account): keep the placeholder.
    if (!row) await db.insert(users).values({ id, name, email: placeholderEmail(id) }).onConflictDoNothing();
    remember(seenUsers, id, true);
  }

  async function ensureOrganisation(org: { id: string; slug: string | null }) {
    if (seenOrgs.has(org.id)) return;
    const name = org.slug ?? org.id;
    await db.insert(organizations).values({ id: org.id, name, slug: org.slug ?? org.id }).onConflictDoNothing();
    const [row] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, org.id)).limit(1);
    // Slugs are unique here; Clerk's slug may clash with an older row, the id never does.
    if (!row) await db.insert(organizations).values({ id: org.id, name, slug: org.id }).onConflictDoNothing();
    remember(seenOrgs, org.id, true);
  }

  async function ensureMembership(orgId: string, userId: string, role: string) {
    const key = `${orgId} ${userId}`;
    if (seenRoles.get(key) === role) return;
    await db
      .insert(memberships)
      .values({ id: randomUUID(), orgId, userId, role })
      .onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role } });
    remember(seenRoles, key, role);
  }

  async function verify(token: string): Promise<Identity | null> {
    let claims: SessionClaims;
    try {
      claims = (await verifyToken(token, {
        jwtKey: clerk.jwtKey ?? undefined,
        secretKey: clerk.secretKey,
        apiUrl: clerk.apiUrl,
        authorizedParties: clerk.authorizedParties.length > 0 ? clerk.authorizedParties : undefined,
      })) as unknown as SessionClaims;
    } catch (error) {
      log.debug({ reason: (error as Error).message }, "Clerk session token rejected");
      return null;
    }
    if (!text(claims.sub)) return null;
    await ensureUser(claims);
    const org = organisationClaims(claims);
    if (!org) return { userId: claims.sub, orgId: null, role: null };
    const role = normaliseRole(org.role);
    await ensureOrganisation(org);
    await ensureMembership(org.id, claims.sub, storedRole(role));
    return { userId: claims.sub, orgId: org.id, role };
  }

  async function invite({ scope, inviterUserId, email, role }: InvitationRequest): Promise<{ invitationUrl?: string }> {
    try {
      // Clerk emails the invitation with its own link.
      await client.organizations.createOrganizationInvitation({ organizationId: scope.orgId, emailAddress: email, role, inviterUserId });
      return {};
    } catch (error) {
      throw clerkApiError(error, log);
    }
  }

  return {
    mode: "clerk",
    verify,
    invite,
    csp: {
      scriptSrc: [`https://${clerk.frontendApiHost}`, "https://challenges.cloudflare.com"],
      connectSrc: [`https://${clerk.frontendApiHost}`],
      imgSrc: [`https://${clerk.frontendApiHost}`, "https://img.clerk.com"],
      frameSrc: [`https://${clerk.frontendApiHost}`, "https://challenges.cloudflare.com"],
      workerSrc: ["'self'", "blob:"],
    },
  };
}

/** Clerk's answer → ours: its 4xx keep their status and message; anything else is Clerk being unreachable. */
export function clerkApiError(error: unknown, log: FastifyBaseLogger): ApiError {
  if (isClerkAPIResponseError(error) && typeof error.status === "number") {
    const first = error.errors[0];
    const detail = first?.longMessage || first?.message || error.message || "Clerk refused the request.";
    if (error.status === 401 || error.status === 403) {
      // Clerk refusing our secret key is the server's misconfiguration, not the caller's mistake.
      log.error({ status: error.status, detail }, "Clerk rejected the server's credentials (check CLERK_SECRET_KEY)");
      return ApiError.upstream("The sign-in service refused the server's credentials. Please try again later.");
    }
    if (error.status >= 400 && error.status < 500) {
      const code =
        error.status === 409 ? ERROR_CODES.conflict : error.status === 404 ? ERROR_CODES.notFound : error.status === 429 ? ERROR_CODES.rateLimited : ERROR_CODES.badRequest;
      return new ApiError(error.status, code, detail);
    }
  }
  log.error({ err: error }, "Clerk API call failed");
  return ApiError.upstream("The sign-in service could not be reached. Please try again in a moment.");
}
