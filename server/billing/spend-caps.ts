/**
 * Spend caps per organisation and per agent, per day and per month (issue 15). STUB to be built: the
 * assert runs under the organisation's row lock and throws ApiError 403 spend_cap_reached.
 */
import type { Db } from "../db/client";
import type { WalletPolicy } from "../wallet/wallet";

export async function assertUnderSpendCaps(_tx: Db, _orgId: string, _agentId: string | null, _policy: WalletPolicy): Promise<void> {
  // To be built (ledger helper).
}
