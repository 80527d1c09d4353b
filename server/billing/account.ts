/**
 * The organisation's billing row (billing_accounts): made lazily with DEFAULT_PLAN the first time
 * anything reads or writes it (two requests racing make one), like the wallet.
 */
import { eq } from "drizzle-orm";
import type { PlanId } from "../../contract/plans";
import type { Db } from "../db/client";
import { billingAccounts } from "../db/schema";

export type BillingAccountRow = typeof billingAccounts.$inferSelect;

/** The row, made with `defaultPlan` when missing. Inside or outside a transaction. */
export async function ensureBillingAccount(db: Db, orgId: string, defaultPlan: PlanId): Promise<BillingAccountRow> {
  await db.insert(billingAccounts).values({ orgId, plan: defaultPlan }).onConflictDoNothing();
  const [row] = await db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  return row!;
}

/** The row under a row lock (FOR UPDATE), made first when missing: for changes that must take turns. */
export async function lockBillingAccount(tx: Db, orgId: string, defaultPlan: PlanId): Promise<BillingAccountRow> {
  await tx.insert(billingAccounts).values({ orgId, plan: defaultPlan }).onConflictDoNothing();
  const [row] = await tx.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).for("update");
  return row!;
}

/** The plan without writing anything: an organisation without a row is on `defaultPlan`. */
export async function planOf(db: Db, orgId: string, defaultPlan: PlanId): Promise<PlanId> {
  const [row] = await db.select({ plan: billingAccounts.plan }).from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  return (row?.plan as PlanId | undefined) ?? defaultPlan;
}
