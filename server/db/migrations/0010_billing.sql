CREATE TABLE "billing_accounts" (
	"org_id" text PRIMARY KEY NOT NULL,
	"plan" text NOT NULL,
	"subscription_status" text DEFAULT 'active' NOT NULL,
	"subscription_id" text,
	"current_period_end" timestamp with time zone,
	"past_due_since" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"customer_id" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"auto_reload_enabled" boolean DEFAULT false NOT NULL,
	"auto_reload_amount_micros" bigint DEFAULT 0 NOT NULL,
	"auto_reload_threshold_micros" bigint DEFAULT 0 NOT NULL,
	"auto_reload_monthly_cap_micros" bigint,
	"auto_reload_status" text DEFAULT 'ok' NOT NULL,
	"auto_reload_failures" integer DEFAULT 0 NOT NULL,
	"auto_reload_last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"number" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"description" text NOT NULL,
	"provider_id" text,
	"url" text,
	"top_up_id" uuid,
	"is_sandbox" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "billing_documents_provider_unique" UNIQUE("provider_id")
);
--> statement-breakpoint
CREATE TABLE "job_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone,
	"last_finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sandbox_stripe_objects" (
	"id" text PRIMARY KEY NOT NULL,
	"object" text NOT NULL,
	"org_id" text,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_caps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"scope" text NOT NULL,
	"agent_id" uuid,
	"period" text NOT NULL,
	"limit_micros" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "top_ups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"save_card" boolean DEFAULT false NOT NULL,
	"session_id" text,
	"payment_intent_id" text,
	"receipt_url" text,
	"failure_code" text,
	"failure_message" text,
	"refunded_micros" bigint DEFAULT 0 NOT NULL,
	"is_sandbox" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "top_ups_session_unique" UNIQUE("session_id"),
	CONSTRAINT "top_ups_payment_intent_unique" UNIQUE("payment_intent_id")
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"agent_key" text NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"seconds" bigint DEFAULT 0 NOT NULL,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"transport_micros" bigint DEFAULT 0 NOT NULL,
	"speech_to_text_micros" bigint DEFAULT 0 NOT NULL,
	"llm_micros" bigint DEFAULT 0 NOT NULL,
	"text_to_speech_micros" bigint DEFAULT 0 NOT NULL,
	"platform_micros" bigint DEFAULT 0 NOT NULL,
	"other_micros" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_org_id_day_agent_key_pk" PRIMARY KEY("org_id","day","agent_key")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "redacted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "agent_id" uuid;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "top_up_id" uuid;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "balance_after_micros" bigint;--> statement-breakpoint
-- Existing entries: the running sum of each organisation's ledger in its order (oldest first; the starting credit first within its millisecond).
UPDATE "wallet_ledger" AS l SET "balance_after_micros" = r.after FROM (
  SELECT "id", sum("amount_micros") OVER (PARTITION BY "org_id" ORDER BY "created_at", ("kind" <> 'starting-credit'), "id" ROWS UNBOUNDED PRECEDING) AS after FROM "wallet_ledger"
) AS r WHERE l."id" = r."id";--> statement-breakpoint
ALTER TABLE "wallet_ledger" ALTER COLUMN "balance_after_micros" SET NOT NULL;--> statement-breakpoint
-- Existing call debits: their agent, and the usage rollup they make (the day the debit was written, in the organisation's zone).
UPDATE "wallet_ledger" AS l SET "agent_id" = c."agent_id" FROM "calls" AS c WHERE l."call_id" = c."id" AND l."kind" = 'call';--> statement-breakpoint
INSERT INTO "usage_daily" ("org_id", "day", "agent_key", "calls", "seconds", "cost_micros", "transport_micros", "speech_to_text_micros", "llm_micros", "text_to_speech_micros", "platform_micros", "other_micros")
SELECT p."org_id", p."day", p."agent_key", count(*), sum(p."seconds"), sum(p."cost"),
  sum(CASE WHEN p."fits" THEN p."transport" ELSE 0 END), sum(CASE WHEN p."fits" THEN p."stt" ELSE 0 END), sum(CASE WHEN p."fits" THEN p."llm" ELSE 0 END),
  sum(CASE WHEN p."fits" THEN p."tts" ELSE 0 END), sum(CASE WHEN p."fits" THEN p."platform" ELSE 0 END),
  sum(CASE WHEN p."fits" THEN p."cost" - p."transport" - p."stt" - p."llm" - p."tts" - p."platform" ELSE p."cost" END)
FROM (
  SELECT q.*, (q."transport" >= 0 AND q."stt" >= 0 AND q."llm" >= 0 AND q."tts" >= 0 AND q."platform" >= 0
    AND q."transport" + q."stt" + q."llm" + q."tts" + q."platform" <= q."cost") AS "fits"
  FROM (
    SELECT l."org_id", (l."created_at" AT TIME ZONE o."timezone")::date AS "day", coalesce(c."agent_id"::text, '') AS "agent_key",
      coalesce(c."duration_seconds", 0) AS "seconds", -l."amount_micros" AS "cost",
      CASE WHEN jsonb_typeof(c."cost_breakdown"->'transport') = 'number' THEN round((c."cost_breakdown"->>'transport')::numeric * 1000000)::bigint ELSE 0 END AS "transport",
      CASE WHEN jsonb_typeof(c."cost_breakdown"->'stt') = 'number' THEN round((c."cost_breakdown"->>'stt')::numeric * 1000000)::bigint ELSE 0 END AS "stt",
      CASE WHEN jsonb_typeof(c."cost_breakdown"->'llm') = 'number' THEN round((c."cost_breakdown"->>'llm')::numeric * 1000000)::bigint ELSE 0 END AS "llm",
      CASE WHEN jsonb_typeof(c."cost_breakdown"->'tts') = 'number' THEN round((c."cost_breakdown"->>'tts')::numeric * 1000000)::bigint ELSE 0 END AS "tts",
      CASE WHEN jsonb_typeof(c."cost_breakdown"->'vapi') = 'number' THEN round((c."cost_breakdown"->>'vapi')::numeric * 1000000)::bigint ELSE 0 END AS "platform"
    FROM "wallet_ledger" AS l JOIN "organizations" AS o ON o."id" = l."org_id" LEFT JOIN "calls" AS c ON c."id" = l."call_id"
    WHERE l."kind" = 'call'
  ) AS q
) AS p
GROUP BY p."org_id", p."day", p."agent_key";--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_documents" ADD CONSTRAINT "billing_documents_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_caps" ADD CONSTRAINT "spend_caps_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_caps" ADD CONSTRAINT "spend_caps_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_documents_org_created_idx" ON "billing_documents" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "sandbox_stripe_objects_org_idx" ON "sandbox_stripe_objects" USING btree ("org_id","object");--> statement-breakpoint
CREATE UNIQUE INDEX "spend_caps_scope_unique" ON "spend_caps" USING btree ("org_id","period",coalesce("agent_id"::text, ''));--> statement-breakpoint
CREATE INDEX "top_ups_org_created_idx" ON "top_ups" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "top_ups_pending_idx" ON "top_ups" USING btree ("created_at") WHERE "top_ups"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_one_reload_in_flight" ON "top_ups" USING btree ("org_id") WHERE "top_ups"."kind" = 'auto_reload' and "top_ups"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_ledger_reference_unique" ON "wallet_ledger" USING btree ("reference") WHERE "wallet_ledger"."reference" is not null;