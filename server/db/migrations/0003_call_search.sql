CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "calls_org_started_idx";--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "search_digits" text GENERATED ALWAYS AS (regexp_replace(coalesce(customer_number, ''), '[^0-9]', '', 'g')) STORED;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "search_document" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, coalesce(transcript, '') || ' ' || coalesce(summary, ''))) STORED;--> statement-breakpoint
CREATE INDEX "calls_org_duration_idx" ON "calls" USING btree ("org_id","duration_seconds" NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "calls_org_cost_idx" ON "calls" USING btree ("org_id","cost_micros" NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "calls_search_digits_trgm_idx" ON "calls" USING gin ("search_digits" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "calls_customer_name_trgm_idx" ON "calls" USING gin ("customer_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "calls_search_document_idx" ON "calls" USING gin ("search_document");--> statement-breakpoint
CREATE INDEX "calls_org_started_idx" ON "calls" USING btree ("org_id","started_at","id");