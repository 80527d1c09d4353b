/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that signs into an
 * account (or creates it) gets a cookie naming that account, which lets it keep signing in while the account is
 * locked for untrusted clients (./sign-in-throttle.ts).
 *
 * One cookie, `sign_in_device`, holds the tokens for up to DEVICE_COOKIE_ACCOUNTS accounts (the most recent first),
 * separated by "~". A token is `{account}.{nonce}.{expires}.{signature}`:
 * - account: an HMAC of the lower-cased email (the cookie never carries the email itself);
 * - nonce: 16 random bytes, new at every successful sign-in, naming the token's own failure count;
 * - expires: Unix seconds, DEVICE_COOKIE_DAYS after it was issued;
 * - signature: HMAC-SHA256 over the three, with a key derived from the sign-in secret (BETTER_AUTH_SECRET or
 *   DATA_DIR/auth-secret), so every API process sharing the secret accepts it, and nothing else makes one.
 * HttpOnly, SameSite=Lax, Secure when the server is reached over https, and sent only to /api/auth/sign-in.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const DEVICE_COOKIE = "sign_in_device";
export const DEVICE_COOKIE_PATH = "/api/auth/sign-in";
export const DEVICE_COOKIE_DAYS = 180;
export const DEVICE_COOKIE_ACCOUNTS = 5;

const TOKEN = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/;

/** Every value of the cookie `name` in a Cookie header (a browser may send one per path). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  return header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
}

export interface DeviceCookies {
  /** The nonce of a valid, unexpired token in the Cookie header that names this account; null when there is none. */
  trusted(cookieHeader: string | undefined, email: string): string | null;
  /** The Set-Cookie for a browser that has just signed into `email`: a new token first, its other valid accounts' tokens after. */
  issue(cookieHeader: string | undefined, email: string, options: { secure: boolean }): string;
}

export function deviceCookies(secret: string, now: () => number = Date.now): DeviceCookies {
  const key = createHmac("sha256", secret).update("sign-in device cookie v1").digest();
  const mac = (value: string) => createHmac("sha256", key).update(value).digest("base64url");
  const account = (email: string) => mac(`account:${email.trim().toLowerCase()}`).slice(0, 22);

  /** The valid, unexpired tokens in the header, each with its account and nonce. */
  function tokens(cookieHeader: string | undefined): { token: string; account: string; nonce: string }[] {
    const found: { token: string; account: string; nonce: string }[] = [];
    for (const value of cookieValues(cookieHeader, DEVICE_COOKIE)) {
      for (const token of value.split("~")) {
        if (!TOKEN.test(token)) continue;
        const [tokenAccount, nonce, expires, signature] = token.split(".") as [string, string, string, string];
        if (Number(expires) * 1000 <= now()) continue;
        const expected = Buffer.from(mac(`${tokenAccount}.${nonce}.${expires}`));
        const given = Buffer.from(signature);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) continue;
        found.push({ token, account: tokenAccount, nonce });
      }
    }
    return found;
  }

  return {
    trusted(cookieHeader, email) {
      const wanted = account(email);
      return tokens(cookieHeader).find((token) => token.account === wanted)?.nonce ?? null;
    },
    issue(cookieHeader, email, { secure }) {
      const tokenAccount = account(email);
      const nonce = randomBytes(16).toString("base64url");
      const expires = Math.floor(now() / 1000) + DEVICE_COOKIE_DAYS * 86_400;
      const fresh = `${tokenAccount}.${nonce}.${expires}.${mac(`${tokenAccount}.${nonce}.${expires}`)}`;
      // The other accounts this browser has signed into, one token each, the most recent first.
      const seen = new Set([tokenAccount]);
      const kept: string[] = [];
      for (const token of tokens(cookieHeader)) {
        if (seen.has(token.account) || kept.length >= DEVICE_COOKIE_ACCOUNTS - 1) continue;
        seen.add(token.account);
        kept.push(token.token);
      }
      const value = [fresh, ...kept].join("~");
      const attributes = [`Path=${DEVICE_COOKIE_PATH}`, `Max-Age=${DEVICE_COOKIE_DAYS * 86_400}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])];
      return [`${DEVICE_COOKIE}=${value}`, ...attributes].join("; ");
    },
  };
}
