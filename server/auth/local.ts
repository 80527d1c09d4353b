/**
 * Local accounts (no Clerk keys): better-auth with email + password, organisations and bearer tokens,
 * stored in our own database through the drizzle adapter. Invitations are rows in `invitations`;
 * a person accepts by signing up or signing in with the invited email (see onSessionStart).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { fromNodeHeaders } from "better-auth/node";
import { bearer } from "better-auth/plugins/bearer";
import { organization } from "better-auth/plugins/organization";
import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { API_BASE, apiPaths, apiTokenSchema, INVITATION_TTL_DAYS, invitationPath, normaliseRole, type ApiToken } from "../../contract";
import { ApiError } from "../plugins/errors";
import type { AppConfig } from "../config";
import type { Database, Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { betterAuthTables, invitations, memberships, organizations, sessions as sessionRows } from "../db/schema";
import { storedRole } from "./roles";
import { createApiTokens } from "./api-token";
import { SessionCache } from "./session-cache";
import { deviceCookies } from "./device-cookie";
import { memoryFailureCounter, redisFailureCounter, signInThrottle, throttledDetail, type Admission } from "./sign-in-throttle";
import type { AuthProvider, Identity, InvitationRequest } from "./types";

export const INVITATION_TTL_MS = INVITATION_TTL_DAYS * 24 * 60 * 60 * 1000;
export const MIN_PASSWORD_LENGTH = 8;

/**
 * BETTER_AUTH_SECRET, or one generated once and kept in DATA_DIR/auth-secret so sessions survive a
 * restart; an in-memory database gets a fresh one per process (nothing to survive anyway).
 */
export function resolveAuthSecret(config: AppConfig, database: Pick<Database, "inMemory" | "kind">): string {
  if (config.betterAuthSecret) return config.betterAuthSecret;
  if (database.inMemory) return randomBytes(32).toString("base64url");
  const file = join(config.dataDir, "auth-secret");
  if (existsSync(file)) {
    const saved = readFileSync(file, "utf8").trim();
    if (saved.length >= 32) return saved;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Origins better-auth accepts requests from (its CSRF check compares the Origin header). */
export function trustedOrigins(config: AppConfig): string[] {
  const origins = new Set([new URL(config.publicUrl).origin, ...config.corsOrigins]);
  if (!config.isProduction) {
    // Vite's dev server, and the API reached as localhost or 127.0.0.1 interchangeably.
    origins.add("http://localhost:5173");
    origins.add(`http://localhost:${config.port}`);
    origins.add(`http://127.0.0.1:${config.port}`);
  }
  return [...origins];
}

/**
 * Whether a request comes from a browser: browsers send Origin with every POST and the session cookie with
 * every same-site request that can have a session, and page JavaScript can remove neither.
 */
export function fromBrowser(request: Pick<FastifyRequest, "headers">): boolean {
  const { headers } = request;
  return Boolean(headers.origin || headers.cookie || headers["sec-fetch-mode"]);
}

/**
 * better-auth's answers without the long-lived session token (sign-in's and sign-up's `token`,
 * get-session's `session.token`, list-sessions' tokens), for browsers: there the session lives only in the
 * HttpOnly cookie, and the console's bearer is the short-lived token from GET /api/auth/token.
 */
export function withoutSessionTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSessionTokens);
  if (!value || typeof value !== "object") return value;
  const { token: _token, ...rest } = value as Record<string, unknown>;
  if (rest.session && typeof rest.session === "object") rest.session = withoutSessionTokens(rest.session);
  return rest;
}

/**
 * Runs when a session is created (sign-up, sign-in): the organisation the session opens in, the
 * oldest membership, or null. Invitations are NOT accepted here: a person joins only by opening the
 * invitation link (its id is the capability) while signed in with the invited email, through
 * better-auth's /organization/accept-invitation. Email alone would let whoever first registers an
 * invited address join, since local accounts cannot verify email.
 */
