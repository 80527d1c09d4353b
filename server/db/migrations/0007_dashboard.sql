CREATE TABLE "call_daily_stats" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"agent_key" uuid NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"ended" integer DEFAULT 0 NOT NULL,
	"answered" integer DEFAULT 0 NOT NULL,
	"busy" integer DEFAULT 0 NOT NULL,
	"no_answer" integer DEFAULT 0 NOT NULL,
	"voicemail" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"in_progress" integer DEFAULT 0 NOT NULL,
	"with_duration" integer DEFAULT 0 NOT NULL,
	"duration_seconds" bigint DEFAULT 0 NOT NULL,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"success_pass" integer DEFAULT 0 NOT NULL,
	"success_fail" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "call_daily_stats_pk" PRIMARY KEY("org_id","day","agent_key")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "success_outcome" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "outcome" text GENERATED ALWAYS AS (CASE WHEN status = 'failed' THEN 'failed' WHEN status <> 'ended' THEN 'in_progress' WHEN ended_reason = 'customer-busy' THEN 'busy' WHEN ended_reason = 'customer-did-not-answer' THEN 'no_answer' WHEN ended_reason = 'voicemail' THEN 'voicemail' WHEN ended_reason ~ 'error|failed|fault|^pipeline-|^assistant-not-|^assistant-request-returned-|^assistant-join-timed-out$|^worker-shutdown$|^phone-call-provider-|^vonage-rejected$|^twilio-reported-customer-misdialed$|^customer-did-not-give-microphone-permission$|^call\.ringing\.sip-inbound-caller-hungup-before-call-connect$' THEN 'failed' ELSE 'answered' END) STORED;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "call_daily_stats" ADD CONSTRAINT "call_daily_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written (not generated) from here: call_daily_stats kept equal to the calls (see callDailyStats
