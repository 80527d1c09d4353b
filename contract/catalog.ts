import { z } from "zod";

/**
 * The catalogue lists the agent editor offers (GET /transcriber/, /voice/, /voice/models, /llm/; spec §7).
 * `provider` is the provider's name as the voice provider (Vapi) spells it, e.g. `11labs`; `name` is
 * what a person reads. The lists are suggestions: the agent schema accepts any id a provider knows.
 */

export const transcriberLanguageSchema = z.object({
  code: z.string(),
  name: z.string(),
});

export const transcriberCatalogEntrySchema = z.object({
  provider: z.string(),
  name: z.string(),
  models: z.array(z.string()),
  languages: z.array(transcriberLanguageSchema),
});
export type TranscriberCatalogEntry = z.infer<typeof transcriberCatalogEntrySchema>;

export const VOICE_GENDERS = ["female", "male", "neutral"] as const;

export const catalogVoiceSchema = z.object({
  id: z.string(),
  name: z.string(),
  gender: z.enum(VOICE_GENDERS).optional(),
  accent: z.string().optional(),
  /** The provider's voice models this voice exists in, when not all of them (Deepgram: aura or aura-2). */
  models: z.array(z.string()).optional(),
});
export type CatalogVoice = z.infer<typeof catalogVoiceSchema>;

export const voiceCatalogEntrySchema = z.object({
  provider: z.string(),
  name: z.string(),
  voices: z.array(catalogVoiceSchema),
  /** Whether the provider takes the agent's `speed` (Deepgram and Cartesia voices do not). */
  supportsSpeed: z.boolean(),
  /** The speed range the provider accepts, when it takes one (ElevenLabs: 0.7–1.2). */
  speedRange: z.object({ min: z.number(), max: z.number() }).optional(),
});
export type VoiceCatalogEntry = z.infer<typeof voiceCatalogEntrySchema>;

export const voiceModelCatalogEntrySchema = z.object({
  provider: z.string(),
  /** Empty when the provider chooses the model itself (Azure). */
  models: z.array(z.string()),
});
export type VoiceModelCatalogEntry = z.infer<typeof voiceModelCatalogEntrySchema>;

export const llmCatalogEntrySchema = z.object({
  provider: z.string(),
  name: z.string(),
  models: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type LlmCatalogEntry = z.infer<typeof llmCatalogEntrySchema>;

export const transcriberCatalogResponseSchema = z.object({ data: z.array(transcriberCatalogEntrySchema) });
export const voiceCatalogResponseSchema = z.object({ data: z.array(voiceCatalogEntrySchema) });
export const voiceModelCatalogResponseSchema = z.object({ data: z.array(voiceModelCatalogEntrySchema) });
export const llmCatalogResponseSchema = z.object({ data: z.array(llmCatalogEntrySchema) });
