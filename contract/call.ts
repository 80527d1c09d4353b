import { z } from "zod";
import { E164_PATTERN } from "./agent";
import { CALL_OUTCOMES } from "./call-outcome";
import { SUCCESS_OUTCOMES } from "./success-outcome";

/**
 * Calls (spec §3 "Call", §7 GET /call/{id}, POST /call/, POST /call/public, §8 "Public call").
 *
 * - `type`: web (browser), inbound (someone rang one of our numbers), outbound (we rang the customer).
 * - `status` follows Vapi's lifecycle and never moves backwards: queued → ringing → in-progress →
 *   forwarding → ended.
 * - `cost` is in USD (the server keeps micro-dollars); `cost_breakdown` is the provider's
 *   (transport, stt, llm, tts, vapi, total).
 * - `messages` are the spoken turns only, `role` "assistant" (Vapi's "bot") or "user"; `time` is epoch
 *   milliseconds and `seconds_from_start` counts from the start of the call.
 * - `is_sandbox`: simulated by the sandbox voice provider; a person sees it labelled SANDBOX_CALL_LABEL.
 */

export const CALL_TYPES = ["web", "inbound", "outbound"] as const;
export type CallType = (typeof CALL_TYPES)[number];

/** In lifecycle order: a status-update never moves a call to an earlier one. */
export const CALL_STATUSES = ["queued", "ringing", "in-progress", "forwarding", "ended"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const CALL_MESSAGE_ROLES = ["assistant", "user"] as const;

/** What the console shows beside a call the sandbox simulated. */
export const SANDBOX_CALL_LABEL = "Sandbox";

/** The recipient name a public call uses when none is given (spec §3). */
export const PUBLIC_CALL_FALLBACK_NAME = "Sir";

/** Vapi's limit on `customer.name`. */
export const CUSTOMER_NAME_MAX_LENGTH = 40;

/** The 403 of a call refused for the wallet (spec §8, word for word). */
export const INSUFFICIENT_BALANCE_DETAIL =
  "Your wallet balance is too low to make calls. Please top up your account to continue using the service.";

/** The 404 of POST /call/public for an agent that does not exist or is not public (spec §8). */
export const PUBLIC_AGENT_NOT_ACCESSIBLE_DETAIL = "Agent not found or not accessible.";

export const callPaths = {
  calls: "/call/",
  call: (id: string) => `/call/${encodeURIComponent(id)}`,
  publicCall: "/call/public",
} as const;

const customerNumber = (field: string) =>
  z
    .string({ error: `${field} is required: the number to call, in E.164 form, e.g. +14155550123` })
    .trim()
    .regex(E164_PATTERN, { error: `${field} must be in E.164 form: '+', the country code and the number, e.g. +14155550123` });

const customerName = (field: string) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .max(CUSTOMER_NAME_MAX_LENGTH, { error: `${field} must be at most ${CUSTOMER_NAME_MAX_LENGTH} characters` });

export const callMessageSchema = z.object({
  role: z.enum(CALL_MESSAGE_ROLES),
  message: z.string(),
  time: z.number(),
  seconds_from_start: z.number(),
});
export type CallMessage = z.infer<typeof callMessageSchema>;

/** A call as the API answers it. */
export const callSchema = z.object({
  id: z.uuid(),
  type: z.enum(CALL_TYPES),
  status: z.enum(CALL_STATUSES),
  agent_id: z.uuid().nullable(),
  /** The agent's name when it still exists. */
  agent_name: z.string().nullable().optional(),
  phone_number_id: z.uuid().nullable(),
  customer_number: z.string().nullable(),
  customer_name: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  duration_seconds: z.number().int().nullable(),
  ended_reason: z.string().nullable(),
  /** USD. */
  cost: z.number().nullable(),
  cost_breakdown: z.record(z.string(), z.unknown()).nullable(),
  transcript: z.string().nullable(),
  messages: z.array(callMessageSchema),
  recording_url: z.string().nullable(),
  stereo_recording_url: z.string().nullable(),
  summary: z.string().nullable(),
  structured_data: z.record(z.string(), z.unknown()).nullable(),
  success_evaluation: z.string().nullable(),
  /** What became of the call (contract/call-outcome.ts), from its status and ended reason. */
  outcome: z.enum(CALL_OUTCOMES),
  /** The success evaluation counted as pass or fail (contract/success-outcome.ts); null when neither. */
  success: z.enum(SUCCESS_OUTCOMES).nullable(),
  campaign_id: z.uuid().nullable(),
  /** The campaign contact the call was placed for (GET /campaign/{id}/contacts), with campaign_id. */
  campaign_contact_id: z.uuid().nullable(),
  provider_call_id: z.string().nullable(),
  is_sandbox: z.boolean(),
  created_at: z.string(),
});
export type Call = z.infer<typeof callSchema>;

/** GET /call/{id}: the call, and the appointments it booked (issue 18), oldest first. */
export const callDetailSchema = callSchema.extend({ appointment_ids: z.array(z.uuid()) });
export type CallDetail = z.infer<typeof callDetailSchema>;

export const callResponseSchema = z.object({ data: callSchema });
export const callDetailResponseSchema = z.object({ data: callDetailSchema });

export const callIdParamsSchema = z.object({ id: z.uuid({ error: "the call id must be a UUID" }) });

/** POST /call/: a member places an outbound call from one of the organisation's numbers. */
export const callCreateSchema = z.strictObject({
  agent_id: z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" }),
  phone_number_id: z.uuid({ error: "phone_number_id must be the id (a UUID) of one of the organisation's phone numbers" }),
  customer_number: customerNumber("customer_number"),
  customer_name: customerName("customer_name").nullable().optional(),
});
export type CallCreate = z.input<typeof callCreateSchema>;

/** POST /call/public (spec §3 "Public call payload"): anyone may ask a public agent to ring them. */
export const publicCallRequestSchema = z.strictObject({
  assistantId: z.uuid({ error: "assistantId must be the agent's id (a UUID)" }),
  assistantOverrides: z
    .strictObject({
      variableValues: z.strictObject({ name: customerName("assistantOverrides.variableValues.name").optional() }).optional(),
    })
    .optional(),
  customer: z.strictObject({ number: customerNumber("customer.number") }, { error: "customer is required: {number}" }),
  phoneNumberId: z.uuid({ error: "phoneNumberId must be the id (a UUID) of one of the agent's organisation's phone numbers" }),
});
export type PublicCallRequest = z.input<typeof publicCallRequestSchema>;

/** The recipient name of a public call: the one given, or the fallback when it is blank. */
export function publicCallRecipientName(name: string | null | undefined): string {
  return name?.trim() || PUBLIC_CALL_FALLBACK_NAME;
}

export const publicCallResponseSchema = z.object({
  data: z.object({ id: z.uuid(), status: z.enum(CALL_STATUSES) }),
});
