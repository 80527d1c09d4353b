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
 *
 * Compiled shapes: building these statements with drizzle cost more CPU than PostgreSQL spent running
 * a first page (about 1 ms a request in a bench:calls profile), and the text only depends on the
 * request's shape: which filters are present, how many values each list filter holds, which parts the
 * search has, and the sort. `callQuery` turns a request into that shape's key and the values of its
 * placeholders; each statement is built once per key (`compiled`, at most COMPILED_SHAPES_KEPT kept,
 * least recently used dropped) and then only run with new values. The statements stay unnamed: a named
 * (server-side prepared) statement lets PostgreSQL switch to one generic plan after five runs, and
 * the best plan for a search depends on the word searched. The one exception is the unfiltered list
 * (`statementName`), where no value could make a generic plan the wrong one.
 */
import { and, asc, desc, eq, fillPlaceholders, gte, ilike, inArray, lt, lte, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { CALL_LIST_EXACT_COUNT_LIMIT, DEFAULT_TIME_ZONE, type CallFilters } from "../../contract";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, calls } from "../db/schema";
import { usdToMicros } from "../wallet/money";
import type { CallListRow } from "./repository";

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
  successOutcome: calls.successOutcome,
  outcome: calls.outcome,
  campaignId: calls.campaignId,
  campaignContactId: calls.campaignContactId,
  providerCallId: calls.providerCallId,
  isSandbox: calls.isSandbox,
  createdAt: calls.createdAt,
} satisfies Record<keyof CallListRow, unknown>;

type Values = Record<string, unknown>;
const slot = (name: string) => sql.placeholder(name);

/**
 * Unnamed: node-postgres then sends the statement without a server-side name, so PostgreSQL plans it
 * with each request's values (see "Compiled shapes" above). Drizzle types the name as required; it
 * passes it through to the driver, and PGlite ignores it.
 */
const UNNAMED = undefined as unknown as string;

/** Statements kept per database (least recently used dropped first): see "Compiled shapes" above. */
export const COMPILED_SHAPES_KEPT = 500;

/** Built statements by key, at most `limit`, the least recently used dropped first. */
export class CompiledStatements {
  private readonly statements = new Map<string, unknown>();

  constructor(private readonly limit = COMPILED_SHAPES_KEPT) {}

  get size(): number {
    return this.statements.size;
  }

  /** The statement `key` names, built by `build` the first time (or again after it was dropped). */
  get<T>(key: string, build: () => T): T {
    if (this.statements.has(key)) {
      const statement = this.statements.get(key) as T;
      // Most recently used last, so the Map's first key is the one to drop.
      this.statements.delete(key);
      this.statements.set(key, statement);
      return statement;
    }
    const statement = build();
    this.statements.set(key, statement);
    if (this.statements.size > this.limit) this.statements.delete(this.statements.keys().next().value as string);
    return statement;
  }
}

/** Per database: a test process may hold several, and a statement belongs to its database's session. */
const compiledByDb = new WeakMap<Db, CompiledStatements>();

function compiled<T>(db: Db, key: string, build: () => T): T {
  let statements = compiledByDb.get(db);
  if (!statements) compiledByDb.set(db, (statements = new CompiledStatements()));
  return statements.get(key, build);
}

/** How many statements are compiled for `db` (tests). */
export const compiledStatementCount = (db: Db) => compiledByDb.get(db)?.size ?? 0;

/**
 * A request's filters: the shape `key` (equal keys build equal SQL), the `values` of its placeholders,
 * and its WHERE condition with placeholders, the organisation's first (built only when the shape is new).
 */
export interface CallQuery {
  key: string;
  values: Values;
  where: () => SQL;
}

/** The pieces a CallQuery is made of: each term adds its key, its values and its condition. */
class Terms {
  readonly keys: string[] = [];
  readonly values: Values = {};
  readonly conditions: (() => SQL | undefined)[] = [];

  add(key: string, values: Values, condition: () => SQL | undefined): void {
    this.keys.push(key);
    Object.assign(this.values, values);
    this.conditions.push(condition);
  }

