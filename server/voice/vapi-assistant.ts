/**
 * Our agent → Vapi's assistant (ARCHITECTURE.md §6, field by field). Pure: no I/O, no clock.
 *
 * Every payload built here is checked in tests/server/vapi-contract.test.ts against Vapi's published
 * OpenAPI document (`CreateAssistantDTO`, `UpdateAssistantDTO`), including that it carries no field the
 * schema does not know. Where the spec's values and Vapi's 2026 schema disagree, our stored value stays
 * as the person set it and the mapper sends the nearest value Vapi accepts:
 *
 * - `voice_stop_voice_seconds` (default 1.1) → `stopSpeakingPlan.voiceSeconds` only when `numWords` is 0,
 *   capped at 0.5 (Vapi's range is 0–0.5 and it is used only then).
 * - `silence_timeout_seconds` → a `customer.speech.timeout` hook that ends the call
 *   (`silenceTimeoutSeconds` is gone from the assistant); the hook takes 1–1000 s, so longer values are capped.
 * - `speed` → only to voice providers whose schema has a top-level speed, clamped to that provider's range
 *   (Deepgram voices have none; Inworld calls it `speakingRate`; Cartesia has only `generationConfig.speed`,
 *   for sonic-3 models, and the editor's catalogue offers no speed for it, so none is sent).
 * - `agent_name` → `name`, cut to Vapi's 40 characters.
 * - `endCallPhrases` → phrases shorter than Vapi's 2 characters are left out.
 * - the analysis prompts → `analysisPlan` (deprecated in the schema but accepted; the schema's replacement,
 *   `artifactPlan.structuredOutputs`, needs a JSON schema per output and has no free-text summary prompt).
 * - `appointment_enable` → the booking tools (server/calendar/tools-definitions.ts) as function tools in
 *   `model.tools`, each with our webhook as its `server` (Vapi posts their `tool-calls` there). Off, they
 *   are left out: the update sends the whole `model` with its `tools` list, so they are removed at Vapi too.
 */
import { VOICE_CATALOG } from "../agents/catalog";
import { BOOKING_TOOLS } from "../calendar/tools-definitions";
import type { AgentForSync, FunctionToolSpec } from "./types";

/** Vapi's limits, as its OpenAPI document states them. */
export const VAPI_LIMITS = {
  nameMaxLength: 40,
  endCallPhraseMinLength: 2,
  speechTimeoutSeconds: { min: 1, max: 1000 },
  stopVoiceSecondsMax: 0.5,
} as const;

/**
 * Voice providers whose Vapi schema has a speed, with the field and its range. A provider not listed here
 * gets no speed. The contract test checks this table against the schema both ways.
 */
export const VOICE_SPEED: Record<string, { field: "speed" | "speakingRate"; min: number; max: number }> = {
  azure: { field: "speed", min: 0.5, max: 2 },
  "11labs": { field: "speed", min: 0.7, max: 1.2 },
  lmnt: { field: "speed", min: 0.25, max: 2 },
  neuphonic: { field: "speed", min: 0.25, max: 2 },
  openai: { field: "speed", min: 0.25, max: 4 },
  playht: { field: "speed", min: 0.1, max: 5 },
  "rime-ai": { field: "speed", min: 0.1, max: Number.POSITIVE_INFINITY },
  "smallest-ai": { field: "speed", min: Number.NEGATIVE_INFINITY, max: Number.POSITIVE_INFINITY },
  vapi: { field: "speed", min: 0.25, max: 2 },
  minimax: { field: "speed", min: 0.5, max: 2 },
  xai: { field: "speed", min: 0.7, max: 1.5 },
  microsoft: { field: "speed", min: 0.5, max: 2 },
  inworld: { field: "speakingRate", min: 0.5, max: 1.5 },
}

/** Voice providers whose Vapi schema has a `model` (voice_model is sent only to these). */
export const VOICE_PROVIDERS_WITH_MODEL: ReadonlySet<string> = new Set([
  "cartesia",
  "deepgram",
  "11labs",
  "hume",
  "neuphonic",
  "openai",
  "playht",
  "wellsaid",
  "rime-ai",
  "smallest-ai",
  "sesame",
  "inworld",
  "minimax",
]);

