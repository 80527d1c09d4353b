/**
 * Sign-in throttle (local accounts), after OWASP's "Slow Down Online Guessing Attacks with Device Cookies".
 *
 * - A browser that has signed into an account before holds a device cookie for it (./device-cookie.ts). Its
 *   attempts at that account are counted under the cookie alone: 5 failed passwords within 15 minutes lock that
 *   cookie (and no other) until the 15 minutes since its first failure are over; it then counts as untrusted.
 * - Every other attempt (no cookie for this account, a tampered or foreign one, a locked one, an API client) is
 *   untrusted, and counted twice:
 *   - per account: 5 failed passwords within 15 minutes lock the account for untrusted clients (any address)
 *     until the 15 minutes since the first failure are over. Browsers with a device cookie for it still sign in.
 *   - per client address: a slow-down, not a lockout. 10 failures pass at once, then one more per minute (each
 *     failure drains after a minute): guessing across many accounts from one address gets about 60 tries an hour,
 *     while the others behind the same address (an office, a NAT) wait at most a minute, and only once 10
 *     failures have piled up. A trusted device is never slowed by its address.
 *   Refusals are 429 with Retry-After and a sentence for the form.
 * - A successful sign-in clears the count it was made under (the device cookie's, or the account's), never the
 *   address's: signing into one's own account must not launder guesses at other accounts. A trusted sign-in
 *   leaves the account's untrusted count alone, so an attacker elsewhere stays locked out.
 *
 * Counted in Redis when REDIS_URL is set (the rate limits' connection), so every API process shares the counts
 * (the slow-down reads Redis's clock); in-process otherwise. Each attempt takes its place atomically before the
 * password is checked (`begin`), so a burst of simultaneous guesses cannot slip past the limit: the place is kept
 * when the password was wrong, cleared (lockouts) or given back (the slow-down) on success, and given back when the
 * attempt was not a password check at all (e.g. a malformed request). If Redis does not answer, the counts fall
 * back to this process's memory with a warning (at most one a minute), rather than letting guesses through uncounted.
 *
 * Keys hold a SHA-256 of the lower-cased email, of the client address or of the device cookie's nonce, never the
 * value itself. The client address is request.ip: the connection's address, or X-Forwarded-For's client behind
 * a TRUST_PROXY proxy.
 */
import { createHash } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";

/** Failed passwords an account (untrusted clients) or a device cookie may have within the window. */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures from one client address that pass at once, then one more every SIGN_IN_ADDRESS_INTERVAL_MS. */
export const SIGN_IN_ADDRESS_BURST = 10;
export const SIGN_IN_ADDRESS_INTERVAL_MS = 60_000;
export const SIGN_IN_THROTTLE_NAMESPACE = "voice-agent-platform:sign-in-failures:";

/**
 * One count an attempt is made under. A lockout counts failures in a fixed window from the first and refuses
 * at `max` until the window ends; a slow-down lets `burst` failures pass, each draining after `intervalMs`.
 */
export type Limit =
  | { key: string; kind: "lockout"; max: number; windowMs: number }
  | { key: string; kind: "slowdown"; burst: number; intervalMs: number };

/** Where an attempt stands: allowed (its place taken), or refused for `retryAfterMs` by `key`'s limit. */
export type Attempt = { allowed: true } | { allowed: false; retryAfterMs: number; key: string };

export interface FailureCounter {
  /** Takes a place for one attempt under every limit, unless one of them refuses it. */
  begin(limits: Limit[]): Promise<Attempt>;
  /** The attempt was not a password check (or must not stay counted): give its place back. */
  release(limits: Limit[]): Promise<void>;
  /** The password was right: forget the failures under every limit. */
  reset(limits: Limit[]): Promise<void>;
}

const hash = (value: string) => createHash("sha256").update(value).digest("base64url");

/** An account's count of failures from untrusted clients. */
export const accountLimit = (email: string): Limit => ({
  key: `account:${hash(email.trim().toLowerCase())}`,
  kind: "lockout",
  max: SIGN_IN_MAX_FAILURES,
  windowMs: SIGN_IN_WINDOW_MS,
});

/** One device cookie's count (its nonce names it). */
export const deviceLimit = (nonce: string): Limit => ({ key: `device:${hash(nonce)}`, kind: "lockout", max: SIGN_IN_MAX_FAILURES, windowMs: SIGN_IN_WINDOW_MS });

/** A client address's slow-down. */
export const addressLimit = (clientIp: string): Limit => ({
  key: `client:${hash(clientIp)}`,
  kind: "slowdown",
  burst: SIGN_IN_ADDRESS_BURST,
  intervalMs: SIGN_IN_ADDRESS_INTERVAL_MS,
});

