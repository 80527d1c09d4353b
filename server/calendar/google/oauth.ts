/**
 * The authorization-code flow's own state: a random `state` (single use, 10 minutes, bound to the
 * organisation and the person who asked) and a PKCE verifier for it. Only the state's sha256 is stored;
 * the verifier is sealed. The browser carries the state to Google and back to /calendar-permission,
 * whose page posts it with Google's code to POST /calendar/google/callback.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import type { SecretBox } from "../../crypto/credentials";
import type { OrgScope } from "../../data/orgScope";
import { calendarOauthStates } from "../../db/schema";
import { GOOGLE_PROVIDER } from "./connections";

export const OAUTH_STATE_TTL_MS = 10 * 60_000;

export const GOOGLE_MESSAGES = {
  notConfigured:
    "Google Calendar is not set up on this server: set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET and restart it (the Calendar permission page says how).",
  stateInvalid: "This Google sign-in is not one this page started for you, or it was already used: start again with Connect Google Calendar.",
  stateExpired: "This Google sign-in took longer than 10 minutes and has expired: start again with Connect Google Calendar.",
  codeRefused: "Google did not accept the sign-in code (it expired or was used already): start again with Connect Google Calendar.",
  scopesMissing:
    "Google Calendar access was not fully granted: on Google's page allow both seeing your availability and editing your events, then connect again.",
  noRefreshToken:
    "Google did not hand out a lasting permission: remove Voice Agents from your Google account's third-party access (myaccount.google.com/permissions), then connect again.",
  reconnect: "Google no longer accepts this calendar permission (it was revoked or has expired): reconnect Google Calendar.",
  notFound: "No such calendar connection in this organisation.",
} as const;

const sha256 = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");
const verifierContext = (stateHash: string) => `calendar_oauth_states:${stateHash}`;

/** PKCE (RFC 7636): a 64-character verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier, "ascii").digest("base64url") };
}

/** A new state for this person in this organisation; expired ones of the organisation are cleared on the way. */
export async function issueOauthState(scope: OrgScope, box: SecretBox, userId: string, now = new Date()): Promise<{ state: string; challenge: string }> {
  await scope.delete(calendarOauthStates, lt(calendarOauthStates.expiresAt, now));
  const state = randomBytes(32).toString("base64url");
  const stateHash = sha256(state);
  const { verifier, challenge } = pkcePair();
  await scope.insert(calendarOauthStates, {
    stateHash,
    userId,
    provider: GOOGLE_PROVIDER,
    codeVerifierEncrypted: box.seal(verifier, verifierContext(stateHash)),
    expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS),
  });
  return { state, challenge };
}

export type StateClaim = { ok: true; codeVerifier: string } | { ok: false; reason: "invalid" | "expired" };

/**
 * Takes the state back, once: it must be this organisation's and this person's, not expired, and not
 * used. A refused state changes nothing (an expired one is left for the next clean-up); an accepted one
 * is deleted before Google is asked, so a second use of it is refused whatever Google answers.
 */
export async function claimOauthState(scope: OrgScope, box: SecretBox, userId: string, state: string, now = new Date()): Promise<StateClaim> {
  const stateHash = sha256(state);
  const mine = and(eq(calendarOauthStates.stateHash, stateHash), eq(calendarOauthStates.userId, userId), eq(calendarOauthStates.provider, GOOGLE_PROVIDER))!;
  const row = await scope.first(calendarOauthStates, mine);
  if (!row?.codeVerifierEncrypted) return { ok: false, reason: "invalid" };
  if (row.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };
  const [claimed] = await scope.delete(calendarOauthStates, mine);
  if (!claimed) return { ok: false, reason: "invalid" };
  return { ok: true, codeVerifier: box.open<string>(row.codeVerifierEncrypted, verifierContext(stateHash)) };
}
