/**
 * One wallet per organisation: the balance and a ledger kept in step in the same transaction.
 *
 * - The wallet is made lazily, the first time money moves or someone opens it, with the starting credit
 *   (STARTING_CREDIT_USD) as its first ledger entry: local and Clerk organisations alike, and two
 *   requests racing to make it make one (the insert does nothing when the row exists).
 * - Reading the balance writes nothing: an organisation without a wallet row holds the starting credit.
 *   So a call refused for another reason leaves no wallet behind.
 * - A call is debited once, from its cost: the ledger's unique index on call_id lets one debit through,
 *   however often or however concurrently the end-of-call report arrives.
 * - Calls are paid when they end, so each call not ended yet holds CALL_HOLD_USD of the balance: a new
 *   call is placed only while balance - holds >= MIN_BALANCE_USD. reserveCall checks and records the
 *   queued call in one transaction under the organisation's row lock, so simultaneous requests take
 *   turns and cannot all pass on the same balance. A call whose end is never reported stops holding
 *   after CALL_HOLD_WINDOW_MS.
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, gt, ne, sql } from "drizzle-orm";
import type { Wallet } from "../../contract/wallet";
import { WALLET_CURRENCY, WALLET_LEDGER_SHOWN, type WalletLedgerKind } from "../../contract/wallet";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import type { AppConfig } from "../config";
import { calls, organizations, walletLedger, wallets } from "../db/schema";
import { recordCallUsage } from "../billing/usage";
import { microsToUsd, usdToMicros } from "./money";

export interface WalletPolicy {
  /** What a new organisation's wallet starts with (STARTING_CREDIT_USD). */
  startingCreditMicros: number;
  /** Calls are refused below this balance (MIN_BALANCE_USD). */
  minBalanceMicros: number;
  /** What each call not ended yet holds of the balance (CALL_HOLD_USD). */
  callHoldMicros: number;
}

/** The wallet rules from the configuration. */
export function walletPolicy(config: AppConfig): WalletPolicy {
  return {
    startingCreditMicros: usdToMicros(config.calls.startingCreditUsd),
    minBalanceMicros: usdToMicros(config.calls.minBalanceUsd),
    callHoldMicros: usdToMicros(config.calls.callHoldUsd),
  };
}

/** How long a call that has not ended holds its share of the balance (its end may never be reported). */
export const CALL_HOLD_WINDOW_MS = 2 * 60 * 60 * 1000;

/** The balance in micro-dollars, without writing anything. */
export async function balanceOf(db: Db, orgId: string, policy: WalletPolicy): Promise<number> {
  const row = await orgScope(db, orgId).first(wallets);
  return row ? row.balanceMicros : policy.startingCreditMicros;
}

/** Calls of the organisation started within the hold window that have not ended. */
async function callsHolding(db: Db, orgId: string): Promise<number> {
  const since = new Date(Date.now() - CALL_HOLD_WINDOW_MS);
  return orgScope(db, orgId).count(calls, and(ne(calls.status, "ended"), gt(calls.startedAt, since)));
}

/**
 * The balance and what the calls not ended yet hold of it (micro-dollars), without writing anything:
 * what reserveCall checks and GET /dashboard/ shows.
 */
export async function walletStanding(db: Db, orgId: string, policy: WalletPolicy): Promise<{ balanceMicros: number; heldMicros: number }> {
  const [balance, holding] = await Promise.all([balanceOf(db, orgId, policy), policy.callHoldMicros > 0 ? callsHolding(db, orgId) : 0]);
  return { balanceMicros: balance, heldMicros: holding * policy.callHoldMicros };
}

/**
 * How many more calls the balance covers, placed one after another, each checked as reserveCall checks
 * one (balance - holds of the calls not ended yet >= MIN_BALANCE_USD) and then holding its own share:
 * 0 when not even one. Infinity when calls hold nothing (CALL_HOLD_USD 0) and the balance is enough.
 * Run it inside a transaction that holds the organisation's row lock (the dialler's claim does), so
 * the answer stays true until the calls are recorded.
 */
