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
  // Orders (issue 16): POST /order/{id}/call's refusals (409 unless said), each with a sentence saying what to do or when.
  /** Outside the customer's calling window; the body carries next_call_at. */
  outsideCallingHours: "outside_calling_hours",
  /** The order carries no consent to be called: send confirm_consent true once the customer agreed. */
  consentRequired: "consent_required",
  /** The number is on the do-not-call list. */
  dnc: "dnc",
  /** MAX_CALLS_PER_NUMBER_PER_24H calls to this number in the last 24 hours; the body carries next_call_at. */
  numberCallLimit: "number_call_limit",
  /** The customer's time zone is unknown (no timezone, none from the number, no fallback zone). */
  timezoneRequired: "timezone_required",
  /** 400: no follow-up agent and caller number are set (PUT /order/follow-up). */
  followUpNotSetUp: "follow_up_not_set_up",
  internal: "internal_error",
  upstream: "upstream_error",
} as const;
