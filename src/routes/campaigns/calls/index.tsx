import { ArrowLeftOutlined, SyncOutlined } from "@ant-design/icons";
import { Alert, Flex, Skeleton, Tag, Typography } from "antd";
import { Suspense, useCallback, useEffect, type ReactNode } from "react";
import { lazyRetry } from "../../../lib/lazy-retry";
import { Link, useParams } from "react-router";
import { CallDetailDrawer } from "../../../components/calls/call-detail-drawer";
import "../../../components/calls/call-logs.css";
import { CampaignActions } from "../../../components/campaigns/campaign-actions";
import { CampaignContacts } from "../../../components/campaigns/campaign-contacts";
import { CampaignEvents } from "../../../components/campaigns/campaign-events";
import { isLive } from "../../../components/campaigns/campaign-format";
import { CampaignStatusTag } from "../../../components/campaigns/campaign-status-tag";
import { CampaignSummary, NeedsTimeZoneNotice, PauseNotice } from "../../../components/campaigns/campaign-summary";
import "../../../components/campaigns/campaigns.css";
import { useCampaignActions } from "../../../components/campaigns/use-campaign-actions";
import { useCampaign, useCampaignEvents, useCampaignProgress } from "../../../components/campaigns/use-campaign-detail";
import { useCampaignPermissions } from "../../../components/campaigns/use-campaign-permissions";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";
import { useQueryParam } from "../../../hooks/use-query-param";
import type { ApiError } from "../../../providers/data/fetch-wrapper";

const text = strings.campaigns.detail;
const CampaignProgressChart = lazyRetry(() => import("../../../components/campaigns/campaign-progress-chart"));
/** The drawer's query parameter, as on Call Logs: ?call=<id> opens that call over the page. */
const CALL_PARAM = "call";

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="campaign-panel" aria-label={title}>
      <h2 className="campaign-panel__title">{title}</h2>
      {children}
    </section>
  );
}

function ProgressPanel({ id, live }: { id: string; live: boolean }) {
  const { progress, query } = useCampaignProgress(id, live);
  let body;
  if (query.isError) body = <ListLoadError query={query} title={text.progressFailed} retryLabel={strings.campaigns.retry} />;
  else if (!progress) body = <Skeleton active paragraph={{ rows: 3 }} title={false} />;
  else if (progress.points.length === 0) body = <Typography.Text type="secondary">{text.progressEmpty}</Typography.Text>;
  else
    body = (
      <Suspense fallback={<Skeleton active paragraph={{ rows: 3 }} title={false} />}>
        <CampaignProgressChart progress={progress} />
      </Suspense>
    );
  return <Panel title={text.progressTitle}>{body}</Panel>;
}

/**
 * Campaign Calls (/campaigns/:id/calls): the campaign's state and actions, why it paused, its progress
 * over time, its contacts with their calls (each opens in Call Logs' drawer) and its history. While it
 * is running or scheduled everything is asked again every few seconds; once it is not, nothing is.
 */
export default function CampaignCallsPage() {
  const { id = "" } = useParams();
  const [callId, setCall] = useQueryParam(CALL_PARAM);
  const permissions = useCampaignPermissions();
  const { campaign, query } = useCampaign(id);
  const live = isLive(campaign?.status);
  const events = useCampaignEvents(id, live);
  const refreshEvents = events.query.refetch;
  const actions = useCampaignActions(useCallback(() => void refreshEvents(), [refreshEvents]));

  useEffect(() => {
    document.title = `${strings.screens.campaignCalls} · ${strings.appName}`;
  }, []);


  let body;
  if (query.isError && (query.error as ApiError | null)?.statusCode === 404) body = <Alert type="warning" showIcon message={text.notFound} description={text.notFoundDetail} />;
  else if (query.isError) body = <ListLoadError query={query} title={text.loadFailed} retryLabel={strings.campaigns.retry} />;
  else if (!campaign)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active />
      </div>
    );
  else
    body = (
      <div className="campaign-detail">
        <div className="campaign-detail__head">
          <Flex wrap align="center" gap={8}>
            <h2 className="campaign-detail__name">{campaign.name}</h2>
            <CampaignStatusTag campaign={campaign} />
            {live && (
              <Tag icon={<SyncOutlined spin />} color="processing">
                {text.live}
              </Tag>
            )}
          </Flex>
          <CampaignActions campaign={campaign} actions={actions} permissions={permissions} size="middle" />
        </div>
        <PauseNotice campaign={campaign} actions={actions} canResume={permissions.canEdit} />
        <NeedsTimeZoneNotice campaign={campaign} canEdit={permissions.canEdit} />
        <CampaignSummary campaign={campaign} />
        <ProgressPanel id={campaign.id} live={live} />
        <Panel title={text.contactsTitle}>
          <CampaignContacts campaign={campaign} live={live} onOpenCall={setCall} />
        </Panel>
        <Panel title={text.eventsTitle}>
          <CampaignEvents {...events} />
        </Panel>
      </div>
    );

  return (
    <section className="campaign-page">
      <Link to="/campaigns" className="campaign-page__back">
        <ArrowLeftOutlined aria-hidden /> {text.back}
      </Link>
      <h1 className="campaigns__title" style={{ margin: "4px 0 16px" }}>
        {strings.screens.campaignCalls}
      </h1>
      {body}
      <CallDetailDrawer callId={callId} onClose={() => setCall(undefined)} />
    </section>
  );
}
