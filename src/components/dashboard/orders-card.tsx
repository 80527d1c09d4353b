import { useId } from "react";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import { formatMoney, formatRate } from "../orders/order-format";
import { ordersText } from "../orders/strings";

const text = ordersText.card;

/** GET /dashboard/'s `orders`: the period's recovered orders and revenue, the orders called and the recovery rate. */
export type DashboardOrders = NonNullable<Dashboard["orders"]>;

/**
 * What the follow-up calls brought back in the period, on the landing page: the recovered revenue per
 * currency, how many orders were recovered and called, the recovery rate, and the way to /orders.
 * Plain elements, as the rest of the landing chunk. Absent from the answer: no card.
 */
export function OrdersCard({ orders }: { orders: DashboardOrders | undefined }) {
  const titleId = useId();
  if (!orders) return null;
  const revenue = orders.recovered_revenue.filter((one) => one.amount > 0);
  return (
    <section aria-labelledby={titleId} className="dash-panel dash-panel--wide dash-orders">
      <div className="dash-panel__head">
        <h2 id={titleId} className="dash-panel__title">
          {text.title}
        </h2>
        <Link to="/orders" className="dash-orders__all">
          {text.all}
        </Link>
      </div>
      <div className="dash-orders__body">
        <p className="dash-orders__revenue">
          {revenue.length === 0 ? (
            <span className="dash-orders__none">{text.none}</span>
          ) : (
            revenue.map((one) => (
              <span key={one.currency} className="dash-orders__amount">
                {formatMoney(one.amount, one.currency)}
              </span>
            ))
          )}
        </p>
        <ul className="dash-orders__figures">
          <li>{text.recovered(orders.recovered)}</li>
          <li>{text.called(orders.called)}</li>
          <li>
            <strong>{formatRate(orders.recovery_rate)}</strong> {text.rate}
          </li>
        </ul>
      </div>
    </section>
  );
}
