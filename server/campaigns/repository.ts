/**
 * Campaign rows: the queries and the mapping to the API shape (contract/campaign.ts). Reads of one
 * campaign go through the organisation scope (another organisation's id is not found); the aggregates
 * over contacts filter on the scope's organisation as well as the campaign.
 */
import { and, desc, eq, ilike, inArray, sql, type SQL } from "drizzle-orm";
import {
  CONTACT_STATUSES,
  FINAL_CONTACT_STATUSES,
  type Campaign,
  type CampaignCountsBody,
  type CampaignStatus,
  type PauseCode,
  type RetryOutcome,
  type Weekday,
} from "../../contract/campaign";
import { containsPattern } from "../calls/list";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { agents, campaignContacts, campaigns, phoneNumbers } from "../db/schema";

export type CampaignRow = typeof campaigns.$inferSelect;

/**
 * Campaigns a person made (kind `campaign`). Order follow-up campaigns (kind `order_follow_up`,
 * server/orders/follow-up.ts) are dialled like them but never listed, counted, shown, changed or deleted
 * through /campaign: their ids answer 404 there.
 */
export const isListedCampaign = (row: Pick<CampaignRow, "kind">): boolean => row.kind === "campaign";

export async function findCampaign(scope: OrgScope, id: string): Promise<CampaignRow | null> {
  const row = await scope.byId(campaigns, id);
  return row && isListedCampaign(row) ? row : null;
}

/** The campaign row locked for the rest of the transaction (`SELECT … FOR UPDATE`), or null when it is not the organisation's. */
export async function lockCampaign(tx: Db, scope: OrgScope, id: string): Promise<CampaignRow | null> {
  const [row] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.orgId, scope.orgId), eq(campaigns.id, id), eq(campaigns.kind, "campaign")))
    .for("update");
  return row ?? null;
}

export interface CampaignListQuery {
  page: number;
  limit: number;
  status?: CampaignStatus | undefined;
  search?: string | undefined;
}

/** The organisation's campaigns, newest first, filtered by state and by a part of the name. */
export async function listCampaigns(scope: OrgScope, query: CampaignListQuery): Promise<{ rows: CampaignRow[]; total: number }> {
  const filters: SQL[] = [eq(campaigns.kind, "campaign")];
  if (query.status) filters.push(eq(campaigns.status, query.status));
  if (query.search) filters.push(ilike(campaigns.name, containsPattern(query.search)));
  const where = and(...filters);
  const [rows, total] = await Promise.all([
    scope.select(campaigns, { where, orderBy: [desc(campaigns.createdAt), desc(campaigns.id)], limit: query.limit, offset: (query.page - 1) * query.limit }),
    scope.count(campaigns, where),
  ]);
  return { rows, total };
}

/** What a campaign's answer needs beyond its row. */
export interface CampaignFacts {
  counts: CampaignCountsBody;
  /** The earliest ready_at of its queued contacts. */
  nextReadyAt: Date | null;
  agentName: string | null;
  phoneNumber: string | null;
}

export const emptyCounts = (): CampaignCountsBody => ({
  total: 0,
  queued: 0,
  in_progress: 0,
  answered: 0,
  busy: 0,
  no_answer: 0,
  voicemail: 0,
  failed: 0,
  dnc: 0,
  needs_timezone: 0,
  cancelled: 0,
});

const isCountKey = (status: string): status is (typeof CONTACT_STATUSES)[number] => (CONTACT_STATUSES as readonly string[]).includes(status);

/**
 * Contact counts per status (one GROUP BY over campaign_contacts, through its (campaign_id, status)
 * index) and the earliest ready_at of queued contacts, for each of `ids`.
 */
export async function contactCounts(db: Db, scope: OrgScope, ids: readonly string[]): Promise<Map<string, { counts: CampaignCountsBody; nextReadyAt: Date | null }>> {
  const result = new Map<string, { counts: CampaignCountsBody; nextReadyAt: Date | null }>();
  for (const id of ids) result.set(id, { counts: emptyCounts(), nextReadyAt: null });
  if (ids.length === 0) return result;
  const rows = await db
    .select({
      campaignId: campaignContacts.campaignId,
      status: campaignContacts.status,
      n: sql<number>`count(*)::int`,
      next: sql<Date | null>`min(${campaignContacts.readyAt}) filter (where ${campaignContacts.status} = 'queued')`.mapWith(campaignContacts.readyAt),
    })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, scope.orgId), inArray(campaignContacts.campaignId, [...ids])))
    .groupBy(campaignContacts.campaignId, campaignContacts.status);
  for (const row of rows) {
    const entry = result.get(row.campaignId)!;
    entry.counts.total += row.n;
    if (isCountKey(row.status)) entry.counts[row.status] += row.n;
    if (row.status === "queued" && row.next) entry.nextReadyAt = row.next;
  }
  return result;
}

