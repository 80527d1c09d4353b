/**
 * GET /dashboard/'s answer (contract/dashboard.ts has every definition): the sums of call_daily_stats
 * (server/dashboard/stats.ts) folded into both periods' totals and outcomes, the zero-filled series and
 * the agents, beside the wallet as GET /wallet/ and reserveCall see it. Money stays in integer
 * micro-dollars until the answer is written.
 *
 * An agentId of another organisation (or of nobody, or NO_AGENT_KEY) has no calls here, as GET /call/
 * with that agentId lists none: the answer is the same zeros whether the agent exists elsewhere or not.
 */
import type { Dashboard, DashboardAgent, DashboardOutcomes, DashboardQuery, DashboardTotals } from "../../contract/dashboard";
import type { Db } from "../db/client";
import { NO_AGENT_KEY } from "../db/schema";
import { microsToUsd } from "../wallet/money";
import { walletStanding, type WalletPolicy } from "../wallet/wallet";
import { autoReloadEnabled, isLowBalance, monthToDateMicros } from "../billing/summary";
import type { PlanSettings } from "../billing/plan-limits";
import { dashboardPlan } from "../billing/subscription";
import { dashboardAppointments } from "./appointments";
import { dashboardCampaigns } from "./campaigns";
import { dashboardOrders } from "./orders";
import { dashboardPeriod, eachDay } from "./period";
import { addSums, emptySums, organisationFacts, periodStats, type StatSums } from "./stats";

/** Seconds as minutes, rounded to 0.1. */
const minutesOf = (seconds: number) => Math.round(seconds / 6) / 10;
const rateOf = (part: number, whole: number) => (whole > 0 ? part / whole : null);

export function totalsOf(sums: StatSums): DashboardTotals {
  const evaluated = sums.successPass + sums.successFail;
  return {
    calls: sums.calls,
    minutes: minutesOf(sums.durationSeconds),
    cost: microsToUsd(sums.costMicros),
    avg_duration_seconds: sums.withDuration > 0 ? Math.round((sums.durationSeconds / sums.withDuration) * 10) / 10 : null,
    answer_rate: rateOf(sums.answered, sums.ended),
    success_rate: rateOf(sums.successPass, evaluated),
    // Per exact minute (seconds ÷ 60), not per rounded one.
    cost_per_minute: sums.durationSeconds > 0 ? microsToUsd(sums.costMicros) / (sums.durationSeconds / 60) : null,
    ended: sums.ended,
    answered: sums.answered,
    evaluated,
    successful: sums.successPass,
    duration_seconds: sums.durationSeconds,
  };
}

export function outcomesOf(sums: StatSums): DashboardOutcomes {
  return { answered: sums.answered, busy: sums.busy, no_answer: sums.noAnswer, voicemail: sums.voicemail, failed: sums.failed, in_progress: sums.inProgress };
}

export interface DashboardRequest {
  orgId: string;
  query: DashboardQuery;
  wallet: WalletPolicy;
  plans: PlanSettings;
}

/** The dashboard of the organisation for the query. Reads only: nothing is written (not even a wallet). */
export async function readDashboard(db: Db, { orgId, query, wallet, plans }: DashboardRequest): Promise<Dashboard> {
  // Every read starts at once; only the period waits for "today" in the organisation's zone, and
  // only when a date is missing. One Promise.all, so a failed read never goes unobserved.
  const factsRead = organisationFacts(db, orgId);
  const periodRead = query.startDate && query.endDate ? Promise.resolve(dashboardPeriod(query, query.endDate /* today: not read, both dates are given */)) : factsRead.then((facts) => dashboardPeriod(query, facts.today));
  // NO_AGENT_KEY is no agent's id: GET /call/ lists no call for it, so neither does this.
  const statsRead = periodRead.then((period) =>
    query.agentId === NO_AGENT_KEY ? { days: [], agents: [] } : periodStats(db, { orgId, previousStart: period.previousStart, start: period.start, end: period.end, agentId: query.agentId }),
  );
  const [facts, period, stats, standing, campaigns, appointments, monthToDate, reloading, plan, orders] = await Promise.all([
    factsRead,
    periodRead,
    statsRead,
    walletStanding(db, orgId, wallet),
    dashboardCampaigns(db, orgId),
    dashboardAppointments(db, orgId),
    monthToDateMicros(db, orgId),
    autoReloadEnabled(db, orgId),
    dashboardPlan(db, orgId, plans),
    periodRead.then((period) => dashboardOrders(db, orgId, period)),
  ]);

  const current = emptySums();
  const previous = emptySums();
  const byDay = new Map<string, StatSums>();
  for (const { day, sums } of stats.days) {
    if (day >= period.start) {
      addSums(current, sums);
      byDay.set(day, sums);
    } else {
      addSums(previous, sums);
    }
  }
  const zero = emptySums();
  const series = eachDay(period.start, period.end).map((date) => {
    const sums = byDay.get(date) ?? zero;
    return { date, calls: sums.calls, minutes: minutesOf(sums.durationSeconds), cost: microsToUsd(sums.costMicros), answered: sums.answered, successful: sums.successPass };
  });
  const agents: DashboardAgent[] = stats.agents
    .filter((agent) => agent.sums.calls > 0)
    .sort((a, b) => b.sums.calls - a.sums.calls || (a.agentName ?? "\uffff").localeCompare(b.agentName ?? "\uffff") || (a.agentId ?? "").localeCompare(b.agentId ?? ""))
    .map(({ agentId, agentName, sums }) => {
      const totals = totalsOf(sums);
      return { agent_id: agentId, agent_name: agentName, calls: totals.calls, minutes: totals.minutes, cost: totals.cost, success_rate: totals.success_rate, answer_rate: totals.answer_rate };
    });

  return {
    period: { start_date: period.start, end_date: period.end, timezone: facts.timezone, days: period.days },
    previous_period: { start_date: period.previousStart, end_date: period.previousEnd },
    totals: totalsOf(current),
    previous: totalsOf(previous),
    outcomes: outcomesOf(current),
    previous_outcomes: outcomesOf(previous),
    series,
    agents,
    wallet: {
      balance: microsToUsd(standing.balanceMicros),
      held: microsToUsd(standing.heldMicros),
      available: microsToUsd(standing.balanceMicros - standing.heldMicros),
      month_to_date: microsToUsd(monthToDate),
      auto_reload_enabled: reloading,
      low_balance: isLowBalance(standing.balanceMicros - standing.heldMicros, reloading),
    },
    setup: { agents: facts.agents, calls_ever: facts.callsEver },
    campaigns,
    appointments,
    plan,
    orders,
  };
}
