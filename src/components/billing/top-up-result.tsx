import { Alert, Button } from "antd";
import { useEffect, useRef } from "react";
import type { BillingSummary } from "../../../contract/billing";
import { formatUsd } from "./billing-format";
import { billingText } from "./strings";
import { useRefreshBilling, useTopUpStatus } from "./use-billing";

const text = billingText.topUp;

/** Back from the checkout (?top_up=<id>): the top-up asked again until it is paid, failed or expired. */
export function TopUpResult({ topUpId, summary, onDismiss }: { topUpId: string; summary: BillingSummary | undefined; onDismiss: () => void }) {
  const { topUp, query } = useTopUpStatus(topUpId);
  const refresh = useRefreshBilling();
  const refreshed = useRef(false);
  const status = topUp?.status;
  useEffect(() => {
    if (status && status !== "pending" && !refreshed.current) {
      refreshed.current = true;
      refresh();
    }
  }, [status, refresh]);

  const close = <Button size="small" onClick={onDismiss}>{text.dismiss}</Button>;
  if (query.isError) return <Alert type="error" showIcon message={query.error?.message} action={close} />;
  if (!topUp || topUp.status === "pending") return <Alert type="info" showIcon message={text.pending} role="status" />;
  if (topUp.status === "paid")
    return (
      <Alert
        type="success"
        showIcon
        message={text.paid(formatUsd(topUp.amount_usd))}
        description={summary ? text.newBalance(formatUsd(summary.balance_usd)) : undefined}
        action={close}
      />
    );
  if (topUp.status === "expired") return <Alert type="warning" showIcon message={text.expired} action={close} />;
  return <Alert type="error" showIcon message={text.failedResult} description={topUp.failure_message ?? undefined} action={close} />;
}