/** Finished contacts (FINAL_CONTACT_STATUSES) ÷ all, 0..1 (0 for none). */
export function progressOf(counts: CampaignCountsBody): number {
  if (counts.total === 0) return 0;
  const finished = FINAL_CONTACT_STATUSES.reduce((sum, status) => sum + counts[status], 0);
  return finished / counts.total;
}

/**
 * next_window_at: when the next queued contact may be dialled, if that is still to come, for a campaign
 * that will dial then (running or scheduled; a draft or paused one waits for a person first).
 */
export function nextWindowAt(status: string, nextReadyAt: Date | null, now = Date.now()): string | null {
  if (status !== "running" && status !== "scheduled") return null;
  return nextReadyAt && nextReadyAt.getTime() > now ? isoTime(nextReadyAt) : null;
}

export async function campaignFacts(db: Db, scope: OrgScope, rows: readonly CampaignRow[]): Promise<Map<string, CampaignFacts>> {
  const agentIds = [...new Set(rows.map((row) => row.agentId).filter((id): id is string => id !== null))];
  const numberIds = [...new Set(rows.map((row) => row.phoneNumberId).filter((id): id is string => id !== null))];
  const [counts, agentRows, numberRows] = await Promise.all([
    contactCounts(db, scope, rows.map((row) => row.id)),
    agentIds.length > 0
      ? db.select({ id: agents.id, name: agents.name }).from(agents).where(and(eq(agents.orgId, scope.orgId), inArray(agents.id, agentIds)))
      : Promise.resolve([]),
    numberIds.length > 0
      ? db.select({ id: phoneNumbers.id, number: phoneNumbers.number }).from(phoneNumbers).where(and(eq(phoneNumbers.orgId, scope.orgId), inArray(phoneNumbers.id, numberIds)))
      : Promise.resolve([]),
  ]);
  const agentNames = new Map(agentRows.map((row) => [row.id, row.name]));
  const numbers = new Map(numberRows.map((row) => [row.id, row.number]));
  return new Map(
    rows.map((row) => {
      const contacts = counts.get(row.id)!;
      return [
        row.id,
        {
          counts: contacts.counts,
          nextReadyAt: contacts.nextReadyAt,
          agentName: row.agentId ? (agentNames.get(row.agentId) ?? null) : null,
          phoneNumber: row.phoneNumberId ? (numbers.get(row.phoneNumberId) ?? null) : null,
        },
      ];
    }),
  );
}

export function toApiCampaign(row: CampaignRow, facts: CampaignFacts, concurrencyLimit: number): Campaign {
  return {
    id: row.id,
    name: row.name,
    status: row.status as CampaignStatus,
    agent_id: row.agentId,
    agent_name: facts.agentName,
    phone_number_id: row.phoneNumberId,
    phone_number: facts.phoneNumber,
    schedule: {
      windows: row.schedule.windows.map((window) => ({ days: window.days as Weekday[], start: window.start, end: window.end })),
      fallback_timezone: row.schedule.fallback_timezone ?? null,
      start_at: row.startAt ? isoTime(row.startAt) : null,
      end_at: row.endAt ? isoTime(row.endAt) : null,
    },
    max_concurrency: row.maxConcurrency,
    retry: { max_attempts: row.retry.max_attempts, delay_minutes: row.retry.delay_minutes, on: row.retry.on as RetryOutcome[] },
    pause_reason: row.pauseReason,
    pause_code: row.pauseCode as PauseCode | null,
    counts: facts.counts,
    next_window_at: nextWindowAt(row.status, facts.nextReadyAt),
    concurrency_limit: concurrencyLimit,
    started_at: row.startedAt ? isoTime(row.startedAt) : null,
    completed_at: row.completedAt ? isoTime(row.completedAt) : null,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  };
}

/** The API answers for `rows`, in their order. */
export async function toApiCampaigns(db: Db, scope: OrgScope, rows: readonly CampaignRow[], concurrencyLimit: number): Promise<Campaign[]> {
  const facts = await campaignFacts(db, scope, rows);
  return rows.map((row) => toApiCampaign(row, facts.get(row.id)!, concurrencyLimit));
}
