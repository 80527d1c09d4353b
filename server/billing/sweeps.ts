/**
 * The billing sweeps (issue 15), run every BILLING_SWEEP_SECONDS by every process and each claimed once
 * across processes (claimJob, job_leases): a run happens in one process at a time, at most once per
 * interval. Started with the server (server/index.ts); the tests call the runs themselves.
 *
 * - grace: a past_due subscription whose SUBSCRIPTION_GRACE_DAYS have passed falls back to Free (plan
 *   free, status canceled). Until the sweep writes it, plan-limits.ts already counts it as Free.
 * - retention: calls older than their organisation's plan's retention_days (started_at; Enterprise: no
 *   limit) lose their transcript, messages, recording_url and stereo_recording_url and get redacted_at.
 *   Kept: the summary, structured data, success evaluation, cost and outcome (what the dashboard and
 *   the call list count; a summary is the organisation's own short record, not the conversation), and
 *   the ledger and usage_daily are not touched (financial records). In batches of RETENTION_BATCH calls
 *   of one organisation per transaction, each taking the organisation's row first (the lock order of
 *   every writer of calls, lockOrganisationForCalls).
 */
import { sql, type SQL } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { PLAN_IDS, PLANS, type PlanId } from "../../contract/plans";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { claimJob, finishJob } from "./jobs";
import type { PaymentProvider } from "./payments/types";
import { startReconciliation } from "./reconcile";
import { GRACE_MS, planSettings, type PlanSettings } from "./plan-limits";

export const RETENTION_BATCH = 500;
export const GRACE_JOB = "billing-grace-sweep";
export const RETENTION_JOB = "billing-retention-sweep";

const rows = (result: unknown): Record<string, unknown>[] => (result as { rows: Record<string, unknown>[] }).rows;

/** Past-due accounts beyond their grace become Free (canceled). Answers how many. */
export async function sweepGrace(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - GRACE_MS);
  const result = await db.execute(sql`
    update billing_accounts
    set plan = 'free', subscription_status = 'canceled', past_due_since = null, cancel_at_period_end = false, updated_at = ${now.toISOString()}::timestamptz
    where subscription_status = 'past_due' and past_due_since is not null and past_due_since <= ${cutoff.toISOString()}::timestamptz
    returning org_id`);
  return rows(result).length;
}

/** The retention days of the organisation's plan, in SQL (null: none): its billing row's plan, or DEFAULT_PLAN. */
function retentionDaysSql(defaultPlan: PlanId) {
  const cases = PLAN_IDS.map((id) => {
    const days = PLANS[id].limits.retention_days;
    return sql`when ${id} then ${days === null ? sql`null` : sql.raw(String(days))}::int`;
  });
  return sql`(case coalesce((select b.plan from billing_accounts b where b.org_id = c.org_id), ${defaultPlan}) ${sql.join(cases, sql` `)} else null end)`;
}

/** The retention cut-off at `now` for `days` days (an int in SQL): calls placed before it are past retention. */
function retentionCutoffSql(now: Date, days: SQL): SQL {
  return sql`(${now.toISOString()}::timestamptz - make_interval(days => ${days}))`;
}

/**
 * The one rule of what the retention sweep redacts, over `calls c`: not redacted yet and placed before the cut-off.
 * The sweep (the organisation's plan's days) and the downgrade preview (the new plan's days, retentionDue) both use
 * it, so the preview's count is what the sweep then redacts. Over calls_org_unredacted_started_idx for one organisation.
 */
function dueForRetention(now: Date, days: SQL): SQL {
  return sql`c.redacted_at is null and c.started_at < ${retentionCutoffSql(now, days)}`;
}

/**
 * What the retention sweep would redact of the organisation's calls at `now` under a plan keeping `days` days: the
 * calls and the cut-off (they were placed before it). A count over the partial index (org_id, started_at) of calls not
 * redacted yet: it reads only the calls it counts.
 */
