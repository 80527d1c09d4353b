import { z } from "zod";
import { deletedResponseSchema, listResponseSchema, pagingQuerySchema } from "./list";
import { E164_PATTERN } from "./agent";

/**
 * Phone numbers (spec §3, §7: POST/GET /phonenumber/, GET /phonenumber/default, GET/PUT/DELETE
 * /phonenumber/{id}). The spec's fields `id, name, number, isDefault, provider` keep their spelling
 * (`isDefault` is camelCase there); the rest of the API is snake_case.
 *
 * Rules the server keeps:
 * - exactly one default number per organisation: the first number becomes the default, making one the
 *   default clears the other in the same transaction, and deleting the default promotes the oldest
 *   remaining number. A default cannot be switched off directly (make another the default instead).
 * - numbers are E.164 and unique within an organisation (409 for a second copy).
 * - `provider` says where the number lives: `vapi` (a number Vapi assigns: give `area_code`, Vapi picks
 *   the digits), `twilio` (imported with the Twilio account SID and auth token in `credentials`, stored
 *   encrypted and never answered back), `vonage`, `telnyx`, `byo` (local/sandbox only for now: importing
 *   them into Vapi needs a Vapi credential id, which this product does not manage yet).
 * - in sandbox mode every number is local (`is_sandbox: true`, `provider_number_id: null`); a `vapi`
 *   number given only an area code gets a made-up number in the fictional 555-01xx range.
 */

export const PHONE_NUMBER_PROVIDERS = ["vapi", "twilio", "vonage", "telnyx", "byo"] as const;
export type PhoneNumberProvider = (typeof PHONE_NUMBER_PROVIDERS)[number];

/** Providers whose numbers Vapi mode can create or import today (the others answer 400 there). */
export const VAPI_SUPPORTED_NUMBER_PROVIDERS: readonly PhoneNumberProvider[] = ["vapi", "twilio"];

/** Vapi's `name` limit on phone numbers. */
export const PHONE_NUMBER_NAME_MAX_LENGTH = 40;

export const E164_HINT = "number must be in E.164 form, e.g. +14155550123";

/** What people type around the digits (spaces, dashes, dots, brackets) is dropped before the E.164 check. */
export function normalisePhoneNumber(value: string): string {
  return value.trim().replace(/[\s().-]/g, "");
}

export const phoneNumberValueSchema = z
  .string({ error: E164_HINT })
  .max(40, { error: E164_HINT })
  .transform(normalisePhoneNumber)
  .pipe(z.string().regex(E164_PATTERN, { error: E164_HINT }));

const nameSchema = z
  .string({ error: "name must be text" })
  .trim()
  .min(1, { error: "name is required" })
  .max(PHONE_NUMBER_NAME_MAX_LENGTH, { error: `name must be at most ${PHONE_NUMBER_NAME_MAX_LENGTH} characters` });

const providerSchema = z.enum(PHONE_NUMBER_PROVIDERS, { error: `provider must be one of ${PHONE_NUMBER_PROVIDERS.join(", ")}` });

/** A US area code for a number Vapi assigns (Vapi's `numberDesiredAreaCode`). */
export const AREA_CODE_PATTERN = /^[2-9]\d{2}$/;

/** Twilio's account SID: "AC" and 32 hexadecimal characters. */
export const TWILIO_ACCOUNT_SID_PATTERN = /^AC[0-9a-fA-F]{32}$/;

/** Carrier credentials for an imported Twilio number: write-only (stored encrypted, never answered). */
export const twilioCredentialsSchema = z.strictObject({
  twilio_account_sid: z
    .string({ error: "credentials.twilio_account_sid is required" })
    .trim()
    .regex(TWILIO_ACCOUNT_SID_PATTERN, { error: "twilio_account_sid must be AC followed by 32 hexadecimal characters (Twilio console → Account Info)" }),
  twilio_auth_token: z
    .string({ error: "credentials.twilio_auth_token is required" })
    .trim()
    .min(1, { error: "twilio_auth_token is required" })
    .max(200, { error: "twilio_auth_token must be at most 200 characters" }),
});
export type TwilioCredentials = z.infer<typeof twilioCredentialsSchema>;

