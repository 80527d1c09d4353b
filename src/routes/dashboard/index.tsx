import { Skeleton, theme } from "antd";
import { Suspense, useCallback, useEffect, useMemo, useState, type CSSProperties } from "react";
import { lazyRetry } from "../../lib/lazy-retry";
import { useSearchParams } from "react-router";
import type { CallFilterPatch } from "../../components/calls/call-filter-values";
import { useCallLogsLink } from "../../components/calls/call-logs-link";
import { AgentTable } from "../../components/dashboard/agent-table";
import { AppointmentsCard } from "../../components/dashboard/appointments-card";
import { CampaignsCard, type DashboardWithCampaigns } from "../../components/dashboard/campaigns-card";
import { DashboardFilters } from "../../components/dashboard/dashboard-filters";
import { formatPeriod } from "../../components/dashboard/dashboard-format";
import { dashboardQuery, dashboardViewParams, readDashboardView, todayIn, type DashboardView } from "../../components/dashboard/dashboard-period";
import { FirstRun, isFirstRun } from "../../components/dashboard/first-run";
import { KpiCards } from "../../components/dashboard/kpi-cards";
import { OrdersCard } from "../../components/dashboard/orders-card";
import { PlanUsageCard } from "../../components/dashboard/plan-usage-card";
import { TimeZoneSetting } from "../../components/dashboard/time-zone-setting";
import { useDashboard, useOrganizationSettings } from "../../components/dashboard/use-dashboard";
import "../../components/dashboard/dashboard.css";
import { ListLoadError } from "../../components/list-load-error";
import { strings } from "../../config/strings";

const text = strings.dashboard;

const loadCharts = () => import("../../components/dashboard/dashboard-charts");
// Fetched with the page, while the figures are asked for, not after they arrive.
void loadCharts().catch(() => undefined);
const DashboardCharts = lazyRetry(loadCharts);

function ChartsSkeleton() {
  return (
    <div className="dash-panel dash-panel--wide" aria-busy="true" aria-label={text.charts.loading}>
      <Skeleton active paragraph={{ rows: 6 }} title={false} />
    </div>
  );
}

function PageSkeleton() {
  return (
    <div aria-busy="true" aria-label={text.loading} className="dash-skeleton">
      <div className="dash-cards">
        {Array.from({ length: 8 }, (_, index) => (
          <div key={index} className="dash-card dash-card--static">
            <Skeleton active paragraph={{ rows: 1 }} />
          </div>
        ))}
      </div>
      <ChartsSkeleton />
    </div>
  );
}

/**
 * The landing page (spec §2 /dashboard): how the organisation's calls went over a period, against
 * the period before, every figure a way into the calls behind it. The view (period, agent) is in the
 * URL; days are the organisation's time zone's.
 */
