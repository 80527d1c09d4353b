/**
 * Periodic jobs claimed once across processes (job_leases): a process runs a job only when it takes
 * the job's lease (free, or expired because its holder died), and it runs at most once per interval.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";

const HOLDER = `${process.pid}-${randomUUID().slice(0, 8)}`;

/**
 * Takes job `name` when nobody holds it and it last finished at least `everyMs` ago; answers whether
 * this process now holds it for `leaseMs`. Call finishJob when done (a crash lets the lease run out).
 */
export async function claimJob(db: Db, name: string, everyMs: number, leaseMs: number, holder = HOLDER): Promise<boolean> {
  const result = (await db.execute(sql`
    insert into job_leases (name, holder, lease_until) values (${name}, ${holder}, clock_timestamp() + ${`${leaseMs} milliseconds`}::interval)
    on conflict (name) do update set holder = excluded.holder, lease_until = excluded.lease_until
    where (job_leases.lease_until is null or job_leases.lease_until < clock_timestamp())
      and (job_leases.last_finished_at is null or job_leases.last_finished_at <= clock_timestamp() - ${`${everyMs} milliseconds`}::interval)
    returning name`)) as unknown as { rows: unknown[] };
  return result.rows.length > 0;
}

/** Lets go of the lease and records the finish (the next run is `everyMs` after it). */
export async function finishJob(db: Db, name: string, holder = HOLDER): Promise<void> {
  await db.execute(sql`update job_leases set holder = null, lease_until = null, last_finished_at = clock_timestamp() where name = ${name} and holder = ${holder}`);
}
