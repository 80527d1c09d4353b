/**
 * Where the rate limits are counted when REDIS_URL is set: Redis, so several API processes behind a load
 * balancer share one count per client (ARCHITECTURE.md §2). Without REDIS_URL the security plugin keeps
 * @fastify/rate-limit's in-process store and none of this runs.
 *
 * When Redis does not answer, the API fails open: requests are served without being counted (the plugin's
 * `skipOnError`), and a warning is logged, at most once a minute while it lasts and an info line when Redis
 * answers again. Rate limits protect the API from floods; a Redis outage turning every request into a 500
 * would be worse than a few minutes without them. What must hold across an outage is not counted here: the
 * per-agent and per-number caps on public calls are counted in the database, and the wallet still refuses calls.
 *
 * ioredis' defaults suit a cache, not a check in front of every request (the plugin's README says so), so:
 * - `enableOfflineQueue: false`: while disconnected a command fails at once instead of waiting for a
 *   reconnection, so an outage adds no latency to requests;
 * - `connectTimeout` and `commandTimeout` of half a second bound what a Redis that hangs can add;
 * - `maxRetriesPerRequest: 1`: a command caught by a dropped connection is retried once, not twenty times;
 * - reconnection is ioredis' default (50 ms more per attempt, at most 2 s apart, forever), so counting
 *   resumes on its own when Redis is back.
 * Error replies (e.g. READONLY after a failover, OOM) are logged through `reconnectOnError`, and READONLY
 * reconnects, to reach the new primary. A command that times out on a live connection is skipped without a
 * log line of its own (ioredis reports it only to the caller, which is the plugin).
 */
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { describeRedisUrl } from "../config";

/** Every rate-limit key starts with this (per-route limits add `METHOD/path-`), so a shared Redis can tell them apart. */
export const RATE_LIMIT_NAMESPACE = "voice-agent-platform:rate-limit:";

const TIMEOUT_MS = 500;
const WARN_EVERY_MS = 60_000;

/**
 * Connects to Redis for the rate limits (waiting at most TIMEOUT_MS, so the first requests are counted) and
 * closes the connection when the app closes. A Redis that does not answer at start-up is logged, not fatal:
 * the client keeps trying in the background, and requests are served uncounted until it succeeds.
 */
export async function rateLimitRedis(app: FastifyInstance, redisUrl: string): Promise<Redis> {
  const where = describeRedisUrl(redisUrl);
  const failures = failureLog(app.log, where);
  const redis = new Redis(redisUrl, {
    connectionName: "voice-agent-platform-rate-limit",
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    reconnectOnError: (error) => {
      // NOSCRIPT is ioredis loading the plugin's Lua script on first use; it retries with EVAL by itself.
      if (error.message.startsWith("NOSCRIPT")) return false;
      failures.report(error);
      return error.message.startsWith("READONLY");
    },
  });
  // Without a listener, ioredis prints every failed reconnection attempt to the console.
  redis.on("error", failures.report);
  redis.on("ready", failures.recovered);

  app.addHook("onClose", async () => {
    // QUIT lets Redis close its side first; when not connected there is nothing to say goodbye to.
    if (redis.status === "ready") {
      try {
        await redis.quit();
        return;
      } catch {
        // Fall through: drop the connection.
      }
    }
    // Also stops the reconnection attempts, which would otherwise keep the process alive.
    redis.disconnect();
  });

  // The "error" listener has already logged why; the plugin fails open until a reconnection succeeds.
  await redis.connect().catch(() => undefined);
  return redis;
}

/** Logs the first failure of an outage, then at most one warning a minute, and the recovery. */
function failureLog(log: FastifyBaseLogger, where: string) {
  let failing = false;
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    report: (error: Error) => {
      failing = true;
      const now = Date.now();
      if (now - warnedAt < WARN_EVERY_MS) return;
      warnedAt = now;
      log.warn({ err: error }, `Redis (${where}) failed (${error.message}): rate limits are not counted until it answers again (failing open)`);
    },
    recovered: () => {
      if (!failing) return;
      failing = false;
      warnedAt = Number.NEGATIVE_INFINITY;
      log.info(`Redis (${where}) answers again: rate limits are counted again`);
    },
  };
}
