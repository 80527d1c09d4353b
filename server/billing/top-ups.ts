/**
 * Top-ups (issue 15): money asked of the payment provider, credited to the wallet exactly once.
 *
 * - POST /billing/top-up writes the row (pending) first, then asks the provider for a Checkout Session
 *   with the idempotency key `top-up-<row id>`; the organisation's customer is made once
 *   (billing_accounts.customer_id, key `customer-<org id>`).
 * - Three paths may find it paid: the webhook (checkout.session.completed / async_payment_succeeded),
 *   the return to /billing (GET /billing/top-up/{id} asks the provider while it is pending) and the
 *   reconciliation sweep (server/billing/reconcile.ts). Each calls creditTopUpOnce, which moves the row
 *   to paid under its row lock and appends the ledger credit (reference `top-up:<id>`) in the same
 *   transaction: whichever comes first credits, the others change nothing.
 * - Refunds debit the wallet (kind refund) never below zero and never more than paid less refunded.
 */
import { randomUUID } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { TopUp, TopUpKind, TopUpStatus } from "../../contract/billing";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { billingAccounts, billingDocuments, organizations, topUps, wallets } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { microsToUsd } from "../wallet/money";
import { appendLedgerEntry, ensureWallet, walletPolicy, type WalletPolicy } from "../wallet/wallet";
import { ensureBillingAccount } from "./account";
import { recordDocument } from "./documents";
import type { CardOnFile, CheckoutSessionState, PaymentProvider } from "./payments/types";

export type TopUpRow = typeof topUps.$inferSelect;

/** What the payment code needs of the app. */
export interface PaymentDeps {
  db: Db;
  config: AppConfig;
  payments: PaymentProvider;
  log?: FastifyBaseLogger;
}

const MICROS_PER_CENT = 10_000;
export const microsToCents = (micros: number): number => Math.round(micros / MICROS_PER_CENT);
export const centsToMicros = (cents: number): number => cents * MICROS_PER_CENT;
const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

export function toApiTopUp(row: TopUpRow): TopUp {
  return {
    id: row.id,
    amount_usd: microsToUsd(row.amountMicros),
    status: row.status as TopUpStatus,
    created_at: row.createdAt.toISOString(),
    kind: row.kind as TopUpKind,
    paid_at: row.paidAt ? row.paidAt.toISOString() : null,
    failure_message: row.failureMessage,
    failure_code: row.failureCode,
    refunded_usd: microsToUsd(row.refundedMicros),
    receipt_url: row.receiptUrl,
    sandbox: row.isSandbox,
  };
}

export async function topUpById(db: Db, orgId: string, id: string): Promise<TopUpRow | null> {
  const [row] = await db.select().from(topUps).where(and(eq(topUps.orgId, orgId), eq(topUps.id, id))).limit(1);
  return row ?? null;
}

/** The organisation's customer at the provider, made once (billing_accounts.customer_id). */
export async function ensureCustomer(deps: PaymentDeps, orgId: string, email: string | null): Promise<string> {
  const account = await ensureBillingAccount(deps.db, orgId, deps.config.billing.defaultPlan);
  if (account.customerId) return account.customerId;
  const [org] = await deps.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  const { customerId } = await deps.payments.createCustomer({ orgId, name: org?.name ?? orgId, email });
  await deps.db.update(billingAccounts).set({ customerId, updatedAt: new Date() }).where(and(eq(billingAccounts.orgId, orgId), isNull(billingAccounts.customerId)));
  const again = await ensureBillingAccount(deps.db, orgId, deps.config.billing.defaultPlan);
  return again.customerId ?? customerId;
}

/** Starts a Checkout top-up: the row first (pending), then the provider's session. */
export async function startTopUp(
  deps: PaymentDeps,
  input: { orgId: string; amountMicros: number; saveCard: boolean; createdBy: string | null; email: string | null },
): Promise<{ topUpId: string; url: string }> {
  const customerId = await ensureCustomer(deps, input.orgId, input.email);
  const id = randomUUID();
  await deps.db.insert(topUps).values({
    id,
    orgId: input.orgId,
    kind: "checkout",
    amountMicros: input.amountMicros,
    status: "pending",
    saveCard: input.saveCard,
    isSandbox: deps.payments.mode === "sandbox",
    createdBy: input.createdBy,
  });
  const base = deps.config.publicUrl.replace(/\/+$/, "");
  let session: { sessionId: string; url: string };
  try {
    session = await deps.payments.createTopUpCheckout({
      topUpId: id,
      orgId: input.orgId,
      customerId,
      amountCents: microsToCents(input.amountMicros),
      saveCard: input.saveCard,
      successUrl: `${base}/billing?top_up=${id}`,
      cancelUrl: `${base}/billing?top_up=${id}&cancelled=1`,
    });
  } catch (error) {
    deps.log?.error({ err: error, topUpId: id }, "the payment provider refused the top-up's checkout");
    await deps.db
      .update(topUps)
      .set({ status: "failed", failureCode: "checkout_failed", failureMessage: "The payment provider could not start the checkout.", updatedAt: new Date() })
      .where(eq(topUps.id, id));
    throw ApiError.upstream("The payment provider could not start the checkout: try again in a moment.");
  }
  await deps.db.update(topUps).set({ sessionId: session.sessionId, updatedAt: new Date() }).where(eq(topUps.id, id));
  return { topUpId: id, url: session.url };
}

