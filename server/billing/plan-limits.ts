/**
 * Plan limits (issue 15; contract/plans.ts). STUB to be built: each assert runs in the transaction that
 * makes the thing, under the organisation's row lock, and throws ApiError 403 plan_limit_reached.
 */
import type { PlanId } from "../../contract/plans";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";

export interface PlanSettings {
  /** DEFAULT_PLAN */
  defaultPlan: PlanId;
  /** Enterprise has no plan limit on concurrent calls; the install's capacity (ORG_CONCURRENT_CALLS) still bounds the dialler. */
  installConcurrentCalls: number;
}

export function planSettings(config: AppConfig): PlanSettings {
  return { defaultPlan: config.billing.defaultPlan, installConcurrentCalls: config.campaigns.orgConcurrentCalls };
}

export async function assertConcurrentCallAvailable(_tx: Db, _orgId: string, _settings: PlanSettings): Promise<void> {
  // To be built (plans helper).
}
