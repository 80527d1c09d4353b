-- The calls not ended yet, by organisation: the wallet's holds, the plan's concurrent calls, the spend caps' holds
-- and the dialler's claim count them (server/campaigns/claim.ts), a few rows however many ended calls the
-- organisation has (calls_org_started_idx read every call of the last two hours: 7 ms at 7,000 calls).
CREATE INDEX "calls_org_open_started_idx" ON "calls" USING btree ("org_id","started_at") WHERE "calls"."status" <> 'ended';
