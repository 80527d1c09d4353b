CREATE TABLE "calls" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"agent_id" uuid,
	"phone_number_id" uuid,
	"customer_number" text,
	"customer_name" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"duration_seconds" integer,
	"ended_reason" text,
	"cost_micros" bigint,
	"cost_breakdown" jsonb,
	"transcript" text,
	"messages" jsonb,
	"recording_url" text,
	"stereo_recording_url" text,
	"summary" text,
	"structured_data" jsonb,
	"success_evaluation" text,
	"campaign_id" uuid,
	"provider_call_id" text,
	"is_sandbox" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"number" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"provider" text NOT NULL,
	"agent_id" uuid,
	"provider_number_id" text,
	"credentials_encrypted" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_ledger" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"kind" text NOT NULL,
	"call_id" uuid,
	"description" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallets" (
	"org_id" text PRIMARY KEY NOT NULL,
	"balance_micros" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "web_call_links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"slug" text NOT NULL,
	"agent_id" uuid NOT NULL,
	"call_title" text NOT NULL,
	"recipient_name" text NOT NULL,
	"sub_title" text NOT NULL,
	"instructions" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "web_call_links_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"event_key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD CONSTRAINT "wallet_ledger_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD CONSTRAINT "wallet_ledger_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_call_links" ADD CONSTRAINT "web_call_links_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_call_links" ADD CONSTRAINT "web_call_links_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_org_started_idx" ON "calls" USING btree ("org_id","started_at");--> statement-breakpoint
CREATE INDEX "calls_agent_started_idx" ON "calls" USING btree ("agent_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_id_unique" ON "calls" USING btree ("provider_call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_org_number_unique" ON "phone_numbers" USING btree ("org_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_org_default_unique" ON "phone_numbers" USING btree ("org_id") WHERE "phone_numbers"."is_default";--> statement-breakpoint
CREATE INDEX "wallet_ledger_org_created_idx" ON "wallet_ledger" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_ledger_call_unique" ON "wallet_ledger" USING btree ("call_id") WHERE "wallet_ledger"."call_id" is not null;--> statement-breakpoint
CREATE INDEX "web_call_links_org_created_idx" ON "web_call_links" USING btree ("org_id","created_at");