  /** `column` equals one of `list`: one placeholder per value, so the key holds the count. */
  oneOf(name: string, column: PgColumn, list: readonly string[]): void {
    const names = list.map((_, index) => `${name}${index}`);
    this.add(`${name}${list.length}`, Object.fromEntries(names.map((slotName, index) => [slotName, list[index]])), () => inArray(column, names.map(slot)));
  }
}

/** The first instant of `day` (a date) in the zone of the `timeZone` placeholder. */
const dayStart = (day: SQL | Placeholder) => sql`(${day}::date::timestamp at time zone ${slot("timeZone")})`;

/** LIKE pattern for "contains `text`" (the wildcards in `text` taken literally). */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The organisation's agents whose name contains the text (the agent-name part of a search). */
function agentsNamedLike(db: Db) {
  return compiled(db, "agents named like", () =>
    db
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.orgId, slot("orgId")), ilike(agents.name, slot("namePattern"))))
      .prepare(UNNAMED),
  );
}

/** The search box's parts (see the file comment), ORed into one term; nothing for a blank search. */
async function addSearch(db: Db, scope: OrgScope, raw: string | undefined, terms: Terms): Promise<void> {
  const text = raw?.trim();
  if (!text) return;
  const parts = new Terms();
  if (UUID_PATTERN.test(text)) parts.add("id", { searchId: text.toLowerCase() }, () => eq(calls.id, slot("searchId")));
  const digits = text.replace(/\D/g, "");
  if (NUMBER_LIKE.test(text) && digits.length >= 3) parts.add("digits", { searchDigits: `%${digits}%` }, () => sql`${calls.searchDigits} like ${slot("searchDigits")}`);
  const namePattern = containsPattern(text);
  parts.add("name", { namePattern }, () => ilike(calls.customerName, slot("namePattern")));
  const agentIds = (await agentsNamedLike(db).execute({ orgId: scope.orgId, namePattern })).map((agent) => agent.id);
  if (agentIds.length > 0) parts.oneOf("searchAgent", calls.agentId, agentIds);
  if (/[\p{L}\p{N}]/u.test(text)) parts.add("words", { searchWords: text }, () => sql`${calls.searchDocument} @@ plainto_tsquery('simple', ${slot("searchWords")})`);
  terms.add(`search(${parts.keys.join(",")})`, parts.values, () => or(...parts.conditions.map((condition) => condition())));
}