-- in server/db/schema.ts), and the existing calls' success_outcome and rollup rows filled in.
--
-- contract/success-outcome.ts's successOutcome(answer, rubric) in SQL, for the calls stored before
-- success_outcome existed (the server computes it in TypeScript from here on). A test compares the two
-- on a table of answers and rubrics (tests/server/call-daily-stats.test.ts).
CREATE FUNCTION "call_success_outcome"(answer text, rubric text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  WITH "a" AS (SELECT regexp_replace(coalesce(answer, ''), '^\s+|\s+$', '', 'g') AS "value"),
  "n" AS (SELECT "value", regexp_match("value", '^([+-]?[0-9]+(\.[0-9]+)?)\s*(%?)$') AS "number" FROM "a"),
  "w" AS (SELECT *, regexp_replace(regexp_replace(lower("value"), '[.!]+$', ''), '\s+', ' ', 'g') AS "word" FROM "n")
  SELECT CASE
    WHEN "value" = '' THEN NULL
    WHEN "number" IS NOT NULL THEN
      CASE
        WHEN "number"[3] = '%' OR rubric = 'PercentageScale' OR "number"[1]::numeric > 10 THEN
          CASE WHEN "number"[1]::numeric >= 70 THEN 'pass' ELSE 'fail' END
        WHEN "number"[1]::numeric >= 7 THEN 'pass'
        ELSE 'fail'
      END
    WHEN "word" IN ('true', 'pass', 'passed', 'excellent', 'good', 'strongly agree', 'agree') THEN 'pass'
    WHEN "word" IN ('false', 'fail', 'failed', 'fair', 'poor', 'neutral', 'disagree', 'strongly disagree') THEN 'fail'
  END FROM "w"
$$;--> statement-breakpoint
-- The existing calls' evaluations, each under its agent's current rubric (the stored configuration,
-- else the default, PercentageScale; a call whose agent was deleted has none), as the server would have
-- counted them. Before the rollup's triggers exist: the rollup is filled once, at the end.
UPDATE "calls" AS c SET "success_outcome" = "call_success_outcome"(
    c."success_evaluation",
    (SELECT coalesce(a."config"->'analysis_plan'->>'success_evaluation_rubric', 'PercentageScale') FROM "agents" AS a WHERE a."id" = c."agent_id")
  )
  WHERE c."success_evaluation" IS NOT NULL;--> statement-breakpoint
-- One call's contribution to its row of call_daily_stats: the day it started in the organisation's
-- time zone, its agent (or NO_AGENT_KEY), and every measure multiplied by `sign` (+1 added, -1 taken
-- away). The one definition of the measures: the triggers and the rebuild both use it.
CREATE FUNCTION "call_daily_stats_change"(
  org_id text, started_at timestamptz, timezone text, agent_id uuid, outcome text,
  duration_seconds integer, cost_micros bigint, success_outcome text, sign integer
) RETURNS "call_daily_stats" LANGUAGE sql STABLE AS $$
  SELECT ROW(
    org_id,
    (started_at AT TIME ZONE timezone)::date,
    coalesce(agent_id, '00000000-0000-0000-0000-000000000000'::uuid),
    sign,
    CASE WHEN outcome <> 'in_progress' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'answered' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'busy' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'no_answer' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'voicemail' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'failed' THEN sign ELSE 0 END,
    CASE WHEN outcome = 'in_progress' THEN sign ELSE 0 END,
    CASE WHEN duration_seconds IS NOT NULL THEN sign ELSE 0 END,
    coalesce(duration_seconds, 0)::bigint * sign,
    coalesce(cost_micros, 0) * sign,
    CASE WHEN success_outcome = 'pass' THEN sign ELSE 0 END,
    CASE WHEN success_outcome = 'fail' THEN sign ELSE 0 END
  )::"call_daily_stats"
$$;--> statement-breakpoint
-- Adds signed contributions to call_daily_stats: summed per row, rows whose sum is all zeros skipped
-- (an update that moved nothing, such as a transcript arriving), upserted in key order (two
-- transactions never wait for each other's rows in opposite orders), and rows left with no calls deleted.
CREATE FUNCTION "call_daily_stats_add"(changes "call_daily_stats"[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  empty_orgs text[];
  empty_days date[];
  empty_agents uuid[];
BEGIN
  IF changes IS NULL THEN
    RETURN;
  END IF;
  WITH "deltas" AS (
    SELECT "org_id", "day", "agent_key",
      sum("calls") AS "calls", sum("ended") AS "ended", sum("answered") AS "answered", sum("busy") AS "busy",
      sum("no_answer") AS "no_answer", sum("voicemail") AS "voicemail", sum("failed") AS "failed",
      sum("in_progress") AS "in_progress", sum("with_duration") AS "with_duration",
      sum("duration_seconds") AS "duration_seconds", sum("cost_micros") AS "cost_micros",
      sum("success_pass") AS "success_pass", sum("success_fail") AS "success_fail"
    FROM unnest(changes)
    GROUP BY "org_id", "day", "agent_key"
  ), "written" AS (
    INSERT INTO "call_daily_stats" AS "s"
      SELECT * FROM "deltas"
      WHERE ("calls", "ended", "answered", "busy", "no_answer", "voicemail", "failed", "in_progress",
             "with_duration", "duration_seconds", "cost_micros", "success_pass", "success_fail")
        IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      ORDER BY "org_id", "day", "agent_key"
    ON CONFLICT ("org_id", "day", "agent_key") DO UPDATE SET
      "calls" = "s"."calls" + excluded."calls",
      "ended" = "s"."ended" + excluded."ended",
      "answered" = "s"."answered" + excluded."answered",
      "busy" = "s"."busy" + excluded."busy",
      "no_answer" = "s"."no_answer" + excluded."no_answer",
      "voicemail" = "s"."voicemail" + excluded."voicemail",
      "failed" = "s"."failed" + excluded."failed",
      "in_progress" = "s"."in_progress" + excluded."in_progress",
      "with_duration" = "s"."with_duration" + excluded."with_duration",
      "duration_seconds" = "s"."duration_seconds" + excluded."duration_seconds",
      "cost_micros" = "s"."cost_micros" + excluded."cost_micros",
      "success_pass" = "s"."success_pass" + excluded."success_pass",
      "success_fail" = "s"."success_fail" + excluded."success_fail"
    RETURNING "s"."org_id", "s"."day", "s"."agent_key", "s"."calls"
  )
  SELECT array_agg("org_id"), array_agg("day"), array_agg("agent_key") INTO empty_orgs, empty_days, empty_agents
    FROM "written" WHERE "calls" = 0;
  IF empty_orgs IS NOT NULL THEN
    DELETE FROM "call_daily_stats" AS "s"
      USING unnest(empty_orgs, empty_days, empty_agents) AS "e"("org_id", "day", "agent_key")
      WHERE "s"."org_id" = "e"."org_id" AND "s"."day" = "e"."day" AND "s"."agent_key" = "e"."agent_key" AND "s"."calls" = 0;
  END IF;
END $$;--> statement-breakpoint
-- The triggers: once per statement (transition tables), the new rows added and the old rows taken away.
-- They are named to fire after calls_*_call_list_versions (same event, name order), which has already
-- locked the organisations' rows: the time zone read here cannot change under the statement (PATCH
-- /organization/settings locks the row, changes the zone and rebuilds in one transaction), and every
-- writer of one organisation's rows is serialised. Calls of a deleted organisation find no zone and
-- count nowhere (their rows go with the organisation, ON DELETE CASCADE).
CREATE FUNCTION "calls_keep_daily_stats"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes "call_daily_stats"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg("call_daily_stats_change"(n."org_id", n."started_at", o."timezone", n."agent_id", n."outcome", n."duration_seconds", n."cost_micros", n."success_outcome", 1))
      INTO changes FROM new_rows AS n JOIN "organizations" AS o ON o."id" = n."org_id";
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg("change") INTO changes FROM (
      SELECT "call_daily_stats_change"(n."org_id", n."started_at", o."timezone", n."agent_id", n."outcome", n."duration_seconds", n."cost_micros", n."success_outcome", 1) AS "change"
        FROM new_rows AS n JOIN "organizations" AS o ON o."id" = n."org_id"
      UNION ALL
      SELECT "call_daily_stats_change"(c."org_id", c."started_at", o."timezone", c."agent_id", c."outcome", c."duration_seconds", c."cost_micros", c."success_outcome", -1)
        FROM old_rows AS c JOIN "organizations" AS o ON o."id" = c."org_id"
    ) AS "both";
  ELSE
    SELECT array_agg("call_daily_stats_change"(c."org_id", c."started_at", o."timezone", c."agent_id", c."outcome", c."duration_seconds", c."cost_micros", c."success_outcome", -1))
      INTO changes FROM old_rows AS c JOIN "organizations" AS o ON o."id" = c."org_id";
  END IF;
  PERFORM "call_daily_stats_add"(changes);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "calls_insert_daily_stats" AFTER INSERT ON "calls"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_keep_daily_stats"();--> statement-breakpoint
CREATE TRIGGER "calls_update_daily_stats" AFTER UPDATE ON "calls"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_keep_daily_stats"();--> statement-breakpoint
CREATE TRIGGER "calls_delete_daily_stats" AFTER DELETE ON "calls"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_keep_daily_stats"();--> statement-breakpoint
-- TRUNCATE fires no DELETE trigger: emptying calls empties the rollup too.
CREATE FUNCTION "calls_truncate_daily_stats"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "call_daily_stats";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "calls_truncate_daily_stats" AFTER TRUNCATE ON "calls"
  FOR EACH STATEMENT EXECUTE FUNCTION "calls_truncate_daily_stats"();--> statement-breakpoint
-- One organisation's rows made again from its calls, in its current time zone (PATCH
-- /organization/settings calls it after changing the zone, with the organisation's row locked).
CREATE FUNCTION "call_daily_stats_rebuild"(org text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "call_daily_stats" WHERE "org_id" = org;
  INSERT INTO "call_daily_stats"
    SELECT d."org_id", d."day", d."agent_key",
      sum(d."calls"), sum(d."ended"), sum(d."answered"), sum(d."busy"), sum(d."no_answer"), sum(d."voicemail"),
      sum(d."failed"), sum(d."in_progress"), sum(d."with_duration"), sum(d."duration_seconds"), sum(d."cost_micros"),
      sum(d."success_pass"), sum(d."success_fail")
    FROM "calls" AS c
      JOIN "organizations" AS o ON o."id" = c."org_id"
      CROSS JOIN LATERAL "call_daily_stats_change"(c."org_id", c."started_at", o."timezone", c."agent_id", c."outcome", c."duration_seconds", c."cost_micros", c."success_outcome", 1) AS d
    WHERE c."org_id" = org
    GROUP BY d."org_id", d."day", d."agent_key"
    ORDER BY d."org_id", d."day", d."agent_key";
END $$;--> statement-breakpoint
-- The rollup of every existing organisation's calls.
SELECT "call_daily_stats_rebuild"("id") FROM "organizations" ORDER BY "id";
