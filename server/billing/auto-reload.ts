/**
 * Auto-reload (issue 15): when the balance falls under the threshold, charge the saved card off-session
 * for the reload amount.
 *
 * - Triggered after each call debit commits (server/webhooks/ingest.ts) and on GET /billing/.
 * - Runs when enabled, status ok, a card is on file, balance < threshold and the monthly cap allows (the
 *   month in the organisation's time zone, organizations.timezone, like the rest of billing).
 * - Single flight: the auto_reload top-up row is inserted (pending) under the billing account's row lock,
 *   and the partial unique index top_ups_one_reload_in_flight refuses a second pending one.
 * - Then chargeOffSession (idempotency `reload-<top-up id>`): succeeded -> credited once (kind
 *   auto-reload; the payment_intent.succeeded webhook may arrive first, creditTopUpOnce makes that one
 *   credit); requires_action -> the top-up fails and auto-reload waits in needs_action (never retried
 *   off-session: an admin confirms with a normal checkout, POST /billing/auto-reload/confirm); failed ->
 *   failures + 1, and after AUTO_RELOAD_MAX_FAILURES in a row it is switched off (status disabled).
 */
import { randomUUID } from "node:crypto";
import { and, eq, gte, inArray, sql, sum } from "drizzle-orm";
import { AUTO_RELOAD_MAX_FAILURES, type AutoReload, type AutoReloadStatus } from "../../contract/billing";
import type { Db } from "../db/client";
import { billingAccounts, organizations, topUps } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { microsToUsd, usdToMicros } from "../wallet/money";
import { balanceOf, walletPolicy } from "../wallet/wallet";
import { ensureBillingAccount, lockBillingAccount, type BillingAccountRow } from "./account";
import { centsToMicros, creditTopUpOnce, microsToCents, type PaymentDeps } from "./top-ups";

/** The instant the month of `at` began in the organisation's time zone (organizations.timezone, like the rest of billing), as SQL. */
const startOfMonth = (orgId: string, at: Date) => sql`(
  select date_trunc('month', ${at.toISOString()}::timestamptz at time zone o.tz) at time zone o.tz
  from (select coalesce((select ${organizations.timezone} from ${organizations} where ${organizations.id} = ${orgId}), 'UTC') as tz) o
)`;

/** Reloads paid (or in flight) since the start of the month of `at` in the organisation's time zone, micro-dollars. */
export async function reloadedThisMonth(db: Db, orgId: string, at: Date = new Date()): Promise<number> {
  const [row] = await db
    .select({ total: sum(topUps.amountMicros) })
    .from(topUps)
    .where(and(eq(topUps.orgId, orgId), eq(topUps.kind, "auto_reload"), inArray(topUps.status, ["paid", "pending"]), gte(topUps.createdAt, startOfMonth(orgId, at))));
  return Number(row?.total ?? 0);
}

async function reloadInFlight(db: Db, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: topUps.id })
    .from(topUps)
    .where(and(eq(topUps.orgId, orgId), eq(topUps.kind, "auto_reload"), eq(topUps.status, "pending")))
    .limit(1);
  return Boolean(row);
}

export async function toApiAutoReload(db: Db, account: BillingAccountRow): Promise<AutoReload> {
  const [reloaded, inFlight] = await Promise.all([reloadedThisMonth(db, account.orgId), reloadInFlight(db, account.orgId)]);
  return {
    enabled: account.autoReloadEnabled,
    amount_usd: microsToUsd(account.autoReloadAmountMicros),
    threshold_usd: microsToUsd(account.autoReloadThresholdMicros),
    monthly_cap_usd: account.autoReloadMonthlyCapMicros === null ? null : microsToUsd(account.autoReloadMonthlyCapMicros),
    status: account.autoReloadStatus as AutoReloadStatus,
    failures: account.autoReloadFailures,
    last_error: account.autoReloadLastError,
    reloaded_this_month_usd: microsToUsd(reloaded),
    in_flight: inFlight,
  };
}

/** GET /billing/'s auto_reload (and PUT's answer). */
export async function readAutoReload(deps: Pick<PaymentDeps, "db" | "config">, orgId: string): Promise<AutoReload> {
  return toApiAutoReload(deps.db, await ensureBillingAccount(deps.db, orgId, deps.config.billing.defaultPlan));
}

/** PUT /billing/auto-reload: enabling needs a card on file (409 otherwise). Re-enabling after it was switched off starts again at status ok. */
export async function updateAutoReload(
  deps: Pick<PaymentDeps, "db" | "config">,
  orgId: string,
  input: { enabled: boolean; amount_usd: number; threshold_usd: number; monthly_cap_usd: number | null },
): Promise<AutoReload> {
  const account = await deps.db.transaction(async (tx) => {
    const row = await lockBillingAccount(tx, orgId, deps.config.billing.defaultPlan);
    if (input.enabled && !row.paymentMethodId) {
      throw ApiError.conflict("Auto-reload needs a saved card: top up once with \"Save card\" ticked, then switch it on.");
    }
    const [written] = await tx
      .update(billingAccounts)
      .set({
        autoReloadEnabled: input.enabled,
        autoReloadAmountMicros: usdToMicros(input.amount_usd),
        autoReloadThresholdMicros: usdToMicros(input.threshold_usd),
        autoReloadMonthlyCapMicros: input.monthly_cap_usd === null ? null : usdToMicros(input.monthly_cap_usd),
        // Switched off after failures: switching it on again starts afresh. needs_action waits for a confirmation.
        ...(input.enabled && row.autoReloadStatus === "disabled" ? { autoReloadStatus: "ok", autoReloadFailures: 0, autoReloadLastError: null } : {}),
        updatedAt: new Date(),
      })
      .where(eq(billingAccounts.orgId, orgId))
      .returning();
    return written!;
  });
  return toApiAutoReload(deps.db, account);
}

