/**
 * The dashboard's charts (visx: d3 scales and shapes as React SVG, no chart runtime): calls and
 * minutes per day, the outcomes, cost per day. Imported lazily by the dashboard alone, so the charts'
 * code is in the dashboard's own chunk and nowhere else. Colours come from antd's theme tokens.
 *
 * Every day is a link (an SVG <a>, reachable with Tab) to the calls counted on it, named for a screen
 * reader ("12 Mar: 34 calls, 51.2 minutes — open these calls"); each chart can also be read as a table.
 */
import { AxisBottom, AxisLeft, AxisRight } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar, LinePath, Pie } from "@visx/shape";
import { Button, theme } from "antd";
import { useId, useState, type MouseEvent, type ReactNode } from "react";
import { Link, useNavigate } from "react-router";
import { CALL_OUTCOMES, type CallOutcome } from "../../../contract/call-outcome";
import type { Dashboard, DashboardDay } from "../../../contract/dashboard";
import { strings } from "../../config/strings";
import { wholeTicks } from "../../lib/chart-ticks";
import { formatCount, formatDay, formatLongDay, formatMinutes, formatPercent, formatUsd } from "./dashboard-format";
import { useWidth } from "./use-width";

const text = strings.dashboard.charts;
const columns = strings.dashboard.columns;

export interface ChartLinks {
  /** Call Logs for one day of the period (with the dashboard's zone and agent). */
  day: (date: string) => string;
  /** Call Logs for the period's calls with this outcome. */
  outcome: (outcome: CallOutcome) => string;
}

const HEIGHT = 220;
const MARGIN = { top: 12, right: 48, bottom: 28, left: 44 };
/** A link inside an SVG: a client-side navigation on a plain click, the browser's own otherwise (new tab…). */
function SvgLink({ href, label, children }: { href: string; label: string; children: ReactNode }) {
  const navigate = useNavigate();
  const open = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} aria-label={label} className="dash-chart__link" onClick={open}>
      {children}
    </a>
  );
}

/** At most one date label per ~72 px, always the first and spread evenly. */
function dayTicks(dates: string[], innerWidth: number): string[] {
  const room = Math.max(1, Math.floor(innerWidth / 72));
  const step = Math.max(1, Math.ceil(dates.length / room));
  return dates.filter((_, index) => index % step === 0);
}

function useAxisStyle() {
  const { token } = theme.useToken();
  return {
    stroke: token.colorBorder,
    tickStroke: token.colorBorder,
    label: { fill: token.colorTextSecondary, fontSize: 11, fontFamily: token.fontFamily },
  };
}

/** A chart's panel: title, legend, the chart, a one-line summary, and its table behind a toggle. */
function ChartPanel({ title, legend, summary, table, wide, children }: { title: string; legend?: ReactNode; summary: string; table: ReactNode; wide?: boolean; children: ReactNode }) {
  const titleId = useId();
  const tableId = useId();
  const [showTable, setShowTable] = useState(false);
  return (
    <section aria-labelledby={titleId} className={wide ? "dash-panel dash-panel--wide" : "dash-panel"}>
      <div className="dash-panel__head">
        <h2 id={titleId} className="dash-panel__title">
          {title}
        </h2>
        {legend}
      </div>
      {children}
      <p className="dash-panel__summary">{summary}</p>
      <Button type="link" size="small" className="dash-panel__toggle" aria-expanded={showTable} aria-controls={tableId} onClick={() => setShowTable(!showTable)}>
        {showTable ? strings.dashboard.charts.hideTable : strings.dashboard.charts.showTable}
      </Button>
      <div id={tableId} hidden={!showTable} className="dash-table-scroll">
        {showTable && table}
      </div>
    </section>
  );
}

function Swatch({ color, line }: { color: string; line?: boolean }) {
  return <span aria-hidden className={line ? "dash-swatch dash-swatch--line" : "dash-swatch"} style={{ background: color }} />;
}