export interface PaidDetails {
  paymentIntentId?: string | null;
  receiptUrl?: string | null;
  /** The card the checkout saved (when the top-up asked to save it). */
  card?: CardOnFile | null;
}

/**
 * Marks the top-up paid and credits the wallet, once, inside the caller's transaction: the row is
 * locked first, so however many deliveries, returns and sweeps arrive, concurrently or not, one of
 * them moves it from pending (or expired/failed: the money came after all) to paid with the ledger
 * entry; the others answer false and change nothing. Also records its receipt, saves the card when
 * asked, and (auto-reload) resets the failure count.
 */
export async function creditTopUpOnce(tx: Db, topUpId: string, policy: WalletPolicy, paid: PaidDetails = {}): Promise<boolean> {
  const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId)).for("update");
  if (!row) return false;
  if (row.status === "paid") {
    // Credited already (say by the webhook, which does not know Stripe's receipt): keep the receipt link a later path learnt.
    if (paid.receiptUrl && !row.receiptUrl) {
      await tx.update(topUps).set({ receiptUrl: paid.receiptUrl, updatedAt: new Date() }).where(eq(topUps.id, row.id));
      await tx.update(billingDocuments).set({ url: paid.receiptUrl }).where(and(eq(billingDocuments.providerId, `receipt:${row.id}`), isNull(billingDocuments.url)));
    }
    return false;
  }
  const paidAt = new Date();
  await tx
    .update(topUps)
    .set({
      status: "paid",
      paidAt,
      paymentIntentId: paid.paymentIntentId ?? row.paymentIntentId,
      receiptUrl: paid.receiptUrl ?? row.receiptUrl,
      failureCode: null,
      failureMessage: null,
      updatedAt: paidAt,
    })
    .where(eq(topUps.id, topUpId));
  const reload = row.kind === "auto_reload";
  await appendLedgerEntry(
    tx,
    {
      orgId: row.orgId,
      amountMicros: row.amountMicros,
      kind: reload ? "auto-reload" : "top-up",
      description: `${reload ? "Auto-reload" : "Top-up"} of ${usd(row.amountMicros)}${row.isSandbox ? " (Sandbox)" : ""}`,
      topUpId: row.id,
      reference: `top-up:${row.id}`,
    },
    policy,
  );
  await recordDocument(tx, {
    orgId: row.orgId,
    kind: "receipt",
    amountMicros: row.amountMicros,
    description: `${reload ? "Auto-reload" : "Wallet top-up"} of ${usd(row.amountMicros)}`,
    providerId: `receipt:${row.id}`,
    url: paid.receiptUrl ?? row.receiptUrl ?? null,
    topUpId: row.id,
    isSandbox: row.isSandbox,
  });
  if (reload) {
    await tx
      .update(billingAccounts)
      .set({ autoReloadFailures: 0, autoReloadLastError: null, updatedAt: paidAt })
      .where(and(eq(billingAccounts.orgId, row.orgId), eq(billingAccounts.autoReloadStatus, "ok")));
  } else if (row.saveCard && paid.card) {
    // A card saved on-session: off-session charges may run again (this is how "needs action" is cleared).
    await tx
      .update(billingAccounts)
      .set({
        paymentMethodId: paid.card.paymentMethodId,
        cardBrand: paid.card.brand,
        cardLast4: paid.card.last4,
        cardExpMonth: paid.card.expMonth,
        cardExpYear: paid.card.expYear,
        autoReloadStatus: sql`case when ${billingAccounts.autoReloadStatus} = 'needs_action' then 'ok' else ${billingAccounts.autoReloadStatus} end`,
        autoReloadFailures: sql`case when ${billingAccounts.autoReloadStatus} = 'needs_action' then 0 else ${billingAccounts.autoReloadFailures} end`,
        autoReloadLastError: sql`case when ${billingAccounts.autoReloadStatus} = 'needs_action' then null else ${billingAccounts.autoReloadLastError} end`,
        updatedAt: paidAt,
      })
      .where(eq(billingAccounts.orgId, row.orgId));
  }
  return true;
}

/** A pending checkout top-up whose session expired: expired (a payment arriving later still credits it). */
export async function expireTopUp(tx: Db, topUpId: string): Promise<boolean> {
  const changed = await tx
    .update(topUps)
    .set({ status: "expired", failureCode: "expired", failureMessage: "The checkout expired before it was paid.", updatedAt: new Date() })
    .where(and(eq(topUps.id, topUpId), eq(topUps.status, "pending")))
    .returning({ id: topUps.id });
  return changed.length > 0;
}

