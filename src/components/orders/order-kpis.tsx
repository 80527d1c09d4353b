import { useCustom } from "@refinedev/core";
import { keepPreviousData } from "@tanstack/react-query";
import { Alert, Button, Skeleton } from "antd";
import type { ReactNode } from "react";
import { ORDER_PATHS } from "../../../contract/order-shared";
import type { orderStatsSchema } from "../../../contract/order";
import type { z } from "zod";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatDuration, formatMoney, formatRate } from "./order-format";
import { ordersText } from "./strings";

const text = ordersText.kpis;

export type OrderStats = z.infer<typeof orderStatsSchema>;

function Kpi({ label, value, hint }: { label: string; value: ReactNode; hint?: ReactNode }) {
  return (
    <div className="orders-kpi" role="group" aria-label={label}>
      <div className="orders-kpi__label">{label}</div>
      <div className="orders-kpi__value">{value}</div>
      {hint && <div className="orders-kpi__hint">{hint}</div>}
    </div>
  );
}

/** GET /order/stats for the list's days (abandoned_at, the organisation's zone), asked again while the list polls. */
export function useOrderStats({ startDate, endDate, refetchInterval }: { startDate?: string; endDate?: string; refetchInterval: number | false }) {
  const { result, query } = useCustom<{ data: OrderStats }, ApiError>({
    url: ORDER_PATHS.stats,
    method: "get",
    config: { query: { ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) } },
    queryOptions: { placeholderData: keepPreviousData, refetchInterval },
    errorNotification: false,
  });
  return { stats: result.data?.data, query };
}

/**
 * The KPI cards: recovery rate (recovered ÷ called), recovered revenue per currency, orders called,
 * average time from abandonment to payment.
 */
export function OrderKpis({ stats, query }: ReturnType<typeof useOrderStats>) {
  if (query.isError && !stats)
    return (
      <Alert
        type="warning"
        showIcon
        className="orders-kpis__error"
        message={text.loadFailed}
        description={query.error?.message}
        action={
          <Button size="small" onClick={() => void query.refetch()}>
            {ordersText.retry}
          </Button>
        }
      />
    );
  if (!stats)
    return (
      <div className="orders-kpis" aria-busy="true">
        {[text.recoveryRate, text.recoveredRevenue, text.called, text.timeToRecovery].map((label) => (
          <div key={label} className="orders-kpi">
            <Skeleton active paragraph={{ rows: 1 }} title={false} />
          </div>
        ))}
      </div>
    );

  return (
    <section className="orders-kpis" aria-label={text.label}>
      <Kpi label={text.recoveryRate} value={formatRate(stats.recovery_rate)} hint={text.recoveryRateHint(stats.recovered, stats.called)} />
      <Kpi
        label={text.recoveredRevenue}
        value={
          stats.recovered_revenue.length === 0 ? (
            formatMoney(0, "USD")
          ) : (
            <span className="orders-kpi__amounts">
              {stats.recovered_revenue.map((one) => (
                <span key={one.currency}>{formatMoney(one.amount, one.currency)}</span>
              ))}
            </span>
          )
        }
        hint={text.recoveredRevenueHint}
      />
      <Kpi label={text.called} value={stats.called.toLocaleString("en-US")} hint={text.calledHint(stats.orders)} />
      <Kpi
        label={text.timeToRecovery}
        value={stats.average_time_to_recovery_seconds === null ? text.none : formatDuration(stats.average_time_to_recovery_seconds)}
        hint={text.timeToRecoveryHint}
      />
    </section>
  );
}
