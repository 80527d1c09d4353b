CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
CREATE TABLE "appointments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"calendar_id" uuid NOT NULL,
	"agent_id" uuid,
	"call_id" uuid,
	"title" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"blocked_start" timestamp with time zone NOT NULL,
	"blocked_end" timestamp with time zone NOT NULL,
	"customer_name" text,
	"customer_number" text,
	"customer_email" text,
	"notes" text,
	"status" text DEFAULT 'booked' NOT NULL,
	"source" text NOT NULL,
	"tool_call_id" text,
	"external_event_id" text,
	"sequence" integer DEFAULT 0 NOT NULL,
	"created_by" text,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"provider" text NOT NULL,
	"account_email" text,
	"external_calendar" text DEFAULT 'primary' NOT NULL,
	"access_token_encrypted" text,
	"refresh_token_encrypted" text,
	"access_token_expires_at" timestamp with time zone,
	"scope" text,
	"status" text DEFAULT 'connected' NOT NULL,
	"last_error" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_feeds" (
	"org_id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"token_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_feeds_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "calendar_oauth_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"code_verifier_encrypted" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendars" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"agent_id" uuid,
	"timezone" text NOT NULL,
	"weekly" jsonb NOT NULL,
	"slot_minutes" integer NOT NULL,
	"buffer_before_minutes" integer DEFAULT 0 NOT NULL,
	"buffer_after_minutes" integer DEFAULT 0 NOT NULL,
	"min_notice_minutes" integer DEFAULT 0 NOT NULL,
	"max_days_ahead" integer NOT NULL,
	"max_per_day" integer,
	"closed_dates" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"date_overrides" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"saved" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_call_answers" (
	"org_id" text NOT NULL,
	"provider_call_id" text NOT NULL,
	"tool_call_id" text NOT NULL,
	"name" text NOT NULL,
	"result" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tool_call_answers_pk" PRIMARY KEY("org_id","provider_call_id","tool_call_id")
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_oauth_states" ADD CONSTRAINT "calendar_oauth_states_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_call_answers" ADD CONSTRAINT "tool_call_answers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointments_org_start_idx" ON "appointments" USING btree ("org_id","start_at","id");--> statement-breakpoint
CREATE INDEX "appointments_calendar_blocked_idx" ON "appointments" USING btree ("calendar_id","blocked_start");--> statement-breakpoint
CREATE INDEX "appointments_call_idx" ON "appointments" USING btree ("call_id") WHERE "appointments"."call_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "appointments_org_tool_call_unique" ON "appointments" USING btree ("org_id","tool_call_id") WHERE "appointments"."tool_call_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_connections_org_provider_unique" ON "calendar_connections" USING btree ("org_id","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "calendars_org_default_unique" ON "calendars" USING btree ("org_id") WHERE "calendars"."agent_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "calendars_org_agent_unique" ON "calendars" USING btree ("org_id","agent_id") WHERE "calendars"."agent_id" is not null;--> statement-breakpoint
-- Two appointments of one calendar that hold their time (not cancelled) never overlap, buffers included:
-- the database refuses the second however many bookings arrive at once (SQLSTATE 23P01).
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_overlap" EXCLUDE USING gist ("calendar_id" WITH =, tstzrange("blocked_start", "blocked_end", '[)') WITH &&) WHERE ("status" <> 'cancelled');--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_end_after_start" CHECK ("end_at" > "start_at" AND "blocked_start" <= "start_at" AND "blocked_end" >= "end_at");