/** Applies what the provider says of a checkout session to its top-up (the return, the sweep). */
export async function applyCheckoutState(deps: PaymentDeps, topUpId: string, state: CheckoutSessionState): Promise<"credited" | "expired" | "unchanged"> {
  const policy = walletPolicy(deps.config);
  if (state.status === "complete" && state.paymentStatus === "paid") {
    const credited = await deps.db.transaction((tx) =>
      creditTopUpOnce(tx, topUpId, policy, { paymentIntentId: state.paymentIntentId, receiptUrl: state.receiptUrl, card: state.card }),
    );
    return credited ? "credited" : "unchanged";
  }
  if (state.status === "expired") return (await deps.db.transaction((tx) => expireTopUp(tx, topUpId))) ? "expired" : "unchanged";
  return "unchanged";
}

/** While a checkout top-up is pending, asks the provider how its session stands (the return to /billing). */
export async function refreshTopUp(deps: PaymentDeps, row: TopUpRow): Promise<TopUpRow> {
  if (row.status !== "pending" || row.kind !== "checkout" || !row.sessionId) return row;
  try {
    const state = await deps.payments.getCheckoutSession(row.sessionId);
    // Read again whatever it did: another request may have credited it meanwhile.
    await applyCheckoutState(deps, row.id, state);
  } catch (error) {
    deps.log?.warn({ err: error, topUpId: row.id }, "could not read the top-up's checkout session");
    return row;
  }
  return (await topUpById(deps.db, row.orgId, row.id)) ?? row;
}

/**
 * Refunds (part of) a paid top-up: debits the wallet (kind refund, reference `refund:<id>`) under the
 * top-up's and the wallet's locks, never below zero nor more than paid less refunded, then asks the
 * provider (idempotency `refund-<id>`); if the provider refuses, the debit is given back.
 */
export async function refundTopUp(deps: PaymentDeps, orgId: string, topUpId: string, amountMicros: number | null): Promise<TopUpRow> {
  const policy = walletPolicy(deps.config);
  const refundId = randomUUID();
  const reserved = await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(topUps).where(and(eq(topUps.orgId, orgId), eq(topUps.id, topUpId))).for("update");
    if (!row) throw ApiError.notFound("No such top-up in this organisation.");
    if (row.status !== "paid" || !row.paymentIntentId) throw ApiError.conflict("Only a paid top-up can be refunded.");
    const remaining = row.amountMicros - row.refundedMicros;
    if (remaining <= 0) throw ApiError.conflict("This top-up has been refunded in full already.");
    const amount = amountMicros ?? remaining;
    if (amount > remaining) throw ApiError.conflict(`At most ${usd(remaining)} of this top-up is left to refund.`);
    await ensureWallet(tx, orgId, policy);
    const [wallet] = await tx.select({ balanceMicros: wallets.balanceMicros }).from(wallets).where(eq(wallets.orgId, orgId)).for("update");
    if (amount > wallet!.balanceMicros) {
      throw ApiError.conflict(`The refund (${usd(amount)}) is more than the wallet's balance (${usd(Math.max(0, wallet!.balanceMicros))}): money already spent on calls cannot be refunded.`);
    }
    await appendLedgerEntry(
      tx,
      { orgId, amountMicros: -amount, kind: "refund", description: `Refund of ${usd(amount)} from a top-up${row.isSandbox ? " (Sandbox)" : ""}`, topUpId: row.id, reference: `refund:${refundId}` },
      policy,
    );
    await tx.update(topUps).set({ refundedMicros: row.refundedMicros + amount, updatedAt: new Date() }).where(eq(topUps.id, row.id));
    return { amount, paymentIntentId: row.paymentIntentId, isSandbox: row.isSandbox };
  });
  try {
    await deps.payments.refund({ refundId, paymentIntentId: reserved.paymentIntentId, amountCents: microsToCents(reserved.amount) });
  } catch (error) {
    deps.log?.error({ err: error, topUpId, refundId }, "the payment provider refused the refund: giving the debit back");
    await deps.db.transaction(async (tx) => {
      await appendLedgerEntry(
        tx,
        { orgId, amountMicros: reserved.amount, kind: "adjustment", description: `Refund of ${usd(reserved.amount)} not made: the payment provider refused it`, topUpId, reference: `refund-undone:${refundId}` },
        policy,
      );
      await tx.update(topUps).set({ refundedMicros: sql`${topUps.refundedMicros} - ${reserved.amount}`, updatedAt: new Date() }).where(eq(topUps.id, topUpId));
    });
    throw ApiError.upstream("The payment provider refused the refund: nothing was refunded.");
  }
  return (await topUpById(deps.db, orgId, topUpId))!;
}
