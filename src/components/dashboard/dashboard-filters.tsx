import { Select } from "antd";
import { Suspense } from "react";
import { lazyRetry } from "../../lib/lazy-retry";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";
import { PERIOD_CHOICES, type DashboardView, type PeriodChoice } from "./dashboard-period";

const text = strings.dashboard;
const PERIOD_OPTIONS = PERIOD_CHOICES.map((value) => ({ value, label: text.periods[value] }));
const CustomRangePicker = lazyRetry(() => import("./custom-range-picker"));

/** One agent's figures or all: the organisation's agents (GET /agent/, shared with the other screens). */
function AgentFilter({ agentId, onChange }: { agentId: string | undefined; onChange: (agentId: string | undefined) => void }) {
  const { agents, isLoading } = useAgentList();
  return (
    <Select
      aria-label={text.agent}
      className="dashboard__filter dashboard__filter--agent"
      placeholder={text.allAgents}
      allowClear
      showSearch
      optionFilterProp="label"
      loading={isLoading}
      value={agentId}
      onChange={(next?: string) => onChange(next || undefined)}
      options={agents.map((candidate) => ({ value: candidate.id, label: candidate.agent_name }))}
    />
  );
}

/**
 * The period (a preset, or a custom range of at most DASHBOARD_MAX_DAYS days up to today in the
 * organisation's zone) and the agent. "Custom range" starts from the days shown now.
 */
export function DashboardFilters({
  view,
  shown,
  today,
  agentsWanted,
  onChange,
}: {
  view: DashboardView;
  /** The days on screen now (the last answer's period), where a custom range starts. */
  shown: { start_date: string; end_date: string } | undefined;
  /** Today in the organisation's zone, when known: later days cannot be picked. */
  today: string | undefined;
  /** False until the figures say there are agents: the list is not asked for before. */
  agentsWanted: boolean;
  onChange: (view: DashboardView) => void;
}) {
  const agent = view.agentId ? { agentId: view.agentId } : {};

  const pickPeriod = (period: PeriodChoice) => {
    if (period !== "custom") return onChange({ period, ...agent });
    const startDate = shown?.start_date ?? today;
    const endDate = shown?.end_date ?? today;
    onChange(startDate && endDate ? { period, startDate, endDate, ...agent } : { period: view.period, ...agent });
  };

  return (
    <div role="group" aria-label={text.filters} className="dashboard__filters">
      <Select aria-label={text.period} className="dashboard__filter dashboard__filter--period" value={view.period} onChange={pickPeriod} options={PERIOD_OPTIONS} />
      {view.period === "custom" && view.startDate && view.endDate && (
        <Suspense fallback={<span className="dashboard__filter dashboard__filter--dates" aria-hidden />}>
          <CustomRangePicker startDate={view.startDate} endDate={view.endDate} today={today} onChange={(range) => onChange({ period: "custom", ...range, ...agent })} />
        </Suspense>
      )}
      {agentsWanted ? (
        <AgentFilter agentId={view.agentId} onChange={(agentId) => onChange({ ...view, agentId })} />
      ) : (
        <Select aria-label={text.agent} className="dashboard__filter dashboard__filter--agent" placeholder={text.allAgents} disabled />
      )}
    </div>
  );
}