export async function retentionDue(db: Db, orgId: string, days: number, now = new Date()): Promise<{ calls: number; cutoff: Date }> {
  const planDays = sql`${days}::int`;
  const [row] = rows(
    await db.execute(sql`select count(*)::int as calls, ${retentionCutoffSql(now, planDays)} as cutoff from calls c where c.org_id = ${orgId} and ${dueForRetention(now, planDays)}`),
  );
  return { calls: Number(row?.calls ?? 0), cutoff: new Date(row?.cutoff as string | Date) };
}

/**
 * When the retention sweep runs next, from its lease (job_leases): now while a run holds it, else `everyMs` after
 * the last run finished (or now, when that is past). Null when it has never run (no process has started the sweeps).
 */
export async function nextRetentionSweep(db: Db, everyMs: number, now = new Date()): Promise<Date | null> {
  const [row] = rows(await db.execute(sql`select lease_until, last_finished_at from job_leases where name = ${RETENTION_JOB}`));
  if (!row) return null;
  const leaseUntil = row.lease_until ? new Date(row.lease_until as string | Date) : null;
  if (leaseUntil && leaseUntil > now) return now;
  if (!row.last_finished_at) return null;
  const next = new Date(new Date(row.last_finished_at as string | Date).getTime() + everyMs);
  return next > now ? next : now;
}

/** Redacts the calls past their plan's retention, in batches. Answers how many calls were redacted. */
export async function sweepRetention(db: Db, settings: PlanSettings, now = new Date(), batch = RETENTION_BATCH): Promise<number> {
  const due = dueForRetention(now, retentionDaysSql(settings.defaultPlan));
  let redacted = 0;
  for (;;) {
    const orgs = rows(await db.execute(sql`select distinct c.org_id from calls c where ${due} limit 50`)).map((row) => String(row.org_id));
    if (orgs.length === 0) return redacted;
    for (const orgId of orgs) {
      for (;;) {
        const done = await db.transaction(async (tx) => {
          await lockOrganisationForCalls(tx, orgId);
          const result = await tx.execute(sql`
            update calls set transcript = null, messages = null, recording_url = null, stereo_recording_url = null,
              redacted_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
            where id in (select c.id from calls c where c.org_id = ${orgId} and ${due} order by c.started_at limit ${batch} for update skip locked)
            returning id`);
          return rows(result).length;
        });
        redacted += done;
        if (done < batch) break;
      }
    }
  }
}

/** One run of job `name` when this process claims it; answers whether it ran (false: another process has it, or it ran within the interval). */
async function claimed(db: Db, name: string, everyMs: number, work: () => Promise<unknown>): Promise<boolean> {
  if (!(await claimJob(db, name, everyMs, Math.max(60_000, everyMs * 5)))) return false;
  try {
    await work();
  } finally {
    await finishJob(db, name);
  }
  return true;
}

/** Both sweeps, each when claimed. Answers what ran: {grace: n | null, retention: n | null} (null: not claimed). */
export async function runBillingSweeps(db: Db, settings: PlanSettings, everyMs: number, now = new Date()): Promise<{ grace: number | null; retention: number | null }> {
  let grace: number | null = null;
  let retention: number | null = null;
  await claimed(db, GRACE_JOB, everyMs, async () => (grace = await sweepGrace(db, now)));
  await claimed(db, RETENTION_JOB, everyMs, async () => (retention = await sweepRetention(db, settings, now)));
  return { grace, retention };
}

export interface BillingSweeper {
  stop(): Promise<void>;
}

/**
 * Runs the sweeps every BILLING_SWEEP_SECONDS until stopped (a failed run is logged and tried again next time),
 * with the top-up reconciliation (reconcile.ts) on the same interval: every billing sweep starts here.
 */
export function startBillingSweeps(db: Db, config: AppConfig, payments: PaymentProvider, log: FastifyBaseLogger): BillingSweeper {
  const everyMs = config.billing.sweepSeconds * 1000;
  const settings = planSettings(config);
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = runBillingSweeps(db, settings, everyMs).catch((error: unknown) => log.warn({ err: error }, "a billing sweep failed"));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  tick();
  const stopReconciliation = startReconciliation({ db, config, payments, log }, config.billing.sweepSeconds);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all([running, stopReconciliation()]);
    },
  };
}