/** The counts an untrusted attempt is made under: the account's (when the request names an email) and the address's. */
export function untrustedLimits(email: string | null, clientIp: string): Limit[] {
  return email ? [accountLimit(email), addressLimit(clientIp)] : [addressLimit(clientIp)];
}

/** Why an attempt was refused: its account (or device cookie) is locked, or its address is slowed down. */
export type Refusal = "locked" | "slowed";

/** A sign-in attempt's place in the throttle: what it was counted under, and whether as a trusted device. */
export interface Admission {
  limits: Limit[];
  trusted: boolean;
}

export interface SignInThrottle {
  /**
   * Takes a place for a sign-in attempt: under the device cookie's count when the browser holds a valid one for
   * this account that is not locked, else under the account's and the address's.
   */
  begin(attempt: { email: string | null; clientIp: string; deviceNonce: string | null }): Promise<{ allowed: true; admission: Admission } | { allowed: false; retryAfterMs: number; refusal: Refusal }>;
  /** How the password check ended: success clears the lockouts and gives back the slow-down's place; failure keeps them; anything else gives all back. */
  settle(admission: Admission, outcome: "success" | "failure" | "other"): Promise<void>;
}

export function signInThrottle(counter: FailureCounter): SignInThrottle {
  return {
    async begin({ email, clientIp, deviceNonce }) {
      if (email && deviceNonce) {
        const limits = [deviceLimit(deviceNonce)];
        // A locked device cookie only loses its own standing: the attempt goes on as an untrusted one.
        if ((await counter.begin(limits)).allowed) return { allowed: true, admission: { limits, trusted: true } };
      }
      const limits = untrustedLimits(email, clientIp);
      const attempt = await counter.begin(limits);
      if (attempt.allowed) return { allowed: true, admission: { limits, trusted: false } };
      const refused = limits.find((limit) => limit.key === attempt.key);
      return { allowed: false, retryAfterMs: attempt.retryAfterMs, refusal: refused?.kind === "slowdown" ? "slowed" : "locked" };
    },
    async settle({ limits }, outcome) {
      if (outcome === "failure") return;
      if (outcome === "other") return counter.release(limits);
      await counter.reset(limits.filter((limit) => limit.kind === "lockout"));
      await counter.release(limits.filter((limit) => limit.kind === "slowdown"));
    },
  };
}

/** In-process counts. Bounded (expired entries go first, then the oldest). */
export function memoryFailureCounter(options: { maxKeys?: number; now?: () => number } = {}): FailureCounter {
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  // Lockouts: the count and when its window ends. Slow-downs: n unused, endsAt = when the last failure has drained.
  const counts = new Map<string, { n: number; endsAt: number }>();

  const live = (key: string) => {
    const entry = counts.get(key);
    if (entry && entry.endsAt <= now()) {
      counts.delete(key);
      return undefined;
    }
    return entry;
  };
  const makeRoom = () => {
    if (counts.size < maxKeys) return;
    for (const [key, entry] of counts) if (entry.endsAt <= now()) counts.delete(key);
    let drop = Math.max(1, Math.floor(maxKeys / 10));
    for (const key of counts.keys()) {
      if (counts.size < maxKeys || drop-- <= 0) break;
      counts.delete(key);
    }
  };
  /** How long `limit` refuses the next attempt (0: it takes it). */
  const wait = (limit: Limit): number => {
    const entry = live(limit.key);
    if (!entry) return 0;
    if (limit.kind === "lockout") return entry.n >= limit.max ? entry.endsAt - now() : 0;
    return Math.max(0, entry.endsAt + limit.intervalMs - now() - limit.burst * limit.intervalMs);
  };

  return {
    async begin(limits) {
      let refusal: { retryAfterMs: number; key: string } | null = null;
      for (const limit of limits) {
        const ms = wait(limit);
        if (ms > 0 && (!refusal || ms > refusal.retryAfterMs)) refusal = { retryAfterMs: ms, key: limit.key };
      }
      if (refusal) return { allowed: false, ...refusal };
      for (const limit of limits) {
        const entry = live(limit.key);
        if (limit.kind === "lockout") {
          if (entry) entry.n += 1;
          else {
            makeRoom();
            counts.set(limit.key, { n: 1, endsAt: now() + limit.windowMs });
          }
        } else if (entry) entry.endsAt += limit.intervalMs;
        else {
          makeRoom();
          counts.set(limit.key, { n: 0, endsAt: now() + limit.intervalMs });
        }
      }
      return { allowed: true };
    },
    async release(limits) {
      for (const limit of limits) {
        const entry = live(limit.key);
        if (!entry) continue;
        if (limit.kind === "lockout") {
          if (--entry.n <= 0) counts.delete(limit.key);
        } else if ((entry.endsAt -= limit.intervalMs) <= now()) counts.delete(limit.key);
      }
    },
    async reset(limits) {
      for (const limit of limits) counts.delete(limit.key);
    },
  };
}

