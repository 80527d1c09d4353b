/**
 * The campaign's history (campaign_events): starts, pauses with their reasons, resumes, edits that
 * matter, completion. Written in the same transaction as the change it records. Both the API's
 * transitions (server/campaigns/service.ts) and the dialler (server/campaigns/dialler.ts) use it.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client";
import { campaignEvents } from "../db/schema";

export const CAMPAIGN_EVENT_KINDS = ["created", "started", "scheduled", "paused", "auto_paused", "resumed", "cancelled", "completed", "edited", "imported"] as const;
export type CampaignEventKind = (typeof CAMPAIGN_EVENT_KINDS)[number];

export async function recordCampaignEvent(
  tx: Db,
  event: { orgId: string; campaignId: string; kind: CampaignEventKind; detail: string; actor?: string | null; at?: Date },
): Promise<void> {
  await tx.insert(campaignEvents).values({
    id: randomUUID(),
    orgId: event.orgId,
    campaignId: event.campaignId,
    kind: event.kind,
    detail: event.detail,
    actor: event.actor ?? null,
    createdAt: event.at ?? new Date(),
  });
}
