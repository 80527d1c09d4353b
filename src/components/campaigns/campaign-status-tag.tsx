import { Tag, Tooltip } from "antd";
import type { Campaign } from "../../../contract/campaign";
import type { CampaignStatus, ContactStatus } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { pauseReasonText } from "./campaign-format";

const text = strings.campaigns;

export const CAMPAIGN_STATUS_COLOR: Record<CampaignStatus, string> = {
  draft: "default",
  scheduled: "cyan",
  running: "processing",
  paused: "warning",
  completed: "success",
  cancelled: "error",
};

export const CONTACT_STATUS_COLOR: Record<ContactStatus, string> = {
  queued: "default",
  in_progress: "processing",
  answered: "success",
  busy: "gold",
  no_answer: "default",
  voicemail: "purple",
  failed: "error",
  dnc: "magenta",
  needs_timezone: "orange",
  cancelled: "default",
};

/** The campaign's state; a paused one says why on hover (its pause_reason, as text). */
export function CampaignStatusTag({ campaign }: { campaign: Pick<Campaign, "status" | "pause_reason" | "pause_code"> }) {
  const tag = <Tag color={CAMPAIGN_STATUS_COLOR[campaign.status]}>{text.statuses[campaign.status] ?? campaign.status}</Tag>;
  const reason = pauseReasonText(campaign);
  return reason ? <Tooltip title={reason}>{tag}</Tooltip> : tag;
}

export function ContactStatusTag({ status }: { status: ContactStatus }) {
  return <Tag color={CONTACT_STATUS_COLOR[status]}>{text.contactStatuses[status] ?? status}</Tag>;
}
