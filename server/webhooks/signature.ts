/**
 * Verifying that a webhook comes from the voice provider (ARCHITECTURE.md §6). Two credentials are
 * accepted, as Vapi's webhook credentials send them:
 *
 * - HMAC: `x-signature` = hex SHA-256 HMAC of `{x-timestamp}.{raw body}` with the shared secret
 *   (an optional `sha256=` prefix is tolerated); `x-timestamp` in Unix seconds or milliseconds, at most
 *   five minutes from our clock. When `x-signature` is present it must verify; nothing else is tried.
 * - Bearer: `Authorization: Bearer <secret>` (no timestamp to check).
 *
 * Comparisons are constant-time. The signed string uses the timestamp exactly as it was sent.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-signature";
export const TIMESTAMP_HEADER = "x-timestamp";
/** How far a signed timestamp may be from our clock, either way. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export type WebhookVerification = { ok: true; method: "hmac" | "bearer" } | { ok: false; reason: string };

export function signWebhook(secret: string, timestamp: string, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");
}

/** The headers a signed delivery carries (the sandbox signs as Vapi does; tests sign with it too). */
export function signedHeaders(secret: string, rawBody: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  return { "content-type": "application/json", [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signWebhook(secret, timestamp, rawBody) };
}

/** Equal strings, in time that does not depend on where they differ (hashing first hides the length too). */
function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** A Unix timestamp in seconds or milliseconds → milliseconds; null when it is not one. */
export function timestampMs(raw: string): number | null {
  if (!/^\d{1,16}(\.\d+)?$/.test(raw.trim())) return null;
  const value = Number(raw);
  // 1e11 seconds is the year 5138; 1e11 milliseconds is 1973: anything above is milliseconds.
  return value >= 1e11 ? value : value * 1000;
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export function verifyWebhook(input: {
  secret: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  now?: number;
}): WebhookVerification {
  const { secret, headers, rawBody } = input;
  const signature = single(headers[SIGNATURE_HEADER])?.trim();
  if (signature) {
    const rawTimestamp = single(headers[TIMESTAMP_HEADER])?.trim();
    if (!rawTimestamp) return { ok: false, reason: `The webhook carries ${SIGNATURE_HEADER} without ${TIMESTAMP_HEADER}.` };
    const sentAt = timestampMs(rawTimestamp);
    if (sentAt === null) return { ok: false, reason: `${TIMESTAMP_HEADER} must be a Unix time in seconds or milliseconds.` };
    if (Math.abs((input.now ?? Date.now()) - sentAt) > MAX_CLOCK_SKEW_MS) {
      return { ok: false, reason: `The webhook's ${TIMESTAMP_HEADER} is more than 5 minutes away from the server's clock.` };
    }
    const given = signature.replace(/^sha256=/i, "").toLowerCase();
    const expected = signWebhook(secret, rawTimestamp, rawBody);
    return sameSecret(given, expected) ? { ok: true, method: "hmac" } : { ok: false, reason: "The webhook signature does not match." };
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(single(headers.authorization) ?? "")?.[1];
  if (bearer) return sameSecret(bearer, secret) ? { ok: true, method: "bearer" } : { ok: false, reason: "The webhook credential is not valid." };
  return { ok: false, reason: `The webhook carries neither an ${SIGNATURE_HEADER} signature nor a bearer credential.` };
}
