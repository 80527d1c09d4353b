/**
 * The call list (GET /call/) and the rows of its CSV export (GET /call/export).
 *
 * Organisation: every query here starts from `orgCalls(scope)`, the `calls.org_id = <the scope's
 * organisation>` condition every other filter is ANDed onto; the agent-name join and the agent-name
 * search are limited to the same organisation. There is no other way in to these queries.
 *
 * Search design (one box, ORed; indexes in server/db/schema.ts, migration 0003_call_search):
 * - customer number: `search_digits` is a stored generated column, the number's digits only; a search
 *   that looks like a number (digits, '+', spaces, dashes, dots, parentheses, at least 3 digits) is
 *   matched as `search_digits LIKE '%<digits>%'` through a pg_trgm GIN index, so "+1 415 555 0123",
 *   "14155550123" and "415-555-0123" all find +14155550123.
 * - customer name: `customer_name ILIKE '%…%'` through a pg_trgm GIN index (3 characters or more use
 *   the index; shorter ones still work, by scanning).
 * - agent name: the organisation's agents whose name contains the text (a handful of rows) are looked
 *   up first, then `agent_id = ANY(…)` uses calls_agent_started_idx.
 * - call id: equality on the primary key when the text is a UUID.
 * - transcript and summary words: `search_document`, a stored generated tsvector ('simple'
 *   configuration: no stemming, any language) with a GIN index; every word must appear.
 * PostgreSQL ORs the bitmap index scans, then checks org_id; when a search matches a large share of
 * the calls it walks calls_org_started_idx newest first instead and stops at the page.
 *
 * Total: counting a million calls exactly costs far more than the page itself (an index-only scan of
 * 1,000,000 entries, or a GIN bitmap of every call containing a common word), so:
 * 1. the planner's estimate comes first (EXPLAIN, no rows read, well under a millisecond);
 * 2. above CALL_LIST_ESTIMATE_ONLY_ABOVE (20,000) that estimate is the total, `total_is_estimate: true`;
 * 3. otherwise the rows are counted, stopping at CALL_LIST_EXACT_COUNT_LIMIT + 1 (10,001; `LIMIT`
 *    inside the count): up to the limit the total is exact, above it it is max(estimate, 10,001), flagged.
 * So every total of 10,000 or less the planner does not overestimate past 20,000 is exact, and no page
 * pays for more than 10,001 counted rows. The export's x-total-count is always exact (it reads them all).
 * Paging: the page's ids are found first (an index-only scan of (org_id, started_at, id) when there is
 * no other filter, so deep pages skip the heap), then only those 20 rows are read with their agent's name.
 * The export walks the same order in keyset batches (the sort value and id of the last row sent).
 */
import { and, asc, desc, eq, gte, ilike, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { CALL_LIST_EXACT_COUNT_LIMIT, type CallFilters } from "../../contract";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, calls } from "../db/schema";
import { usdToMicros } from "../wallet/money";
import type { CallListRow } from "./repository";

const DAY_MS = 86_400_000;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER_LIKE = /^[\d\s+().-]+$/;

/** The columns a list item is made of (no messages, transcript, cost breakdown or structured data). */
const listColumns = {
  id: calls.id,
  type: calls.type,
  status: calls.status,
  agentId: calls.agentId,
  agentName: agents.name,
  phoneNumberId: calls.phoneNumberId,
  customerNumber: calls.customerNumber,
  customerName: calls.customerName,
  startedAt: calls.startedAt,
  endedAt: calls.endedAt,
  durationSeconds: calls.durationSeconds,
  endedReason: calls.endedReason,
  costMicros: calls.costMicros,
  recordingUrl: calls.recordingUrl,
  stereoRecordingUrl: calls.stereoRecordingUrl,
  summary: calls.summary,
  successEvaluation: calls.successEvaluation,
  campaignId: calls.campaignId,
  providerCallId: calls.providerCallId,
  isSandbox: calls.isSandbox,
  createdAt: calls.createdAt,
} satisfies Record<keyof CallListRow, unknown>;

/** The organisation condition every query in this file starts from. */
function orgCalls(scope: OrgScope): SQL {
  return eq(calls.orgId, scope.orgId);
}

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);