export function affordableCalls(standing: { balanceMicros: number; heldMicros: number }, policy: WalletPolicy): number {
  const spare = standing.balanceMicros - standing.heldMicros - policy.minBalanceMicros;
  if (spare < 0) return 0;
  if (policy.callHoldMicros <= 0) return Number.POSITIVE_INFINITY;
  return Math.floor(spare / policy.callHoldMicros) + 1;
}

/** Whether the balance less the holds of the calls not ended yet is still at least MIN_BALANCE_USD. */
async function affords(db: Db, orgId: string, policy: WalletPolicy): Promise<boolean> {
  return affordableCalls(await walletStanding(db, orgId, policy), policy) > 0;
}

/** Locks the organisation's row as reserveCall does (FOR UPDATE): calls are checked and recorded in turn. */
export async function lockOrganisation(tx: Db, orgId: string): Promise<boolean> {
  const rows = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for("update");
  return rows.length > 0;
}

/**
 * Takes the organisation's row FOR NO KEY UPDATE, first thing in a transaction that changes its calls or
 * campaign contacts without placing calls (webhook ingest, the dialler's settling and reaping, recording
 * a provider's call id), so that every such transaction meets the organisation's row before any call or
 * contact row: the order reserveCall (organisation FOR UPDATE, then the rows) and the dialler's claim
 * (FOR NO KEY UPDATE, server/campaigns/claim.ts) follow. It is the lock the calls' triggers take anyway
 * (migration 0006), only taken first: they take it when a statement on calls ends, after the call row,
 * which deadlocked with a claim waiting for the organisation. Not FOR KEY SHARE: shares do not wait for one another, so a steady stream of webhooks
 * would keep reserveCall (FOR UPDATE) waiting for a moment without any.
 */
export async function lockOrganisationForCalls(tx: Db, orgId: string): Promise<void> {
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for("no key update");
}

/**
 * Checks the organisation can afford one more call and, if so, runs `record` (which inserts the
 * queued call) in the same transaction, under the organisation's row lock. Answers false, writing
 * nothing, when it cannot. `firstCheck` runs first in the same transaction (under the lock) and
 * refuses by throwing, which also writes nothing (the public calls' per-number limit). `gate` (the
 * call gate: the plan's concurrent calls and the spend caps, server/billing/call-gate.ts) runs next and
 * also refuses by throwing (403 plan_limit_reached / spend_cap_reached).
 */
export async function reserveCall(
  db: Db,
  orgId: string,
  policy: WalletPolicy,
  record: (tx: Db) => Promise<unknown>,
  firstCheck: ((tx: Db) => Promise<void>) | undefined,
  gate: (tx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockOrganisation(tx, orgId);
    await firstCheck?.(tx);
    await gate(tx);
    if (!(await affords(tx, orgId, policy))) return false;
    await record(tx);
    return true;
  });
}

/** Makes the wallet with its starting credit unless it exists. Call it inside a transaction. */
export async function ensureWallet(tx: Db, orgId: string, policy: WalletPolicy): Promise<void> {
  const made = await tx.insert(wallets).values({ orgId, balanceMicros: policy.startingCreditMicros }).onConflictDoNothing().returning({ orgId: wallets.orgId });
  if (made.length > 0 && policy.startingCreditMicros > 0) {
    await tx.insert(walletLedger).values({
      id: randomUUID(),
      orgId,
      amountMicros: policy.startingCreditMicros,
      kind: "starting-credit" satisfies WalletLedgerKind,
      description: "Starting credit",
      balanceAfterMicros: policy.startingCreditMicros,
      reference: `starting-credit:${orgId}`,
      // The clock, not the transaction's start (now()): entries made in one transaction keep their order.
      createdAt: new Date(),
    });
  }
}

/** One ledger entry as appendLedgerEntry takes it: a signed amount and what makes it unique. */
export interface LedgerEntryInput {
  orgId: string;
  /** Micro-dollars: positive credits, negative debits. Never 0. */
  amountMicros: number;
  kind: WalletLedgerKind;
  description: string;
  callId?: string | null;
  agentId?: string | null;
  topUpId?: string | null;
  /** Unique across the ledger (e.g. `top-up:<id>`): a second entry with it is no entry. */
  reference?: string | null;
}

