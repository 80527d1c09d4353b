import { z } from "zod";

/**
 * The organisation's wallet (GET /wallet/): the balance in USD and the latest ledger entries, newest
 * first. Credits are positive (the starting credit, top-ups), call debits negative, one per call.
 */

export const WALLET_CURRENCY = "USD";

export const WALLET_LEDGER_KINDS = ["starting-credit", "top-up", "auto-reload", "call", "refund", "adjustment"] as const;
export type WalletLedgerKind = (typeof WALLET_LEDGER_KINDS)[number];

/** How many ledger entries GET /wallet/ answers. */
export const WALLET_LEDGER_SHOWN = 50;

export const walletPaths = { wallet: "/wallet/" } as const;

export const walletLedgerEntrySchema = z.object({
  id: z.uuid(),
  /** USD: positive credits, negative debits. */
  amount: z.number(),
  kind: z.enum(WALLET_LEDGER_KINDS),
  call_id: z.uuid().nullable(),
  description: z.string(),
  created_at: z.string(),
});
export type WalletLedgerEntry = z.infer<typeof walletLedgerEntrySchema>;

export const walletSchema = z.object({
  /** USD. */
  balance: z.number(),
  currency: z.literal(WALLET_CURRENCY),
  ledger: z.array(walletLedgerEntrySchema),
});
export type Wallet = z.infer<typeof walletSchema>;

export const walletResponseSchema = z.object({ data: walletSchema });
