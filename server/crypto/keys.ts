/**
 * The key that encrypts carrier credentials at rest (server/crypto/credentials.ts).
 *
 * CREDENTIALS_ENCRYPTION_KEY, when set: 32 bytes written as 64 hexadecimal characters or as base64 /
 * base64url (43 or 44 characters; `openssl rand -base64 32`). When unset the key is derived with
 * HKDF-SHA256 from the sign-in secret (BETTER_AUTH_SECRET, or the one generated once and kept in
 * DATA_DIR/auth-secret): the same secret always gives the same key, so stored credentials stay readable
 * across restarts. Changing either secret makes credentials stored before unreadable (re-enter them).
 */
import { hkdfSync } from "node:crypto";

export const ENCRYPTION_KEY_BYTES = 32;

export const ENCRYPTION_KEY_FORMAT = "must be 32 bytes written as 64 hex characters or base64 (make one with: openssl rand -base64 32)";

/** The 32-byte key in `value` (hex, base64 or base64url), or null when it is not one. */
export function parseEncryptionKey(value: string): Buffer | null {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    return bytes.length === ENCRYPTION_KEY_BYTES ? bytes : null;
  }
  return null;
}

const HKDF_SALT = "voice-agent-platform/credentials";
const HKDF_INFO = "carrier-credentials aes-256-gcm v1";

/** The credentials key derived from a secret (HKDF-SHA256; fixed salt and info, 32 bytes). */
export function deriveEncryptionKey(secret: string): Buffer {
  if (!secret) throw new Error("deriveEncryptionKey needs a secret");
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), HKDF_SALT, HKDF_INFO, ENCRYPTION_KEY_BYTES));
}
