/**
 * What GET /dashboard/ reads: the organisation's facts (its time zone, today there, its agents, whether
 * it has any call) and the sums of call_daily_stats over the period and the one before it.
 *
 * The rollup holds one row per day and agent, kept equal to the calls by triggers (migration 0007), so
 * a period of 90 days reads at most 180 days × agents rows through its primary key (org_id, day,
 * agent_key), whatever the number of calls. One statement groups them twice (GROUPING SETS): per day
 * (the series and both periods' totals, folded in server/dashboard/dashboard.ts) and per agent for the
 * period itself, each agent with its name; so the answer is a few hundred rows at most, never per
 * agent per day.
 */
import { getTableColumns, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { callDailyStats, NO_AGENT_KEY } from "../db/schema";

/** The key columns of call_daily_stats; every other column is a sum (micro-dollars, seconds, counts). */
const KEY_COLUMNS = ["orgId", "day", "agentKey"] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];

/** Sums of call_daily_stats' measure columns, by their schema property names. */
export type StatSums = Record<Exclude<keyof typeof callDailyStats.$inferSelect, KeyColumn>, number>;

/** The measure columns, from the schema itself: a column added there is summed here too. */
const SUM_COLUMNS = Object.entries(getTableColumns(callDailyStats)).filter(([key]) => !(KEY_COLUMNS as readonly string[]).includes(key)) as [keyof StatSums, PgColumn][];
const SUM_KEYS = SUM_COLUMNS.map(([key]) => key);

export const emptySums = (): StatSums => Object.fromEntries(SUM_KEYS.map((key) => [key, 0])) as unknown as StatSums;

export function addSums(into: StatSums, more: StatSums): StatSums {
  for (const key of SUM_KEYS) into[key] += more[key];
  return into;
}

/** Rows come back from node-postgres and PGlite alike: every sum as a float8 (exact below 2^53). */
function sumsOf(row: Record<string, unknown>): StatSums {
  return Object.fromEntries(SUM_KEYS.map((key) => [key, Number(row[key] ?? 0)])) as unknown as StatSums;
}

export interface OrganisationFacts {
  timezone: string;
  /** Today in the organisation's zone (YYYY-MM-DD), by the database's clock and zone rules. */
  today: string;
  agents: number;
  callsEver: boolean;
}

type Rows<T> = { rows: T[] };

/** The organisation's zone, today there, how many agents it has and whether it has any call. */
export async function organisationFacts(db: Db, orgId: string): Promise<OrganisationFacts> {
  const result = (await db.execute(sql`
    select coalesce(o.timezone, 'UTC') as timezone,
           to_char(now() at time zone coalesce(o.timezone, 'UTC'), 'YYYY-MM-DD') as today,
           (select count(*)::int from agents where agents.org_id = ${orgId}) as agents,
           exists (select 1 from calls where calls.org_id = ${orgId}) as calls_ever
    from (select 1) as one left join organizations o on o.id = ${orgId}`)) as unknown as Rows<{ timezone: string; today: string; agents: number; calls_ever: boolean }>;
  const row = result.rows[0]!;
  return { timezone: row.timezone, today: row.today, agents: Number(row.agents), callsEver: row.calls_ever === true };
}

export interface DayStats {
  day: string;
  sums: StatSums;
}

export interface AgentStats {
  /** null: calls without an agent (NO_AGENT_KEY) or whose agent is gone. */
  agentId: string | null;
  agentName: string | null;
  sums: StatSums;
}

export interface PeriodStats {
  /** Days of [previousStart, end] that had calls, in no particular order. */
  days: DayStats[];
  /** Agents with calls in [start, end] (the period itself, not the previous one). */
  agents: AgentStats[];
}

export interface StatsRange {
  orgId: string;
  previousStart: string;
  start: string;
  end: string;
  /** Only this agent's calls. */
  agentId?: string | undefined;
}

/** PostgreSQL's dates begin at 4713 BC, but the calendar days the API takes start at year 0001: nothing lies before. */
const FIRST_DAY = "0001-01-01";

const sumsSelect = sql.raw(SUM_COLUMNS.map(([key, column]) => `sum(s."${column.name}")::float8 as "${key}"`).join(", "));

/** The sums per day over [previousStart, end] and per agent over [start, end], in one statement. */
export async function periodStats(db: Db, range: StatsRange): Promise<PeriodStats> {
  const from = range.previousStart < FIRST_DAY ? FIRST_DAY : range.previousStart;
  const agentFilter = range.agentId ? sql`and s.agent_key = ${range.agentId}` : sql``;
  const result = (await db.execute(sql`
    with grouped as (
      select to_char(s.day, 'YYYY-MM-DD') as day, s.agent_key, grouping(s.agent_key) = 1 as by_day, ${sumsSelect}
      from call_daily_stats s
      where s.org_id = ${range.orgId} and s.day >= ${from}::date and s.day <= ${range.end}::date ${agentFilter}
      group by grouping sets ((s.day), (s.agent_key, s.day >= ${range.start}::date))
      having grouping(s.agent_key) = 1 or bool_and(s.day >= ${range.start}::date)
    )
    select g.*, a.id as agent_id, a.name as agent_name
    from grouped g left join agents a on a.id = g.agent_key and a.org_id = ${range.orgId}`)) as unknown as Rows<
    Record<string, unknown> & { day: string | null; agent_key: string | null; by_day: boolean; agent_id: string | null; agent_name: string | null }
  >;
  const days: DayStats[] = [];
  const agents = new Map<string | null, AgentStats>();
  for (const row of result.rows) {
    const sums = sumsOf(row);
    if (row.by_day) {
      days.push({ day: row.day!, sums });
      continue;
    }
    // NO_AGENT_KEY never names an agent; a key whose agent is gone joins nothing: both are "no agent".
    const agentId = row.agent_key !== NO_AGENT_KEY && row.agent_id ? row.agent_id : null;
    const known = agents.get(agentId);
    if (known) addSums(known.sums, sums);
    else agents.set(agentId, { agentId, agentName: agentId ? row.agent_name : null, sums });
  }
  return { days, agents: [...agents.values()] };
}
