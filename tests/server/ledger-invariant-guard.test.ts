/**
 * Every suite database checks money's invariant when it closes (tests/server/helpers.ts): a wallet that
 * disagrees with its ledger fails the file that left it so. This proves the check itself can fail.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { organizations, walletLedger, wallets } from "../../server/db/schema";
import { pgliteDatabase } from "./helpers";

describe("the suite's money check on closing a database", () => {
  it("passes when every wallet equals its ledger's sum", async () => {
    const database = await pgliteDatabase();
    await database.db.insert(organizations).values({ id: "o-ok", name: "OK", slug: "ok" });
    await database.db.insert(wallets).values({ orgId: "o-ok", balanceMicros: 7 });
    await database.db.insert(walletLedger).values({ id: randomUUID(), orgId: "o-ok", amountMicros: 7, kind: "adjustment", description: "t", balanceAfterMicros: 7 });
    await expect(database.close()).resolves.toBeUndefined();
  });

  it("fails, naming the organisation, when a wallet moved without its ledger (or a ledger has no wallet)", async () => {
    const database = await pgliteDatabase();
    await database.db.insert(organizations).values([
      { id: "o-drift", name: "Drift", slug: "drift" },
      { id: "o-orphan", name: "Orphan", slug: "orphan" },
    ]);
    await database.db.insert(wallets).values({ orgId: "o-drift", balanceMicros: 5 });
    await database.db.insert(walletLedger).values({ id: randomUUID(), orgId: "o-orphan", amountMicros: 3, kind: "adjustment", description: "t", balanceAfterMicros: 3 });
    const closing = database.close();
    await expect(closing).rejects.toThrow(/balance = sum\(ledger\) broken for 2 organisation\(s\)/);
    await expect(closing).rejects.toThrow(/o-drift: wallet 5 µ\$, ledger sum 0 µ\$/);
  });
});
