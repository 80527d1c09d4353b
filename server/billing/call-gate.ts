/**
 * What every new call passes before it is recorded (issue 15), run inside reserveCall's transaction
 * under the organisation's row lock (FOR UPDATE), so two requests at once cannot both take the last
 * place: the plan's concurrent-call limit (plan-limits.ts) and the spend caps (spend-caps.ts). Each
 * refuses by throwing ApiError 403 (`plan_limit_reached` / `spend_cap_reached`), which writes nothing.
 * The campaign dialler's claim applies the same two rules to a batch (claim.ts): it only fills free
 * places, and a reached cap pauses the campaign with pause_code `spend_cap`.
 */
import type { Db } from "../db/client";
import type { WalletPolicy } from "../wallet/wallet";
import { assertConcurrentCallAvailable, type PlanSettings } from "./plan-limits";
import { assertUnderSpendCaps } from "./spend-caps";

export interface CallGateInput {
  orgId: string;
  agentId: string | null;
}

export async function gateCall(tx: Db, input: CallGateInput, settings: PlanSettings, policy: WalletPolicy): Promise<void> {
  await assertConcurrentCallAvailable(tx, input.orgId, settings);
  await assertUnderSpendCaps(tx, input.orgId, input.agentId, policy);
}
