/**
 * The limits on POST /call/public, all configurable (PUBLIC_CALL_* in .env.example):
 *
 * - per client IP: PUBLIC_CALL_PER_IP_PER_MINUTE (default 5), every request counts — the route's own
 *   @fastify/rate-limit setting (in-process store, like the rest of the API's limits);
 * - per destination number: PUBLIC_CALL_PER_NUMBER_PER_HOUR (default 3) calls placed to one number,
 *   across every public agent — in this process (ARCHITECTURE.md §2: Redis when several processes run);
 * - per agent: PUBLIC_CALL_PER_AGENT_PER_DAY (default 100) outbound calls in the last 24 hours, counted
 *   from the calls table (countAgentCallsSince), so it holds across processes.
 *
 * A refused request answers 429 with a sentence saying which limit and when to try again.
 */

/** Counts events per key in a sliding window; a taken slot can be given back when the call fails. */
export class SlidingWindowCounter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((at) => at > now - this.windowMs);
    if (list.length > 0) this.hits.set(key, list);
    else this.hits.delete(key);
    return list;
  }

  /** Takes a slot and answers its time, or null when the key is at its limit. */
  take(key: string, now = Date.now()): number | null {
    const list = this.recent(key, now);
    if (list.length >= this.limit) return null;
    this.hits.set(key, [...list, now]);
    return now;
  }

  /** Gives back a slot taken at `at` (the call it was for did not happen). */
  giveBack(key: string, at: number): void {
    const list = this.hits.get(key);
    if (!list) return;
    const index = list.indexOf(at);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.hits.delete(key);
  }
}

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

export const tooManyForNumber = (limit: number) =>
  `This number has already been called ${limit} ${limit === 1 ? "time" : "times"} in the last hour: please try again later.`;
export const tooManyForAgent = (limit: number) => `This agent has reached its limit of ${limit} calls a day: please try again tomorrow.`;
export const tooManyFromClient = (limit: number) => `Too many call requests: at most ${limit} a minute. Please wait a minute and try again.`;
