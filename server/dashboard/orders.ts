/**
 * The dashboard's orders figures (contract/dashboard.ts `orders`): for the period's days in the
 * organisation's zone, the orders recovered (paid_at in the period) and their revenue per currency, the
 * orders with a follow-up call placed in the period, and the share of those called that are recovered. Two
 * statements, through orders_org_paid_idx and calls_org_started_idx.
 */
import { sql } from "drizzle-orm";
import type { Dashboard } from "../../contract/dashboard";
import { minorToMajor } from "../../contract/order-shared";
import type { Db } from "../db/client";

type Rows<T> = { rows: T[] };

export async function dashboardOrders(db: Db, orgId: string, period: { start: string; end: string }): Promise<NonNullable<Dashboard["orders"]>> {
  const zone = sql`(select coalesce((select timezone from organizations where id = ${orgId}), 'UTC'))`;
  const from = sql`(${period.start}::date::timestamp at time zone ${zone})`;
  const until = sql`((${period.end}::date + 1)::timestamp at time zone ${zone})`;
  const [revenue, called] = await Promise.all([
    db.execute(sql`
      select currency, count(*)::int as n, sum(recovered_minor)::text as minor from orders
      where org_id = ${orgId} and status = 'recovered' and paid_at >= ${from} and paid_at < ${until}
      group by currency order by currency`) as unknown as Promise<Rows<{ currency: string; n: number; minor: string }>>,
    db.execute(sql`
      select count(distinct c.order_id)::int as n,
        count(distinct c.order_id) filter (where o.status = 'recovered')::int as recovered
      from calls k
      join campaign_contacts c on c.id = k.campaign_contact_id and c.order_id is not null
      join orders o on o.id = c.order_id
      where k.org_id = ${orgId} and k.started_at >= ${from} and k.started_at < ${until}`) as unknown as Promise<Rows<{ n: number; recovered: number }>>,
  ]);
  const recovered = revenue.rows.reduce((sum, row) => sum + Number(row.n), 0);
  const calledCount = Number(called.rows[0]?.n ?? 0);
  const calledRecovered = Number(called.rows[0]?.recovered ?? 0);
  return {
    recovered,
    called: calledCount,
    // One population: of the orders called in the period, those recovered (by now). recovered ÷ called would
    // mix two: an order called on the period's eve and paid in it counted above but not below (a rate over 1).
    recovery_rate: calledCount > 0 ? calledRecovered / calledCount : null,
    recovered_revenue: revenue.rows.map((row) => ({ currency: row.currency, amount: minorToMajor(Number(row.minor), row.currency) })),
  };
}
