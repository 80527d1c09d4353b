/**
 * The reconciliation sweep (issue 15): a top-up paid while its webhook never arrived (and whose payer
 * never came back to /billing) is still credited, once. Every BILLING_SWEEP_SECONDS one process (the
 * job lease `reconcile-top-ups`) asks the provider about pending checkout top-ups older than a minute;
 * sessions the provider reports expired, or older than 24 h, become expired. An auto-reload left pending
 * (the process died during the charge) is closed after a while so the next one can run; its late
 * payment_intent.succeeded still credits it.
 */
import { and, eq, lt } from "drizzle-orm";
import { topUps } from "../db/schema";
import { claimJob, finishJob } from "./jobs";
import { applyCheckoutState, expireTopUp, type PaymentDeps } from "./top-ups";

export const RECONCILE_JOB = "reconcile-top-ups";
const MIN_AGE_MS = 60_000;
const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
const RELOAD_STUCK_MS = 15 * 60 * 1000;
const BATCH = 200;

export interface ReconcileResult {
  checked: number;
  credited: number;
  expired: number;
}

/** One pass (no lease): what the sweep does each time. `now` and `minAgeMs` for tests. */
export async function reconcileTopUps(deps: PaymentDeps, options: { now?: Date; minAgeMs?: number } = {}): Promise<ReconcileResult> {
  const now = options.now ?? new Date();
  const result: ReconcileResult = { checked: 0, credited: 0, expired: 0 };
  const pending = await deps.db
    .select()
    .from(topUps)
    .where(and(eq(topUps.status, "pending"), eq(topUps.kind, "checkout"), lt(topUps.createdAt, new Date(now.getTime() - (options.minAgeMs ?? MIN_AGE_MS)))))
    .orderBy(topUps.createdAt)
    .limit(BATCH);
  for (const row of pending) {
    result.checked += 1;
    const old = now.getTime() - row.createdAt.getTime() > SESSION_LIFETIME_MS;
    try {
      if (row.sessionId) {
        const state = await deps.payments.getCheckoutSession(row.sessionId);
        const applied = await applyCheckoutState(deps, row.id, state);
        if (applied === "credited") result.credited += 1;
        if (applied === "expired") result.expired += 1;
        if (applied !== "unchanged" || state.status === "complete") continue;
      }
      if (old || !row.sessionId) {
        if (await deps.db.transaction((tx) => expireTopUp(tx, row.id))) result.expired += 1;
      }
    } catch (error) {
      deps.log?.warn({ err: error, topUpId: row.id }, "reconciliation could not check a top-up");
    }
  }
  await deps.db
    .update(topUps)
    .set({ status: "failed", failureCode: "abandoned", failureMessage: "The charge's outcome never came back.", updatedAt: now })
    .where(and(eq(topUps.status, "pending"), eq(topUps.kind, "auto_reload"), lt(topUps.createdAt, new Date(now.getTime() - RELOAD_STUCK_MS))));
  return result;
}

/** Starts the sweep (claimed once across processes); answers its stop. */
export function startReconciliation(deps: PaymentDeps, everySeconds: number): () => Promise<void> {
  const everyMs = Math.max(1, everySeconds) * 1000;
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        if (!(await claimJob(deps.db, RECONCILE_JOB, everyMs - 1000, Math.max(everyMs, 60_000)))) return;
        try {
          await reconcileTopUps(deps);
        } finally {
          await finishJob(deps.db, RECONCILE_JOB);
        }
      } catch (error) {
        deps.log?.error({ err: error }, "the top-up reconciliation sweep failed");
      }
    })().finally(() => {
      running = null;
    });
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
