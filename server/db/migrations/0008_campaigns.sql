CREATE TABLE "campaign_contacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"campaign_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"number" text NOT NULL,
	"name" text,
	"timezone" text,
	"number_zones" text[] DEFAULT '{}'::text[] NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"outcome" text,
	"last_ended_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_call_id" uuid,
	"not_before" timestamp with time zone,
	"ready_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"leased_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"campaign_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"detail" text NOT NULL,
	"actor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"agent_id" uuid,
	"phone_number_id" uuid,
	"status" text DEFAULT 'draft' NOT NULL,
	"schedule" jsonb NOT NULL,
	"start_at" timestamp with time zone,
	"end_at" timestamp with time zone,
	"max_concurrency" integer DEFAULT 1 NOT NULL,
	"retry" jsonb NOT NULL,
	"pause_code" text,
	"pause_reason" text,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dnc_numbers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"number" text NOT NULL,
	"reason" text,
	"source" text DEFAULT 'manual' NOT NULL,
	"call_id" uuid,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_provider_calls" (
	"call_id" uuid PRIMARY KEY NOT NULL,
	"provider_call_id" text NOT NULL,
	"org_id" text NOT NULL,
	"customer_number" text NOT NULL,
	"placed_at" timestamp with time zone NOT NULL,
	"call_seconds" double precision NOT NULL,
	"request" jsonb NOT NULL,
	CONSTRAINT "sandbox_provider_calls_provider_call_id_unique" UNIQUE("provider_call_id")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "campaign_contact_id" uuid;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_events" ADD CONSTRAINT "campaign_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_events" ADD CONSTRAINT "campaign_events_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dnc_numbers" ADD CONSTRAINT "dnc_numbers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_campaign_number_unique" ON "campaign_contacts" USING btree ("campaign_id","number");--> statement-breakpoint
CREATE INDEX "campaign_contacts_campaign_position_idx" ON "campaign_contacts" USING btree ("campaign_id","position");--> statement-breakpoint
CREATE INDEX "campaign_contacts_campaign_status_idx" ON "campaign_contacts" USING btree ("campaign_id","status");--> statement-breakpoint
CREATE INDEX "campaign_contacts_ready_idx" ON "campaign_contacts" USING btree ("campaign_id","ready_at","position") WHERE "campaign_contacts"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "campaign_contacts_lease_idx" ON "campaign_contacts" USING btree ("lease_until") WHERE "campaign_contacts"."status" = 'in_progress';--> statement-breakpoint
CREATE INDEX "campaign_events_campaign_idx" ON "campaign_events" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "campaigns_org_created_idx" ON "campaigns" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "campaigns_active_idx" ON "campaigns" USING btree ("status") WHERE "campaigns"."status" in ('running', 'scheduled');--> statement-breakpoint
CREATE UNIQUE INDEX "dnc_numbers_org_number_unique" ON "dnc_numbers" USING btree ("org_id","number");--> statement-breakpoint
CREATE INDEX "dnc_numbers_org_created_idx" ON "dnc_numbers" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "calls_campaign_contact_idx" ON "calls" USING btree ("campaign_contact_id","started_at") WHERE "calls"."campaign_contact_id" is not null;--> statement-breakpoint
CREATE INDEX "calls_campaign_started_idx" ON "calls" USING btree ("campaign_id","started_at") WHERE "calls"."campaign_id" is not null;