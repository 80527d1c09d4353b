/**
 * The Usage tab (lazy: its own chunk, with the visx chart): cost, calls and minutes for a period of the
 * organisation's days (default the last 30) and an agent, a stacked bar per day by cost component,
 * cost by agent, the days as a table, and that table as CSV.
 */
import { useCustom } from "@refinedev/core";
import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar } from "@visx/shape";
import { Button, Card, Col, DatePicker, Empty, Progress, Row, Select, Skeleton, Space, Statistic, Table, theme, Typography } from "antd";
import dayjs from "dayjs";
import type { Usage } from "../../../contract/billing";
import { billingPaths, USAGE_COMPONENT_LABELS, USAGE_COMPONENTS, USAGE_DEFAULT_DAYS, type UsageComponent } from "../../../contract/billing-shared";
import { useAgentList } from "../../hooks/use-agent-list";
import { toCsv } from "../../lib/csv";
import { saveFile } from "../../lib/csv-download";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { useWidth } from "../dashboard/use-width";
import { ListLoadError } from "../list-load-error";
import { addDays, formatCount, formatDay, formatMinutes, formatUsd, formatUsdPerMinute, isDay, todayIn } from "./billing-format";
import { useBillingUrl } from "./billing-url";
import { billingText } from "./strings";
import "./billing.css";

const text = billingText.usage;
const NO_AGENT = "none";

/** The default period: the last USAGE_DEFAULT_DAYS days of the organisation's zone, today included. */
export function defaultUsageRange(zone: string, now: Date = new Date()): { startDate: string; endDate: string } {
  const endDate = todayIn(zone, now);
  return { startDate: addDays(endDate, -(USAGE_DEFAULT_DAYS - 1)), endDate };
}

function useComponentColours(): Record<UsageComponent, string> {
  const { token } = theme.useToken();
  return {
    transport: token.colorPrimary,
    speech_to_text: token.cyan6 ?? "#13c2c2",
    llm: token.purple6 ?? "#722ed1",
    text_to_speech: token.gold6 ?? "#d48806",
    platform: token.green6 ?? "#389e0d",
    other: token.colorTextQuaternary,
  };
}

const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 28, left: 52 };

