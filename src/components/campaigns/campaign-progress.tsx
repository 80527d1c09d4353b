import { Progress, Tooltip, Typography } from "antd";
import type { CampaignCountsBody } from "../../../contract/campaign";
import { CONTACT_STATUSES, type ContactStatus } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { finishedContacts, formatCount, formatInstant, formatRelative, progressOf } from "./campaign-format";

const text = strings.campaigns;

/** The order counts are read in: what went well, what is still to come, then the rest. */
const COUNT_ORDER: readonly ContactStatus[] = ["answered", "in_progress", "queued", "busy", "no_answer", "voicemail", "failed", "dnc", "needs_timezone", "cancelled"];

/** A bar of finished contacts of all, "120 of 500 done" beside it. */
export function CampaignProgress({ name, counts, width }: { name: string; counts: CampaignCountsBody; width?: number }) {
  if (counts.total === 0) return <Typography.Text type="secondary">{text.noContacts}</Typography.Text>;
  const percent = Math.round(progressOf(counts) * 100);
  return (
    <div style={{ minWidth: width ?? 160 }}>
      <Progress percent={percent} size="small" aria-label={text.progressLabel(name)} status={percent === 100 ? "success" : "normal"} />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {text.finishedOf(formatCount(finishedContacts(counts)), formatCount(counts.total))}
      </Typography.Text>
    </div>
  );
}

/** "40 answered · 3 busy · 100 waiting": the states that hold contacts, in reading order. */
export function CampaignCounts({ counts }: { counts: CampaignCountsBody }) {
  const parts = COUNT_ORDER.filter((status) => (counts[status] ?? 0) > 0).map((status) => `${formatCount(counts[status])} ${text.countsShort[status]}`);
  if (parts.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
  return <span className="campaign-counts">{parts.join(" · ")}</span>;
}

/** When the next window opens: relative, the absolute time (the browser's zone) on hover. */
export function NextWindow({ at, status }: { at: string | null; status: string }) {
  if (!at) return <Typography.Text type="secondary">{status === "running" ? text.dialling : "—"}</Typography.Text>;
  return (
    <Tooltip title={text.nextWindowAt(formatInstant(at))}>
      <time dateTime={at} tabIndex={0}>
        {text.nextWindow(formatRelative(at))}
      </time>
    </Tooltip>
  );
}

/** Every contact state's count, for the calls page's header. */
export function contactStateOptions(counts?: CampaignCountsBody) {
  return CONTACT_STATUSES.map((status) => ({
    value: status,
    label: counts ? `${text.contactStatuses[status]} (${formatCount(counts[status] ?? 0)})` : text.contactStatuses[status],
  }));
}
