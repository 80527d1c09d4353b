/**
 * GET /billing/ledger (and its CSV export) and GET /billing/usage.
 *
 * Ledger: the organisation's entries, newest first (the starting credit the oldest within its
 * millisecond), each with the balance after it (balance_after_micros, written under the wallet's lock)
 * and its agent's name. Filters (ledgerQuerySchema): days in the organisation's zone, kinds, agent, a
 * search of the description or a call or top-up id, and the amount's size.
 *
 * Usage: usage_daily summed in micro-dollars per day (every day of the range, zeros included), per agent
 * and in total, converted to USD once, so the components add up exactly to the cost. Agents: agent_id
 * null and agent_name null for calls without an agent; an agent deleted since keeps its id as agent_id
 * with agent_name null.
 */
import { Readable } from "node:stream";
import { sql, type SQL } from "drizzle-orm";
import { USAGE_COMPONENTS, USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, type LedgerEntry, type Usage, type UsageComponents } from "../../contract/billing";
import type { WalletLedgerKind } from "../../contract/wallet";
import { csvCell, csvLine } from "../calls/export";
import { dayRange, eachDay } from "../dashboard/period";
import type { Db } from "../db/client";
import { microsToUsd, usdToMicros } from "../wallet/money";

type Rows<T> = { rows: T[] };

export interface LedgerFilters {
  startDate?: string;
  endDate?: string;
  kind?: string;
  agentId?: string;
  q?: string;
  minAmount?: number;
  maxAmount?: number;
}

function ledgerWhere(orgId: string, filters: LedgerFilters): SQL {
  const parts: SQL[] = [sql`l.org_id = ${orgId}`];
  const zone = sql`(select coalesce((select timezone from organizations where id = ${orgId}), 'UTC'))`;
  if (filters.startDate) parts.push(sql`l.created_at >= (${filters.startDate}::date::timestamp at time zone ${zone})`);
  if (filters.endDate) parts.push(sql`l.created_at < ((${filters.endDate}::date + 1)::timestamp at time zone ${zone})`);
  if (filters.kind) {
    const kinds = filters.kind.split(",").map((kind) => kind.trim());
    parts.push(sql`l.kind in (${sql.join(kinds.map((kind) => sql`${kind}`), sql`, `)})`);
  }
  if (filters.agentId) parts.push(sql`l.agent_id = ${filters.agentId}::uuid`);
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(sql`(l.description ilike ${like} or l.call_id::text = ${filters.q.toLowerCase()} or l.top_up_id::text = ${filters.q.toLowerCase()})`);
  }
  if (filters.minAmount !== undefined) parts.push(sql`abs(l.amount_micros) >= ${usdToMicros(filters.minAmount)}`);
  if (filters.maxAmount !== undefined) parts.push(sql`abs(l.amount_micros) <= ${usdToMicros(filters.maxAmount)}`);
  return sql.join(parts, sql` and `);
}

interface LedgerRow {
  id: string;
  amount_micros: unknown;
  balance_after_micros: unknown;
  kind: string;
  call_id: string | null;
  created_at: string | Date;
  description: string;
  agent_id: string | null;
  agent_name: string | null;
  top_up_id: string | null;
}

const toEntry = (row: LedgerRow): LedgerEntry => ({
  id: row.id,
  amount_usd: microsToUsd(Number(row.amount_micros)),
  balance_after_usd: microsToUsd(Number(row.balance_after_micros)),
  kind: row.kind as WalletLedgerKind,
  call_id: row.call_id,
  created_at: new Date(row.created_at).toISOString(),
  description: row.description,
  agent_id: row.agent_id,
  agent_name: row.agent_name,
  top_up_id: row.top_up_id,
});

/** Where a page starts after the last entry of the page before (the export's keyset: no OFFSET over a long ledger). */
interface LedgerCursor {
  createdAt: string;
  notStart: boolean;
  before: string;
  id: string;
}

// Newest first; within a millisecond the starting credit last and the chain's order (the balance before each entry).
const LEDGER_ORDER_KEY = sql`l.created_at, (l.kind <> 'starting-credit'), l.balance_after_micros - l.amount_micros, l.id`;

