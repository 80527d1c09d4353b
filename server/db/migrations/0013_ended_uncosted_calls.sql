-- Ended calls without a cost yet (their end-of-call report has not come): a handful of rows, however many calls there
-- are. The dialler asks the provider about those whose report never came (server/campaigns/reaper.ts).
CREATE INDEX "calls_ended_uncosted_idx" ON "calls" USING btree ("ended_at") WHERE "calls"."status" = 'ended' and "calls"."cost_micros" is null;