function DayTable({ series, links, cells }: { series: DashboardDay[]; links: ChartLinks; cells: Array<{ title: string; value: (day: DashboardDay) => string }> }) {
  return (
    <table className="dash-table">
      <thead>
        <tr>
          <th scope="col">{columns.day}</th>
          {cells.map((cell) => (
            <th scope="col" key={cell.title}>
              {cell.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {series.map((day) => (
          <tr key={day.date}>
            <th scope="row">
              <Link to={links.day(day.date)}>{formatLongDay(day.date)}</Link>
            </th>
            {cells.map((cell) => (
              <td key={cell.title}>{cell.value(day)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Bars per day (one link each, the whole column's height to click), and what each chart draws on them. */
function DayBars({
  title,
  series,
  width,
  value,
  label,
  color,
  links,
  leftTick,
  whole = false,
  overlay,
}: {
  title: string;
  series: DashboardDay[];
  width: number;
  value: (day: DashboardDay) => number;
  label: (day: DashboardDay) => string;
  color: string;
  links: ChartLinks;
  leftTick: (value: number) => string;
  /** The left axis counts whole things (calls): no fractional ticks. */
  whole?: boolean;
  overlay?: (x: (date: string) => number, innerHeight: number, innerWidth: number) => ReactNode;
}) {
  const axis = useAxisStyle();
  const innerWidth = Math.max(0, width - MARGIN.left - MARGIN.right);
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const dates = series.map((day) => day.date);
  const x = scaleBand<string>({ domain: dates, range: [0, innerWidth], padding: series.length > 45 ? 0.1 : 0.2 });
  const y = scaleLinear<number>({ domain: [0, Math.max(1, ...series.map(value))], range: [innerHeight, 0], nice: true });
  const bandWidth = x.bandwidth();
  const step = x.step();
  const center = (date: string) => (x(date) ?? 0) + bandWidth / 2;

  return (
    <svg width={width} height={HEIGHT} className="dash-chart" role="group" aria-label={title}>
      <Group left={MARGIN.left} top={MARGIN.top}>
        <g aria-hidden>
          <AxisLeft scale={y} numTicks={4} tickValues={whole ? wholeTicks(y, 4) : undefined} stroke={axis.stroke} tickStroke={axis.tickStroke} tickLabelProps={axis.label} tickFormat={(tick) => leftTick(Number(tick))} />
          <AxisBottom top={innerHeight} scale={x} tickValues={dayTicks(dates, innerWidth)} stroke={axis.stroke} tickStroke={axis.tickStroke} tickLabelProps={axis.label} tickFormat={(date) => formatDay(String(date))} />
        </g>
        {series.map((day) => {
          const left = x(day.date) ?? 0;
          const top = y(value(day));
          return (
            <SvgLink key={day.date} href={links.day(day.date)} label={label(day)}>
              <rect className="dash-chart__hit" x={left - (step - bandWidth) / 2} y={0} width={step} height={innerHeight} fill="transparent" />
              <Bar x={left} y={top} width={bandWidth} height={Math.max(0, innerHeight - top)} fill={color} rx={Math.min(3, bandWidth / 4)} />
            </SvgLink>
          );
        })}
        {overlay?.(center, innerHeight, innerWidth)}
      </Group>
    </svg>
  );
}

function DailyCallsChart({ series, links }: { series: DashboardDay[]; links: ChartLinks }) {
  const { token } = theme.useToken();
  const axis = useAxisStyle();
  const [ref, width] = useWidth<HTMLDivElement>();
  const callsColor = token.colorPrimary;
  const minutesColor = token.colorWarning;
  const total = series.reduce((sum, day) => sum + day.calls, 0);
  const busiest = series.reduce<DashboardDay | null>((best, day) => (day.calls > (best?.calls ?? 0) ? day : best), null);
  const dayLabel = (day: DashboardDay) => text.dayLink(formatDay(day.date), formatCount(day.calls), formatMinutes(day.minutes));

  return (
    <ChartPanel
      title={text.callsPerDay}
      legend={
        <span className="dash-legend" aria-hidden>
          <span><Swatch color={callsColor} /> {text.calls}</span>
          <span><Swatch color={minutesColor} line /> {text.minutes}</span>
        </span>
      }
      summary={text.callsSummary(formatCount(total), series.length, busiest ? `${formatDay(busiest.date)} (${formatCount(busiest.calls)})` : null)}
      table={
        <DayTable
          series={series}
          links={links}
          cells={[
            { title: columns.calls, value: (day) => formatCount(day.calls) },
            { title: columns.minutes, value: (day) => formatMinutes(day.minutes) },
            { title: columns.answered, value: (day) => formatCount(day.answered) },
            { title: columns.successful, value: (day) => formatCount(day.successful) },
          ]}
        />
      }
    >
      <div ref={ref} className="dash-chart__box">
        <DayBars
          title={text.callsPerDay}
          series={series}
          width={width}
          value={(day) => day.calls}
          label={dayLabel}
          color={callsColor}
          links={links}
          leftTick={formatCount}
          whole
          overlay={(center, innerHeight, innerWidth) => {
            const y = scaleLinear<number>({ domain: [0, Math.max(1, ...series.map((day) => day.minutes))], range: [innerHeight, 0], nice: true });
            return (
              <g aria-hidden className="dash-chart__overlay">
                <AxisRight left={innerWidth} scale={y} numTicks={4} stroke={axis.stroke} tickStroke={axis.tickStroke} tickLabelProps={axis.label} tickFormat={(tick) => formatCount(Number(tick))} />
                <LinePath<DashboardDay> data={series} x={(day) => center(day.date)} y={(day) => y(day.minutes)} stroke={minutesColor} strokeWidth={2} />
              </g>
            );
          }}
        />
      </div>
    </ChartPanel>
  );
}

function DailyCostChart({ series, links }: { series: DashboardDay[]; links: ChartLinks }) {
  const { token } = theme.useToken();
  const [ref, width] = useWidth<HTMLDivElement>();
  const total = series.reduce((sum, day) => sum + day.cost, 0);
  return (
    <ChartPanel
      wide
      title={text.costPerDay}
      summary={text.costSummary(formatUsd(total), series.length)}
      table={
        <DayTable
          series={series}
          links={links}
          cells={[
            { title: columns.cost, value: (day) => formatUsd(day.cost) },
            { title: columns.calls, value: (day) => formatCount(day.calls) },
          ]}
        />
      }
    >
      <div ref={ref} className="dash-chart__box">
        <DayBars
          title={text.costPerDay}
          series={series}
          width={width}
          value={(day) => day.cost}
          label={(day) => text.costDayLink(formatDay(day.date), formatUsd(day.cost), formatCount(day.calls))}
          color={token.purple}
          links={links}
          leftTick={(value) => `$${formatCount(value)}`}
        />
      </div>
    </ChartPanel>
  );
}

function OutcomesChart({ outcomes, links }: { outcomes: Dashboard["outcomes"]; links: ChartLinks }) {
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const colors: Record<CallOutcome, string> = {
    answered: token.colorSuccess,
    voicemail: token.purple,
    busy: token.orange,
    no_answer: token.colorTextTertiary,
    failed: token.colorError,
    in_progress: token.cyan,
  };
  const total = CALL_OUTCOMES.reduce((sum, outcome) => sum + outcomes[outcome], 0);
  const present = CALL_OUTCOMES.filter((outcome) => outcomes[outcome] > 0);
  const share = (outcome: CallOutcome) => formatPercent(total ? (outcomes[outcome] / total) * 100 : 0);
  const size = 168;
  const radius = size / 2;

  return (
    <section aria-labelledby="dash-outcomes-title" className="dash-panel dash-panel--outcomes">
      <div className="dash-panel__head">
        <h2 id="dash-outcomes-title" className="dash-panel__title">
          {text.outcomes}
        </h2>
      </div>
      <div className="dash-outcomes">
        {/* The legend beside it is the chart's text: each outcome, its count and share, as a link. */}
        <svg width={size} height={size} aria-hidden className="dash-outcomes__donut">
          <Group top={radius} left={radius}>
            <Pie<CallOutcome> data={present} pieValue={(outcome) => outcomes[outcome]} outerRadius={radius} innerRadius={radius * 0.62} padAngle={present.length > 1 ? 0.01 : 0} pieSort={null} pieSortValues={null}>
              {(pie) =>
                pie.arcs.map((arc) => (
                  <path key={arc.data} d={pie.path(arc) ?? ""} fill={colors[arc.data]} className="dash-outcomes__arc" onClick={() => navigate(links.outcome(arc.data))} />
                ))
              }
            </Pie>
            <text textAnchor="middle" dy="0.35em" fill={token.colorText} fontSize={15} fontWeight={600}>
              {text.outcomesTotal(formatCount(total))}
            </text>
          </Group>
        </svg>
        <ul className="dash-outcomes__legend">
          {CALL_OUTCOMES.map((outcome) => {
            const label = strings.callLogs.outcomes[outcome];
            return (
              <li key={outcome}>
                <Swatch color={colors[outcome]} />
                <Link to={links.outcome(outcome)} aria-label={text.outcomeLink(label, formatCount(outcomes[outcome]), share(outcome))}>
                  {label}
                </Link>
                <span className="dash-outcomes__count">{formatCount(outcomes[outcome])}</span>
                <span className="dash-outcomes__share">{share(outcome)}</span>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}

/** The three charts, in the dashboard's grid (the per-agent table follows them on the page). */
export default function DashboardCharts({ dashboard, links }: { dashboard: Dashboard; links: ChartLinks }) {
  return (
    <>
      <DailyCallsChart series={dashboard.series} links={links} />
      <OutcomesChart outcomes={dashboard.outcomes} links={links} />
      <DailyCostChart series={dashboard.series} links={links} />
    </>
  );
}
