import { Alert, Button, Descriptions, Flex, Typography } from "antd";
import { useNavigate } from "react-router";
import type { Campaign } from "../../../contract/campaign";
import type { ContactStatus } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { formatCount, formatInstant, formatPercent, formatWindows } from "./campaign-format";
import { CampaignProgress, NextWindow } from "./campaign-progress";
import type { useCampaignActions } from "./use-campaign-actions";

const text = strings.campaigns;

/** The contact states' colours in the stacked bar (antd's palette). */
const STATE_COLOURS: Record<ContactStatus, string> = {
  answered: "#52c41a",
  in_progress: "#1677ff",
  queued: "#d9d9d9",
  busy: "#faad14",
  no_answer: "#8c8c8c",
  voicemail: "#722ed1",
  failed: "#ff4d4f",
  dnc: "#eb2f96",
  needs_timezone: "#fa8c16",
  cancelled: "#595959",
};

/** Every contact by state, one bar, with its legend (the legend carries the figures for a screen reader). */
/** Done with first (the bar fills from the left as the campaign goes), then the ones still to come. */
const BAR_ORDER: readonly ContactStatus[] = ["answered", "voicemail", "busy", "no_answer", "failed", "dnc", "cancelled", "in_progress", "needs_timezone", "queued"];

export function ContactStateBar({ counts }: { counts: Campaign["counts"] }) {
  const states = BAR_ORDER.filter((status) => counts[status] > 0);
  if (counts.total === 0) return null;
  return (
    <div>
      <div className="campaign-stack" aria-hidden>
        {states.map((status) => (
          <div key={status} className="campaign-stack__part" title={`${text.contactStatuses[status]}: ${formatCount(counts[status])}`} style={{ width: `${(counts[status] / counts.total) * 100}%`, background: STATE_COLOURS[status] }} />
        ))}
      </div>
      <ul className="campaign-legend" aria-label={strings.campaigns.detail.contactsTitle}>
        {states.map((status) => (
          <li key={status}>
            <span className="campaign-legend__swatch" aria-hidden style={{ background: STATE_COLOURS[status] }} />
            {text.contactStatuses[status]} {formatCount(counts[status])} ({formatPercent(counts[status] / counts.total)})
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Why the campaign is paused, where a person sees it first: the server's sentence (pause_reason) under
 * its kind (pause_code), with Resume beside it.
 */
export function PauseNotice({ campaign, actions, canResume }: { campaign: Campaign; actions: ReturnType<typeof useCampaignActions>; canResume: boolean }) {
  if (campaign.status !== "paused") return null;
  const automatic = campaign.pause_code !== null && campaign.pause_code !== "manual";
  return (
    <Alert
      type={automatic ? "error" : "warning"}
      showIcon
      role="alert"
      message={text.pauseCodes[campaign.pause_code ?? "manual"]}
      description={
        <>
          {campaign.pause_reason ?? text.detail.pausedManual}
          {canResume && (
            <div style={{ marginTop: 8 }}>
              <Button type="primary" size="small" loading={actions.isPending(campaign, "resume")} onClick={() => void actions.transition(campaign, "resume")}>
                {text.detail.resume}
              </Button>
            </div>
          )}
        </>
      }
    />
  );
}

/** Contacts that wait for a time zone, and where to give them one. */
export function NeedsTimeZoneNotice({ campaign, canEdit }: { campaign: Campaign; canEdit: boolean }) {
  const navigate = useNavigate();
  if (campaign.counts.needs_timezone === 0) return null;
  return (
    <Alert
      type="warning"
      showIcon
      message={text.detail.needsTimeZone(formatCount(campaign.counts.needs_timezone))}
      description={
        <>
          {text.detail.needsTimeZoneBody}
          {canEdit && (
            <div style={{ marginTop: 8 }}>
              <Button size="small" onClick={() => navigate(`/campaigns/edit/${encodeURIComponent(campaign.id)}?step=schedule`)}>
                {text.detail.editSchedule}
              </Button>
            </div>
          )}
        </>
      }
    />
  );
}

/** Progress, the states bar, the next window and the campaign's settings. */
export function CampaignSummary({ campaign }: { campaign: Campaign }) {
  const retryOutcomes = campaign.retry.on.map((outcome) => text.retryOutcomes[outcome].toLowerCase()).join(", ");
  return (
    <Flex vertical gap={12}>
      <Flex wrap gap={24} align="flex-start">
        <div style={{ flex: "1 1 260px" }}>
          <CampaignProgress name={campaign.name} counts={campaign.counts} width={220} />
        </div>
        <div style={{ flex: "0 1 auto" }}>
          <Typography.Text type="secondary">{text.columns.nextWindow}: </Typography.Text>
          <NextWindow at={campaign.next_window_at} status={campaign.status} />
        </div>
      </Flex>
      <ContactStateBar counts={campaign.counts} />
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, lg: 3 }}
        items={[
          { key: "agent", label: text.detail.agent, children: campaign.agent_name ?? text.noAgent },
          { key: "number", label: text.detail.callerNumber, children: campaign.phone_number ? formatPhoneNumber(campaign.phone_number) : "—" },
          { key: "schedule", label: text.detail.schedule, children: formatWindows(campaign.schedule.windows) },
          { key: "fallback", label: text.form.fallback, children: campaign.schedule.fallback_timezone ?? text.form.fallbackNone },
          { key: "concurrency", label: text.detail.concurrency, children: campaign.max_concurrency },
          { key: "retries", label: text.detail.retries, children: text.detail.retriesValue(campaign.retry.max_attempts, campaign.retry.delay_minutes, retryOutcomes) },
          ...(campaign.started_at ? [{ key: "started", label: text.detail.started, children: formatInstant(campaign.started_at) }] : []),
          ...(campaign.completed_at ? [{ key: "completed", label: text.detail.completed, children: formatInstant(campaign.completed_at) }] : []),
        ]}
      />
    </Flex>
  );
}