/** LIKE pattern for "contains `text`" (the wildcards in `text` taken literally). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The search box's condition (see the file comment), or undefined for a blank search. */
async function searchCondition(db: Db, scope: OrgScope, raw: string | undefined): Promise<SQL | undefined> {
  const text = raw?.trim();
  if (!text) return undefined;
  const parts: SQL[] = [];
  if (UUID_PATTERN.test(text)) parts.push(eq(calls.id, text.toLowerCase()));
  const digits = text.replace(/\D/g, "");
  if (NUMBER_LIKE.test(text) && digits.length >= 3) parts.push(sql`${calls.searchDigits} like ${`%${digits}%`}`);
  parts.push(ilike(calls.customerName, containsPattern(text)));
  const agentIds = (
    await db
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.orgId, scope.orgId), ilike(agents.name, containsPattern(text))))
  ).map((agent) => agent.id);
  if (agentIds.length > 0) parts.push(inArray(calls.agentId, agentIds));
  if (/[\p{L}\p{N}]/u.test(text)) parts.push(sql`${calls.searchDocument} @@ plainto_tsquery('simple', ${text})`);
  return or(...parts);
}

/** Every condition of the filters, the organisation's first. */
export async function callConditions(db: Db, scope: OrgScope, filters: CallFilters): Promise<SQL> {
  const conditions: (SQL | undefined)[] = [orgCalls(scope)];
  if (filters.startDate) conditions.push(gte(calls.startedAt, dayStart(filters.startDate)));
  if (filters.endDate) conditions.push(lt(calls.startedAt, new Date(dayStart(filters.endDate).getTime() + DAY_MS)));
  if (filters.agentId) conditions.push(eq(calls.agentId, filters.agentId));
  if (filters.campaignId) conditions.push(eq(calls.campaignId, filters.campaignId));
  if (filters.status) conditions.push(inArray(calls.status, filters.status));
  if (filters.type) conditions.push(inArray(calls.type, filters.type));
  if (filters.endedReason) conditions.push(inArray(calls.endedReason, filters.endedReason));
  if (filters.successEvaluation) conditions.push(inArray(calls.successEvaluation, filters.successEvaluation));
  if (filters.durationMin !== undefined) conditions.push(gte(calls.durationSeconds, filters.durationMin));
  if (filters.durationMax !== undefined) conditions.push(lte(calls.durationSeconds, filters.durationMax));
  if (filters.costMin !== undefined) conditions.push(gte(calls.costMicros, usdToMicros(filters.costMin)));
  if (filters.costMax !== undefined) conditions.push(lte(calls.costMicros, usdToMicros(filters.costMax)));
  conditions.push(await searchCondition(db, scope, filters.search));
  return and(...conditions) as SQL;
}

type SortSpec = Pick<CallFilters, "sortBy" | "sortOrder">;

function sortColumn(sortBy: SortSpec["sortBy"]): PgColumn {
  if (sortBy === "duration") return calls.durationSeconds;
  if (sortBy === "cost") return calls.costMicros;
  return calls.startedAt;
}

/** ORDER BY: the sort column then id, both the same direction; nulls (no duration/cost yet) count as smallest. */
function orderBy({ sortBy, sortOrder }: SortSpec): SQL[] {
  const column = sortColumn(sortBy);
  if (sortBy === "startedAt") return sortOrder === "asc" ? [asc(column), asc(calls.id)] : [desc(column), desc(calls.id)];
  return sortOrder === "asc" ? [sql`${column} asc nulls first`, asc(calls.id)] : [sql`${column} desc nulls last`, desc(calls.id)];
}

/**
 * Rows after the one whose sort value is `cursor` (the column as text: exact, where a JS Date would
 * drop the microseconds) and id `lastId`, in the order of `sort` (keyset).
 */
function after(sort: SortSpec, cursor: string | null, lastId: string): SQL {
  const column = sortColumn(sort.sortBy);
  const later = sort.sortOrder === "asc";
  const idAfter = later ? sql`${calls.id} > ${lastId}` : sql`${calls.id} < ${lastId}`;
  if (cursor === null) {
    // Nulls are the smallest: first when ascending, last when descending.
    return later ? sql`((${column} is null and ${idAfter}) or ${column} is not null)` : sql`(${column} is null and ${idAfter})`;
  }
  const bound = sort.sortBy === "startedAt" ? sql`${cursor}::timestamptz` : sql`${cursor}::bigint`;
  const beyond = later ? sql`${column} > ${bound}` : sql`(${column} < ${bound} or ${column} is null)`;
  return sql`(${beyond} or (${column} = ${bound} and ${idAfter}))`;
}

