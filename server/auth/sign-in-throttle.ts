/**
 * Sign-in throttle (local accounts): after 5 failed passwords within 15 minutes, for one account (any
 * client) or from one client address (any account), further sign-ins are answered 429 with Retry-After
 * until the 15 minutes since the first failure are over. A successful sign-in clears the account's count;
 * the client's count stands until its window ends, so that signing into an account of one's own cannot
 * reset the count of guesses at other accounts from the same address.
 *
 * Counted in Redis when REDIS_URL is set (the rate limits' connection), so every API process shares the
 * counts; in-process otherwise. Each attempt takes its place atomically before the password is checked
 * (`begin`), so a burst of simultaneous guesses cannot slip past the limit: the place is kept when the
 * password was wrong, cleared with the whole count on success, and given back when the attempt was not a
 * password check at all (e.g. a malformed request). If Redis does not answer, the counts fall back to this
 * process's memory with a warning (at most one a minute), rather than letting guesses through uncounted.
 *
 * Keys hold a SHA-256 of the lower-cased email or of the client address, never the address or email itself.
 * The client address is request.ip: the connection's address, or X-Forwarded-For's client behind a
 * TRUST_PROXY proxy.
 */
import { createHash } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";

export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_THROTTLE_NAMESPACE = "voice-agent-platform:sign-in-failures:";

/** Where an attempt stands: allowed (its place taken), or refused for `retryAfterMs`. */
export type Attempt = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface FailureCounter {
  /** Takes a place for one attempt under every key, unless one of them is already at the limit. */
  begin(keys: string[]): Promise<Attempt>;
  /** The attempt was not a password check: give its place back. */
  release(keys: string[]): Promise<void>;
  /** The password was right: forget the failures under every key. */
  reset(keys: string[]): Promise<void>;
}

/** The counters one sign-in attempt counts in: the account's (when the request names an email) and the client address's. */
export function throttleKeys(email: string | null, clientIp: string): string[] {
  const hash = (value: string) => createHash("sha256").update(value).digest("base64url");
  const client = `client:${hash(clientIp)}`;
  return email ? [`account:${hash(email.trim().toLowerCase())}`, client] : [client];
}

/** An account's key (the one a successful sign-in clears), as opposed to a client address's. */
export const isAccountKey = (key: string): boolean => key.startsWith("account:");

/** In-process counts: one fixed window per key, starting at its first failure. Bounded (oldest go first). */
export function memoryFailureCounter(options: { max?: number; windowMs?: number; maxKeys?: number; now?: () => number } = {}): FailureCounter {
  const max = options.max ?? SIGN_IN_MAX_FAILURES;
  const windowMs = options.windowMs ?? SIGN_IN_WINDOW_MS;
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
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

  return {
    async begin(keys) {
      let retryAfterMs = 0;
      for (const key of keys) {
        const entry = live(key);
        if (entry && entry.n >= max) retryAfterMs = Math.max(retryAfterMs, entry.endsAt - now());
      }
      if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
      for (const key of keys) {
        const entry = live(key);
        if (entry) entry.n += 1;
        else {
          makeRoom();
          counts.set(key, { n: 1, endsAt: now() + windowMs });
        }
      }
      return { allowed: true };
    },
    async release(keys) {
      for (const key of keys) {
        const entry = live(key);
        if (entry && --entry.n <= 0) counts.delete(key);
      }
    },
    async reset(keys) {
      for (const key of keys) counts.delete(key);
    },
  };
}

// KEYS: the counters; ARGV: max, window (ms). Returns {1, 0} (place taken) or {0, ms until the window ends}.
const BEGIN = `
local wait = 0
for _, key in ipairs(KEYS) do
  local n = tonumber(redis.call('GET', key) or '0')
  if n >= tonumber(ARGV[1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[2]) end
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return {0, wait} end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[2]) end
end
return {1, 0}`;

// Gives a place back without going below zero (a success may have cleared the count meanwhile).
const RELEASE = `
for _, key in ipairs(KEYS) do
  local n = tonumber(redis.call('GET', key) or '0')
  if n <= 1 then redis.call('DEL', key) else redis.call('DECR', key) end
end
return 1`;

/** Counts in Redis (shared by every API process); this process's memory while Redis does not answer. */
export function redisFailureCounter(redis: Redis, log: FastifyBaseLogger, options: { max?: number; windowMs?: number } = {}): FailureCounter {
  const max = options.max ?? SIGN_IN_MAX_FAILURES;
  const windowMs = options.windowMs ?? SIGN_IN_WINDOW_MS;
  const fallback = memoryFailureCounter({ max, windowMs });
  const names = (keys: string[]) => keys.map((key) => `${SIGN_IN_THROTTLE_NAMESPACE}${key}`);
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
    begin: (keys) =>
      run(
        async () => {
          const [allowed, wait] = (await redis.eval(BEGIN, keys.length, ...names(keys), max, windowMs)) as [number, number];
          return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs: Number(wait) };
        },
        () => fallback.begin(keys),
      ),
    release: (keys) =>
      run(
        async () => {
          await redis.eval(RELEASE, keys.length, ...names(keys));
        },
        () => fallback.release(keys),
      ),
    reset: (keys) =>
      run(
        async () => {
          if (keys.length > 0) await redis.del(...names(keys));
          await fallback.reset(keys);
        },
        () => fallback.reset(keys),
      ),
  };
}

/** The sentence the sign-in form shows, e.g. "Too many failed sign-in attempts: try again in 15 minutes." */
export function throttledDetail(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed sign-in attempts: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
