import { DatePicker, Select } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { DASHBOARD_MAX_DAYS } from "../../../contract/dashboard";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";
import { PERIOD_CHOICES, type DashboardView, type PeriodChoice } from "./dashboard-period";

const text = strings.dashboard;
const PERIOD_OPTIONS = PERIOD_CHOICES.map((value) => ({ value, label: text.periods[value] }));
const DAY = "YYYY-MM-DD";

/**
 * The period (a preset, or a custom range of at most DASHBOARD_MAX_DAYS days up to today in the
 * organisation's zone) and the agent. "Custom range" starts from the days shown now.
 */
export function DashboardFilters({
  view,
  shown,
  today,
  onChange,
}: {
  view: DashboardView;
  /** The days on screen now (the last answer's period), where a custom range starts. */
  shown: { start_date: string; end_date: string } | undefined;
  /** Today in the organisation's zone, when known: later days cannot be picked. */
  today: string | undefined;
  onChange: (view: DashboardView) => void;
}) {
  const { agents, isLoading } = useAgentList();
  const agent = view.agentId ? { agentId: view.agentId } : {};

  const pickPeriod = (period: PeriodChoice) => {
    if (period !== "custom") return onChange({ period, ...agent });
    const startDate = shown?.start_date ?? today;
    const endDate = shown?.end_date ?? today;
    onChange(startDate && endDate ? { period, startDate, endDate, ...agent } : { period: view.period, ...agent });
  };

  const disabledDate = (day: Dayjs, info?: { from?: Dayjs }) =>
    (today !== undefined && day.format(DAY) > today) || (info?.from !== undefined && Math.abs(day.diff(info.from, "day")) >= DASHBOARD_MAX_DAYS);

  return (
    <div role="group" aria-label={text.filters} className="dashboard__filters">
      <Select aria-label={text.period} className="dashboard__filter dashboard__filter--period" value={view.period} onChange={pickPeriod} options={PERIOD_OPTIONS} />
      {view.period === "custom" && (
        <DatePicker.RangePicker
          aria-label={text.customRange}
          className="dashboard__filter dashboard__filter--dates"
          placeholder={[text.from, text.to]}
          allowClear={false}
          value={[dayjs(view.startDate), dayjs(view.endDate)]}
          disabledDate={disabledDate}
          onChange={(range) => {
            const [start, end] = range ?? [];
            if (start && end) onChange({ period: "custom", startDate: start.format(DAY), endDate: end.format(DAY), ...agent });
          }}
        />
      )}
      <Select
        aria-label={text.agent}
        className="dashboard__filter dashboard__filter--agent"
        placeholder={text.allAgents}
        allowClear
        showSearch
        optionFilterProp="label"
        loading={isLoading}
        value={view.agentId}
        onChange={(agentId?: string) => onChange({ ...view, agentId: agentId || undefined })}
        options={agents.map((candidate) => ({ value: candidate.id, label: candidate.agent_name }))}
      />
    </div>
  );
}