/** ARGV for the scripts: per key, its kind ("l" lockout, "s" slow-down) and two numbers. */
const scriptArgs = (limits: Limit[]): (string | number)[] =>
  limits.flatMap((limit) => (limit.kind === "lockout" ? ["l", limit.max, limit.windowMs] : ["s", limit.burst, limit.intervalMs]));

// Redis's clock in ms, so that every API process's slow-down agrees (scripts replicate by effects since Redis 5).
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: the counts; ARGV: per key, kind and its two numbers (lockout: max, window ms; slow-down: burst, ms per
// failure, the key holding when the last failure has drained). Returns {1, 0, 0} (place taken) or {0, ms to wait, the key's index}.
const BEGIN = `${NOW}
local wait, which = 0, 0
for i, key in ipairs(KEYS) do
  local kind, a, b = ARGV[3 * i - 2], tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  local ms = 0
  if kind == 'l' then
    if tonumber(redis.call('GET', key) or '0') >= a then
      ms = redis.call('PTTL', key)
      if ms < 0 then ms = b end
    end
  else
    local drained = math.max(tonumber(redis.call('GET', key) or '0'), now)
    ms = drained + b - now - a * b
  end
  if ms > wait then wait, which = ms, i end
end
if wait > 0 then return {0, wait, which} end
for i, key in ipairs(KEYS) do
  local kind, b = ARGV[3 * i - 2], tonumber(ARGV[3 * i])
  if kind == 'l' then
    if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, b) end
  else
    local drained = math.max(tonumber(redis.call('GET', key) or '0'), now) + b
    redis.call('SET', key, string.format('%.0f', drained), 'PX', drained - now)
  end
end
return {1, 0, 0}`;

// Gives a place back without going below zero (a success may have cleared the count meanwhile).
const RELEASE = `${NOW}
for i, key in ipairs(KEYS) do
  local kind, b = ARGV[3 * i - 2], tonumber(ARGV[3 * i])
  local value = redis.call('GET', key)
  if value then
    if kind == 'l' then
      if tonumber(value) <= 1 then redis.call('DEL', key) else redis.call('DECR', key) end
    else
      local drained = tonumber(value) - b
      if drained <= now then redis.call('DEL', key) else redis.call('SET', key, string.format('%.0f', drained), 'PX', drained - now) end
    end
  end
end
return 1`;

/** Counts in Redis (shared by every API process); this process's memory while Redis does not answer. */
export function redisFailureCounter(redis: Redis, log: FastifyBaseLogger): FailureCounter {
  const fallback = memoryFailureCounter();
  const names = (limits: Limit[]) => limits.map((limit) => `${SIGN_IN_THROTTLE_NAMESPACE}${limit.key}`);
  let warnedAt = Number.NEGATIVE_INFINITY;
  const warn = (error: unknown) => {
    if (Date.now() - warnedAt < 60_000) return;
    warnedAt = Date.now();
    log.warn({ err: error }, `Redis did not answer (${(error as Error).message}): failed sign-ins are counted in this process only until it does`);
  };
  async function run<T>(work: () => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      warn(error);
      return otherwise();
    }
  }
  return {
    begin: (limits) =>
      run(
        async () => {
          if (limits.length === 0) return { allowed: true };
          const [allowed, wait, which] = (await redis.eval(BEGIN, limits.length, ...names(limits), ...scriptArgs(limits))) as [number, number, number];
          return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs: Number(wait), key: limits[Number(which) - 1]?.key ?? "" };
        },
        () => fallback.begin(limits),
      ),
    release: (limits) =>
      run(
        async () => {
          if (limits.length > 0) await redis.eval(RELEASE, limits.length, ...names(limits), ...scriptArgs(limits));
        },
        () => fallback.release(limits),
      ),
    reset: (limits) =>
      run(
        async () => {
          if (limits.length > 0) await redis.del(...names(limits));
          await fallback.reset(limits);
        },
        () => fallback.reset(limits),
      ),
  };
}

const inWords = (seconds: number): string => {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
};

/**
 * The sentence the sign-in form shows, e.g. "Too many failed sign-in attempts for this account: try again in
 * 15 minutes, or from a browser you have signed in with before." (an account locked for untrusted clients) or
 * "Too many failed sign-in attempts from this network: try again in 40 seconds." (an address slowed down).
 */
export function throttledDetail(retryAfterSeconds: number, refusal: Refusal = "locked"): string {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  if (refusal === "slowed") return `Too many failed sign-in attempts from this network: try again in ${inWords(seconds)}.`;
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Too many failed sign-in attempts for this account: try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or from a browser you have signed in with before.`;
}
