/**
 * The dashboard's campaigns (contract/dashboard.ts): how many are running, and the running, scheduled
 * and paused ones with their counts, progress and next window, and why a paused one paused. Not tied to the period or the agent:
 * it says what is dialling now.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { PauseCode } from "../../contract/campaign-shared";
import { DASHBOARD_CAMPAIGNS_MAX, type Dashboard } from "../../contract/dashboard";
import { contactCounts, nextWindowAt, progressOf } from "../campaigns/repository";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaigns } from "../db/schema";

const ACTIVE = ["running", "scheduled", "paused"] as const;

export async function dashboardCampaigns(db: Db, orgId: string): Promise<Dashboard["campaigns"]> {
  const scope = orgScope(db, orgId);
  const [rows, running] = await Promise.all([
    scope.select(campaigns, {
      // Order follow-up campaigns are the Orders screen's, not this card's.
      where: and(eq(campaigns.kind, "campaign"), inArray(campaigns.status, [...ACTIVE])),
      orderBy: [sql`case ${campaigns.status} when 'running' then 0 when 'scheduled' then 1 else 2 end`, desc(campaigns.updatedAt), desc(campaigns.id)],
      limit: DASHBOARD_CAMPAIGNS_MAX,
    }),
    scope.count(campaigns, and(eq(campaigns.kind, "campaign"), eq(campaigns.status, "running"))),
  ]);
  const counts = await contactCounts(db, scope, rows.map((row) => row.id));
  return {
    running,
    items: rows.map((row) => {
      const contacts = counts.get(row.id)!;
      return {
        id: row.id,
        name: row.name,
        status: row.status as (typeof ACTIVE)[number],
        counts: contacts.counts,
        progress: progressOf(contacts.counts),
        next_window_at: nextWindowAt(row.status, contacts.nextReadyAt),
        // As GET /campaign/{id} gives them: set by a pause, cleared by resume, start and cancel.
        pause_code: row.pauseCode as PauseCode | null,
        pause_reason: row.pauseReason,
      };
    }),
  };
}
