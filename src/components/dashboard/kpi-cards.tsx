import { theme } from "antd";
import { Link } from "react-router";
import type { Dashboard, DashboardTotals } from "../../../contract/dashboard";
import { strings } from "../../config/strings";
import type { CallFilterPatch } from "../calls/call-filter-values";
import { formatDuration } from "../calls/call-format";
import { formatCount, formatMinutes, formatRate, formatUsd, formatUsdPerMinute, NO_FIGURE } from "./dashboard-format";
import { WalletExtras } from "./wallet-extras";
import { pointsChange, relativeChange, type Better, type Change, type Trend } from "./kpi-change";

const text = strings.dashboard;

/** The totals a card shows: the figures, not the counts beside them. */
type Figure = "calls" | "minutes" | "cost" | "avg_duration_seconds" | "answer_rate" | "success_rate" | "cost_per_minute";

/** A card per figure: its value, how it reads, and how its change reads. */
interface Kpi<F extends Figure = Figure> {
  key: string;
  label: string;
  field: F;
  format: (value: DashboardTotals[F]) => string;
  /** A count or amount changes in percent, a rate in points. */
  compare: "percent" | "points";
  better: Better;
  /** The filters behind the figure, beside the period's (a rate opens the calls it counts). */
  filters?: CallFilterPatch;
  action: string;
}

/** Each entry checked against its own field (a format that takes what the field holds). */
const kpi = <F extends Figure>(card: Kpi<F>) => card as unknown as Kpi;

const KPIS: Kpi[] = [
  kpi({ key: "calls", label: text.cards.calls, field: "calls", format: formatCount, compare: "percent", better: "up", action: text.openCalls }),
  kpi({ key: "minutes", label: text.cards.minutes, field: "minutes", format: formatMinutes, compare: "percent", better: "up", action: text.openCalls }),
  kpi({ key: "cost", label: text.cards.cost, field: "cost", format: formatUsd, compare: "percent", better: "neither", action: text.openCalls }),
  kpi({
    key: "avgDuration",
    label: text.cards.avgDuration,
    field: "avg_duration_seconds",
    format: formatDuration,
    compare: "percent",
    better: "neither",
    action: text.openCalls,
  }),
  kpi({
    key: "answerRate",
    label: text.cards.answerRate,
    field: "answer_rate",
    format: formatRate,
    compare: "points",
    better: "up",
    filters: { outcome: "answered" },
    action: text.openAnswered,
  }),
  kpi({
    key: "successRate",
    label: text.cards.successRate,
    field: "success_rate",
    format: formatRate,
    compare: "points",
    better: "up",
    filters: { success: "pass" },
    action: text.openPassed,
  }),
  kpi({
    key: "costPerMinute",
    label: text.cards.costPerMinute,
    field: "cost_per_minute",
    format: formatUsdPerMinute,
    compare: "percent",
    better: "down",
    action: text.openCalls,
  }),
];

const ARROW: Record<Change["direction"], string> = { up: "▲", down: "▼", same: "=" };

function ChangeLine({ change, colors }: { change: Change | null; colors: Record<Trend, string> }) {
  if (!change) return <span className="dash-card__change dash-card__change--none">{text.noComparison}</span>;
  return (
    <span className="dash-card__change" data-trend={change.trend} style={{ color: colors[change.trend] }}>
      {ARROW[change.direction]} {change.text}
    </span>
  );
}

/**
 * The period's key figures, each against the previous period of the same length, each a link to the
 * calls behind it (the period, its zone, the agent, and the figure's own filter). The wallet is now,
 * not the period's: its held amount opens the calls still in progress.
 */
export function KpiCards({
  dashboard,
  periodLink,
  callLogsLink,
}: {
  dashboard: Dashboard;
  /** Call Logs for the dashboard's period, zone and agent, with `extra` filters. */
  periodLink: (extra?: CallFilterPatch) => string;
  callLogsLink: (filters: CallFilterPatch) => string;
}) {
  const { token } = theme.useToken();
  const colors: Record<Trend, string> = { good: token.colorSuccessText, bad: token.colorErrorText, neutral: token.colorTextSecondary };
  const { totals, previous, wallet } = dashboard;

  return (
    <section aria-label={text.kpis} className="dash-cards">
      {KPIS.map((kpi) => {
        const current = totals[kpi.field];
        const before = previous[kpi.field];
        const change = kpi.compare === "points" ? pointsChange(current, before, kpi.better) : relativeChange(current, before, kpi.better);
        const shownBefore = before === null ? NO_FIGURE : kpi.format(previous[kpi.field]);
        const label = text.cardLink(kpi.label, kpi.format(totals[kpi.field]), change?.spoken ?? text.noComparison, shownBefore, kpi.action);
        return (
          <Link key={kpi.key} to={periodLink(kpi.filters)} className="dash-card" data-kpi={kpi.key} aria-label={label}>
            <span className="dash-card__label">{kpi.label}</span>
            <span className="dash-card__value">{kpi.format(totals[kpi.field])}</span>
            <ChangeLine change={change} colors={colors} />
            <span className="dash-card__previous">{text.previous(shownBefore)}</span>
          </Link>
        );
      })}
      <div className="dash-card dash-card--static" data-kpi="wallet" role="group" aria-label={text.cards.wallet}>
        <span className="dash-card__label">{text.cards.wallet}</span>
        <span className="dash-card__value">{formatUsd(wallet.balance)}</span>
        {wallet.held > 0 ? (
          <Link to={callLogsLink({ outcome: "in_progress" })} className="dash-card__held" aria-label={text.walletHeldLink(formatUsd(wallet.held))}>
            {text.walletHeld(formatUsd(wallet.held))}
          </Link>
        ) : null}
        <span className="dash-card__previous">{text.walletAvailable(formatUsd(wallet.available))}</span>
        <WalletExtras wallet={wallet} />
      </div>
    </section>
  );
}
