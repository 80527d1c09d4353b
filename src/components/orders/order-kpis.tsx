import { useCustom } from "@refinedev/core";
import { keepPreviousData } from "@tanstack/react-query";
import { Alert, Button, Skeleton } from "antd";
import type { ReactNode } from "react";
import { ORDER_PATHS } from "../../../contract/order-shared";
import type { orderStatsSchema } from "../../../contract/order";
import type { z } from "zod";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import type { OrderFilterPatch } from "./order-filters";
import { formatDuration, formatMoney, formatRate } from "./order-format";
import { ordersText } from "./strings";

const text = ordersText.kpis;

export type OrderStats = z.infer<typeof orderStatsSchema>;

/** A card; with `show`, a button that filters the list to the orders behind its figure (`show.name` is its accessible name). */
function Kpi({ label, value, hint, show }: { label: string; value: ReactNode; hint?: ReactNode; show?: { name: string; onClick: () => void } }) {
  const body = (
    <>
      <div className="orders-kpi__label">{label}</div>
      <div className="orders-kpi__value">{value}</div>
      {hint && <div className="orders-kpi__hint">{hint}</div>}
    </>
  );
  if (!show)
    return (
      <div className="orders-kpi" role="group" aria-label={label}>
        {body}
      </div>
    );
  return (
    <button type="button" className="orders-kpi orders-kpi--link" aria-label={show.name} onClick={show.onClick}>
      {body}
    </button>
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
export function OrderKpis({ stats, query, onShow }: ReturnType<typeof useOrderStats> & { onShow?: (patch: OrderFilterPatch) => void }) {
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

  // A card shows the orders behind its figure: the list keeps its days (the figures' days) and drops its other
  // filters, so its total is the card's.
  const show = (label: string, figure: string, only: Pick<OrderFilterPatch, "status" | "called">) =>
    onShow && {
      name: text.cardLink(label, figure, only.called ? text.showCalled : text.showRecovered),
      onClick: () => onShow({ search: "", status: [], called: "", ...only }),
    };
  const recovered = { status: ["recovered"] } satisfies OrderFilterPatch;
  const rate = formatRate(stats.recovery_rate);
  const revenue = stats.recovered_revenue.length === 0 ? [{ currency: "USD", text: formatMoney(0, "USD") }] : stats.recovered_revenue.map((one) => ({ currency: one.currency, text: formatMoney(one.amount, one.currency) }));
  const called = stats.called.toLocaleString("en-US");
  const averageTime = stats.average_time_to_recovery_seconds === null ? text.none : formatDuration(stats.average_time_to_recovery_seconds);
  return (
    <section className="orders-kpis" aria-label={text.label}>
      <Kpi label={text.recoveryRate} value={rate} hint={text.recoveryRateHint(stats.recovered, stats.called)} show={show(text.recoveryRate, rate, recovered)} />
      <Kpi
        label={text.recoveredRevenue}
        value={
          <span className="orders-kpi__amounts">
            {revenue.map((one) => (
              <span key={one.currency}>{one.text}</span>
            ))}
          </span>
        }
        hint={text.recoveredRevenueHint}
        show={show(text.recoveredRevenue, revenue.map((one) => one.text).join(", "), recovered)}
      />
      <Kpi label={text.called} value={called} hint={text.calledHint(stats.orders)} show={show(text.called, called, { called: "true" })} />
      <Kpi label={text.timeToRecovery} value={averageTime} hint={text.timeToRecoveryHint} show={show(text.timeToRecovery, averageTime, recovered)} />
    </section>
  );
}
