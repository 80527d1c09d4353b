/** GET /dashboard/ answers as the contract describes them, and a fake server for the dashboard's requests. */
import type { Agent } from "../../contract/agent";
import type { DashboardTotals } from "../../contract/dashboard";
import type { DashboardCampaignItem, DashboardWithCampaigns } from "../../src/components/dashboard/campaigns-card";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID } from "./agents-fixtures";
import { json, type FetchFake, type RecordedRequest } from "./fetch-fake";

export const ZONE = "Europe/Berlin";

function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function makeTotals(overrides: Partial<DashboardTotals> = {}): DashboardTotals {
  return {
    calls: 120,
    minutes: 300,
    cost: 30,
    avg_duration_seconds: 150,
    answer_rate: 0.8,
    success_rate: 0.75,
    cost_per_minute: 0.1,
    ended: 118,
    answered: 94,
    evaluated: 80,
    successful: 60,
    duration_seconds: 18_000,
    ...overrides,
  };
}

type Dashboard = DashboardWithCampaigns;

/** A campaign as GET /dashboard/ lists it among the running ones. */
export function makeDashboardCampaign(overrides: Partial<DashboardCampaignItem> = {}): DashboardCampaignItem {
  const counts = { total: 200, queued: 110, in_progress: 2, answered: 60, busy: 8, no_answer: 12, voicemail: 5, failed: 3, dnc: 0, needs_timezone: 0, cancelled: 0 };
  return { id: "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f60", name: "Spring renewals", status: "running", counts, progress: 88 / 200, next_window_at: null, pause_code: null, pause_reason: null, ...overrides };
}

/** A dashboard of `days` days ending `end` (the previous period just before it), with its days' figures; no campaign running. */
export function makeDashboard(overrides: Partial<Dashboard> = {}, { end = "2026-04-01", days = 30 } = {}): Dashboard {
  const start = addDays(end, -(days - 1));
  const series = Array.from({ length: days }, (_, index) => {
    const date = addDays(start, index);
    const calls = index === 11 ? 34 : index % 3;
    return { date, calls, minutes: calls * 1.5, cost: calls * 0.15, answered: Math.max(0, calls - 1), successful: Math.floor(calls / 2) };
  });
  return {
    period: { start_date: start, end_date: end, timezone: ZONE, days },
    previous_period: { start_date: addDays(start, -days), end_date: addDays(start, -1) },
    totals: makeTotals(),
    previous: makeTotals({ calls: 100, minutes: 250, cost: 30, avg_duration_seconds: 150, answer_rate: 0.75, success_rate: 0.7, cost_per_minute: 0.08 }),
    outcomes: { answered: 94, busy: 6, no_answer: 8, voicemail: 7, failed: 3, in_progress: 2 },
    previous_outcomes: { answered: 75, busy: 5, no_answer: 10, voicemail: 5, failed: 3, in_progress: 2 },
    series,
    agents: [
      { agent_id: AGENT_ID, agent_name: "Front desk", calls: 100, minutes: 250, cost: 25, success_rate: 0.8, answer_rate: 0.82 },
      { agent_id: null, agent_name: null, calls: 20, minutes: 50, cost: 5, success_rate: null, answer_rate: 0.7 },
    ],
    wallet: { balance: 42.5, held: 0.4, available: 42.1 },
    setup: { agents: 2, calls_ever: true },
    campaigns: { running: 0, items: [] },
    appointments: { today: 0, next_7_days: 0, upcoming: [] },
    ...overrides,
  };
}

/**
 * Answers GET /agent/, GET /organization/settings (the zone, changeable with PATCH) and GET
 * /dashboard/ (`answer` for each request's query; the period follows the dates asked for).
 */
export function serveDashboard(
  fetch: FetchFake,
  {
    answer,
    timezone = ZONE,
    agents = [makeAgent({ agent_name: "Front desk" }), makeAgent({ id: OTHER_AGENT_ID, agent_name: "Sales line" })],
  }: { answer?: (request: RecordedRequest) => Dashboard; timezone?: string; agents?: Agent[] } = {},
): FetchFake {
  const zone = { current: timezone };
  const periodAsked = (request: RecordedRequest) => {
    const startDate = request.query.get("startDate");
    const endDate = request.query.get("endDate");
    const dashboard = !startDate || !endDate ? makeDashboard() : makeDashboard({}, { end: endDate, days: (Date.parse(endDate) - Date.parse(startDate)) / 86_400_000 + 1 });
    return { ...dashboard, period: { ...dashboard.period, timezone: zone.current } };
  };
  fetch.on("GET", "/api/agent/", () => json({ data: agents, total: agents.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/organization/settings", () => json({ data: { timezone: zone.current } }));
  fetch.on("PATCH", "/api/organization/settings", (request) => {
    zone.current = (request.body as { timezone: string }).timezone;
    return json({ data: { timezone: zone.current } });
  });
  fetch.on("GET", "/api/dashboard/", (request) => json({ data: (answer ?? periodAsked)(request) }));
  return fetch;
}

/** The query of every GET /dashboard/ so far, as plain objects. */
export function dashboardQueries(fetch: FetchFake): Array<Record<string, string>> {
  return fetch.to("GET", "/api/dashboard/").map((request) => Object.fromEntries(request.query));
}