/**
 * Appends one entry and moves the balance by its amount, in the caller's transaction, under the
 * wallet's row lock (so balance_after is exact and entries of one organisation take turns). Answers the
 * balance after it, or null when the entry was there already (its call_id or reference was used): the
 * balance then does not move. The only way money moves: balance = sum of the ledger, always.
 */
export async function appendLedgerEntry(tx: Db, entry: LedgerEntryInput, policy: WalletPolicy): Promise<{ id: string; balanceAfterMicros: number } | null> {
  if (!Number.isSafeInteger(entry.amountMicros) || entry.amountMicros === 0) throw new Error(`a ledger amount must be a non-zero integer of micro-dollars, not ${entry.amountMicros}`);
  await ensureWallet(tx, entry.orgId, policy);
  const [wallet] = await tx.select({ balanceMicros: wallets.balanceMicros }).from(wallets).where(eq(wallets.orgId, entry.orgId)).for("update");
  const after = wallet!.balanceMicros + entry.amountMicros;
  const id = randomUUID();
  const inserted = await tx
    .insert(walletLedger)
    .values({
      id,
      orgId: entry.orgId,
      amountMicros: entry.amountMicros,
      kind: entry.kind,
      callId: entry.callId ?? null,
      agentId: entry.agentId ?? null,
      topUpId: entry.topUpId ?? null,
      reference: entry.reference ?? null,
      description: entry.description,
      balanceAfterMicros: after,
      createdAt: new Date(),
    })
    // wallet_ledger_call_unique / wallet_ledger_reference_unique: a second entry for the same thing is no entry.
    .onConflictDoNothing()
    .returning({ id: walletLedger.id });
  if (inserted.length === 0) return null;
  await tx.update(wallets).set({ balanceMicros: after, updatedAt: new Date() }).where(eq(wallets.orgId, entry.orgId));
  return { id, balanceAfterMicros: after };
}

/**
 * Debits a call's cost once (inside the caller's transaction, beside the call's completion). Answers
 * whether this was the debit; false when the call was debited before. A cost of zero writes nothing.
 * The debit also adds the call to its usage rollup (usage_daily, server/billing/usage.ts) in the same
 * transaction, from the call row's duration and cost breakdown: write those to the call first.
 */
export async function debitCallOnce(
  tx: Db,
  input: { orgId: string; callId: string; agentId?: string | null; costMicros: number; description: string },
  policy: WalletPolicy,
): Promise<boolean> {
  if (input.costMicros <= 0) return false;
  const entry = await appendLedgerEntry(
    tx,
    { orgId: input.orgId, amountMicros: -input.costMicros, kind: "call", callId: input.callId, agentId: input.agentId ?? null, description: input.description },
    policy,
  );
  if (entry) await recordCallUsage(tx, entry.id);
  return entry !== null;
}

/** GET /wallet/: opens the wallet if needed, then the balance and the latest entries, newest first. */
export async function readWallet(db: Db, orgId: string, policy: WalletPolicy): Promise<Wallet> {
  await db.transaction(async (tx) => ensureWallet(tx, orgId, policy));
  const scope = orgScope(db, orgId);
  const [wallet, entries] = await Promise.all([
    scope.first(wallets),
    scope.select(walletLedger, {
      // The starting credit is the oldest entry even when the first debit shares its millisecond.
      orderBy: [desc(walletLedger.createdAt), sql`${walletLedger.kind} = 'starting-credit'`, desc(walletLedger.id)],
      limit: WALLET_LEDGER_SHOWN,
    }),
  ]);
  return {
    balance: microsToUsd(wallet?.balanceMicros ?? policy.startingCreditMicros),
    currency: WALLET_CURRENCY,
    ledger: entries.map((entry) => ({
      id: entry.id,
      amount: microsToUsd(entry.amountMicros),
      kind: entry.kind as WalletLedgerKind,
      call_id: entry.callId,
      description: entry.description,
      created_at: entry.createdAt.toISOString(),
    })),
  };
}
