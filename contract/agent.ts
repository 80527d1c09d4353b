import { z } from "zod";
import { pagingQuerySchema } from "./list";
import { AGENT_LIST_MAX_LIMIT } from "./paging";
import { errorBodySchema } from "./errors";

/**
 * The voice agent (spec §3 "Voice agent configuration (defaults)"). One schema: the server's defaults
 * and the console form's initial values both come from here. Field names are the spec's, letter for
 * letter, including the spellings `temprature` and `emotion_recoginition`.
 *
 * Ranges are those Vapi accepts (ARCHITECTURE.md §6) except where the spec's own default lies outside
 * them (voice_stop_voice_seconds = 1.1): we keep the spec's value and the mapper makes what it sends valid.
 */

/** A voice-provider tool id (`model_tool_id` entries): Vapi's tool ids are UUIDs. */
export const TOOL_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** E.164: '+', a non-zero first digit, 7 to 15 digits in all. */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

export const BLANK_AGENT_PROMPT = [
  "You are a friendly, professional voice assistant on a phone call.",
  "Keep every reply short and natural: one or two sentences, then let the caller speak.",
  "Ask one question at a time and confirm names, numbers and dates back to the caller.",
  "If you do not know something, say so honestly and offer to have a person follow up.",
].join("\n");

export const DEFAULT_SUMMARY_PROMPT =
  "Summarize the conversation in bullet points: who called, what they wanted, what was agreed and any follow-up needed.";

export const SUCCESS_EVALUATION_RUBRICS = [
  "NumericScale",
  "DescriptiveScale",
  "Checklist",
  "Matrix",
  "PercentageScale",
  "LikertScale",
  "AutomaticRubric",
  "PassFail",
] as const;

/** A number with a range a person can read in the error ("must be between 10 and 3600 seconds"). */
function ranged(field: string, min: number, max: number, unit = "", int = false) {
  const suffix = unit ? ` ${unit}` : "";
  const message = `${field} must be between ${min} and ${max}${suffix}`;
  const base = z.number({ error: `${field} must be a number` });
  return (int ? base.int({ error: `${field} must be a whole number` }) : base).min(min, { error: message }).max(max, { error: message });
}

function text(field: string, max: number, min = 0) {
  const base = z.string({ error: `${field} must be text` }).max(max, { error: `${field} must be at most ${max} characters` });
  return min > 0 ? base.min(min, { error: `${field} is required` }) : base;
}

const phrase = text("each end-call phrase", 140, 1);

export const analysisPlanSchema = z.strictObject({
  summary_prompt: text("summary_prompt", 5000).default(DEFAULT_SUMMARY_PROMPT),
  structured_data_prompt: text("structured_data_prompt", 5000).default(""),
  success_evaluation_prompt: text("success_evaluation_prompt", 5000).default(""),
  success_evaluation_rubric: z
    .enum(SUCCESS_EVALUATION_RUBRICS, { error: `success_evaluation_rubric must be one of ${SUCCESS_EVALUATION_RUBRICS.join(", ")}` })
    .default("PercentageScale"),
  server_url: z.url({ protocol: /^https?$/, error: "server_url must be an http(s) URL" }).max(2000).nullable().default(null),
});

export const transcriberSchema = z.strictObject({
  transcriber_model: text("transcriber_model", 100, 1).default("nova-3"),
  transcriber_language: text("transcriber_language", 20, 1).default("en"),
  transcriber_provider: text("transcriber_provider", 50, 1).default("deepgram"),
});

export const BACKGROUND_SOUNDS = ["off", "office"] as const;

