import { Alert } from "antd";
import type { PlanPreview } from "../../../contract/subscription";
import { formatCount, formatDay, formatInterval, formatTime } from "./format";
import { subscriptionText } from "./strings";

const text = subscriptionText.preview.retention;

const callCount = (n: number) => `${formatCount(n)} ${n === 1 ? "call" : "calls"}`;

/**
 * What the retention sweep deletes under the new plan, before the member confirms: the server counts the calls by the
 * sweep's own rule (server/billing/sweeps.ts). Shown for a downgrade, and for any change that would delete something.
 */
export function RetentionNotice({ preview }: { preview: PlanPreview }) {
  const retention = preview.retention;
  if (!retention || (preview.direction !== "downgrade" && retention.calls === 0)) return null;
  const days = formatCount(retention.days);
  if (retention.at_period_end) {
    const date = retention.applies_at ? formatDay(retention.applies_at) : null;
    return (
      <Alert
        data-testid="preview-retention"
        type="warning"
        showIcon
        style={{ marginTop: 12 }}
        message={text.title}
        description={`${text.atPeriodEnd(callCount(retention.calls), days, date, formatDay(retention.cutoff))} ${text.kept}`}
      />
    );
  }
  if (retention.calls === 0) {
    return <Alert data-testid="preview-retention" type="info" showIcon style={{ marginTop: 12 }} message={text.noneTitle} description={text.none(days)} />;
  }
  const next = retention.next_sweep_at ? formatTime(retention.next_sweep_at) : null;
  return (
    <Alert
      data-testid="preview-retention"
      type="warning"
      showIcon
      style={{ marginTop: 12 }}
      message={text.title}
      description={
        <>
          <p style={{ margin: "0 0 4px" }}>
            <strong>{text.calls(callCount(retention.calls), days)}</strong>
          </p>
          <p style={{ margin: 0 }}>{text.whenSweep(formatInterval(retention.sweep_every_seconds), next)}</p>
        </>
      }
    />
  );
}
