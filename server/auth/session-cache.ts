/**
 * A short in-process memory of verified identities, keyed by a SHA-256 of the bearer token (the
 * token itself is never kept), or of the session id for the console's short-lived tokens (./api-token.ts:
 * a new one every 10 s, all naming the same session, share one entry). Without it every signed-in request pays a session lookup, a user
 * lookup and a membership lookup (~4 ms on PostgreSQL, more than the work of most routes).
 *
 * Correctness rules:
 * - An entry lives at most `ttlMs` and never past the session's own expiry.
 * - `invalidate()` forgets everything at once; the local provider calls it after every request that
 *   can change who someone is or where they belong (any non-GET under /api/auth: sign-out, switching
 *   organisation, removing a member, changing a role, leaving, deleting an organisation), though not
 *   after a sign-in or sign-up, nor after one better-auth refused with a 4xx.
 * - A lookup that started before an invalidation is not stored (generation check), so a request
 *   racing a sign-out cannot put the old identity back.
 * - Only valid identities are stored; refused tokens are looked up every time, and the map is
 *   bounded (oldest entries go first), so random tokens cannot grow it.
 * Several API processes each keep their own memory: a change made through one is seen by the
 * others within `ttlMs` (the same order as a Clerk session token's 60 s lifetime, but shorter).
 */
import { createHash } from "node:crypto";

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export class SessionCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The cached value for `token`, or what `load` returns (stored when it is not null). */
  async get(token: string, load: () => Promise<{ value: T; expiresAt?: Date | null } | null>): Promise<T | null> {
    if (!this.enabled) return (await load())?.value ?? null;
    const key = createHash("sha256").update(token).digest("base64url");
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && hit.expiresAt > now) return hit.value;
    if (hit) this.entries.delete(key);
    const generation = this.generation;
    const loaded = await load();
    if (!loaded) return null;
    if (generation === this.generation) {
      const sessionEnds = loaded.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
      const expiresAt = Math.min(this.now() + this.ttlMs, sessionEnds);
      if (expiresAt > this.now()) {
        if (this.entries.size >= this.maxEntries) this.evict();
        this.entries.set(key, { value: loaded.value, expiresAt });
      }
    }
    return loaded.value;
  }

  /** Forget every identity (after sign-out, an organisation switch, a membership change). */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries, then the oldest tenth if still full. */
  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    if (this.entries.size < this.maxEntries) return;
    let drop = Math.max(1, Math.floor(this.maxEntries / 10));
    for (const key of this.entries.keys()) {
      if (drop-- <= 0) break;
      this.entries.delete(key);
    }
  }
}
