/**
 * The dialler pausing a campaign by itself (pause_code + pause_reason, and an `auto_paused` event with the
 * same sentence): the wallet cannot cover more calls, the provider refused for an account or configuration
 * reason, most recent calls failed (the circuit breaker), or the agent or caller number is gone. Only a
 * person resumes it (POST /campaign/{id}/resume).
 *
 * Call it holding the organisation's row (either lock) and then the campaign's, in that order.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { PauseCode } from "../../contract/campaign-shared";
import type { Db } from "../db/client";
import { campaigns } from "../db/schema";
import { recordCampaignEvent } from "./events";

/** Pauses a running (or scheduled) campaign; answers false when it was not in such a state. */
export async function autoPause(tx: Db, campaign: { id: string; orgId: string }, code: Exclude<PauseCode, "manual">, reason: string, now = new Date()): Promise<boolean> {
  const paused = await tx
    .update(campaigns)
    .set({ status: "paused", pauseCode: code, pauseReason: reason, updatedAt: now })
    .where(and(eq(campaigns.id, campaign.id), eq(campaigns.orgId, campaign.orgId), inArray(campaigns.status, ["running", "scheduled"])))
    .returning({ id: campaigns.id });
  if (paused.length === 0) return false;
  await recordCampaignEvent(tx, { orgId: campaign.orgId, campaignId: campaign.id, kind: "auto_paused", detail: reason, at: now });
  return true;
}

/** The sentences a person reads (pause_reason), one per cause. */
export const PAUSE_REASONS = {
  wallet: (balanceUsd: string, minimumUsd: string) =>
    `Paused automatically: the wallet's balance (${balanceUsd}) is below the minimum needed to place calls (${minimumUsd}). Top up the wallet, then resume the campaign.`,
  provider: (detail: string) =>
    `Paused automatically: the voice provider refused to place the campaign's calls. ${detail.trim().replace(/\.?$/, ".")} Fix what it names, then resume the campaign.`,
  circuitBreaker: (failed: number, settled: number, lastReason: string | null) =>
    `Paused automatically: ${failed} of the last ${settled} calls failed to connect${lastReason ? ` (the last ended with "${lastReason}")` : ""}. ` +
    "Check the agent, the caller number and the voice provider, then resume the campaign.",
  spendCap: (detail: string) => `Paused automatically: ${detail} Raise the cap in Billing, or wait until it resets, then resume the campaign.`,
  agentMissing: () => "Paused automatically: the campaign's agent was deleted. Choose another agent for the campaign, then resume it.",
  numberMissing: () => "Paused automatically: the campaign's caller number was deleted. Choose another phone number for the campaign, then resume it.",
} as const;