export async function onSessionStart(db: Db, userId: string): Promise<string | null> {
  const [first] = await db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.id))
    .limit(1);
  return first?.orgId ?? null;
}

/**
 * better-auth's errors in the API's shape (ARCHITECTURE.md: `{detail, code}`): `{message, code:
 * "INVALID_EMAIL_OR_PASSWORD"}` becomes `{detail, code: "invalid_email_or_password", message}`. `message`
 * stays, because better-auth's browser client reads it. An empty body (an unknown /api/auth path) gets
 * a sentence of its own.
 */
export function authErrorBody(status: number, body: Buffer | null): { detail: string; code: string; message: string } {
  let parsed: { message?: unknown; code?: unknown } = {};
  try {
    parsed = body && body.length > 0 ? (JSON.parse(body.toString("utf8")) as typeof parsed) ?? {} : {};
  } catch {
    // Not JSON: fall back to the status's sentence below.
  }
  const fallback: Record<number, [string, string]> = {
    400: ["The request is not valid.", "validation_error"],
    401: ["Sign in again: your session has ended or the credentials are wrong.", "unauthorized"],
    403: ["You may not do this.", "forbidden"],
    404: ["Not found.", "not_found"],
    429: ["Too many requests: try again in a minute.", "rate_limited"],
  };
  const [fallbackDetail, fallbackCode] = fallback[status] ?? ["The sign-in service could not answer.", status >= 500 ? "internal_error" : "request_error"];
  const detail = typeof parsed.message === "string" && parsed.message.trim() ? parsed.message : fallbackDetail;
  const code = typeof parsed.code === "string" && parsed.code.trim() ? parsed.code.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_") : fallbackCode;
  return { detail, code, message: detail };
}

export function createBetterAuth(config: AppConfig, database: Database, log: FastifyBaseLogger, secret: string = resolveAuthSecret(config, database)) {
  const { db } = database;
  return betterAuth({
    appName: "Voice Agent Platform",
    baseURL: config.publicUrl,
    basePath: "/api/auth",
    secret,
    trustedOrigins: trustedOrigins(config),
    database: drizzleAdapter(db, { provider: "pg", schema: betterAuthTables }),
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD_LENGTH, autoSignIn: true },
    // Every id better-auth makes (organisations, users, members, sessions, ...) is a random UUID like every
    // other id here (ARCHITECTURE.md §3). Rows made before keep their ids (ids are text).
    advanced: { database: { generateId: () => randomUUID() } },
    plugins: [
      organization({
        creatorRole: "admin",
        // better-auth asks for a verified email before an invitation is accepted by id whenever ids come from a
        // custom generator, in case they are guessable. Ours are random UUIDs (v4, 122 random bits), as the
        // invitations our invite route writes are; local accounts cannot verify email, so keep it off.
        requireEmailVerificationOnInvitation: false,
        // Our tables follow the project's convention: organisation-owned rows carry orgId (org_id).
        schema: { member: { fields: { organizationId: "orgId" } }, invitation: { fields: { organizationId: "orgId" } } },
      }),
      bearer(),
    ],
    databaseHooks: {
      session: {
        create: {
          before: async (session) => {
            const orgId = await onSessionStart(db, session.userId);
            if (session.activeOrganizationId || !orgId) return;
            return { data: { ...session, activeOrganizationId: orgId } };
          },
        },
      },
    },
    telemetry: { enabled: false },
    logger: {
      log: (level, message, ...args) => {
        log[level]({ args: args.length ? args : undefined }, `better-auth: ${message}`);
      },
    },
  });
}

export type BetterAuth = ReturnType<typeof createBetterAuth>;

