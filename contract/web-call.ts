import { z } from "zod";
import { deletedResponseSchema, listResponseSchema, pagingQuerySchema } from "./list";

/**
 * Web-call links (spec §2 /web-call/:callSlug, §3 "Web call details"): a member makes a page where a
 * recipient talks to an agent in the browser. POST /webcall/ answers the link with its random slug;
 * GET /webcall/ lists the organisation's links; GET /webcall/{id} (spec §7) answers one and
 * DELETE /webcall/{id} removes one. The page itself (no sign-in) reads GET /webcall/public/{slug}
 * (spec §7 "call-details lookup by callSlug, path not shown"), and in sandbox mode starts and ends its
 * simulated call with POST /webcall/public/{slug}/call and POST /webcall/public/{slug}/call/{callId}/end.
 *
 * Every text is plain text: the console renders it as text, never as HTML.
 */

/** The icons an instruction may carry; the console maps each key to an icon of its own. */
export const WEB_CALL_ICONS = ["headphones", "microphone", "quiet", "clock", "chat", "info", "check", "phone", "wifi", "volume"] as const;
export type WebCallIcon = (typeof WEB_CALL_ICONS)[number];

export const WEB_CALL_LIMITS = {
  callTitle: 120,
  recipientName: 80,
  subTitle: 300,
  instructions: 10,
  instructionTitle: 80,
  instructionDescription: 300,
} as const;

/** Slugs are 22 URL-safe characters (16 random bytes, base64url); lookups accept up to this length. */
export const WEB_CALL_SLUG_MAX_LENGTH = 64;

/** Control characters (other than line breaks and tabs in multi-line fields) have no place in text shown on a page. */
function hasControlCharacters(value: string, multiline: boolean): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (multiline && (code === 0x0a || code === 0x0d || code === 0x09)) continue;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function plainText(field: string, max: number, options: { required?: boolean; multiline?: boolean } = {}) {
  let schema = z
    .string({ error: `${field} must be text` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters` });
  if (options.required) schema = schema.min(1, { error: `${field} is required` });
  const multiline = options.multiline ?? false;
  return schema.refine((value) => !hasControlCharacters(value, multiline), { error: `${field} must be plain text without control characters` });
}

export const webCallInstructionInputSchema = z.strictObject({
  icon: z.enum(WEB_CALL_ICONS, { error: `icon must be one of ${WEB_CALL_ICONS.join(", ")}` }),
  title: plainText("title", WEB_CALL_LIMITS.instructionTitle, { required: true }),
  description: plainText("description", WEB_CALL_LIMITS.instructionDescription, { multiline: true }).default(""),
});

/** POST /webcall/ */
export const webCallCreateSchema = z.strictObject({
  agent_id: z.uuid({ error: "agent_id must be the id (a UUID) of one of the organisation's agents" }),
  call_title: plainText("call_title", WEB_CALL_LIMITS.callTitle, { required: true }),
  recipient_name: plainText("recipient_name", WEB_CALL_LIMITS.recipientName, { required: true }),
  sub_title: plainText("sub_title", WEB_CALL_LIMITS.subTitle, { multiline: true }).default(""),
  instructions: z
    .array(webCallInstructionInputSchema, { error: "instructions must be a list of {icon, title, description}" })
    .max(WEB_CALL_LIMITS.instructions, { error: `instructions may hold at most ${WEB_CALL_LIMITS.instructions} entries` })
    .default([]),
});
export type WebCallCreate = z.input<typeof webCallCreateSchema>;

export const webCallInstructionSchema = z.object({
  id: z.string(),
  icon: z.enum(WEB_CALL_ICONS),
  title: z.string(),
  description: z.string(),
});
export type WebCallInstruction = z.infer<typeof webCallInstructionSchema>;

/** A link as its organisation sees it. `url` is the console path of the public page. */
export const webCallLinkSchema = z.object({
  id: z.uuid(),
  slug: z.string(),
  url: z.string(),
  agent_id: z.uuid(),
  call_title: z.string(),
  recipient_name: z.string(),
  sub_title: z.string(),
  instructions: z.array(webCallInstructionSchema),
  created_at: z.string(),
});
export type WebCallLink = z.infer<typeof webCallLinkSchema>;

/**
 * GET /webcall/public/{slug}: spec §3 "Web call details", field for field, and `firstMessage`. `assistantId`
 * is what the browser starts the call with: the agent's Vapi assistant id in Vapi mode, our agent id in the
 * sandbox. `firstMessage` is the agent's welcome message (agent_welcome_message) rendered as Vapi renders it
 * (Liquid, `name` being the link's recipient), as the call will say it; the page's sandbox call speaks it.
 */
export const webCallDetailsSchema = z.object({
  callTitle: z.string(),
  name: z.string(),
  subTitle: z.string(),
  assistantId: z.string(),
  instructions: z.array(webCallInstructionSchema),
  firstMessage: z.string(),
});
export type WebCallDetails = z.infer<typeof webCallDetailsSchema>;

export const webCallLinkResponseSchema = z.object({ data: webCallLinkSchema });
export const webCallDetailsResponseSchema = z.object({ data: webCallDetailsSchema });

export const webCallListQuerySchema = pagingQuerySchema();

export const webCallListResponseSchema = listResponseSchema(webCallLinkSchema);

export const webCallIdParamsSchema = z.object({ id: z.uuid({ error: "the web-call link id must be a UUID" }) });
export const webCallSlugParamsSchema = z.object({ slug: z.string().min(1).max(WEB_CALL_SLUG_MAX_LENGTH) });
export const webCallDeleteResponseSchema = deletedResponseSchema;

export const WEB_CALL_NOT_FOUND = "Web call not found: the link may have been deleted.";

/**
 * POST /webcall/public/{slug}/call (sandbox mode, no sign-in): the page's simulated call, recorded like any
 * call (a call record of type web, filled by the sandbox's signed webhook events). `id` is our call id, the
 * capability that ends it.
 */
export const webCallSandboxStartSchema = z.object({
  data: z.object({ id: z.uuid(), status: z.string(), maxDurationSeconds: z.number() }),
});
export const webCallSandboxEndSchema = z.object({ data: z.object({ id: z.uuid(), status: z.string() }) });
export const webCallSandboxCallParamsSchema = webCallSlugParamsSchema.extend({
  callId: z.uuid({ error: "the call id must be a UUID" }),
});

/** The 409 of the sandbox's web-call routes in Vapi mode: the browser talks to Vapi itself. */
export const WEB_CALL_SANDBOX_ONLY = "This site runs calls through Vapi: the browser starts the web call with Vapi directly.";
export const WEB_CALL_SANDBOX_CALL_NOT_FOUND = "No such call is running for this link.";

export const webCallPaths = {
  list: "/webcall/",
  /** GET and DELETE by id (signed in, own organisation). */
  one: (id: string) => `/webcall/${encodeURIComponent(id)}`,
  /** The public page's details by slug (no sign-in). */
  details: (slug: string) => `/webcall/public/${encodeURIComponent(slug)}`,
  /** The public page's sandbox call: start, then end by our call id. */
  sandboxStart: (slug: string) => `/webcall/public/${encodeURIComponent(slug)}/call`,
  sandboxEnd: (slug: string, callId: string) => `/webcall/public/${encodeURIComponent(slug)}/call/${encodeURIComponent(callId)}/end`,
} as const;

/** The console path of a link's public page. */
export const webCallPagePath = (slug: string) => `/web-call/${encodeURIComponent(slug)}`;
