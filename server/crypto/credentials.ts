/**
 * Secrets at rest (carrier credentials of imported phone numbers): AES-256-GCM with a random 96-bit IV
 * per value and the row they belong to as additional authenticated data, so a sealed value copied to
 * another row (or altered) does not open. Stored as `v1.<base64url(iv | tag | ciphertext)>`.
 *
 * The key: CREDENTIALS_ENCRYPTION_KEY, else derived from the sign-in secret (server/crypto/keys.ts).
 * With several API processes, give them all the same CREDENTIALS_ENCRYPTION_KEY (or BETTER_AUTH_SECRET).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { resolveAuthSecret } from "../auth/local";
import type { AppConfig } from "../config";
import type { Database } from "../db/client";
import { deriveEncryptionKey, ENCRYPTION_KEY_BYTES } from "./keys";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Encrypts `value` (JSON) for the record named by `context` (e.g. "phone_numbers:<id>"). */
  seal(value: unknown, context: string): string;
  /** Decrypts what `seal` made for the same context; throws when the key, the context or the bytes differ. */
  open<T = unknown>(sealed: string, context: string): T;
}

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== ENCRYPTION_KEY_BYTES) throw new Error(`the encryption key must be ${ENCRYPTION_KEY_BYTES} bytes`);
  const secret = Buffer.from(key);
  return {
    seal(value, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", secret, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
    },
    open<T>(sealed: string, context: string): T {
      const [version, payload] = sealed.split(".", 2);
      if (version !== VERSION || !payload) throw new SecretBoxError("not a sealed value this server can read");
      const bytes = Buffer.from(payload, "base64url");
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError("the sealed value is cut short");
      const decipher = createDecipheriv("aes-256-gcm", secret, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
        return JSON.parse(plain.toString("utf8")) as T;
      } catch {
        throw new SecretBoxError("the sealed value does not open with this key (was CREDENTIALS_ENCRYPTION_KEY or the sign-in secret changed?)");
      }
    },
  };
}

/** Where the key came from, for the start-up log. */
export type CredentialsKeySource = "CREDENTIALS_ENCRYPTION_KEY" | "BETTER_AUTH_SECRET" | "DATA_DIR/auth-secret" | "in-memory";

/** The credentials key for this server: CREDENTIALS_ENCRYPTION_KEY, else HKDF from the sign-in secret. */
export function credentialsKey(config: AppConfig, database: Pick<Database, "inMemory" | "kind">): { key: Buffer; source: CredentialsKeySource } {
  if (config.credentialsEncryptionKey) return { key: config.credentialsEncryptionKey, source: "CREDENTIALS_ENCRYPTION_KEY" };
  const source: CredentialsKeySource = config.betterAuthSecret ? "BETTER_AUTH_SECRET" : database.inMemory ? "in-memory" : "DATA_DIR/auth-secret";
  return { key: deriveEncryptionKey(resolveAuthSecret(config, database)), source };
}
