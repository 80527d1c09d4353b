/**
 * GET /api/wallet/: the starting credit, given once when the wallet is first opened (local and Clerk
 * organisations alike), readable by members; a call is debited once, however often it is asked.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Wallet } from "../../contract";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { balanceOf, debitCallOnce } from "../../server/wallet/wallet";
import { ledgerOf, newOrganisation, walletRow } from "./calls-fixtures";
import { addMember, bearer, buildTestApp, clerkEnv, clerkKeyPair, migratedDatabase, mintClerkToken, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;

const readWallet = async (target: FastifyInstance, token: string): Promise<Wallet> => {
  const response = await target.inject({ method: "GET", url: "/api/wallet/", headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Wallet }).data;
};

const policy = { startingCreditMicros: 10_000_000, minBalanceMicros: 500_000, callHoldMicros: 1_000_000 };

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("GET /api/wallet/", () => {
  it("a new organisation has the starting credit (default $10) as its first ledger entry, given once", async () => {
    const org = await newOrganisation(app);
    expect(await walletRow(database.db, org.orgId)).toBeNull();
    const wallet = await readWallet(app, org.token);
    expect(wallet).toEqual({
      balance: 10,
      currency: "USD",
      ledger: [{ id: expect.any(String), amount: 10, kind: "starting-credit", call_id: null, description: "Starting credit", created_at: expect.any(String) }],
    });
    expect((await readWallet(app, org.token)).ledger).toHaveLength(1);
  });

  it("opened by several requests at once, it is made once with one starting credit", async () => {
    const org = await newOrganisation(app);
    const wallets = await Promise.all([readWallet(app, org.token), readWallet(app, org.token), readWallet(app, org.token)]);
    expect(wallets.map((wallet) => wallet.balance)).toEqual([10, 10, 10]);
    expect(await ledgerOf(database.db, org.orgId)).toHaveLength(1);
  });

  it("members may read it; no organisation is a 403, no token a 401", async () => {
    const org = await newOrganisation(app);
    const member = await addMember(app, org.token, org.orgId);
    expect((await readWallet(app, member.token)).currency).toBe("USD");
    const loner = await signUp(app);
    expect((await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(loner.token) })).json()).toMatchObject({ code: "organization_required" });
    expect((await app.inject({ method: "GET", url: "/api/wallet/" })).statusCode).toBe(401);
  });

  it("STARTING_CREDIT_USD sets the starting credit", async () => {
    const { app: generous } = await buildTestApp(database, { STARTING_CREDIT_USD: "25.5" });
    try {
      const org = await newOrganisation(generous);
      expect((await readWallet(generous, org.token)).balance).toBe(25.5);
    } finally {
      await generous.close();
    }
  });

  it("a Clerk organisation gets one too", async () => {
    const keys = clerkKeyPair();
    const { app: clerkApp } = await buildTestApp(database, clerkEnv(keys));
    try {
      const orgId = `org_${randomUUID().slice(0, 8)}`;
      const token = mintClerkToken(keys.privateKey, { sub: `user_${randomUUID().slice(0, 8)}`, org: { id: orgId, role: "member" } });
      const wallet = await readWallet(clerkApp, token);
      expect(wallet.balance).toBe(10);
      expect(wallet.ledger.map((entry) => entry.kind)).toEqual(["starting-credit"]);
    } finally {
      await clerkApp.close();
    }
  });
});

describe("debits", () => {
  it("a call is debited once even when asked concurrently; the balance moves once", async () => {
    const org = await newOrganisation(app);
    const callId = randomUUID();
    await orgScope(database.db, org.orgId).insert(calls, { id: callId, type: "outbound", status: "ended" });
    const debit = () =>
      database.db.transaction((tx) => debitCallOnce(tx, { orgId: org.orgId, callId, costMicros: 123_456, description: "Call to +14155550100 (74 s)" }, policy));
    const results = await Promise.all([debit(), debit(), debit(), debit()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await balanceOf(database.db, org.orgId, policy)).toBe(10_000_000 - 123_456);
    const wallet = await readWallet(app, org.token);
    expect(wallet.balance).toBeCloseTo(9.876544, 6);
    expect(wallet.ledger).toEqual([
      expect.objectContaining({ kind: "call", amount: -0.123456, call_id: callId, description: "Call to +14155550100 (74 s)" }),
      expect.objectContaining({ kind: "starting-credit", amount: 10 }),
    ]);
  });

  it("a free call writes nothing; reading the balance of a new organisation writes nothing", async () => {
    const org = await newOrganisation(app);
    const callId = randomUUID();
    await orgScope(database.db, org.orgId).insert(calls, { id: callId, type: "outbound", status: "ended" });
    expect(await database.db.transaction((tx) => debitCallOnce(tx, { orgId: org.orgId, callId, costMicros: 0, description: "free" }, policy))).toBe(false);
    expect(await balanceOf(database.db, org.orgId, policy)).toBe(10_000_000);
    expect(await walletRow(database.db, org.orgId)).toBeNull();
    expect(await ledgerOf(database.db, org.orgId)).toEqual([]);
  });
});