async function ledgerPage(db: Db, orgId: string, filters: LedgerFilters, page: { offset?: number; after?: LedgerCursor | null; limit: number }): Promise<{ entries: LedgerEntry[]; last: LedgerCursor | null }> {
  const after = page.after
    ? sql` and (${LEDGER_ORDER_KEY}) < (${page.after.createdAt}::timestamptz, ${page.after.notStart}, ${page.after.before}::bigint, ${page.after.id}::uuid)`
    : sql``;
  const result = (await db.execute(sql`
    select l.id, l.amount_micros, l.balance_after_micros, l.kind, l.call_id, l.created_at, l.description, l.agent_id, a.name as agent_name, l.top_up_id,
      l.created_at::text as cursor_at, (l.balance_after_micros - l.amount_micros)::text as cursor_before
    from wallet_ledger l left join agents a on a.id = l.agent_id and a.org_id = l.org_id
    where ${ledgerWhere(orgId, filters)}${after}
    order by ${sql.join([sql`l.created_at desc`, sql`(l.kind <> 'starting-credit') desc`, sql`l.balance_after_micros - l.amount_micros desc`, sql`l.id desc`], sql`, `)}
    limit ${page.limit} offset ${page.offset ?? 0}`)) as unknown as Rows<LedgerRow & { cursor_at: string; cursor_before: string }>;
  const tail = result.rows.at(-1);
  return {
    entries: result.rows.map(toEntry),
    last: tail ? { createdAt: tail.cursor_at, notStart: tail.kind !== "starting-credit", before: tail.cursor_before, id: tail.id } : null,
  };
}

export async function listLedger(db: Db, orgId: string, filters: LedgerFilters & { page: number; limit: number }): Promise<{ rows: LedgerEntry[]; total: number }> {
  const [rows, counted] = await Promise.all([
    ledgerPage(db, orgId, filters, { offset: (filters.page - 1) * filters.limit, limit: filters.limit }).then((page) => page.entries),
    db.execute(sql`select count(*)::int as n from wallet_ledger l where ${ledgerWhere(orgId, filters)}`) as unknown as Promise<Rows<{ n: number }>>,
  ]);
  return { rows, total: Number(counted.rows[0]?.n ?? 0) };
}

export const LEDGER_EXPORT_COLUMNS = ["id", "created_at", "kind", "description", "amount_usd", "balance_after_usd", "call_id", "agent_id", "agent_name", "top_up_id"] as const;
const EXPORT_BATCH = 1000;

export const ledgerCsvRow = (entry: LedgerEntry) => csvLine(LEDGER_EXPORT_COLUMNS.map((column) => csvCell(entry[column])));

/** `ledger-YYYY-MM-DD.csv`, today in UTC. */
export const ledgerExportFileName = (now = new Date()) => `ledger-${now.toISOString().slice(0, 10)}.csv`;

