/** Shared by the payments tests (top-ups, sandbox, auto-reload): starting and paying top-ups, and the ledger invariant. */
import type { FastifyInstance } from "fastify";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import type { TopUp } from "../../contract/billing";
import type { Db } from "../../server/db/client";
import type { SandboxPaymentProvider } from "../../server/billing/payments/sandbox";
import { bearer } from "./helpers";

export const CARDS = {
  ok: "4242424242424242",
  declined: "4000000000000002",
  insufficient: "4000000000009995",
  auth: "4000002760003184",
} as const;

export function sandboxOf(app: FastifyInstance): SandboxPaymentProvider {
  expect(app.payments.mode).toBe("sandbox");
  return app.payments as SandboxPaymentProvider;
}

export async function startTopUp(app: FastifyInstance, token: string, amountUsd: number, saveCard = true): Promise<{ topUpId: string; url: string; sessionId: string }> {
  const response = await app.inject({ method: "POST", url: "/api/billing/top-up", headers: bearer(token), payload: { amount_usd: amountUsd, save_card: saveCard } });
  expect(response.statusCode, response.body).toBe(201);
  const { top_up_id: topUpId, url } = (response.json() as { data: { top_up_id: string; url: string } }).data;
  const sessionId = new URL(url, "http://x").searchParams.get("checkout")!;
  expect(sessionId).toMatch(/^cs_sbx_/);
  return { topUpId, url, sessionId };
}

export async function payCheckout(app: FastifyInstance, token: string, sessionId: string, card: string = CARDS.ok, authenticated = false) {
  const response = await app.inject({
    method: "POST",
    url: `/api/billing/sandbox/checkout/${sessionId}/pay`,
    headers: bearer(token),
    payload: { card_number: card, exp_month: 12, exp_year: 2034, authenticated },
  });
  return response;
}

export async function readTopUp(app: FastifyInstance, token: string, topUpId: string): Promise<TopUp> {
  const response = await app.inject({ method: "GET", url: `/api/billing/top-up/${topUpId}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: TopUp }).data;
}

export async function balanceMicros(db: Db, orgId: string): Promise<number> {
  const result = (await db.execute(sql`select balance_micros from wallets where org_id = ${orgId}`)) as unknown as { rows: { balance_micros: string | number }[] };
  return Number(result.rows[0]?.balance_micros ?? 0);
}

export async function ledgerRows(db: Db, orgId: string): Promise<{ kind: string; amount: number; reference: string | null; topUpId: string | null }[]> {
  const result = (await db.execute(
    sql`select kind, amount_micros, reference, top_up_id from wallet_ledger where org_id = ${orgId} order by created_at, (kind <> 'starting-credit'), id`,
  )) as unknown as { rows: { kind: string; amount_micros: string | number; reference: string | null; top_up_id: string | null }[] };
  return result.rows.map((row) => ({ kind: row.kind, amount: Number(row.amount_micros), reference: row.reference, topUpId: row.top_up_id }));
}

/** wallets.balance = sum(wallet_ledger), and each balance_after is the running sum, for every organisation. */
export async function expectLedgerInvariant(db: Db): Promise<void> {
  const sums = (await db.execute(sql`
    select w.org_id, w.balance_micros::bigint as balance, coalesce((select sum(amount_micros) from wallet_ledger l where l.org_id = w.org_id), 0)::bigint as total
    from wallets w`)) as unknown as { rows: { org_id: string; balance: string | number; total: string | number }[] };
  for (const row of sums.rows) expect(Number(row.balance), `wallet of ${row.org_id}`).toBe(Number(row.total));
  const entries = (await db.execute(sql`select org_id, amount_micros::bigint as amount, balance_after_micros::bigint as after from wallet_ledger order by created_at, id`)) as unknown as {
    rows: { org_id: string; amount: string | number; after: string | number }[];
  };
  expect(entries.rows.length).toBeGreaterThan(0);
  const byOrg = new Map<string, { amount: number; after: number }[]>();
  for (const row of entries.rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), { amount: Number(row.amount), after: Number(row.after) }]);
  const balances = new Map(sums.rows.map((row) => [row.org_id, Number(row.balance)]));
  for (const [orgId, rows] of byOrg) {
    // Rebuild the chain: each entry's balance_after is the balance before it plus its amount, starting from 0 (ties in created_at allowed).
    const left = [...rows];
    let balance = 0;
    while (left.length > 0) {
      const next = left.findIndex((row) => row.after === balance + row.amount);
      expect(next, `ledger of ${orgId}: no entry follows a balance of ${balance} (${JSON.stringify(left)})`).toBeGreaterThanOrEqual(0);
      balance = left[next]!.after;
      left.splice(next, 1);
    }
    expect(balance, `ledger of ${orgId} ends at the wallet's balance`).toBe(balances.get(orgId));
  }
}