export const voiceSchema = z.strictObject({
  voice_provider: text("voice_provider", 50, 1).default("deepgram"),
  voice_providerId: text("voice_providerId", 200, 1).default("angus"),
  voice_name: text("voice_name", 200, 1).default("angus"),
  temprature: ranged("temprature (model temperature)", 0, 2).default(0.5),
  speed: ranged("speed", 0.5, 2).default(1),
  voice_model: text("voice_model", 100).nullable().default(null),
  audio_recording: z.boolean({ error: "audio_recording must be true or false" }).default(true),
  video_recording: z.boolean({ error: "video_recording must be true or false" }).default(false),
  background_denoising: z.boolean({ error: "background_denoising must be true or false" }).default(false),
  background_sound: z
    .union([z.enum(BACKGROUND_SOUNDS), z.url({ protocol: /^https?$/, error: "background_sound must be off, office or the http(s) URL of an audio file" }).max(2000)], {
      error: "background_sound must be off, office or the http(s) URL of an audio file",
    })
    .default("off"),
  voice_mail: text("voice_mail", 1000).nullable().default(null),
  voice_start_wait_seconds: ranged("voice_start_wait_seconds", 0, 5, "seconds").default(2),
  voice_start_smart_endpointing_enabled: z.boolean({ error: "voice_start_smart_endpointing_enabled must be true or false" }).default(false),
  voice_start_punctuation_seconds: ranged("voice_start_punctuation_seconds", 0, 3, "seconds").default(0.8),
  voice_start_no_punctuation_seconds: ranged("voice_start_no_punctuation_seconds", 0, 3, "seconds").default(1.8),
  voice_start_number_seconds: ranged("voice_start_number_seconds", 0, 3, "seconds").default(1.1),
  voice_stop_number_of_words: ranged("voice_stop_number_of_words", 0, 10, "words", true).default(3),
  // Vapi takes 0–0.5 s and only when numWords is 0; the mapper caps it (ARCHITECTURE.md §6).
  voice_stop_voice_seconds: ranged("voice_stop_voice_seconds", 0, 3, "seconds").default(1.1),
  voice_stop_back_off_seconds: ranged("voice_stop_back_off_seconds", 0, 10, "seconds").default(1.1),
});

/** AdvancedSettings (spec §3) plus the nested plans: everything a person edits. */
export const agentConfigSchema = z.strictObject({
  agent_type: text("agent_type", 50, 1).default("agent"),
  agent_name: text("agent_name", 100, 1).default("Purchase Completion Agent"),
  /** Shown on the public agent page; empty means the spec's 'Connect with our AI assistant'. */
  description: text("description", 500).default(""),
  agent_welcome_message: text("agent_welcome_message", 1000).default("Hello! How are you doing today?"),
  agent_end_call_message: text("agent_end_call_message", 1000).default("Thank you for calling. Have a great day!"),
  agent_prompt: text("agent_prompt", 20000).default(BLANK_AGENT_PROMPT),
  silence_timeout_seconds: ranged("silence_timeout_seconds", 10, 3600, "seconds", true).default(10),
  max_duration_seconds: ranged("max_duration_seconds", 10, 43200, "seconds", true).default(240),
  max_token: ranged("max_token", 50, 10000, "tokens", true).default(500),
  model: text("model", 100, 1).default("gpt-4o"),
  model_provider: text("model_provider", 50, 1).default("openai"),
  model_tool_id: z.array(text("each tool id", 200, 1)).max(50, { error: "at most 50 tools" }).default([]),
  emotion_recoginition: z.boolean({ error: "emotion_recoginition must be true or false" }).default(true),
  knowledge_base_files: z.array(z.uuid({ error: "each knowledge-base file must be a file id" })).max(20, { error: "at most 20 knowledge-base files" }).default([]),
  forward_phone_number: z
    .string()
    .regex(E164_PATTERN, { error: "forward_phone_number must be in E.164 form, e.g. +14155550123" })
    .nullable()
    .default(null),
  endCallFunctionEnabled: z.boolean({ error: "endCallFunctionEnabled must be true or false" }).default(false),
  endCallPhrases: z.array(phrase).max(20, { error: "at most 20 end-call phrases" }).default([]),
  appointment_enable: z.boolean({ error: "appointment_enable must be true or false" }).default(false),
  analysis_plan: analysisPlanSchema.default(() => analysisPlanSchema.parse({})),
  transcriber: transcriberSchema.default(() => transcriberSchema.parse({})),
  voice: voiceSchema.default(() => voiceSchema.parse({})),
});
export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type AgentConfigInput = z.input<typeof agentConfigSchema>;

/** The spec's defaults, computed once from the schema (the console form's initial values). */
export const DEFAULT_AGENT_CONFIG: AgentConfig = agentConfigSchema.parse({});

/**
 * The owner's consent to cloning through the private link ("Anyone signed in with this link can copy
 * this agent"); off by default. Turning it on makes a new link key, turning it off revokes the link.
 */
const cloneEnabledField = z.boolean({ error: "clone_enabled must be true or false" });

/** POST /agent/: any subset of the settings, the rest from the defaults; `is_public` and `clone_enabled` optional. */
export const agentCreateSchema = agentConfigSchema.extend({
  is_public: z.boolean({ error: "is_public must be true or false" }).default(false),
  clone_enabled: cloneEnabledField.default(false),
});

/** The same fields with their defaults removed and every one optional: what a partial update may carry. */
function optionalWithoutDefaults<T extends z.ZodRawShape>(shape: T) {
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [
      key,
      (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType)).optional(),
    ]),
  ) as unknown as { [K in keyof T]: z.ZodOptional<T[K] extends z.ZodDefault<infer Inner> ? Inner : T[K]> };
}