/** The CSV of every entry matching the filters (all pages, newest first), with a header row, streamed in batches. */
export function ledgerCsvStream(db: Db, orgId: string, filters: LedgerFilters, batchSize = EXPORT_BATCH): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(LEDGER_EXPORT_COLUMNS.map((column) => csvCell(column)));
    let after: LedgerCursor | null = null;
    for (;;) {
      const batch = await ledgerPage(db, orgId, filters, { after, limit: batchSize });
      if (batch.entries.length > 0) yield batch.entries.map(ledgerCsvRow).join("");
      if (batch.entries.length < batchSize) return;
      after = batch.last;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

// ------------------------------------------------------------------------------------------------ usage

interface Sums {
  cost: number;
  calls: number;
  seconds: number;
  parts: Record<(typeof USAGE_COMPONENTS)[number], number>;
}

const emptySums = (): Sums => ({ cost: 0, calls: 0, seconds: 0, parts: Object.fromEntries(USAGE_COMPONENTS.map((c) => [c, 0])) as Sums["parts"] });

function addTo(into: Sums, row: Sums): void {
  into.cost += row.cost;
  into.calls += row.calls;
  into.seconds += row.seconds;
  for (const component of USAGE_COMPONENTS) into.parts[component] += row.parts[component];
}

function figures(sums: Sums) {
  return {
    cost_usd: microsToUsd(sums.cost),
    calls: sums.calls,
    seconds: sums.seconds,
    minutes: Math.round(sums.seconds / 6) / 10,
    avg_cost_per_minute_usd: sums.seconds > 0 ? microsToUsd(sums.cost) / (sums.seconds / 60) : null,
    components: Object.fromEntries(USAGE_COMPONENTS.map((component) => [component, microsToUsd(sums.parts[component])])) as UsageComponents,
  };
}

/** The range a usage query asks for; `today` is today in the organisation's zone (like the dashboard's period). */
export function usageRange(query: { startDate?: string; endDate?: string }, today: string): { start: string; end: string } {
  const { start, end } = dayRange(query, today, USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS);
  return { start, end };
}

/** The rows GET /billing/usage sums (usage_daily of the range, with agent names): the bench times it bare too. */
export function usageQuery(orgId: string, start: string, end: string, agentId?: string): SQL {
  return sql`
    select to_char(u.day, 'YYYY-MM-DD') as day, u.agent_key, a.name as agent_name, u.calls, u.seconds, u.cost_micros, u.transport_micros, u.speech_to_text_micros,
      u.llm_micros, u.text_to_speech_micros, u.platform_micros, u.other_micros
    from usage_daily u left join agents a on a.org_id = u.org_id and a.id::text = u.agent_key
    where u.org_id = ${orgId} and u.day >= ${start}::date and u.day <= ${end}::date ${agentId ? sql`and u.agent_key = ${agentId}` : sql``}`;
}

export async function readUsage(db: Db, orgId: string, query: { startDate?: string; endDate?: string; agentId?: string }): Promise<Usage> {
  const facts = (await db.execute(sql`
    select coalesce(o.timezone, 'UTC') as tz, to_char(now() at time zone coalesce(o.timezone, 'UTC'), 'YYYY-MM-DD') as today
    from (select 1) one left join organizations o on o.id = ${orgId}`)) as unknown as Rows<{ tz: string; today: string }>;
  const { tz, today } = facts.rows[0]!;
  const { start, end } = usageRange(query, today);
  const result = (await db.execute(usageQuery(orgId, start, end, query.agentId))) as unknown as Rows<
    Record<string, unknown> & { day: string; agent_key: string; agent_name: string | null }
  >;
  const total = emptySums();
  const byDay = new Map<string, Sums>();
  const byAgent = new Map<string, { name: string | null; sums: Sums }>();
  for (const row of result.rows) {
    const sums: Sums = {
      cost: Number(row.cost_micros),
      calls: Number(row.calls),
      seconds: Number(row.seconds),
      parts: {
        transport: Number(row.transport_micros),
        speech_to_text: Number(row.speech_to_text_micros),
        llm: Number(row.llm_micros),
        text_to_speech: Number(row.text_to_speech_micros),
        platform: Number(row.platform_micros),
        other: Number(row.other_micros),
      },
    };
    addTo(total, sums);
    const day = byDay.get(row.day) ?? emptySums();
    addTo(day, sums);
    byDay.set(row.day, day);
    const agent = byAgent.get(row.agent_key) ?? { name: row.agent_name, sums: emptySums() };
    addTo(agent.sums, sums);
    byAgent.set(row.agent_key, agent);
  }
  const zero = emptySums();
  return {
    time_zone: tz,
    start_date: start,
    end_date: end,
    totals: figures(total),
    days: eachDay(start, end).map((date) => ({ date, ...figures(byDay.get(date) ?? zero) })),
    agents: [...byAgent.entries()]
      .sort(([keyA, a], [keyB, b]) => b.sums.cost - a.sums.cost || (a.name ?? "\uffff").localeCompare(b.name ?? "\uffff") || keyA.localeCompare(keyB))
      .map(([key, agent]) => ({ agent_id: key === "" ? null : key, agent_name: agent.name, ...figures(agent.sums) })),
  };
}
