/**
 * The attribution sweep (run from the dialler's tick, at most once a minute per process): orders still
 * `calling` whose last reaching call ended more than the follow-up's attribution_days ago, with nothing
 * more to dial (no contact queued, waiting for a zone or on the line), were not bought after the call:
 * they become `declined`, "No purchase within N days of the call", with a timeline event.
 *
 * One statement, claimed safely across processes: the candidate rows are taken FOR UPDATE SKIP LOCKED
 * (another process's sweep, or a writer holding the order, is skipped this time) and the update
 * re-checks the status, so an order paid meanwhile is never declined. Cheap: the partial index
 * orders_calling_reached_idx holds only calling orders.
 */
import { sql } from "drizzle-orm";
import { DEFAULT_ATTRIBUTION_DAYS } from "../../contract/order-shared";
import type { Db } from "../db/client";

/** Orders declined per sweep at most (the rest the next time). */
const SWEEP_BATCH = 500;
/** How often one process sweeps. */
export const ATTRIBUTION_SWEEP_INTERVAL_MS = 60_000;

/** Declines the orders whose attribution window ended without a purchase; answers how many. */
export async function sweepAttribution(db: Db, now: number): Promise<number> {
  const at = new Date(now).toISOString();
  const result = (await db.execute(sql`
    with due as (
      select o.id, o.org_id, coalesce(f.attribution_days, g.attribution_days, ${DEFAULT_ATTRIBUTION_DAYS}) as attribution_days
      from orders o
      join campaign_contacts c on c.order_id = o.id
      -- The follow-up whose campaign holds the contact, else (its settings since removed) the organisation's.
      left join order_follow_ups f on f.campaign_id = c.campaign_id
      left join order_follow_ups g on g.org_id = o.org_id and g.integration_id is null
      where o.status = 'calling' and o.reached_at is not null
        and o.reached_at < ${at}::timestamptz - make_interval(days => coalesce(f.attribution_days, g.attribution_days, ${DEFAULT_ATTRIBUTION_DAYS}))
        and c.status not in ('queued', 'needs_timezone', 'in_progress')
      order by o.reached_at
      limit ${SWEEP_BATCH}
      for update of o skip locked
    ),
    swept as (
      update orders o
      set status = 'declined',
          status_detail = 'No purchase within ' || due.attribution_days || case when due.attribution_days = 1 then ' day' else ' days' end || ' of the call.',
          updated_at = ${at}::timestamptz
      from due
      where o.id = due.id and o.status = 'calling'
      returning o.id, o.org_id, o.status_detail
    )
    insert into order_events (id, org_id, order_id, kind, detail, created_at)
    select gen_random_uuid(), swept.org_id, swept.id, 'declined', swept.status_detail, ${at}::timestamptz from swept
    returning order_id`)) as unknown as { rows: unknown[] };
  return result.rows.length;
}