/**
 * After an off-session charge did not succeed (answered, or reported by payment_intent.payment_failed):
 * the top-up fails and auto-reload moves on, once per top-up (only while it is pending). In the
 * caller's transaction.
 */
export async function recordReloadFailure(tx: Db, topUpId: string, failure: { kind: "requires_action" | "failed"; code: string; message: string; paymentIntentId?: string | null }): Promise<boolean> {
  const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId)).for("update");
  if (!row || row.kind !== "auto_reload" || row.status !== "pending") return false;
  await tx
    .update(topUps)
    .set({ status: "failed", failureCode: failure.code, failureMessage: failure.message, paymentIntentId: failure.paymentIntentId ?? row.paymentIntentId, updatedAt: new Date() })
    .where(eq(topUps.id, topUpId));
  if (failure.kind === "requires_action") {
    await tx
      .update(billingAccounts)
      .set({ autoReloadStatus: "needs_action", autoReloadLastError: `${failure.message} Confirm a payment on-session to resume auto-reload.`, updatedAt: new Date() })
      .where(eq(billingAccounts.orgId, row.orgId));
  } else {
    await tx
      .update(billingAccounts)
      .set({
        autoReloadFailures: sql`${billingAccounts.autoReloadFailures} + 1`,
        autoReloadLastError: failure.message,
        autoReloadStatus: sql`case when ${billingAccounts.autoReloadFailures} + 1 >= ${AUTO_RELOAD_MAX_FAILURES} then 'disabled' else ${billingAccounts.autoReloadStatus} end`,
        autoReloadEnabled: sql`case when ${billingAccounts.autoReloadFailures} + 1 >= ${AUTO_RELOAD_MAX_FAILURES} then false else ${billingAccounts.autoReloadEnabled} end`,
        updatedAt: new Date(),
      })
      .where(eq(billingAccounts.orgId, row.orgId));
  }
  return true;
}

export type AutoReloadOutcome = "not_needed" | "in_flight" | "succeeded" | "requires_action" | "failed";

/**
 * Reloads the wallet when it should (see the file's comment). Never throws: a trigger (a webhook, a
 * page load) must not fail because of it. Answers what happened. `at` (default now) is the moment whose
 * month the monthly cap counts: tests set it.
 */
export async function maybeAutoReload(deps: PaymentDeps, orgId: string, options: { at?: Date } = {}): Promise<AutoReloadOutcome> {
  try {
    return await autoReload(deps, orgId, options.at ?? new Date());
  } catch (error) {
    deps.log?.error({ err: error, orgId }, "auto-reload failed");
    return "failed";
  }
}

async function autoReload(deps: PaymentDeps, orgId: string, at: Date): Promise<AutoReloadOutcome> {
  const policy = walletPolicy(deps.config);
  // Cheap checks first, without writing or locking anything.
  const [peek] = await deps.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  if (!peek || !peek.autoReloadEnabled || peek.autoReloadStatus !== "ok" || !peek.paymentMethodId || !peek.customerId) return "not_needed";
  if ((await balanceOf(deps.db, orgId, policy)) >= peek.autoReloadThresholdMicros) return "not_needed";

  const claimed = await deps.db.transaction(async (tx) => {
    const account = await lockBillingAccount(tx, orgId, deps.config.billing.defaultPlan);
    if (!account.autoReloadEnabled || account.autoReloadStatus !== "ok" || !account.paymentMethodId || !account.customerId) return null;
    if (account.autoReloadAmountMicros <= 0) return null;
    if ((await balanceOf(tx, orgId, policy)) >= account.autoReloadThresholdMicros) return null;
    if (account.autoReloadMonthlyCapMicros !== null && (await reloadedThisMonth(tx, orgId, at)) + account.autoReloadAmountMicros > account.autoReloadMonthlyCapMicros) return null;
    const id = randomUUID();
    const inserted = await tx
      .insert(topUps)
      .values({
        id,
        orgId,
        kind: "auto_reload",
        // Whole cents: what the card is charged is what is credited.
        amountMicros: centsToMicros(microsToCents(account.autoReloadAmountMicros)),
        status: "pending",
        saveCard: false,
        isSandbox: deps.payments.mode === "sandbox",
      })
      // top_ups_one_reload_in_flight: one pending reload per organisation.
      .onConflictDoNothing()
      .returning();
    const row = inserted[0];
    return row ? { row, customerId: account.customerId, paymentMethodId: account.paymentMethodId } : "in_flight";
  });
  if (claimed === null) return "not_needed";
  if (claimed === "in_flight") return "in_flight";

  const { row } = claimed;
  let result;
  try {
    result = await deps.payments.chargeOffSession({
      topUpId: row.id,
      orgId,
      customerId: claimed.customerId,
      paymentMethodId: claimed.paymentMethodId,
      amountCents: microsToCents(row.amountMicros),
    });
  } catch (error) {
    deps.log?.error({ err: error, topUpId: row.id }, "the off-session charge could not be made");
    result = { status: "failed" as const, paymentIntentId: null, code: "provider_error", message: "The payment provider could not be reached." };
  }
  if (result.status === "succeeded") {
    await deps.db.transaction((tx) => creditTopUpOnce(tx, row.id, policy, { paymentIntentId: result.paymentIntentId, receiptUrl: result.receiptUrl }));
    return "succeeded";
  }
  await deps.db.transaction((tx) =>
    recordReloadFailure(tx, row.id, { kind: result.status, code: result.code, message: result.message, paymentIntentId: result.paymentIntentId }),
  );
  return result.status;
}