/** PUT /agent/{id}: the fields given replace the stored ones (nested plans merge field by field). */
export const agentUpdateSchema = z.strictObject({
  ...optionalWithoutDefaults(agentConfigSchema.omit({ analysis_plan: true, transcriber: true, voice: true }).shape),
  analysis_plan: z.strictObject(optionalWithoutDefaults(analysisPlanSchema.shape)).optional(),
  transcriber: z.strictObject(optionalWithoutDefaults(transcriberSchema.shape)).optional(),
  voice: z.strictObject(optionalWithoutDefaults(voiceSchema.shape)).optional(),
  is_public: z.boolean({ error: "is_public must be true or false" }).optional(),
  clone_enabled: cloneEnabledField.optional(),
});
export type AgentUpdate = z.input<typeof agentUpdateSchema>;

/**
 * Whether the agent lives at the voice provider. `synced`: Vapi holds the assistant (saves go to Vapi
 * first and fail whole when Vapi refuses, so a stored agent is never ahead of Vapi); `local`: sandbox mode.
 */
export const AGENT_SYNC_STATES = ["synced", "local"] as const;

/** An agent as the API answers it. `agent_id` repeats `id` because the spec's AdvancedSettings names it. */
export const agentSchema = agentConfigSchema.extend({
  id: z.uuid(),
  agent_id: z.uuid(),
  is_public: z.boolean(),
  /** Whether the private link may clone the agent (the owner's consent). */
  clone_enabled: z.boolean(),
  /** The key the private link carries (`/agent/private/{id}?key=…`) while cloning is on; null when off. */
  clone_key: z.string().nullable(),
  provider_assistant_id: z.string().nullable(),
  sync_status: z.enum(AGENT_SYNC_STATES),
  cloned_from: z.uuid().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Agent = z.infer<typeof agentSchema>;

export const appointmentToggleSchema = z.strictObject({
  appointment_enable: z.boolean({ error: "appointment_enable must be true or false" }),
});

/** Templates (GET /agent/templates); an organisation with no agent gets its first from DEFAULT_TEMPLATE_KEY. */
export const AGENT_TEMPLATE_KEYS = ["purchase-completion", "blank", "appointment-setter", "customer-support"] as const;
export type AgentTemplateKey = (typeof AGENT_TEMPLATE_KEYS)[number];
export const DEFAULT_TEMPLATE_KEY: AgentTemplateKey = "purchase-completion";

export const agentTemplateCreateSchema = z.strictObject({
  template: z.enum(AGENT_TEMPLATE_KEYS, { error: `template must be one of ${AGENT_TEMPLATE_KEYS.join(", ")}` }),
  agent_name: text("agent_name", 100, 1).optional(),
});

export const agentTemplateSchema = z.object({
  key: z.enum(AGENT_TEMPLATE_KEYS),
  name: z.string(),
  description: z.string(),
  config: agentConfigSchema,
});
export type AgentTemplate = z.infer<typeof agentTemplateSchema>;

/** GET /agent/{id}/public: what an anonymous visitor may see of a public agent. */
export const publicAgentProfileSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  firstMessage: z.string(),
  endCallMessage: z.string(),
});
export type PublicAgentProfile = z.infer<typeof publicAgentProfileSchema>;

/** Spec §3 "Public agent (built locally)" fallbacks. */
export const PUBLIC_AGENT_DEFAULT_DESCRIPTION = "Connect with our AI assistant";
export const PUBLIC_AGENT_DEFAULT_GREETING = "Hello! How can I help you today?";
export function publicAgentFallbackName(id: string): string {
  return `AI Agent ${id.slice(0, 8)}`;
}

export const agentIdParamsSchema = z.object({ id: z.uuid({ error: "the agent id must be a UUID" }) });

/** GET /agent/?page&limit: every agent of a small organisation fits the default page. */
export const agentListQuerySchema = pagingQuerySchema({ maxLimit: AGENT_LIST_MAX_LIMIT, defaultLimit: AGENT_LIST_MAX_LIMIT });

/** GET /agent/{id}/clone?key=: the private link's key (without it, or with a stale one, the clone answers 404). */
export const AGENT_CLONE_KEY_MAX = 100;
export const agentCloneQuerySchema = z.object({
  key: z.string().max(AGENT_CLONE_KEY_MAX, { error: "key is not a share key" }).optional(),
});

/** 409 of GET /agent/{id}/clone: `data.id` is the agent to open (the caller's own, or its existing copy). */
export const agentCloneConflictSchema = errorBodySchema.extend({ data: z.object({ id: z.uuid() }) });
