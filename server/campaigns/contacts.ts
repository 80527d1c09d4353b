/**
 * A campaign's contacts as the API answers them: the paged list (GET /campaign/{id}/contacts) and the
 * CSV export (GET /campaign/{id}/export, streamed in batches by position, so a 100,000-contact
 * campaign never sits in memory whole). Every query filters on the organisation and the campaign.
 */
import { Readable } from "node:stream";
import { and, asc, desc, eq, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import type { CallOutcome } from "../../contract/call-outcome";
import { contactZones } from "../../contract/campaign-schedule";
import type { CampaignContact, ContactStatus } from "../../contract/campaign";
import { csvCell, csvLine } from "../calls/export";
import { containsPattern } from "../calls/list";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { calls, campaignContacts } from "../db/schema";
import type { CampaignRow } from "./repository";

export type CampaignContactRow = typeof campaignContacts.$inferSelect;

export interface ContactListQuery {
  page: number;
  limit: number;
  status?: ContactStatus | undefined;
  outcome?: CallOutcome | undefined;
  search?: string | undefined;
}

function contactFilter(scope: OrgScope, campaignId: string, query: Omit<ContactListQuery, "page" | "limit">): SQL {
  const filters: SQL[] = [eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, campaignId)];
  if (query.status) filters.push(eq(campaignContacts.status, query.status));
  if (query.outcome) filters.push(eq(campaignContacts.outcome, query.outcome));
  if (query.search) {
    // The number's digits (any spelling: "(415) 555-01" finds +141555501…) or a part of the name.
    const digits = query.search.replace(/\D/g, "");
    filters.push(
      or(digits ? sql`${campaignContacts.number} like ${containsPattern(digits)}` : undefined, sql`${campaignContacts.name} ilike ${containsPattern(query.search)}`)!,
    );
  }
  return and(...filters)!;
}

export function toApiContact(row: CampaignContactRow, fallback: string | null, callIds: string[]): CampaignContact {
  return {
    id: row.id,
    number: row.number,
    name: row.name,
    timezones: contactZones({ timezone: row.timezone, numberZones: row.numberZones }, fallback),
    timezone: row.timezone,
    status: row.status as ContactStatus,
    outcome: row.outcome as CallOutcome | null,
    attempts: row.attempts,
    last_call_id: row.lastCallId,
    last_ended_reason: row.lastEndedReason,
    next_attempt_at: row.status === "queued" && row.readyAt ? isoTime(row.readyAt) : null,
    variables: row.variables,
    call_ids: callIds,
    updated_at: isoTime(row.updatedAt),
  };
}

/** The contacts' calls (ids), newest first, per contact. */
async function callIdsOf(db: Db, scope: OrgScope, contactIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(contactIds.map((id) => [id, []]));
  if (contactIds.length === 0) return result;
  const rows = await db
    .select({ id: calls.id, contactId: calls.campaignContactId })
    .from(calls)
    .where(and(eq(calls.orgId, scope.orgId), inArray(calls.campaignContactId, [...contactIds])))
    .orderBy(desc(calls.startedAt), desc(calls.id));
  for (const row of rows) result.get(row.contactId!)?.push(row.id);
  return result;
}

/** A page of the campaign's contacts in import order. */
export async function listContacts(db: Db, scope: OrgScope, campaign: CampaignRow, query: ContactListQuery): Promise<{ data: CampaignContact[]; total: number }> {
  const where = contactFilter(scope, campaign.id, query);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(campaignContacts)
      .where(where)
      .orderBy(asc(campaignContacts.position))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    db.select({ n: sql<number>`count(*)::int` }).from(campaignContacts).where(where),
  ]);
  const callIds = await callIdsOf(db, scope, rows.map((row) => row.id));
  const fallback = campaign.schedule.fallback_timezone ?? null;
  return { data: rows.map((row) => toApiContact(row, fallback, callIds.get(row.id) ?? [])), total: counted?.n ?? 0 };
}

/** The export's fixed columns; the contacts' variables follow, one column each. */
export const CONTACT_EXPORT_COLUMNS = ["number", "name", "timezones", "status", "outcome", "attempts", "last_call_id", "last_ended_reason"] as const;

const EXPORT_BATCH = 1000;

/** The variable names of the campaign's contacts, in the order they first appear. */
async function variableNames(db: Db, scope: OrgScope, campaignId: string): Promise<string[]> {
  const result = (await db.execute(sql`
    select key from ${campaignContacts} c, jsonb_object_keys(c.variables) as key
    where c.org_id = ${scope.orgId} and c.campaign_id = ${campaignId}
    group by key order by min(c.position), key`)) as unknown as { rows: Array<{ key: string }> };
  return result.rows.map((row) => row.key);
}

/** `campaign-<name>-YYYY-MM-DD.csv` (the name reduced to letters, digits and dashes). */
export function contactExportFileName(campaign: Pick<CampaignRow, "name">, now = new Date()): string {
  const slug = campaign.name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `campaign-${slug || "contacts"}-${now.toISOString().slice(0, 10)}.csv`;
}

/**
 * The contacts as CSV, in import order: the fixed columns, then one column per variable (a variable
 * named like a fixed column is written as `variables.<name>`). Cells that could start a spreadsheet
 * formula get a leading ' (server/calls/export.ts), numbers included (+1…); the import drops it again.
 */
export async function contactsCsvStream(db: Db, scope: OrgScope, campaign: CampaignRow): Promise<Readable> {
  const variables = await variableNames(db, scope, campaign.id);
  const fixed = new Set<string>(CONTACT_EXPORT_COLUMNS);
  const header = csvLine([...CONTACT_EXPORT_COLUMNS, ...variables.map((name) => (fixed.has(name) ? `variables.${name}` : name))].map((name) => csvCell(name)));
  const fallback = campaign.schedule.fallback_timezone ?? null;
  const row = (contact: CampaignContactRow) =>
    csvLine([
      csvCell(contact.number),
      csvCell(contact.name),
      csvCell(contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, fallback).join(" ")),
      csvCell(contact.status),
      csvCell(contact.outcome),
      csvCell(contact.attempts),
      csvCell(contact.lastCallId),
      csvCell(contact.lastEndedReason),
      ...variables.map((name) => csvCell(contact.variables[name] ?? null)),
    ]);
  async function* lines(): AsyncGenerator<string> {
    yield header;
    let after = 0;
    for (;;) {
      const batch = await db
        .select()
        .from(campaignContacts)
        .where(and(eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, campaign.id), gt(campaignContacts.position, after)))
        .orderBy(asc(campaignContacts.position))
        .limit(EXPORT_BATCH);
      if (batch.length === 0) return;
      yield batch.map(row).join("");
      after = batch.at(-1)!.position;
      if (batch.length < EXPORT_BATCH) return;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
