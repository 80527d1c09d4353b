/**
 * GET /billing/ (billingSummarySchema): the wallet as reserveCall sees it, this month's call spend, the
 * auto-reload settings and their state, the spend caps with their progress, the card on file and the
 * banners the console raises. Reads only: an organisation without a billing_accounts row reads the
 * defaults (auto-reload off, no card), one without a wallet reads the starting credit.
 */
import { and, desc, eq, gt, sql } from "drizzle-orm";
import { LOW_BALANCE_USD, type AutoReload, type BillingAlert, type BillingSummary, type Card, type PaymentMode } from "../../contract/billing";
import type { Db } from "../db/client";
import { billingAccounts, topUps } from "../db/schema";
import { microsToUsd, usdToMicros } from "../wallet/money";
import { walletStanding, type WalletPolicy } from "../wallet/wallet";
import { spendCapStandings, toApiSpendCap } from "./spend-caps";

/** The organisation's zone, the first day of this month there and the instant it began. */
async function monthFacts(db: Db, orgId: string): Promise<{ timeZone: string; monthStart: string; monthStartAt: Date; today: string; monthToDateMicros: number }> {
  const result = (await db.execute(sql`
    with o as (select coalesce(o.timezone, 'UTC') as tz, (now() at time zone coalesce(o.timezone, 'UTC'))::date as today from (select 1) one left join organizations o on o.id = ${orgId})
    select o.tz, to_char(o.today, 'YYYY-MM-DD') as today, to_char(date_trunc('month', o.today), 'YYYY-MM-DD') as month_start,
      (date_trunc('month', o.today)::timestamp at time zone o.tz) as month_start_at,
      coalesce((select sum(u.cost_micros) from usage_daily u where u.org_id = ${orgId} and u.day >= date_trunc('month', o.today)::date and u.day <= o.today), 0)::bigint as mtd
    from o`)) as unknown as { rows: Record<string, unknown>[] };
  const row = result.rows[0]!;
  return {
    timeZone: String(row.tz),
    today: String(row.today),
    monthStart: String(row.month_start),
    monthStartAt: new Date(row.month_start_at as string | Date),
    monthToDateMicros: Number(row.mtd),
  };
}

/** This month's call debits (usage_daily, the organisation's zone), in micro-dollars: the dashboard's wallet card reads it too. */
export async function monthToDateMicros(db: Db, orgId: string): Promise<number> {
  return (await monthFacts(db, orgId)).monthToDateMicros;
}

/** Whether the console raises the low-balance banner: auto-reload off and less than LOW_BALANCE_USD available. */
export const isLowBalance = (availableMicros: number, autoReloadEnabled: boolean) => !autoReloadEnabled && availableMicros < usdToMicros(LOW_BALANCE_USD);

/** Whether auto-reload is on, without writing anything (no billing row: off). */
export async function autoReloadEnabled(db: Db, orgId: string): Promise<boolean> {
  const [row] = await db.select({ enabled: billingAccounts.autoReloadEnabled }).from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  return row?.enabled ?? false;
}

export async function readBillingSummary(db: Db, orgId: string, options: { policy: WalletPolicy; payments: PaymentMode; now?: Date }): Promise<BillingSummary> {
  const now = options.now ?? new Date();
  const [standing, month, [account], caps, pending] = await Promise.all([
    walletStanding(db, orgId, options.policy),
    monthFacts(db, orgId),
    db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1),
    spendCapStandings(db, orgId, { now }),
    db
      .select({ id: topUps.id })
      .from(topUps)
      .where(and(eq(topUps.orgId, orgId), eq(topUps.kind, "checkout"), eq(topUps.status, "pending"), gt(topUps.createdAt, new Date(now.getTime() - 60 * 60 * 1000))))
      .orderBy(desc(topUps.createdAt))
      .limit(1),
  ]);
  const reloads = (await db.execute(sql`
    select coalesce(sum(amount_micros) filter (where status = 'paid' and paid_at >= ${month.monthStartAt.toISOString()}::timestamptz), 0)::bigint as reloaded,
      bool_or(status = 'pending') as in_flight
    from top_ups where org_id = ${orgId} and kind = 'auto_reload'`)) as unknown as { rows: { reloaded: unknown; in_flight: unknown }[] };
  const reload = reloads.rows[0];

  const autoReload: AutoReload = {
    enabled: account?.autoReloadEnabled ?? false,
    amount_usd: microsToUsd(account?.autoReloadAmountMicros ?? 0),
    threshold_usd: microsToUsd(account?.autoReloadThresholdMicros ?? 0),
    monthly_cap_usd: account?.autoReloadMonthlyCapMicros == null ? null : microsToUsd(account.autoReloadMonthlyCapMicros),
    status: (account?.autoReloadStatus as AutoReload["status"] | undefined) ?? "ok",
    failures: account?.autoReloadFailures ?? 0,
    last_error: account?.autoReloadLastError ?? null,
    reloaded_this_month_usd: microsToUsd(Number(reload?.reloaded ?? 0)),
    in_flight: reload?.in_flight === true,
  };
  const card: Card | null =
    account?.cardLast4 && account.cardBrand
      ? { brand: account.cardBrand, last4: account.cardLast4, exp_month: account.cardExpMonth ?? 0, exp_year: account.cardExpYear ?? 0, sandbox: options.payments === "sandbox" }
      : null;
  const availableMicros = standing.balanceMicros - standing.heldMicros;

  const alerts: BillingAlert[] = [];
  if (isLowBalance(availableMicros, autoReload.enabled)) {
    alerts.push({
      code: "low_balance",
      detail: `The wallet has ${money(availableMicros)} available, under $${LOW_BALANCE_USD.toFixed(2)}: top it up or turn on auto-reload so calls are not refused.`,
    });
  }
  if (autoReload.status === "needs_action") {
    alerts.push({ code: "reload_needs_action", detail: "Auto-reload is waiting: the card asked for authentication. Top up once by hand to confirm the card, or use another card." });
  } else if (autoReload.status === "disabled") {
    alerts.push({
      code: "reload_disabled",
      detail: `Auto-reload was switched off after failing ${autoReload.failures} times in a row${autoReload.last_error ? ` (${autoReload.last_error})` : ""}. Update the card, then turn it on again.`,
    });
  } else if (autoReload.enabled && autoReload.failures > 0) {
    alerts.push({ code: "reload_failed", detail: `The last auto-reload failed${autoReload.last_error ? `: ${autoReload.last_error}` : ""}. It will be tried again.` });
  }
  if (account?.subscriptionStatus === "past_due") {
    alerts.push({ code: "past_due", detail: "The subscription's last payment failed: update the card to keep the plan." });
  }

  return {
    balance_usd: microsToUsd(standing.balanceMicros),
    available_usd: microsToUsd(availableMicros),
    month_to_date_usd: microsToUsd(month.monthToDateMicros),
    auto_reload: autoReload,
    spend_caps: caps.map(toApiSpendCap),
    card,
    held_usd: microsToUsd(standing.heldMicros),
    currency: "USD",
    time_zone: month.timeZone,
    payments: options.payments,
    alerts,
    pending_top_up_id: pending[0]?.id ?? null,
  };
}

const money = (micros: number) => `$${microsToUsd(micros).toFixed(2)}`;
