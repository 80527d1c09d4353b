CREATE TABLE "order_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"order_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"detail" text NOT NULL,
	"call_id" uuid,
	"actor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "order_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "order_follow_ups" (
	"campaign_id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"integration_id" uuid,
	"enabled" boolean DEFAULT false NOT NULL,
	"delay_minutes" integer DEFAULT 30 NOT NULL,
	"attribution_days" integer DEFAULT 7 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_follow_ups_org_integration_unique" UNIQUE NULLS NOT DISTINCT("org_id","integration_id")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"integration_id" uuid,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"reference" text NOT NULL,
	"store_name" text,
	"customer_name" text,
	"customer_number" text NOT NULL,
	"customer_email" text,
	"timezone" text,
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"total_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"checkout_url" text,
	"abandoned_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"status_detail" text,
	"consent_given" boolean DEFAULT false NOT NULL,
	"consent_source" text,
	"consent_at" timestamp with time zone,
	"call_outcome" text,
	"callback_at" timestamp with time zone,
	"reached_at" timestamp with time zone,
	"reached_call_id" uuid,
	"paid_at" timestamp with time zone,
	"paid_minor" bigint,
	"recovered_minor" bigint DEFAULT 0 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_org_integration_external_unique" UNIQUE NULLS NOT DISTINCT("org_id","integration_id","external_id")
);
--> statement-breakpoint
CREATE TABLE "store_integrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"secret_hint" text NOT NULL,
	"is_demo" boolean DEFAULT false NOT NULL,
	"secret_rotated_at" timestamp with time zone,
	"last_delivery_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "store_webhook_deliveries" (
	"integration_id" uuid NOT NULL,
	"delivery_id" text NOT NULL,
	"org_id" text NOT NULL,
	"topic" text NOT NULL,
	"result" text NOT NULL,
	"detail" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "store_webhook_deliveries_pk" PRIMARY KEY("integration_id","delivery_id")
);
--> statement-breakpoint
DROP INDEX "campaign_contacts_campaign_number_unique";--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD COLUMN "order_id" uuid;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "kind" text DEFAULT 'campaign' NOT NULL;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_follow_ups" ADD CONSTRAINT "order_follow_ups_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_follow_ups" ADD CONSTRAINT "order_follow_ups_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_follow_ups" ADD CONSTRAINT "order_follow_ups_integration_id_store_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."store_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_integration_id_store_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."store_integrations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_integrations" ADD CONSTRAINT "store_integrations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_webhook_deliveries" ADD CONSTRAINT "store_webhook_deliveries_integration_id_store_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."store_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_webhook_deliveries" ADD CONSTRAINT "store_webhook_deliveries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_events_order_idx" ON "order_events" USING btree ("order_id","created_at","seq");--> statement-breakpoint
CREATE INDEX "orders_org_abandoned_idx" ON "orders" USING btree ("org_id","abandoned_at","id");--> statement-breakpoint
CREATE INDEX "orders_org_status_idx" ON "orders" USING btree ("org_id","status");--> statement-breakpoint
CREATE INDEX "orders_org_paid_idx" ON "orders" USING btree ("org_id","paid_at") WHERE "orders"."paid_at" is not null;--> statement-breakpoint
CREATE INDEX "orders_calling_reached_idx" ON "orders" USING btree ("reached_at") WHERE "orders"."status" = 'calling';--> statement-breakpoint
CREATE INDEX "store_integrations_org_created_idx" ON "store_integrations" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "store_webhook_deliveries_received_idx" ON "store_webhook_deliveries" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_org_number_started_idx" ON "calls" USING btree ("org_id","customer_number","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_order_unique" ON "campaign_contacts" USING btree ("order_id") WHERE "campaign_contacts"."order_id" is not null;--> statement-breakpoint
CREATE INDEX "campaigns_org_kind_idx" ON "campaigns" USING btree ("org_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_campaign_number_unique" ON "campaign_contacts" USING btree ("campaign_id","number") WHERE "campaign_contacts"."order_id" is null;