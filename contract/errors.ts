import { z } from "zod";

/** Every error the API answers: a sentence a person can act on and a machine code. */
export const errorBodySchema = z.object({
  detail: z.string(),
  code: z.string(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const ERROR_CODES = {
  badRequest: "bad_request",
  validation: "validation_error",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  organizationRequired: "organization_required",
  notFound: "not_found",
  conflict: "conflict",
  tooLarge: "payload_too_large",
  rateLimited: "rate_limited",
  /** A call refused because the organisation's wallet is below MIN_BALANCE_USD (403). */
  insufficientBalance: "insufficient_balance",
  /** A call that would pass a spend cap (403); the detail names the cap and when it resets. */
  spendCapReached: "spend_cap_reached",
  /** Something the plan's limits do not allow (403); the detail names the limit and the plan that lifts it. */
  planLimitReached: "plan_limit_reached",
  internal: "internal_error",
  upstream: "upstream_error",
} as const;
