import { describe, expect, it } from "vitest";
import { SessionCache } from "../../server/auth/session-cache";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("SessionCache: verified identities remembered briefly", () => {
  it("answers from memory within the time to live, then looks up again", async () => {
    const time = clock();
    const cache = new SessionCache<string>(5_000, 100, time.now);
    let lookups = 0;
    const load = async () => ({ value: `user-${++lookups}` });
    expect(await cache.get("token", load)).toBe("user-1");
    time.advance(4_999);
    expect(await cache.get("token", load)).toBe("user-1");
    time.advance(1);
    expect(await cache.get("token", load)).toBe("user-2");
  });

  it("never remembers past the session's own expiry", async () => {
    const time = clock();
    const cache = new SessionCache<string>(5_000, 100, time.now);
    let lookups = 0;
    const load = async () => ({ value: `user-${++lookups}`, expiresAt: new Date(time.now() + 1_000) });
    await cache.get("token", load);
    time.advance(1_000);
    expect(await cache.get("token", load)).toBe("user-2");
  });

  it("does not remember refused tokens", async () => {
    const cache = new SessionCache<string>(5_000);
    let lookups = 0;
    const refuse = async () => (lookups++, null);
    expect(await cache.get("bad", refuse)).toBeNull();
    expect(await cache.get("bad", refuse)).toBeNull();
    expect(lookups).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("invalidate() forgets everything, and a lookup that raced it is not stored", async () => {
    const cache = new SessionCache<string>(5_000);
    await cache.get("a", async () => ({ value: "old-a" }));
    let release!: () => void;
    const racing = cache.get("b", () => new Promise((resolve) => (release = () => resolve({ value: "old-b" }))));
    cache.invalidate(); // e.g. a sign-out finished while b was being looked up
    release();
    expect(await racing).toBe("old-b");
    expect(await cache.get("a", async () => ({ value: "new-a" }))).toBe("new-a");
    expect(await cache.get("b", async () => ({ value: "new-b" }))).toBe("new-b");
  });

  it("stays within its bound however many tokens arrive", async () => {
    const cache = new SessionCache<number>(60_000, 50);
    for (let i = 0; i < 500; i++) await cache.get(`token-${i}`, async () => ({ value: i }));
    expect(cache.size).toBeLessThanOrEqual(50);
    expect(await cache.get("token-499", async () => ({ value: -1 }))).toBe(499);
  });

  it("with a time to live of 0 it is a pass-through", async () => {
    const cache = new SessionCache<string>(0);
    let lookups = 0;
    await cache.get("t", async () => ({ value: `v${++lookups}` }));
    expect(await cache.get("t", async () => ({ value: `v${++lookups}` }))).toBe("v2");
    expect(cache.size).toBe(0);
  });
});