const agentIdSchema = z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" }).nullable();

/** POST /phonenumber/ */
export const phoneNumberCreateSchema = z
  .strictObject({
    name: nameSchema,
    number: phoneNumberValueSchema.optional(),
    provider: providerSchema,
    /** provider vapi: the area code Vapi picks the number in (Vapi mode needs it instead of `number`). */
    area_code: z.string({ error: "area_code must be text" }).trim().regex(AREA_CODE_PATTERN, { error: "area_code must be a 3-digit US area code, e.g. 415" }).optional(),
    /** The agent that answers inbound calls; null or absent: none. */
    agent_id: agentIdSchema.optional(),
    isDefault: z.boolean({ error: "isDefault must be true or false" }).optional(),
    /** provider twilio: required. */
    credentials: twilioCredentialsSchema.optional(),
  })
  .superRefine((value, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (value.provider !== "vapi" && value.number === undefined) issue("number", `number is required for ${value.provider} numbers (E.164, e.g. +14155550123)`);
    if (value.provider === "vapi" && value.number === undefined && value.area_code === undefined) {
      issue("area_code", "area_code is required for a vapi number (Vapi picks the number in that area code), e.g. 415");
    }
    if (value.provider !== "vapi" && value.area_code !== undefined) issue("area_code", "area_code is only used for vapi numbers");
    if (value.provider === "twilio" && value.credentials === undefined) {
      issue("credentials", "credentials are required for twilio numbers: {twilio_account_sid, twilio_auth_token}");
    }
    if (value.provider !== "twilio" && value.credentials !== undefined) issue("credentials", "credentials are only used for twilio numbers");
  });
export type PhoneNumberCreate = z.input<typeof phoneNumberCreateSchema>;

/**
 * PUT /phonenumber/{id}: the fields given replace the stored ones. `number` and `provider` cannot change
 * (they may be sent back unchanged, as an edit form does); `isDefault: true` makes this the default.
 */
export const phoneNumberUpdateSchema = z.strictObject({
  name: nameSchema.optional(),
  number: phoneNumberValueSchema.optional(),
  provider: providerSchema.optional(),
  agent_id: agentIdSchema.optional(),
  isDefault: z.boolean({ error: "isDefault must be true or false" }).optional(),
  /** twilio numbers: replaces the stored credentials. */
  credentials: twilioCredentialsSchema.optional(),
});
export type PhoneNumberUpdate = z.input<typeof phoneNumberUpdateSchema>;

/** A phone number as the API answers it. Credentials are never part of it (`has_credentials` says whether some are stored). */
export const phoneNumberSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  number: z.string(),
  isDefault: z.boolean(),
  provider: providerSchema,
  agent_id: z.uuid().nullable(),
  provider_number_id: z.string().nullable(),
  /** Local only (not at the voice provider): the console labels it "Sandbox". */
  is_sandbox: z.boolean(),
  has_credentials: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PhoneNumber = z.infer<typeof phoneNumberSchema>;

export const phoneNumberResponseSchema = z.object({ data: phoneNumberSchema });

export const phoneNumberListQuerySchema = pagingQuerySchema();

export const phoneNumberListResponseSchema = listResponseSchema(phoneNumberSchema);

export const phoneNumberIdParamsSchema = z.object({ id: z.uuid({ error: "the phone number id must be a UUID" }) });

export const phoneNumberDeleteResponseSchema = deletedResponseSchema;

export const NO_DEFAULT_PHONE_NUMBER = "No default phone number yet";

export const phoneNumberPaths = {
  list: "/phonenumber/",
  default: "/phonenumber/default",
  one: (id: string) => `/phonenumber/${encodeURIComponent(id)}`,
} as const;