/** Transcriber providers whose Vapi schema has no `model` (Vapi picks it). */
export const TRANSCRIBERS_WITHOUT_MODEL: ReadonlySet<string> = new Set(["assembly-ai", "azure", "custom-transcriber", "vapi"]);
/** Transcriber providers whose Vapi schema has no `language`. */
export const TRANSCRIBERS_WITHOUT_LANGUAGE: ReadonlySet<string> = new Set(["custom-transcriber"]);
/** Model providers whose Vapi schema has no `maxTokens`. */
export const MODELS_WITHOUT_MAX_TOKENS: ReadonlySet<string> = new Set(["vapi"]);

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** What we send as `POST /assistant` (a subset of Vapi's CreateAssistantDTO). */
export interface VapiAssistantPayload extends JsonObject {
  name: string;
  firstMessageMode: "assistant-speaks-first" | "assistant-waits-for-user";
  model: JsonObject;
  transcriber: JsonObject;
  voice: JsonObject;
  hooks: JsonObject[];
  endCallPhrases: string[];
  maxDurationSeconds: number;
  backgroundSound: string;
  backgroundSpeechDenoisingPlan: JsonObject;
  analysisPlan: JsonObject;
  artifactPlan: JsonObject;
  startSpeakingPlan: JsonObject;
  stopSpeakingPlan: JsonObject;
  metadata: { agentId: string; orgId: string };
}

export interface VapiAssistantOptions {
  /** PUBLIC_URL: where the server is reached from outside. */
  publicUrl: string;
  /**
   * Our webhook path below publicUrl (e.g. "/api/webhooks/vapi"): when given, every assistant gets
   * `server.url = publicUrl + webhookPath`, so calls report back to us. It wins over the agent's own
   * server_url: the call log and the wallet depend on these events (Vapi posts to one URL only). Null:
   * the agent's server_url, if any.
   */
  webhookPath?: string | null;
  /** The Vapi credential (HMAC) that signs what Vapi posts to our webhook: `server.credentialId`. */
  webhookCredentialId?: string | null;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Cuts to at most `max` characters (code points, as JSON Schema's maxLength counts them). */
function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join("").trimEnd();
}

const TRANSCRIPT_MESSAGE = {
  role: "user",
  content: "Here is the transcript:\n\n{{transcript}}\n\n. Here is the ended reason of the call:\n\n{{endedReason}}\n\n",
};

function analysisPlan(agent: AgentForSync): JsonObject {
  const plan = agent.config.analysis_plan;
  const summary = plan.summary_prompt.trim();
  const structured = plan.structured_data_prompt.trim();
  const success = plan.success_evaluation_prompt.trim();
  return {
    // An empty summary prompt keeps Vapi's default summary (the call log shows one).
    summaryPlan: summary ? { enabled: true, messages: [{ role: "system", content: summary }, TRANSCRIPT_MESSAGE] } : { enabled: true },
    // Structured data needs instructions: none given, none extracted.
    structuredDataPlan: structured
      ? {
          enabled: true,
          schema: { type: "object", description: cut(structured, 1000) },
          messages: [
            {
              role: "system",
              content:
                `You are an expert data extractor. You will be given a transcript of a call. ${structured}\n\n` +
                "Json Schema:\n{{schema}}\n\nOnly respond with the JSON.",
            },
            TRANSCRIPT_MESSAGE,
          ],
        }
      : { enabled: false },
    successEvaluationPlan: {
      enabled: true,
      rubric: plan.success_evaluation_rubric,
      ...(success
        ? {
            messages: [
              { role: "system", content: `${success}\n\nRubric:\n{{rubric}}\n\nOnly respond with the result.` },
              { role: "user", content: "Here is the transcript:\n\n{{transcript}}\n\n" },
              {
                role: "user",
                content: "Here was the system prompt of the call:\n\n{{systemPrompt}}\n\n. Here is the ended reason of the call:\n\n{{endedReason}}\n\n",
              },
            ],
          }
        : {}),
    },
  };
}

/** A function tool (Vapi's CreateFunctionToolDTO) whose `tool-calls` go to `server` (none: the assistant's). */
function functionTool(spec: FunctionToolSpec, server: JsonObject | null): JsonObject {
  return {
    type: "function",
    function: { name: spec.name, description: spec.description, parameters: spec.parameters as unknown as JsonObject },
    ...(server ? { server } : {}),
  };
}

function tools(agent: AgentForSync, options: VapiAssistantOptions): JsonObject[] {
  const { config } = agent;
  const list: JsonObject[] = [];
  if (config.endCallFunctionEnabled) list.push({ type: "endCall" });
  // Files uploaded while the server ran in sandbox mode have no provider id: Vapi cannot search them.
  const files = agent.knowledgeBase.filter((file): file is typeof file & { providerFileId: string } => Boolean(file.providerFileId));
  if (files.length > 0) {
    list.push({
      type: "query",
      knowledgeBases: [
        {
          provider: "google",
          name: cut(`${config.agent_name} knowledge base`, 100),
          description: cut(
            `Documents for ${config.agent_name}: ${files.map((file) => file.name).join(", ")}. ` +
              "Search them when the caller asks about anything these documents may cover.",
            1000,
          ),
          fileIds: files.map((file) => file.providerFileId),
        },
      ],
    });
  }
  if (config.forward_phone_number) {
    list.push({
      type: "transferCall",
      destinations: [
        {
          type: "number",
          number: config.forward_phone_number,
          description: "Transfer the call to a person when the caller asks for one or when you cannot help.",
        },
      ],
    });
  }
  // Only our webhook answers the booking tools: never an agent's own server_url.
  if (config.appointment_enable) list.push(...BOOKING_TOOLS.map((spec) => functionTool(spec, webhookServer(options))));
  return list;
}

function voice(agent: AgentForSync): JsonObject {
  const settings = agent.config.voice;
  const provider = settings.voice_provider;
  const model = settings.voice_model?.trim() || catalogueModelFor(provider, settings.voice_providerId);
  const out: JsonObject = { provider, voiceId: settings.voice_providerId };
  if (model && VOICE_PROVIDERS_WITH_MODEL.has(provider)) out.model = model;
  const speed = VOICE_SPEED[provider];
  if (speed) out[speed.field] = clamp(settings.speed, speed.min, speed.max);
  return out;
}

/**
 * With no voice_model chosen, the first model our catalogue lists for that voice: Vapi would otherwise
 * pick its own default (Deepgram: aura-2), which lacks some voices — the spec's default `angus` is Aura only.
 */
function catalogueModelFor(provider: string, voiceId: string): string | null {
  const entry = VOICE_CATALOG.find((candidate) => candidate.provider === provider);
  return entry?.voices.find((candidate) => candidate.id === voiceId)?.models?.[0] ?? null;
}

function transcriber(agent: AgentForSync): JsonObject {
  const settings = agent.config.transcriber;
  const provider = settings.transcriber_provider;
  const out: JsonObject = { provider };
  if (!TRANSCRIBERS_WITHOUT_MODEL.has(provider)) out.model = settings.transcriber_model;
  if (!TRANSCRIBERS_WITHOUT_LANGUAGE.has(provider)) out.language = settings.transcriber_language;
  return out;
}

function startSpeakingPlan(agent: AgentForSync): JsonObject {
  const settings = agent.config.voice;
  const plan: JsonObject = {
    waitSeconds: settings.voice_start_wait_seconds,
    transcriptionEndpointingPlan: {
      onPunctuationSeconds: settings.voice_start_punctuation_seconds,
      onNoPunctuationSeconds: settings.voice_start_no_punctuation_seconds,
      onNumberSeconds: settings.voice_start_number_seconds,
    },
  };
  if (settings.voice_start_smart_endpointing_enabled) {
    // Vapi recommends LiveKit's model in English; it does not support other languages yet.
    const english = /^en(\b|[-_])|^english/i.test(agent.config.transcriber.transcriber_language);
    plan.smartEndpointingPlan = { provider: english ? "livekit" : "vapi" };
  }
  return plan;
}

function stopSpeakingPlan(agent: AgentForSync): JsonObject {
  const settings = agent.config.voice;
  const plan: JsonObject = { numWords: settings.voice_stop_number_of_words, backoffSeconds: settings.voice_stop_back_off_seconds };
  // Vapi uses voiceSeconds only when numWords is 0, and takes 0–0.5 s.
  if (settings.voice_stop_number_of_words === 0) plan.voiceSeconds = Math.min(VAPI_LIMITS.stopVoiceSecondsMax, settings.voice_stop_voice_seconds);
  return plan;
}

/** The `customer.speech.timeout` hook that ends the call after silence_timeout_seconds without the caller speaking. */
function silenceHook(agent: AgentForSync): JsonObject {
  const { min, max } = VAPI_LIMITS.speechTimeoutSeconds;
  return {
    on: "customer.speech.timeout",
    options: { timeoutSeconds: clamp(agent.config.silence_timeout_seconds, min, max), triggerMaxCount: 1 },
    do: [{ type: "tool", tool: { type: "endCall" } }],
  };
}

/** Our webhook (PUBLIC_URL + webhookPath) with the credential that signs what Vapi posts there; null without a webhookPath. */
function webhookServer(options: VapiAssistantOptions): JsonObject | null {
  if (!options.webhookPath) return null;
  const url = `${options.publicUrl.replace(/\/+$/, "")}${options.webhookPath}`;
  return options.webhookCredentialId ? { url, credentialId: options.webhookCredentialId } : { url };
}

function serverOf(agent: AgentForSync, options: VapiAssistantOptions): JsonObject | null {
  const webhook = webhookServer(options);
  if (webhook) return webhook;
  if (agent.config.analysis_plan.server_url) return { url: agent.config.analysis_plan.server_url };
  return null;
}

/** `POST /assistant`: the assistant for one of our agents. Optional texts that are empty are left out. */
export function toVapiAssistant(agent: AgentForSync, options: VapiAssistantOptions): VapiAssistantPayload {
  const { config } = agent;
  const welcome = config.agent_welcome_message.trim();
  const endMessage = config.agent_end_call_message.trim();
  const voicemail = config.voice.voice_mail?.trim() || null;
  const server = serverOf(agent, options);
  const payload: VapiAssistantPayload = {
    name: cut(config.agent_name.trim(), VAPI_LIMITS.nameMaxLength),
    firstMessageMode: welcome ? "assistant-speaks-first" : "assistant-waits-for-user",
    ...(welcome ? { firstMessage: welcome } : {}),
    ...(endMessage ? { endCallMessage: endMessage } : {}),
    model: {
      provider: config.model_provider,
      model: config.model,
      ...(MODELS_WITHOUT_MAX_TOKENS.has(config.model_provider) ? {} : { maxTokens: config.max_token }),
      temperature: config.voice.temprature,
      messages: [{ role: "system", content: config.agent_prompt }],
      toolIds: [...config.model_tool_id],
      tools: tools(agent, options),
      emotionRecognitionEnabled: config.emotion_recoginition,
    },
    transcriber: transcriber(agent),
    voice: voice(agent),
    hooks: [silenceHook(agent)],
    endCallPhrases: [...new Set(config.endCallPhrases.map((phrase) => phrase.trim()))].filter(
      (phrase) => Array.from(phrase).length >= VAPI_LIMITS.endCallPhraseMinLength,
    ),
    maxDurationSeconds: config.max_duration_seconds,
    backgroundSound: config.voice.background_sound,
    backgroundSpeechDenoisingPlan: { smartDenoisingPlan: { enabled: config.voice.background_denoising } },
    ...(voicemail ? { voicemailMessage: voicemail } : {}),
    analysisPlan: analysisPlan(agent),
    artifactPlan: { recordingEnabled: config.voice.audio_recording, videoRecordingEnabled: config.voice.video_recording },
    startSpeakingPlan: startSpeakingPlan(agent),
    stopSpeakingPlan: stopSpeakingPlan(agent),
    ...(server ? { server } : {}),
    metadata: { agentId: agent.id, orgId: agent.orgId },
  };
  return payload;
}

/**
 * `PATCH /assistant/{id}`: the same fields, plus explicit empty values for the optional ones the agent
 * no longer has. Vapi's PATCH keeps a top-level field that is absent, and its schema takes no nulls, so a
 * removed welcome/end/voicemail message is sent as "" and a removed server URL as an empty `server`.
 */
export function toVapiAssistantUpdate(agent: AgentForSync, options: VapiAssistantOptions): VapiAssistantPayload {
  const payload = toVapiAssistant(agent, options);
  return {
    firstMessage: "",
    endCallMessage: "",
    voicemailMessage: "",
    server: {},
    ...payload,
  };
}
