/**
 * The limits on POST /call/public, all configurable (PUBLIC_CALL_* in .env.example):
 *
 * - per client IP: PUBLIC_CALL_PER_IP_PER_MINUTE (default 5), every request counts — the route's own
 *   @fastify/rate-limit setting (the API's rate-limit store);
 * - per destination number: PUBLIC_CALL_PER_NUMBER_PER_HOUR (default 3) public calls to one number in
 *   the last hour, across every public agent of every organisation, counted from the calls table
 *   (`public_request`), so it holds across processes and restarts; checked under a lock on the number
 *   in the transaction that inserts the call (assertNumberBelowHourlyLimit), so concurrent requests
 *   cannot both take the last slot. A call that fails to start is removed again and so gives its
 *   slot back. Calls members place (POST /call/) do not count: an organisation may ring its contacts;
 * - per agent: PUBLIC_CALL_PER_AGENT_PER_DAY (default 100) outbound calls in the last 24 hours, counted
 *   from the calls table (countAgentCallsSince), so it holds across processes.
 *
 * A refused request answers 429 with a sentence saying which limit and when to try again.
 */
import { and, count, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { calls } from "../db/schema";
import { ApiError } from "../plugins/errors";

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

export const tooManyForNumber = (limit: number) =>
  `This number has already been called ${limit} ${limit === 1 ? "time" : "times"} in the last hour: please try again later.`;
export const tooManyForAgent = (limit: number) => `This agent has reached its limit of ${limit} calls a day: please try again tomorrow.`;
export const tooManyFromClient = (limit: number) => `Too many call requests: at most ${limit} a minute. Please wait a minute and try again.`;

/**
 * Refuses (429) a public call to `number` once `limit` public calls went to it in the last hour. Call
 * it inside the transaction that inserts the call: the transaction-scoped advisory lock on the number
 * makes a concurrent request for the same number (in any process) wait until this one has committed
 * its row or rolled back. The count reads every organisation's public calls to the number (a count,
 * nothing else is read), through calls_public_number_started_idx.
 */
export async function assertNumberBelowHourlyLimit(tx: Db, number: string, limit: number, now = Date.now()): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`public-call-number:${number}`}, 0))`);
  const [row] = await tx
    .select({ n: count() })
    .from(calls)
    .where(and(eq(calls.publicRequest, true), eq(calls.customerNumber, number), gte(calls.startedAt, new Date(now - HOUR_MS))));
  if ((row?.n ?? 0) >= limit) throw ApiError.tooManyRequests(tooManyForNumber(limit));
}