export default function DashboardPage() {
  const { token } = theme.useToken();
  const [searchParams, setSearchParams] = useSearchParams();
  const view = useMemo(() => readDashboardView(searchParams), [searchParams]);
  const settings = useOrganizationSettings();
  // The zone the presets are cut in: the settings', or (should they fail) the last answer's.
  const [answeredZone, setAnsweredZone] = useState<string>();
  const zone = settings.timeZone ?? answeredZone;
  const params = useMemo(() => dashboardQuery(view, zone), [view, zone]);
  const { dashboard, query } = useDashboard(params);
  if (dashboard && dashboard.period.timezone !== answeredZone) setAnsweredZone(dashboard.period.timezone);
  const callLogsLink = useCallLogsLink();

  useEffect(() => {
    document.title = `${strings.screens.dashboard} · ${strings.appName}`;
  }, []);

  const setView = (next: DashboardView) => setSearchParams(dashboardViewParams(next), { replace: true });
  const refetchAll = () => {
    void settings.query.refetch();
    void query.refetch();
  };

  // Call Logs with exactly what the figures counted: the period's days, in its zone, for the agent.
  const period = dashboard?.period;
  const periodLink = useCallback(
    (extra: CallFilterPatch = {}) =>
      callLogsLink({ startDate: period?.start_date, endDate: period?.end_date, timezone: period?.timezone, agentId: view.agentId, ...extra }),
    [callLogsLink, period, view.agentId],
  );
  const chartLinks = useMemo(
    () => ({
      day: (date: string) => periodLink({ startDate: date, endDate: date }),
      outcome: (outcome: string) => periodLink({ outcome }),
    }),
    [periodLink],
  );

  // The theme's tokens as CSS variables for dashboard.css (plain elements, antd's colours).
  const themeVars = {
    "--dash-bg": token.colorBgContainer,
    "--dash-border": token.colorBorderSecondary,
    "--dash-radius": `${token.borderRadiusLG}px`,
    "--dash-text": token.colorText,
    "--dash-text-secondary": token.colorTextSecondary,
    "--dash-hover": token.colorFillTertiary,
    "--dash-primary": token.colorPrimary,
    "--dash-primary-hover": token.colorPrimaryHover,
    "--dash-on-primary": token.colorTextLightSolid,
    "--dash-focus": token.colorPrimaryBorder,
    "--dash-warning": token.colorWarningText,
  } as CSSProperties;

  const failedQuery = query.isError ? query : params === null && settings.query.isError ? settings.query : null;
  const firstRun = dashboard && isFirstRun(dashboard.setup);
  const noCalls = dashboard && dashboard.totals.calls === 0;
  // Running campaigns (GET /dashboard/'s optional `campaigns`; no card when the server leaves it out).
  const campaigns = (dashboard as DashboardWithCampaigns | undefined)?.campaigns;

  return (
    <section className="dashboard" style={themeVars}>
      <header className="dashboard__header">
        <h1 className="dashboard__title">{strings.screens.dashboard}</h1>
        {zone && <TimeZoneSetting zone={zone} onChanged={refetchAll} />}
      </header>
      {!firstRun && <DashboardFilters view={view} shown={period} today={zone ? todayIn(zone) : undefined} agentsWanted={dashboard !== undefined} onChange={setView} />}
      {dashboard && !firstRun && (
        <p className="dashboard__period">
          {formatPeriod(dashboard.period.start_date, dashboard.period.end_date)}, {text.comparedWith(formatPeriod(dashboard.previous_period.start_date, dashboard.previous_period.end_date))}
        </p>
      )}
      {failedQuery && <ListLoadError query={failedQuery} title={text.loadFailed} retryLabel={text.retry} />}
      {!dashboard && !failedQuery && <PageSkeleton />}
      {dashboard && firstRun && <FirstRun setup={dashboard.setup} />}
      {dashboard && firstRun && (campaigns?.items.length ?? 0) > 0 && <CampaignsCard campaigns={campaigns} />}
      {dashboard && !firstRun && (
        <div className={query.isPlaceholderData ? "dashboard__body dashboard__body--updating" : "dashboard__body"} aria-busy={query.isFetching}>
          <KpiCards dashboard={dashboard} periodLink={periodLink} callLogsLink={callLogsLink} />
          <PlanUsageCard plan={dashboard.plan} />
          <CampaignsCard campaigns={campaigns} />
          <OrdersCard orders={dashboard.orders} />
          <AppointmentsCard appointments={dashboard.appointments} zone={dashboard.period.timezone} />
          {noCalls ? (
            <div className="dash-panel dash-panel--wide dash-empty" role="status">
              <p className="dash-empty__title">{text.noCalls}</p>
              <p>{text.noCallsHint}</p>
            </div>
          ) : (
            <div className="dash-grid">
              <Suspense fallback={<ChartsSkeleton />}>
                <DashboardCharts dashboard={dashboard} links={chartLinks} />
              </Suspense>
              <AgentTable agents={dashboard.agents} periodLink={periodLink} />
            </div>
          )}
        </div>
      )}
    </section>
  );
}