/** Both drivers answer raw SQL with {rows}. */
async function rawRows<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Above this many rows by the planner's estimate the list does not count at all (see the file comment). */
export const CALL_LIST_ESTIMATE_ONLY_ABOVE = 20_000;

/** The planner's estimate of the rows matching `where` (EXPLAIN: planning only, nothing is read). */
async function estimateCalls(db: Db, where: SQL): Promise<number> {
  const plan = await rawRows<{ "QUERY PLAN": unknown }>(db, sql`explain (format json) ${db.select({ one: sql`1` }).from(calls).where(where)}`);
  const json = plan[0]?.["QUERY PLAN"];
  const parsed = (typeof json === "string" ? JSON.parse(json) : json) as [{ Plan: { "Plan Rows": number } }] | undefined;
  return Math.round(parsed?.[0]?.Plan["Plan Rows"] ?? 0);
}

/** The list's total: see the file comment. */
export async function countCalls(
  db: Db,
  where: SQL,
  exactLimit = CALL_LIST_EXACT_COUNT_LIMIT,
  estimateOnlyAbove = CALL_LIST_ESTIMATE_ONLY_ABOVE,
): Promise<{ total: number; isEstimate: boolean }> {
  const estimate = await estimateCalls(db, where);
  if (estimate > estimateOnlyAbove) return { total: estimate, isEstimate: true };
  const capped = db.select({ one: sql`1` }).from(calls).where(where).limit(exactLimit + 1).as("capped");
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(capped);
  const n = Number(row?.n ?? 0);
  if (n <= exactLimit) return { total: n, isEstimate: false };
  return { total: Math.max(estimate, n), isEstimate: true };
}

/** Exact number of calls matching (the export's progress header). */
export async function countCallsExactly(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(calls).where(where);
  return Number(row?.n ?? 0);
}

/** One page of rows matching `where` (from callConditions) in the order of `sort`. */
async function pageRows(db: Db, scope: OrgScope, where: SQL, sort: SortSpec, limit: number, offset: number): Promise<CallListRow[]> {
  const page = db.select({ pageId: calls.id }).from(calls).where(where).orderBy(...orderBy(sort)).limit(limit).offset(offset).as("page");
  const rows = await db
    .select(listColumns)
    .from(calls)
    .innerJoin(page, eq(page.pageId, calls.id))
    .leftJoin(agents, and(eq(agents.id, calls.agentId), eq(agents.orgId, scope.orgId)))
    .where(orgCalls(scope))
    .orderBy(...orderBy(sort));
  return rows;
}

export interface CallListPage {
  rows: CallListRow[];
  total: number;
  totalIsEstimate: boolean;
}

export async function listCalls(db: Db, scope: OrgScope, filters: CallFilters, page: number, limit: number): Promise<CallListPage> {
  const where = await callConditions(db, scope, filters);
  const [rows, count] = await Promise.all([pageRows(db, scope, where, filters, limit, (page - 1) * limit), countCalls(db, where)]);
  return { rows, total: count.total, totalIsEstimate: count.isEstimate };
}

export const EXPORT_BATCH_SIZE = 1000;

/** Every row matching `where`, in the list's order, `batchSize` at a time (keyset: never all in memory). */
export async function* callBatches(db: Db, scope: OrgScope, where: SQL, sort: SortSpec, batchSize = EXPORT_BATCH_SIZE): AsyncGenerator<CallListRow[]> {
  const cursorColumn = sql<string | null>`${sortColumn(sort.sortBy)}::text`;
  let last: { cursor: string | null; id: string } | undefined;
  for (;;) {
    const condition = last ? and(where, after(sort, last.cursor, last.id)) : where;
    const rows = await db
      .select({ ...listColumns, cursor: cursorColumn })
      .from(calls)
      .leftJoin(agents, and(eq(agents.id, calls.agentId), eq(agents.orgId, scope.orgId)))
      .where(and(orgCalls(scope), condition))
      .orderBy(...orderBy(sort))
      .limit(batchSize);
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    const end = rows[rows.length - 1] as { cursor: string | null; id: string };
    last = { cursor: end.cursor, id: end.id };
  }
}