export function createLocalAuth(
  config: AppConfig,
  database: Database,
  log: FastifyBaseLogger,
): AuthProvider & { auth: BetterAuth; sessions: SessionCache<Identity> } {
  const { db } = database;
  const secret = resolveAuthSecret(config, database);
  const auth = createBetterAuth(config, database, log, secret);
  const tokens = createApiTokens(secret);
  const devices = deviceCookies(secret);
  const sessions = new SessionCache<Identity>(config.sessionCacheSeconds * 1000);

  /** The identity of an active organisation's member, or of someone in no organisation (removed since choosing it). */
  async function withRole(userId: string, orgId: string | null, expiresAt: Date): Promise<{ value: Identity; expiresAt: Date }> {
    if (!orgId) return { value: { userId, orgId: null, role: null }, expiresAt };
    const [membership] = await db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
      .limit(1);
    // Removed from the organisation since choosing it: the session keeps no organisation rights.
    if (!membership) return { value: { userId, orgId: null, role: null }, expiresAt };
    return { value: { userId, orgId, role: normaliseRole(membership.role) }, expiresAt };
  }

  /** A session token (API clients that signed in with the password): better-auth reads it, as on /api/auth. */
  async function lookUp(token: string): Promise<{ value: Identity; expiresAt: Date } | null> {
    const result = await auth.api.getSession({ headers: new Headers({ authorization: `Bearer ${token}` }) });
    if (!result) return null;
    return withRole(result.user.id, result.session.activeOrganizationId ?? null, new Date(result.session.expiresAt));
  }

  /** The session a short-lived token names, if it has not ended: who it is and where it is active now. */
  async function lookUpSession(sessionId: string): Promise<{ value: Identity; expiresAt: Date } | null> {
    const [session] = await db
      .select({ userId: sessionRows.userId, orgId: sessionRows.activeOrganizationId, expiresAt: sessionRows.expiresAt })
      .from(sessionRows)
      .where(and(eq(sessionRows.id, sessionId), gt(sessionRows.expiresAt, new Date())))
      .limit(1);
    if (!session) return null;
    return withRole(session.userId, session.orgId, session.expiresAt);
  }

  /**
   * A short-lived token (the console's): its signature and expiry are checked offline; who the session is and
   * which organisation it is active in come from the session cache (keyed by session id, so the token
   * refreshed every 10 s keeps hitting the same entry), read from the database at most every
   * SESSION_CACHE_SECONDS. So signing out, switching organisation and removal from an organisation take
   * effect as they do for session tokens (at once on this process, within SESSION_CACHE_SECONDS elsewhere),
   * not only when the token expires.
   */
  async function verifyApiToken(token: string): Promise<Identity | null> {
    const claims = tokens.verify(token);
    if (!claims) return null;
    const identity = await sessions.get(`session-id:${claims.sessionId}`, () => lookUpSession(claims.sessionId));
    return identity?.userId === claims.userId ? identity : null;
  }

  const verify = (token: string): Promise<Identity | null> =>
    tokens.isApiToken(token) ? verifyApiToken(token) : sessions.get(token, () => lookUp(token));

  async function invite({ scope, inviterUserId, email, role, log: requestLog, tx }: InvitationRequest): Promise<{ invitationUrl: string }> {
    const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
    const changes = { role: storedRole(role), expiresAt, inviterId: inviterUserId };
    // and() of two conditions is never undefined; drizzle's type allows it for an empty list.
    const pending = and(eq(invitations.email, email), eq(invitations.status, "pending")) as SQL;
    // A pending invitation for the same person is refreshed (new expiry and role), not duplicated.
    let [invitation] = await scope.update(invitations, changes, pending);
    if (!invitation) {
      try {
        invitation = await scope.insert(invitations, { id: randomUUID(), email, status: "pending", ...changes });
      } catch (error) {
        // A simultaneous request created it first (one pending invitation per email): refresh that one.
        if (!isUniqueViolation(error)) throw error;
        [invitation] = await scope.update(invitations, changes, pending);
      }
    }
    if (!invitation) throw new Error("The invitation was neither created nor found");
    const invitationUrl = `${config.publicUrl}${invitationPath(invitation.id)}`;
    const [org] = await (tx ?? db).select({ name: organizations.name }).from(organizations).where(eq(organizations.id, scope.orgId)).limit(1);
    requestLog.info(`Invitation for ${email} to ${org?.name ?? scope.orgId}: they join by opening ${invitationUrl} and signing in with that email`);
    return { invitationUrl };
  }

  const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
  /**
   * better-auth's headers not passed on: Set-Cookie and the length are set below; `set-auth-token` (the
   * bearer plugin repeating the session token in a header page JavaScript can read, with its CORS
   * exposure) is never sent: API clients get the session token in the sign-in answer, browsers not at all.
   */
  const PROXY_DROPS = new Set(["set-cookie", "content-length", "set-auth-token", "access-control-expose-headers"]);
  /** better-auth paths that only add a session or an account (see the invalidation below). */
  const CREATES_ONLY = /^\/api\/auth\/(sign-in|sign-up)\//;

  /** The email a sign-in request names (JSON or a form, as better-auth reads them), or null. */
  function emailIn(request: FastifyRequest): string | null {
    if (!(request.body instanceof Buffer) || request.body.length === 0 || request.body.length > 64 * 1024) return null;
    const type = String(request.headers["content-type"] ?? "").toLowerCase();
    try {
      const text = request.body.toString("utf8");
      const email = type.includes("application/x-www-form-urlencoded") ? new URLSearchParams(text).get("email") : (JSON.parse(text) as { email?: unknown })?.email;
      return typeof email === "string" && email.trim() ? email : null;
    } catch {
      return null;
    }
  }

  /**
   * GET /api/auth/token: a short-lived bearer token (./api-token.ts) for the session in the HttpOnly cookie,
   * or in the session token an API client sends as its bearer. Never for a short-lived token itself
   * (better-auth does not take one for a session), so a copied token cannot be renewed. better-auth's
   * sliding expiry is kept: when it extends the session, the renewed cookie goes out with the answer.
   */
  async function issueToken(request: FastifyRequest, reply: FastifyReply): Promise<ApiToken | null> {
    const { headers, response } = await auth.api.getSession({ headers: fromNodeHeaders(request.headers), returnHeaders: true });
    const cookies = headers.getSetCookie();
    if (cookies.length > 0) reply.header("set-cookie", cookies);
    if (!response) return null;
    const { token, expiresAt } = tokens.issue({ userId: response.user.id, sessionId: response.session.id });
    return { token, expiresAt: expiresAt.toISOString(), userId: response.user.id, activeOrganizationId: response.session.activeOrganizationId ?? null };
  }

  async function registerRoutes(app: FastifyInstance): Promise<void> {
    app.get(
      `${API_BASE}${apiPaths.authToken}`,
      {
        // Public to the bearer check: it is how a browser gets a bearer, from its session cookie.
        config: { public: true },
        schema: {
          tags: ["auth"],
          summary: "A short-lived bearer token (5 minutes) for the signed-in session (local accounts)",
          description: "Reads the HttpOnly session cookie (or an API client's session token as the bearer). 401 when signed out.",
          response: { 200: apiTokenSchema },
        },
      },
      async (request, reply) => {
        // The token must not be kept by any cache between the browser and here.
        reply.header("cache-control", "no-store");
        const issued = await issueToken(request, reply);
        if (!issued) throw ApiError.unauthorized("Sign in again: your session has ended.");
        return { data: issued };
      },
    );

    // Failed passwords, per device cookie, per account and per client address (./sign-in-throttle.ts): in Redis when the rate limits are.
    const throttle = signInThrottle(app.rateLimitRedis ? redisFailureCounter(app.rateLimitRedis, app.log) : memoryFailureCounter());
    const SIGN_IN_PATH = "/api/auth/sign-in/email";
    const SIGN_UP_PATH = "/api/auth/sign-up/email";
    // The device cookie is Secure whenever the browser reaches us over https (better-auth's cookies follow PUBLIC_URL).
    const publicHttps = new URL(config.publicUrl).protocol === "https:";
    const INVITE_MEMBER_PATH = "/api/auth/organization/invite-member";

    await app.register(async (scope) => {
      // better-auth reads the raw body itself: hand it over untouched, whatever its type.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
      scope.route({
        method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        url: "/api/auth/*",
        config: { public: true },
        schema: { hide: true },
        handler: async (request, reply) => {
          const url = new URL(request.url, `${request.protocol}://${request.headers.host ?? "localhost"}`);
          const init: RequestInit = { method: request.method, headers: fromNodeHeaders(request.headers) };
          if (request.body instanceof Buffer && request.body.length > 0) init.body = new Uint8Array(request.body);

          // Invitations are made only by POST /api/organization/{id}/invite, which checks the role, membership and
          // the plan's seats under the organisation's lock; better-auth's own endpoint would skip all of that.
          if (url.pathname === INVITE_MEMBER_PATH) {
            throw ApiError.notFound("No API route here: invite members with POST /api/organization/{organizationId}/invite.");
          }

          // A password sign-in takes a place in the throttle first: as a trusted device when the browser holds a device
          // cookie for this account, else for the account and the client address; refused while that place is locked.
          const signingIn = request.method === "POST" && url.pathname === SIGN_IN_PATH;
          const signingUp = request.method === "POST" && url.pathname === SIGN_UP_PATH;
          const email = signingIn || signingUp ? emailIn(request) : null;
          let throttled: Admission | null = null;
          if (signingIn) {
            // No email we can read: better-auth will likely refuse it, but the client address is still counted.
            const deviceNonce = email ? devices.trusted(request.headers.cookie, email) : null;
            const attempt = await throttle.begin({ email, clientIp: request.ip, deviceNonce });
            if (!attempt.allowed) {
              const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
              const detail = throttledDetail(seconds, attempt.refusal);
              return reply
                .status(429)
                .header("retry-after", String(seconds))
                .type("application/json; charset=utf-8")
                .send({ detail, code: "rate_limited", message: detail });
            }
            throttled = attempt.admission;
          }
          let response: Response;
          try {
            response = await auth.handler(new Request(url, init));
          } catch (error) {
            if (throttled) await throttle.settle(throttled, "other");
            throw error;
          }
          // Success clears the count it was made under (not the address's: signing into one's own account must not
          // launder guesses at other accounts); a wrong password (401) keeps its place; anything else gives it back.
          if (throttled) await throttle.settle(throttled, response.ok ? "success" : response.status === 401 ? "failure" : "other");
          // A browser that signed into an account, or created it, is trusted for it from now on (a new nonce each time).
          const deviceCookie =
            (signingIn || signingUp) && response.ok && email
              ? devices.issue(request.headers.cookie, email, { secure: publicHttps || request.protocol === "https" })
              : null;
          // Anything but a read may have signed someone out, switched organisation or changed a
          // membership: forget the remembered identities before the answer goes out. Except when
          // nothing existing can have changed: a sign-in or sign-up (a new session, a new account), or
          // a request better-auth refused (4xx), so anonymous requests cannot keep emptying the memory.
          const mayChangeIdentities = !READ_METHODS.has(request.method) && !CREATES_ONLY.test(url.pathname) && !(response.status >= 400 && response.status < 500);
          if (mayChangeIdentities) sessions.invalidate();
          reply.status(response.status);
          response.headers.forEach((value, key) => {
            if (!PROXY_DROPS.has(key)) reply.header(key, value);
          });
          const cookies = response.headers.getSetCookie();
          if (deviceCookie) cookies.push(deviceCookie);
          if (cookies.length > 0) reply.header("set-cookie", cookies);
          const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
          if (response.status >= 400) return reply.type("application/json; charset=utf-8").send(authErrorBody(response.status, body));
          if (body && fromBrowser(request) && /^application\/json/i.test(response.headers.get("content-type") ?? "")) {
            return reply.send(withoutSessionTokens(JSON.parse(body.toString("utf8"))));
          }
          return reply.send(body);
        },
      });
    });
  }

  return { mode: "local", auth, verify, invite, registerRoutes, sessions };
}
