/**
 * Usage rollups (usage_daily, issue 15): one row per organisation, day and agent, written in the call
 * debit's transaction (debitCallOnce calls recordCallUsage), and rebuilt from the call debits when the
 * organisation's time zone changes (rebuildUsage). Both use the same SQL as migration 0010's backfill:
 *
 * - day: the debit's created_at in the organisation's time zone (organizations.timezone);
 * - agent_key: the call's agent id, or '' for a call without one;
 * - calls + 1, seconds: calls.duration_seconds (0 without), cost: the debit's amount;
 * - components from calls.cost_breakdown (Vapi's transport, stt, llm, tts, vapi -> transport,
 *   speech_to_text, llm, text_to_speech, platform), each rounded to micro-dollars; other = debit − their
 *   sum. When a part is negative or the parts sum above the debit, the whole debit goes to other. So the
 *   components of a row always add up to its cost exactly.
 *
 * The ingest writes the call's cost breakdown and duration in the same transaction before it debits, so
 * the debit reads them from the call row: the incremental rollup and the rebuild cannot disagree.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";

const part = (key: string) =>
  sql.raw(`CASE WHEN jsonb_typeof(c."cost_breakdown"->'${key}') = 'number' THEN round((c."cost_breakdown"->>'${key}')::numeric * 1000000)::bigint ELSE 0 END`);

/** The backfill's SELECT (grouped rows of usage_daily) over the call debits matching `where` (aliases l, o, c). */
function usageRows(where: SQL): SQL {
  return sql`
    SELECT p."org_id", p."day", p."agent_key", count(*)::int AS "calls", sum(p."seconds")::bigint AS "seconds", sum(p."cost")::bigint AS "cost",
      sum(CASE WHEN p."fits" THEN p."transport" ELSE 0 END)::bigint AS "transport", sum(CASE WHEN p."fits" THEN p."stt" ELSE 0 END)::bigint AS "stt",
      sum(CASE WHEN p."fits" THEN p."llm" ELSE 0 END)::bigint AS "llm", sum(CASE WHEN p."fits" THEN p."tts" ELSE 0 END)::bigint AS "tts",
      sum(CASE WHEN p."fits" THEN p."platform" ELSE 0 END)::bigint AS "platform",
      sum(CASE WHEN p."fits" THEN p."cost" - p."transport" - p."stt" - p."llm" - p."tts" - p."platform" ELSE p."cost" END)::bigint AS "other"
    FROM (
      SELECT q.*, (q."transport" >= 0 AND q."stt" >= 0 AND q."llm" >= 0 AND q."tts" >= 0 AND q."platform" >= 0
        AND q."transport" + q."stt" + q."llm" + q."tts" + q."platform" <= q."cost") AS "fits"
      FROM (
        SELECT l."org_id", (l."created_at" AT TIME ZONE o."timezone")::date AS "day", coalesce(c."agent_id"::text, l."agent_id"::text, '') AS "agent_key",
          coalesce(c."duration_seconds", 0) AS "seconds", -l."amount_micros" AS "cost",
          ${part("transport")} AS "transport", ${part("stt")} AS "stt", ${part("llm")} AS "llm", ${part("tts")} AS "tts", ${part("vapi")} AS "platform"
        FROM "wallet_ledger" AS l JOIN "organizations" AS o ON o."id" = l."org_id" LEFT JOIN "calls" AS c ON c."id" = l."call_id"
        WHERE l."kind" = 'call' AND ${where}
      ) AS q
    ) AS p
    GROUP BY p."org_id", p."day", p."agent_key"`;
}

const COLUMNS = sql.raw(
  `"org_id", "day", "agent_key", "calls", "seconds", "cost_micros", "transport_micros", "speech_to_text_micros", "llm_micros", "text_to_speech_micros", "platform_micros", "other_micros"`,
);

/**
 * Adds one call debit (its ledger entry id) to its usage_daily row, in the debit's transaction. The
 * wallet's row lock (appendLedgerEntry) makes the organisation's debits take turns.
 */
export async function recordCallUsage(tx: Db, ledgerEntryId: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO "usage_daily" (${COLUMNS}) ${usageRows(sql`l."id" = ${ledgerEntryId}`)}
    ON CONFLICT ("org_id", "day", "agent_key") DO UPDATE SET
      "calls" = "usage_daily"."calls" + excluded."calls",
      "seconds" = "usage_daily"."seconds" + excluded."seconds",
      "cost_micros" = "usage_daily"."cost_micros" + excluded."cost_micros",
      "transport_micros" = "usage_daily"."transport_micros" + excluded."transport_micros",
      "speech_to_text_micros" = "usage_daily"."speech_to_text_micros" + excluded."speech_to_text_micros",
      "llm_micros" = "usage_daily"."llm_micros" + excluded."llm_micros",
      "text_to_speech_micros" = "usage_daily"."text_to_speech_micros" + excluded."text_to_speech_micros",
      "platform_micros" = "usage_daily"."platform_micros" + excluded."platform_micros",
      "other_micros" = "usage_daily"."other_micros" + excluded."other_micros"`);
}

/**
 * Cuts the organisation's usage_daily again from its call debits (in its time zone now): after a time
 * zone change (setOrganizationTimeZone, same transaction) and after the demo seed inserts its ledger.
 * Run it in a transaction that holds the organisation's row (or the wallet's), so no debit slips between.
 */
export async function rebuildUsage(tx: Db, orgId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM "usage_daily" WHERE "org_id" = ${orgId}`);
  await tx.execute(sql`INSERT INTO "usage_daily" (${COLUMNS}) ${usageRows(sql`l."org_id" = ${orgId}`)}`);
}
