/**
 * The console's bearer token in local mode: a short-lived signed token, like Clerk's session token.
 *
 * The browser's session lives in better-auth's HttpOnly cookie, which page JavaScript cannot read; the
 * console asks GET /api/auth/token (with that cookie) for one of these every 10 s and puts it on its API
 * requests. A token copied out of the page (say by injected script) works for 5 minutes at most and cannot
 * be exchanged for another one: minting needs the cookie (or the session token an API client got by signing
 * in with the password), never a token of this kind.
 *
 * Format: a compact JWT (HS256) with the claims sub (user id), sid (better-auth session id), iat and exp,
 * signed with a key derived (HKDF-SHA256) from the sign-in secret, so it is never the key better-auth signs
 * its cookies with. Verifying it is one HMAC and a JSON parse, no I/O (server/auth/local.ts then reads who
 * the session is and where it belongs through the session cache, as for a session token).
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** How long a token is accepted: minutes, not days (the console fetches a new one every 10 s). */
export const API_TOKEN_TTL_SECONDS = 5 * 60;

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
const PREFIX = `${HEADER}.`;
const MAX_LENGTH = 1024;

export interface ApiTokenClaims {
  /** better-auth user id. */
  userId: string;
  /** better-auth session id (not the session token). */
  sessionId: string;
  /** When it stops being accepted (ms since the epoch). */
  expiresAt: number;
}

export interface ApiTokens {
  /** Whether `token` has this token kind's shape (not whether it is valid): session tokens never do. */
  isApiToken(token: string): boolean;
  issue(subject: { userId: string; sessionId: string }): { token: string; expiresAt: Date };
  /** The claims of a token signed with this key and not yet expired; null otherwise. */
  verify(token: string): ApiTokenClaims | null;
}

export function createApiTokens(secret: string, options: { ttlSeconds?: number; now?: () => number } = {}): ApiTokens {
  const key = Buffer.from(hkdfSync("sha256", secret, "", "voice-agent-platform: console bearer token v1", 32));
  const ttlSeconds = options.ttlSeconds ?? API_TOKEN_TTL_SECONDS;
  const now = options.now ?? (() => Date.now());
  const sign = (signingInput: string) => createHmac("sha256", key).update(signingInput).digest();

  return {
    isApiToken: (token) => token.startsWith(PREFIX),

    issue({ userId, sessionId }) {
      const iat = Math.floor(now() / 1000);
      const exp = iat + ttlSeconds;
      const payload = Buffer.from(JSON.stringify({ sub: userId, sid: sessionId, iat, exp })).toString("base64url");
      const signingInput = `${PREFIX}${payload}`;
      return { token: `${signingInput}.${sign(signingInput).toString("base64url")}`, expiresAt: new Date(exp * 1000) };
    },

    verify(token) {
      if (token.length > MAX_LENGTH || !token.startsWith(PREFIX)) return null;
      const dot = token.indexOf(".", PREFIX.length);
      if (dot < 0 || token.indexOf(".", dot + 1) >= 0) return null;
      const signature = Buffer.from(token.slice(dot + 1), "base64url");
      const expected = sign(token.slice(0, dot));
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
      let claims: { sub?: unknown; sid?: unknown; exp?: unknown };
      try {
        claims = JSON.parse(Buffer.from(token.slice(PREFIX.length, dot), "base64url").toString("utf8")) as typeof claims;
      } catch {
        return null;
      }
      if (typeof claims?.sub !== "string" || typeof claims.sid !== "string" || typeof claims.exp !== "number") return null;
      const expiresAt = claims.exp * 1000;
      if (expiresAt <= now()) return null;
      return { userId: claims.sub, sessionId: claims.sid, expiresAt };
    },
  };
}