/** Cost per day, one bar a day stacked by component (each segment named for a screen reader). */
export function UsageChart({ days }: { days: Usage["days"] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const colours = useComponentColours();
  const innerWidth = Math.max(10, width - MARGIN.left - MARGIN.right);
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({ domain: days.map((day) => day.date), range: [0, innerWidth], padding: 0.2 });
  const top = Math.max(0.01, ...days.map((day) => day.cost_usd));
  const y = scaleLinear<number>({ domain: [0, top], range: [innerHeight, 0], nice: true });
  const every = Math.max(1, Math.ceil(days.length / Math.max(1, Math.floor(innerWidth / 56))));
  return (
    <div ref={ref} className="billing-chart">
      {/* A named group of named bars: a screen reader reaches each bar (role="img" with its day, component and
          cost); under an svg that were one image itself, the bars' names would be hidden (an image's children are
          presentational), and an aria-label on a rect with no role is one axe (WCAG 4.1.2) refuses. */}
      <svg width={width} height={HEIGHT} role="group" aria-label={text.perDay}>
        <Group left={MARGIN.left} top={MARGIN.top}>
          {days.map((day) => {
            let base = 0;
            return (
              <g key={day.date}>
                <title>{text.chartLabel(formatDay(day.date), formatUsd(day.cost_usd))}</title>
                {USAGE_COMPONENTS.map((component) => {
                  const value = day.components[component];
                  if (value <= 0) return null;
                  const y0 = y(base);
                  base += value;
                  const y1 = y(base);
                  return (
                    <Bar
                      key={component}
                      data-component={component}
                      x={x(day.date) ?? 0}
                      y={y1}
                      width={x.bandwidth()}
                      height={Math.max(0, y0 - y1)}
                      fill={colours[component]}
                      role="img"
                      aria-label={`${formatDay(day.date)} ${USAGE_COMPONENT_LABELS[component]}: ${formatUsd(value)}`}
                    />
                  );
                })}
              </g>
            );
          })}
          <AxisLeft scale={y} numTicks={4} tickFormat={(value) => formatUsd(Number(value))} />
          <AxisBottom top={innerHeight} scale={x} tickValues={days.filter((_, index) => index % every === 0).map((day) => day.date)} tickFormat={(value) => formatDay(String(value))} />
        </Group>
      </svg>
      <div className="billing-legend">
        {USAGE_COMPONENTS.map((component) => (
          <span key={component}>
            <span className="billing-legend__swatch" style={{ background: colours[component] }} />
            {USAGE_COMPONENT_LABELS[component]}
          </span>
        ))}
      </div>
    </div>
  );
}

/** The days' table as CSV rows (header first). */
export function usageCsvRows(usage: Usage): Array<Array<string | number>> {
  return [
    ["date", "cost_usd", "calls", "minutes", "avg_cost_per_minute_usd", ...USAGE_COMPONENTS],
    ...usage.days.map((day) => [day.date, day.cost_usd, day.calls, day.minutes, day.avg_cost_per_minute_usd ?? "", ...USAGE_COMPONENTS.map((component) => day.components[component])]),
  ];
}

export default function UsageTab({ zone }: { zone: string }) {
  const { get, patch } = useBillingUrl();
  const { agents } = useAgentList();
  const fallback = defaultUsageRange(zone);
  const from = get("from");
  const to = get("to");
  const startDate = isDay(from) ? from : fallback.startDate;
  const endDate = isDay(to) ? to : fallback.endDate;
  const agent = get("agent");
  const { result, query } = useCustom<{ data: Usage }, ApiError>({
    url: billingPaths.usage,
    method: "get",
    config: { query: { startDate, endDate, ...(agent ? { agentId: agent } : {}) } },
    errorNotification: false,
  });
  const usage = (result.data as { data?: Usage } | undefined)?.data;
  const empty = usage !== undefined && usage.totals.calls === 0 && usage.totals.cost_usd === 0;
  const topAgentCost = Math.max(0.000001, ...(usage?.agents ?? []).map((row) => row.cost_usd));

  return (
    <Space direction="vertical" size={16} style={{ width: "100%" }}>
      <Row gutter={[8, 8]}>
        <Col xs={24} md={12} xl={8}>
          <DatePicker.RangePicker
            aria-label={text.range}
            style={{ width: "100%" }}
            allowClear={false}
            value={[dayjs(startDate), dayjs(endDate)]}
            onChange={(range) => patch({ from: range?.[0]?.format("YYYY-MM-DD"), to: range?.[1]?.format("YYYY-MM-DD") })}
          />
        </Col>
        <Col xs={24} md={12} xl={6}>
          <Select
            aria-label={text.agent}
            style={{ width: "100%" }}
            showSearch
            optionFilterProp="label"
            value={agent ?? ""}
            onChange={(value: string) => patch({ agent: value })}
            options={[{ value: "", label: text.allAgents }, ...agents.map((row) => ({ value: String(row.id), label: row.agent_name }))]}
          />
        </Col>
      </Row>
      <ListLoadError query={query} title={text.loadFailed} retryLabel={billingText.retry} />
      {!usage ? (
        !query.isError && (
          <div role="status" aria-label={billingText.loading}>
            <Skeleton active paragraph={{ rows: 6 }} />
          </div>
        )
      ) : (
        <>
          <Row gutter={[16, 16]}>
            {[
              [text.kpi.cost, formatUsd(usage.totals.cost_usd)],
              [text.kpi.calls, formatCount(usage.totals.calls)],
              [text.kpi.minutes, formatMinutes(usage.totals.minutes)],
              [text.kpi.avg, formatUsdPerMinute(usage.totals.avg_cost_per_minute_usd)],
            ].map(([title, value]) => (
              <Col xs={12} lg={6} key={title}>
                <Card>
                  <Statistic title={title} value={value} />
                </Card>
              </Col>
            ))}
          </Row>
          <Typography.Paragraph type="secondary">
            {text.kpiNote}
          </Typography.Paragraph>
          {empty ? (
            <Empty description={text.empty} />
          ) : (
            <>
              <Card title={text.perDay}>
                <UsageChart days={usage.days} />
              </Card>
              <Card title={text.byAgent}>
                <Table
                  rowKey={(row) => row.agent_id ?? NO_AGENT}
                  size="small"
                  pagination={false}
                  scroll={{ x: "max-content" }}
                  dataSource={usage.agents}
                  columns={[
                    { title: text.columns.agent, key: "agent", render: (_: unknown, row) => row.agent_name ?? text.noAgent },
                    { title: text.columns.cost, dataIndex: "cost_usd", align: "right", render: (value: number) => formatUsd(value) },
                    { title: "", key: "bar", width: "40%", render: (_: unknown, row) => <Progress percent={(row.cost_usd / topAgentCost) * 100} showInfo={false} size="small" aria-label={text.agentShare(row.agent_name ?? text.noAgent)} /> },
                    { title: text.columns.calls, dataIndex: "calls", align: "right", render: (value: number) => formatCount(value) },
                    { title: text.columns.minutes, dataIndex: "minutes", align: "right", render: (value: number) => formatMinutes(value) },
                  ]}
                />
              </Card>
            </>
          )}
          <Card
            title={text.table}
            extra={
              <Button onClick={() => saveFile([toCsv(usageCsvRows(usage))], `usage-${usage.start_date}-${usage.end_date}.csv`)}>{text.download}</Button>
            }
          >
            <Table
              rowKey="date"
              size="small"
              scroll={{ x: "max-content" }}
              pagination={{ pageSize: 31, hideOnSinglePage: true }}
              dataSource={[...usage.days].reverse()}
              columns={[
                { title: text.columns.date, dataIndex: "date", render: (value: string) => formatDay(value) },
                { title: text.columns.cost, dataIndex: "cost_usd", align: "right", render: (value: number) => formatUsd(value) },
                ...USAGE_COMPONENTS.map((component) => ({
                  title: USAGE_COMPONENT_LABELS[component],
                  key: component,
                  align: "right" as const,
                  render: (_: unknown, day: Usage["days"][number]) => formatUsd(day.components[component]),
                })),
                { title: text.columns.calls, dataIndex: "calls", align: "right", render: (value: number) => formatCount(value) },
                { title: text.columns.minutes, dataIndex: "minutes", align: "right", render: (value: number) => formatMinutes(value) },
                { title: text.columns.avg, dataIndex: "avg_cost_per_minute_usd", align: "right", render: (value: number | null) => formatUsdPerMinute(value) },
              ]}
            />
          </Card>
        </>
      )}
    </Space>
  );
}