/** A request's filters as a CallQuery (see "Compiled shapes" in the file comment). */
export async function callQuery(db: Db, scope: OrgScope, filters: CallFilters): Promise<CallQuery> {
  const terms = new Terms();
  terms.add("org", { orgId: scope.orgId }, () => eq(calls.orgId, slot("orgId")));
  // Days start at midnight in `timezone` (default UTC): the zone is a placeholder too, so one statement
  // serves every zone. The bound is a stable expression of the values, computed once before the scan,
  // so started_at still ranges over calls_org_started_idx; `timestamp AT TIME ZONE` puts a midnight a
  // change to daylight saving skips (America/Santiago) at the day's first instant, as the dashboard's
  // `(started_at AT TIME ZONE tz)::date` does.
  const timeZone = filters.timezone ?? DEFAULT_TIME_ZONE;
  if (filters.startDate) terms.add("from", { from: filters.startDate, timeZone }, () => gte(calls.startedAt, dayStart(slot("from"))));
  if (filters.endDate) terms.add("until", { until: filters.endDate, timeZone }, () => lt(calls.startedAt, dayStart(sql`(${slot("until")}::date + 1)`)));
  if (filters.agentId) terms.add("agent", { agentId: filters.agentId }, () => eq(calls.agentId, slot("agentId")));
  if (filters.campaignId) terms.add("campaign", { campaignId: filters.campaignId }, () => eq(calls.campaignId, slot("campaignId")));
  if (filters.status) terms.oneOf("status", calls.status, filters.status);
  if (filters.type) terms.oneOf("type", calls.type, filters.type);
  if (filters.endedReason) terms.oneOf("endedReason", calls.endedReason, filters.endedReason);
  if (filters.successEvaluation) terms.oneOf("success", calls.successEvaluation, filters.successEvaluation);
  if (filters.outcome) terms.oneOf("outcome", calls.outcome, filters.outcome);
  if (filters.success) terms.oneOf("passFail", calls.successOutcome, filters.success);
  if (filters.durationMin !== undefined) terms.add("durationMin", { durationMin: filters.durationMin }, () => gte(calls.durationSeconds, slot("durationMin")));
  if (filters.durationMax !== undefined) terms.add("durationMax", { durationMax: filters.durationMax }, () => lte(calls.durationSeconds, slot("durationMax")));
  if (filters.costMin !== undefined) terms.add("costMin", { costMin: usdToMicros(filters.costMin) }, () => gte(calls.costMicros, slot("costMin")));
  if (filters.costMax !== undefined) terms.add("costMax", { costMax: usdToMicros(filters.costMax) }, () => lte(calls.costMicros, slot("costMax")));
  await addSearch(db, scope, filters.search, terms);
  return { key: terms.keys.join(","), values: terms.values, where: () => and(...terms.conditions.map((condition) => condition())) as SQL };
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
 * Rows after the one whose sort value is the placeholder `cursor` (the column as text: exact, where a
 * JS Date would drop the microseconds) and id `lastId`, in the order of `sort` (keyset). `cursorIsNull`:
 * the last row had no sort value (no duration or cost yet).
 */
function after(sort: SortSpec, cursorIsNull: boolean): SQL {
  const column = sortColumn(sort.sortBy);
  const later = sort.sortOrder === "asc";
  const idAfter = later ? sql`${calls.id} > ${slot("lastId")}` : sql`${calls.id} < ${slot("lastId")}`;
  if (cursorIsNull) {
    // Nulls are the smallest: first when ascending, last when descending.
    return later ? sql`((${column} is null and ${idAfter}) or ${column} is not null)` : sql`(${column} is null and ${idAfter})`;
  }
  const bound = sort.sortBy === "startedAt" ? sql`${slot("cursor")}::timestamptz` : sql`${slot("cursor")}::bigint`;
  const beyond = later ? sql`${column} > ${bound}` : sql`(${column} < ${bound} or ${column} is null)`;
  return sql`(${beyond} or (${column} = ${bound} and ${idAfter}))`;
}

/** Above this many rows by the planner's estimate the list does not count at all (see the file comment). */
export const CALL_LIST_ESTIMATE_ONLY_ABOVE = 20_000;

/** Raw text with drizzle's parameter list (placeholders in it), for what drizzle cannot prepare (EXPLAIN). */
interface RawStatement {
  sql: string;
  params: unknown[];
}

/** Both drivers under drizzle (node-postgres' Pool, PGlite) answer query(text, values) with {rows}. */
async function runRaw<T>(db: Db, statement: RawStatement, values: Values): Promise<T[]> {
  const client = (db as unknown as { $client: { query: (text: string, values: unknown[]) => Promise<{ rows: T[] }> } }).$client;
  return (await client.query(statement.sql, fillPlaceholders(statement.params, values))).rows;
}

/** The planner's estimate of the rows matching the query (EXPLAIN: planning only, nothing is read). */
async function estimateCalls(db: Db, query: CallQuery): Promise<number> {
  const statement = compiled(db, `estimate ${query.key}`, (): RawStatement => {
    const select = db.select({ one: sql`1` }).from(calls).where(query.where()).toSQL();
    return { sql: `explain (format json) ${select.sql}`, params: select.params };
  });
  const plan = await runRaw<{ "QUERY PLAN": unknown }>(db, statement, query.values);
  const json = plan[0]?.["QUERY PLAN"];
  const parsed = (typeof json === "string" ? JSON.parse(json) : json) as [{ Plan: { "Plan Rows": number } }] | undefined;
  return Math.round(parsed?.[0]?.Plan["Plan Rows"] ?? 0);
}

/** `select count(*)::int from (the query's rows, at most $countUpTo) "capped"`, not yet prepared. */
function cappedCountSelect(db: Db, query: CallQuery) {
  const capped = db.select({ one: sql`1` }).from(calls).where(query.where()).limit(slot("countUpTo")).as("capped");
  return db.select({ n: sql<number>`count(*)::int` }).from(capped);
}

/** The capped count alone (its value: at most `exactLimit + 1`). */
async function cappedCount(db: Db, query: CallQuery, exactLimit: number): Promise<number> {
  const counted = compiled(db, `capped count ${query.key}`, () => cappedCountSelect(db, query).prepare(statementName(query, "count")));
  const [row] = await counted.execute({ ...query.values, countUpTo: exactLimit + 1 });
  return Number(row?.n ?? 0);
}

/** The total from the planner's estimate and the capped count `n`: see "Total" in the file comment. */
function totalOf(estimate: number, n: number, exactLimit: number): { total: number; isEstimate: boolean } {
  if (n <= exactLimit) return { total: n, isEstimate: false };
  return { total: Math.max(estimate, n), isEstimate: true };
}

/** The list's total: see the file comment. */
export async function countCalls(
  db: Db,
  query: CallQuery,
  exactLimit = CALL_LIST_EXACT_COUNT_LIMIT,
  estimateOnlyAbove = CALL_LIST_ESTIMATE_ONLY_ABOVE,
): Promise<{ total: number; isEstimate: boolean }> {
  const estimate = await estimateCalls(db, query);
  if (estimate > estimateOnlyAbove) return { total: estimate, isEstimate: true };
  return totalOf(estimate, await cappedCount(db, query, exactLimit), exactLimit);
}

/** Exact number of calls matching (the export's progress header). */
export async function countCallsExactly(db: Db, query: CallQuery): Promise<number> {
  const counted = compiled(db, `count ${query.key}`, () =>
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(calls)
      .where(query.where())
      .prepare(UNNAMED),
  );
  const [row] = await counted.execute(query.values);
  return Number(row?.n ?? 0);
}

/** The shape of a list with no filter and no search: only the organisation's condition. */
const UNFILTERED = "org";

/**
 * Statements of the unfiltered shape are named (node-postgres then has PostgreSQL parse and plan them
 * once per connection): with only `org_id = $1` there is no value a generic plan would suit worse.
 * Every other shape stays unnamed (see "Compiled shapes" in the file comment).
 */
function statementName(query: CallQuery, what: string): string {
  return query.key === UNFILTERED ? `call_list_${what.replace(/\W+/g, "_")}` : UNNAMED;
}

/**
 * One page of the query's rows in the order of `sort`; with `counted`, each row also carries the capped
 * count (`counted`, a subquery PostgreSQL runs once), so the page and the total take one round trip.
 * The first page of the unfiltered list is read in one pass over calls_org_started_idx (or the duration
 * or cost index), rows and all: the deep-page plan (the page's ids first, then those rows) cost about
 * twice as much of PostgreSQL's CPU for 20 rows (0.29 against 0.16 ms with 2,000 calls).
 */
async function pageRows(
  db: Db,
  query: CallQuery,
  sort: SortSpec,
  limit: number,
  offset: number,
  counted: { exactLimit: number } | null,
): Promise<(CallListRow & { counted?: number })[]> {
  const direct = offset === 0 && query.key === UNFILTERED;
  const shape = `page ${query.key} ${sort.sortBy} ${sort.sortOrder}${direct ? " first" : ""}${counted ? " counted" : ""}`;
  const statement = compiled(db, shape, () => {
    const columns = counted ? { ...listColumns, counted: sql<number>`(${cappedCountSelect(db, query)})` } : listColumns;
    const agentOfCall = and(eq(agents.id, calls.agentId), eq(agents.orgId, slot("orgId")));
    if (direct) {
      return db.select(columns).from(calls).leftJoin(agents, agentOfCall).where(query.where()).orderBy(...orderBy(sort)).limit(slot("limit")).offset(slot("offset")).prepare(statementName(query, shape));
    }
    const page = db.select({ pageId: calls.id }).from(calls).where(query.where()).orderBy(...orderBy(sort)).limit(slot("limit")).offset(slot("offset")).as("page");
    return db
      .select(columns)
      .from(calls)
      .innerJoin(page, eq(page.pageId, calls.id))
      .leftJoin(agents, agentOfCall)
      .where(eq(calls.orgId, slot("orgId")))
      .orderBy(...orderBy(sort))
      .prepare(statementName(query, shape));
  });
  const values = { ...query.values, limit, offset, ...(counted ? { countUpTo: counted.exactLimit + 1 } : {}) };
  return (await statement.execute(values)) as (CallListRow & { counted?: number })[];
}

export interface CallListPage {
  rows: CallListRow[];
  total: number;
  totalIsEstimate: boolean;
}

/**
 * A page and its total. Filtered lists send the page alongside the total (the estimate, then the capped
 * count when the estimate is small). The unfiltered list (the console's default view) sends the estimate,
 * then the page with the capped count in the same statement: two statements instead of three, which
 * under load is a good part of the request's CPU, in Node and in PostgreSQL. The count stays out of the
 * filtered pages' statements, where it can cost as much as the page and runs alongside it.
 * `exactLimit` and `estimateOnlyAbove`: see countCalls (tests lower them).
 */
export async function listCalls(
  db: Db,
  scope: OrgScope,
  filters: CallFilters,
  page: number,
  limit: number,
  exactLimit = CALL_LIST_EXACT_COUNT_LIMIT,
  estimateOnlyAbove = CALL_LIST_ESTIMATE_ONLY_ABOVE,
): Promise<CallListPage> {
  const query = await callQuery(db, scope, filters);
  const offset = (page - 1) * limit;
  if (query.key !== UNFILTERED) {
    const [rows, count] = await Promise.all([pageRows(db, query, filters, limit, offset, null), countCalls(db, query, exactLimit, estimateOnlyAbove)]);
    return { rows, total: count.total, totalIsEstimate: count.isEstimate };
  }
  const estimate = await estimateCalls(db, query);
  if (estimate > estimateOnlyAbove) return { rows: await pageRows(db, query, filters, limit, offset, null), total: estimate, totalIsEstimate: true };
  const rows = await pageRows(db, query, filters, limit, offset, { exactLimit });
  // No row, no count with it: nothing matches on the first page, or the page is past the last one.
  const n = rows[0] ? Number(rows[0].counted ?? 0) : offset === 0 ? 0 : await cappedCount(db, query, exactLimit);
  const total = totalOf(estimate, n, exactLimit);
  return { rows, total: total.total, totalIsEstimate: total.isEstimate };
}

export const EXPORT_BATCH_SIZE = 1000;

/** Every row of the query, in the list's order, `batchSize` at a time (keyset: never all in memory). */
export async function* callBatches(db: Db, query: CallQuery, sort: SortSpec, batchSize = EXPORT_BATCH_SIZE): AsyncGenerator<CallListRow[]> {
  // Three statements per shape and sort: the first batch, after a row with a sort value, after one without.
  const batch = (position: "first" | "after value" | "after null") =>
    compiled(db, `batch ${position} ${query.key} ${sort.sortBy} ${sort.sortOrder}`, () =>
      db
        .select({ ...listColumns, cursor: sql<string | null>`${sortColumn(sort.sortBy)}::text` })
        .from(calls)
        .leftJoin(agents, and(eq(agents.id, calls.agentId), eq(agents.orgId, slot("orgId"))))
        .where(position === "first" ? query.where() : and(query.where(), after(sort, position === "after null")))
        .orderBy(...orderBy(sort))
        .limit(slot("batchSize"))
        .prepare(UNNAMED),
    );
  let last: { cursor: string | null; lastId: string } | undefined;
  for (;;) {
    const statement = batch(!last ? "first" : last.cursor === null ? "after null" : "after value");
    const rows = await statement.execute({ ...query.values, ...last, batchSize });
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    const end = rows[rows.length - 1]!;
    last = { cursor: end.cursor, lastId: end.id };
  }
}
