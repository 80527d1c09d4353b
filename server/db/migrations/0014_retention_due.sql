-- Calls not redacted yet, per organisation, oldest first: the retention sweep's batches and the downgrade preview's
-- count of what the sweep will redact read only those calls, however many already-redacted calls an organisation has.
CREATE INDEX "calls_org_unredacted_started_idx" ON "calls" USING btree ("org_id","started_at") WHERE "calls"."redacted_at" is null;