/**
 * What the server sends to Vapi, checked against Vapi's own published OpenAPI document
 * (../shared/vendor/vapi/openapi.json; ARCHITECTURE.md §6): valid against CreateAssistantDTO and
 * UpdateAssistantDTO, with no field the schema does not know at any depth, and mapped field by field;
 * an agent with appointment booking on carries the booking tools as function tools (CreateFunctionToolDTO)
 * whose server is our webhook, and loses them when it is turned off.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { agentConfigSchema, DEFAULT_AGENT_CONFIG, type AgentConfigInput } from "../../contract/agent";
import {
  MODELS_WITHOUT_MAX_TOKENS,
  toVapiAssistant,
  toVapiAssistantUpdate,
  TRANSCRIBERS_WITHOUT_LANGUAGE,
  TRANSCRIBERS_WITHOUT_MODEL,
  VAPI_LIMITS,
  VOICE_PROVIDERS_WITH_MODEL,
  VOICE_SPEED,
  type VapiAssistantPayload,
} from "../../server/voice/vapi-assistant";
import type { AgentForSync } from "../../server/voice/types";
import { toVapiCall } from "../../server/voice/vapi-calls";
import { OPT_OUT_TOOL } from "../../server/campaigns/opt-out";
import { ORDER_OUTCOME_TOOL } from "../../server/orders/outcome";
import { BOOKING_TOOLS } from "../../server/calendar/tools-definitions";
import { BOOKING_TOOL_NAMES } from "../../contract/calendar-shared";
import { loadVapiOpenApi, type VapiOpenApi } from "./fakes/vapi-openapi";

const OPTIONS = { publicUrl: "https://voice.example.com" };
const ORG = "org_contract";

function agentWith(input: AgentConfigInput, knowledgeBase: AgentForSync["knowledgeBase"] = []): AgentForSync {
  return { id: randomUUID(), orgId: ORG, config: agentConfigSchema.parse(input), knowledgeBase };
}

const fileA = { id: randomUUID(), name: "pricing.pdf", providerFileId: "vapi-file-a" };
const fileB = { id: randomUUID(), name: "faq.md", providerFileId: "vapi-file-b" };
/** Uploaded in sandbox mode: Vapi does not have it. */
const localOnly = { id: randomUUID(), name: "local.txt", providerFileId: null };

/** Every setting away from its default: tools, KB files, forwarding, server URL, voicemail, smart endpointing, 11labs voice, numWords 0. */
const FULL: AgentConfigInput = {
  agent_name: "Northwind Traders after-hours order desk and returns line",
  description: "Takes orders after hours",
  agent_welcome_message: "Hi, you've reached Northwind. How can I help?",
  agent_end_call_message: "Thanks for calling Northwind. Goodbye!",
  agent_prompt: "You take orders for Northwind Traders.",
  silence_timeout_seconds: 3600,
  max_duration_seconds: 1800,
  max_token: 800,
  model: "gpt-4o-mini",
  model_provider: "openai",
  model_tool_id: ["2f0b5e52-5c1a-4b8e-9d7a-0c7e1f0a9b11", "8d1c4f7e-1111-4a2b-8c3d-222233334444"],
  emotion_recoginition: false,
  knowledge_base_files: [fileA.id, fileB.id, localOnly.id],
  forward_phone_number: "+14155550123",
  endCallFunctionEnabled: true,
  endCallPhrases: ["goodbye", "  talk to you later ", "goodbye", "k"],
  appointment_enable: true,
  analysis_plan: {
    summary_prompt: "Summarise the order in two lines.",
    structured_data_prompt: "Extract the items ordered and the delivery address.",
    success_evaluation_prompt: "Did the caller place an order?",
    success_evaluation_rubric: "PassFail",
    server_url: "https://hooks.example.com/vapi",
  },
  transcriber: { transcriber_provider: "deepgram", transcriber_model: "nova-2", transcriber_language: "en-US" },
  voice: {
    voice_provider: "11labs",
    voice_providerId: "21m00Tcm4TlvDq8ikWAM",
    voice_name: "Rachel",
    temprature: 1.3,
    speed: 1.5,
    voice_model: "eleven_turbo_v2_5",
    audio_recording: false,
    video_recording: true,
    background_denoising: true,
    background_sound: "office",
    voice_mail: "Sorry we missed you. Please call back during business hours.",
    voice_start_wait_seconds: 0.6,
    voice_start_smart_endpointing_enabled: true,
    voice_start_punctuation_seconds: 0.2,
    voice_start_no_punctuation_seconds: 2.5,
    voice_start_number_seconds: 0.9,
    voice_stop_number_of_words: 0,
    voice_stop_voice_seconds: 1.1,
    voice_stop_back_off_seconds: 2,
  },
};

/** A voice id each provider's schema accepts (some are enums). */
const VOICE_IDS: Record<string, string> = {
  azure: "andrew",
  cartesia: "a0e99841-438c-4a64-b679-ae501e7d6091",
  deepgram: "angus",
  "11labs": "burt",
  hume: "ito",
  lmnt: "amy",
  openai: "alloy",
  playht: "jennifer",
  wellsaid: "3",
  "rime-ai": "cove",
  "smallest-ai": "emily",
  vapi: "Elliot",
  inworld: "Alex",
  minimax: "Wise_Woman",
  xai: "eve",
  microsoft: "de-DE-Klaus:MAI-Voice-2",
};

let vapi: VapiOpenApi;
beforeAll(() => {
  vapi = loadVapiOpenApi();
});

const schemaOf = (name: string) => vapi.schemas[name] as { properties: Record<string, Record<string, unknown>>; required?: string[] };
/** The component schemas a CreateAssistantDTO property offers (its anyOf branches). */
function branchesOf(property: string): { name: string; schema: ReturnType<typeof schemaOf> }[] {
  const anyOf = schemaOf("CreateAssistantDTO").properties[property]!.anyOf as { $ref: string }[];
  return anyOf.map(({ $ref }) => {
    const name = $ref.split("/").pop()!;
    return { name, schema: schemaOf(name) };
  });
}
const providerOf = (schema: ReturnType<typeof schemaOf>) => (schema.properties.provider!.enum as string[])[0]!;

function expectAccepted(payload: unknown) {
  expect(vapi.problems("CreateAssistantDTO", payload)).toEqual([]);
}
function expectAcceptedAsUpdate(payload: unknown) {
  expect(vapi.problems("UpdateAssistantDTO", payload)).toEqual([]);
}

describe("the unknown-field walk itself", () => {
  it("finds an undeclared property at the top, deep inside a oneOf branch, and in array items", () => {
    const payload = {
      ...toVapiAssistant(agentWith({}), OPTIONS),
      madeUp: 1,
      voice: { provider: "deepgram", voiceId: "angus", speed: 1 },
      model: { provider: "openai", model: "gpt-4o", tools: [{ type: "endCall", whatever: true }] },
      stopSpeakingPlan: { numWords: 1, nope: 2 },
    };
    // JSON Schema alone accepts all of it.
    expect(vapi.validate("CreateAssistantDTO", payload)).toEqual([]);
    expect(vapi.unknownFields("CreateAssistantDTO", payload).sort()).toEqual(
      ["madeUp", "model.tools[0].whatever", "stopSpeakingPlan.nope", "voice.speed"].sort(),
    );
  });

  it("rejects what the mapper must not send: the spec's raw values and the removed field", () => {
    const problems = vapi.problems("CreateAssistantDTO", {
      name: "x".repeat(41),
      silenceTimeoutSeconds: 10,
      stopSpeakingPlan: { numWords: 3, voiceSeconds: 1.1 },
      hooks: [{ on: "customer.speech.timeout", options: { timeoutSeconds: 3600 }, do: [] }],
      model: { provider: "openai", model: "gpt-4o", tools: [{ type: "query", knowledgeBases: [{ provider: "google", name: "kb", fileIds: [] }] }] },
    });
    for (const expected of ["/name", "unknown field silenceTimeoutSeconds", "/stopSpeakingPlan/voiceSeconds", "/hooks/0/options/timeoutSeconds", "description"]) {
      expect(problems.some((line) => line.includes(expected)), `${expected} in ${problems.join("\n")}`).toBe(true);
    }
  });

  it("lets free-form objects (metadata, message lists) through", () => {
    expect(vapi.unknownFields("CreateAssistantDTO", { metadata: { anything: { nested: true } } })).toEqual([]);
  });
});

describe("Vapi payloads for an agent validate against Vapi's schema", () => {
  it("the default agent (DEFAULT_AGENT_CONFIG) as CreateAssistantDTO and UpdateAssistantDTO", () => {
    const agent: AgentForSync = { id: randomUUID(), orgId: ORG, config: DEFAULT_AGENT_CONFIG, knowledgeBase: [] };
    expectAccepted(toVapiAssistant(agent, OPTIONS));
    expectAcceptedAsUpdate(toVapiAssistantUpdate(agent, OPTIONS));
  });

  it("an agent with every field set", () => {
    const agent = agentWith(FULL, [fileA, fileB, localOnly]);
    expectAccepted(toVapiAssistant(agent, OPTIONS));
    expectAcceptedAsUpdate(toVapiAssistantUpdate(agent, OPTIONS));
  });

  it("empty optional texts, a custom background sound URL and our webhook as the server", () => {
    const agent = agentWith({
      agent_welcome_message: "",
      agent_end_call_message: "",
      voice: { background_sound: "https://cdn.example.com/cafe.mp3", voice_mail: "   " },
      analysis_plan: { summary_prompt: "", structured_data_prompt: "", success_evaluation_prompt: "" },
    });
    const options = { ...OPTIONS, webhookPath: "/api/webhook/vapi" };
    expectAccepted(toVapiAssistant(agent, options));
    expectAcceptedAsUpdate(toVapiAssistantUpdate(agent, options));
    expectAcceptedAsUpdate(toVapiAssistantUpdate(agent, OPTIONS));
  });

  it("every voice provider in Vapi's schema that needs nothing beyond a voice id, with and without a model and speed", () => {
    const providers = branchesOf("voice")
      .map(({ schema }) => providerOf(schema))
      .filter((provider) => VOICE_IDS[provider]);
    expect(providers.length).toBeGreaterThanOrEqual(14);
    for (const provider of providers) {
      const withoutModel = agentWith({ voice: { voice_provider: provider, voice_providerId: VOICE_IDS[provider]!, speed: 1.9 } });
      expect({ provider, problems: vapi.problems("CreateAssistantDTO", toVapiAssistant(withoutModel, OPTIONS)) }).toEqual({ provider, problems: [] });
      const voiceSchema = branchesOf("voice").find(({ schema }) => providerOf(schema) === provider)!.schema;
      const models = voiceSchema.properties.model?.enum as string[] | undefined;
      if (models?.[0]) {
        const withModel = agentWith({ voice: { voice_provider: provider, voice_providerId: VOICE_IDS[provider]!, voice_model: models[0], speed: 0.5 } });
        expect({ provider, problems: vapi.problems("UpdateAssistantDTO", toVapiAssistantUpdate(withModel, OPTIONS)) }).toEqual({ provider, problems: [] });
      }
    }
  });

  it("every transcriber provider that needs nothing beyond its provider, and every model provider", () => {
    const tested: string[] = [];
    for (const { schema } of branchesOf("transcriber")) {
      const provider = providerOf(schema);
      if ((schema.required ?? []).some((field) => field !== "provider" && field !== "model")) continue; // custom-transcriber (server), speechmatics (customVocabulary)
      tested.push(provider);
      const modelEnum = (schema.properties.model?.enum ?? (schema.properties.model?.anyOf as { enum?: string[] }[] | undefined)?.[0]?.enum) as string[] | undefined;
      const languageEnum = schema.properties.language?.enum as string[] | undefined;
      const agent = agentWith({
        transcriber: {
          transcriber_provider: provider,
          transcriber_model: modelEnum?.[0] ?? "default",
          transcriber_language: languageEnum?.includes("en") ? "en" : (languageEnum?.[0] ?? "en"),
        },
      });
      expect({ provider, problems: vapi.problems("CreateAssistantDTO", toVapiAssistant(agent, OPTIONS)) }).toEqual({ provider, problems: [] });
    }
    for (const { schema } of branchesOf("model")) {
      const provider = providerOf(schema);
      if ((schema.required ?? []).includes("url")) continue; // custom-llm needs its URL
      const modelEnum = schema.properties.model?.enum as string[] | undefined;
      const agent = agentWith({ model_provider: provider, model: modelEnum?.[0] ?? "some-model", model_tool_id: ["tool-1"], endCallFunctionEnabled: true });
      expect({ provider, problems: vapi.problems("CreateAssistantDTO", toVapiAssistant(agent, OPTIONS)) }).toEqual({ provider, problems: [] });
      tested.push(`model:${provider}`);
    }
    expect(tested).toEqual(expect.arrayContaining(["deepgram", "11labs", "openai", "assembly-ai", "azure", "vapi", "model:openai", "model:anthropic", "model:google", "model:vapi"]));
  });
});

describe("the mapper's provider tables match Vapi's schema", () => {
  it("VOICE_SPEED lists exactly the voice providers with a top-level speed (or Inworld's speakingRate), with their ranges", () => {
    const fromSchema: Record<string, { field: string; min: number; max: number }> = {};
    for (const { schema } of branchesOf("voice")) {
      const field = schema.properties.speed ? "speed" : schema.properties.speakingRate ? "speakingRate" : null;
      if (!field) continue;
      const range = schema.properties[field] as { minimum?: number; maximum?: number };
      fromSchema[providerOf(schema)] = { field, min: range.minimum ?? Number.NEGATIVE_INFINITY, max: range.maximum ?? Number.POSITIVE_INFINITY };
    }
    expect(VOICE_SPEED).toEqual(fromSchema);
    expect(fromSchema.deepgram).toBeUndefined();
  });

  it("VOICE_PROVIDERS_WITH_MODEL, TRANSCRIBERS_WITHOUT_MODEL/LANGUAGE and MODELS_WITHOUT_MAX_TOKENS follow the schema", () => {
    const voiceWithModel = branchesOf("voice").filter(({ schema }) => schema.properties.model).map(({ schema }) => providerOf(schema));
    expect([...VOICE_PROVIDERS_WITH_MODEL].sort()).toEqual(voiceWithModel.sort());
    const transcribers = branchesOf("transcriber");
    expect([...TRANSCRIBERS_WITHOUT_MODEL].sort()).toEqual(transcribers.filter(({ schema }) => !schema.properties.model).map(({ schema }) => providerOf(schema)).sort());
    expect([...TRANSCRIBERS_WITHOUT_LANGUAGE].sort()).toEqual(
      transcribers.filter(({ schema }) => !schema.properties.language).map(({ schema }) => providerOf(schema)).sort(),
    );
    const models = branchesOf("model");
    expect([...MODELS_WITHOUT_MAX_TOKENS].sort()).toEqual(models.filter(({ schema }) => !schema.properties.maxTokens).map(({ schema }) => providerOf(schema)).sort());
  });

  it("VAPI_LIMITS are the schema's", () => {
    expect(schemaOf("CreateAssistantDTO").properties.name!.maxLength).toBe(VAPI_LIMITS.nameMaxLength);
    expect((schemaOf("CreateAssistantDTO").properties.endCallPhrases!.items as { minLength: number }).minLength).toBe(VAPI_LIMITS.endCallPhraseMinLength);
    const timeout = schemaOf("CustomerSpeechTimeoutOptions").properties.timeoutSeconds as { minimum: number; maximum: number };
    expect({ min: timeout.minimum, max: timeout.maximum }).toEqual(VAPI_LIMITS.speechTimeoutSeconds);
    expect(schemaOf("StopSpeakingPlan").properties.voiceSeconds!.maximum).toBe(VAPI_LIMITS.stopVoiceSecondsMax);
    // Silence timeout moved from the assistant to hooks; analysisPlan is deprecated but still there.
    expect(schemaOf("CreateAssistantDTO").properties.silenceTimeoutSeconds).toBeUndefined();
    expect(schemaOf("CreateAssistantDTO").properties.analysisPlan!.deprecated).toBe(true);
  });
});

describe("the mapping, field by field (ARCHITECTURE.md §6)", () => {
  const defaults = () => toVapiAssistant({ id: "agent-1", orgId: ORG, config: DEFAULT_AGENT_CONFIG, knowledgeBase: [] }, OPTIONS);
  const full = () => toVapiAssistant(agentWith(FULL, [fileA, fileB, localOnly]), OPTIONS);

  it("messages, model and its settings", () => {
    const payload = defaults();
    expect(payload).toMatchObject({
      name: "Purchase Completion Agent",
      firstMessage: "Hello! How are you doing today?",
      firstMessageMode: "assistant-speaks-first",
      endCallMessage: "Thank you for calling. Have a great day!",
      maxDurationSeconds: 240,
      metadata: { agentId: "agent-1", orgId: ORG },
    });
    expect(payload.model).toEqual({
      provider: "openai",
      model: "gpt-4o",
      maxTokens: 500,
      temperature: 0.5,
      messages: [{ role: "system", content: DEFAULT_AGENT_CONFIG.agent_prompt }],
      toolIds: [],
      tools: [],
      emotionRecognitionEnabled: true,
    });
    const fullModel = full().model;
    expect(fullModel).toMatchObject({ model: "gpt-4o-mini", maxTokens: 800, temperature: 1.3, emotionRecognitionEnabled: false, toolIds: FULL.model_tool_id });
  });

  it("the spec's default voice angus is sent with Deepgram's Aura model, which has it (Vapi's own default, aura-2, does not)", () => {
    expect(toVapiAssistant(agentWith({}), OPTIONS).voice).toEqual({ provider: "deepgram", voiceId: "angus", model: "aura" });
    const chosen = toVapiAssistant(agentWith({ voice: { voice_providerId: "thalia", voice_model: "aura-2" } }), OPTIONS).voice;
    expect(chosen).toEqual({ provider: "deepgram", voiceId: "thalia", model: "aura-2" });
  });

  it("temprature (spelt so) becomes model.temperature, not a voice field", () => {
    const payload = toVapiAssistant(agentWith({ voice: { temprature: 1.7 } }), OPTIONS);
    expect(payload.model.temperature).toBe(1.7);
    expect(payload.voice).not.toHaveProperty("temperature");
  });

  it("tools: endCall when enabled, one query tool with the files Vapi has, a transferCall to the forwarding number", () => {
    expect(full().model.tools).toEqual([
      { type: "endCall" },
      {
        type: "query",
        knowledgeBases: [
          {
            provider: "google",
            name: "Northwind Traders after-hours order desk and returns line knowledge base",
            description: expect.stringContaining("pricing.pdf, faq.md"),
            fileIds: ["vapi-file-a", "vapi-file-b"],
          },
        ],
      },
      { type: "transferCall", destinations: [{ type: "number", number: "+14155550123", description: expect.any(String) }] },
      // appointment_enable: the booking tools (their own tests below).
      ...BOOKING_TOOLS.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    ]);
    // Only sandbox-stored files: no query tool at all.
    const onlyLocal = toVapiAssistant(agentWith({ knowledge_base_files: [localOnly.id] }, [localOnly]), OPTIONS);
    expect(onlyLocal.model.tools).toEqual([]);
  });

  it("silence_timeout_seconds becomes a customer.speech.timeout hook that ends the call (capped at Vapi's 1000 s)", () => {
    expect(defaults().hooks).toEqual([
      { on: "customer.speech.timeout", options: { timeoutSeconds: 10, triggerMaxCount: 1 }, do: [{ type: "tool", tool: { type: "endCall" } }] },
    ]);
    expect((full().hooks[0]!.options as { timeoutSeconds: number }).timeoutSeconds).toBe(1000);
    expect(defaults()).not.toHaveProperty("silenceTimeoutSeconds");
  });

  it("stopSpeakingPlan.voiceSeconds only when numWords is 0, and at most 0.5", () => {
    expect(defaults().stopSpeakingPlan).toEqual({ numWords: 3, backoffSeconds: 1.1 });
    expect(full().stopSpeakingPlan).toEqual({ numWords: 0, backoffSeconds: 2, voiceSeconds: 0.5 });
    const small = toVapiAssistant(agentWith({ voice: { voice_stop_number_of_words: 0, voice_stop_voice_seconds: 0.3 } }), OPTIONS);
    expect(small.stopSpeakingPlan.voiceSeconds).toBe(0.3);
  });

  it("speed: none for Deepgram voices, clamped into the provider's range for the others", () => {
    expect(defaults().voice).toEqual({ provider: "deepgram", voiceId: "angus", model: "aura" });
    const deepgramFast = toVapiAssistant(agentWith({ voice: { speed: 1.8, voice_model: "aura-2" } }), OPTIONS);
    expect(deepgramFast.voice).toEqual({ provider: "deepgram", voiceId: "angus", model: "aura-2" });
    expect(full().voice).toEqual({ provider: "11labs", voiceId: "21m00Tcm4TlvDq8ikWAM", model: "eleven_turbo_v2_5", speed: 1.2 });
    const openai = toVapiAssistant(agentWith({ voice: { voice_provider: "openai", voice_providerId: "alloy", speed: 1.8 } }), OPTIONS);
    expect(openai.voice).toEqual({ provider: "openai", voiceId: "alloy", speed: 1.8 });
    const cartesia = toVapiAssistant(agentWith({ voice: { voice_provider: "cartesia", voice_providerId: "abc", voice_model: "sonic-3", speed: 1.3 } }), OPTIONS);
    expect(cartesia.voice).toEqual({ provider: "cartesia", voiceId: "abc", model: "sonic-3" });
    const azure = toVapiAssistant(agentWith({ voice: { voice_provider: "azure", voice_providerId: "andrew", voice_model: "ignored", speed: 0.6 } }), OPTIONS);
    expect(azure.voice).toEqual({ provider: "azure", voiceId: "andrew", speed: 0.6 });
  });

  it("transcriber, analysis plan, artifacts, denoising, background sound, voicemail, server", () => {
    const payload = full();
    expect(payload.transcriber).toEqual({ provider: "deepgram", model: "nova-2", language: "en-US" });
    expect(defaults().transcriber).toEqual({ provider: "deepgram", model: "nova-3", language: "en" });
    expect(payload.analysisPlan).toMatchObject({
      summaryPlan: { enabled: true, messages: [{ role: "system", content: "Summarise the order in two lines." }, { role: "user" }] },
      structuredDataPlan: { enabled: true, schema: { type: "object" }, messages: [{ role: "system", content: expect.stringContaining("items ordered") }, { role: "user" }] },
      successEvaluationPlan: { enabled: true, rubric: "PassFail", messages: [{ role: "system", content: expect.stringContaining("place an order") }, {}, {}] },
    });
    expect(defaults().analysisPlan).toMatchObject({
      summaryPlan: { enabled: true, messages: [{ role: "system", content: DEFAULT_AGENT_CONFIG.analysis_plan.summary_prompt }, { role: "user" }] },
      structuredDataPlan: { enabled: false },
      successEvaluationPlan: { enabled: true, rubric: "PercentageScale" },
    });
    expect(payload.artifactPlan).toEqual({ recordingEnabled: false, videoRecordingEnabled: true });
    expect(defaults().artifactPlan).toEqual({ recordingEnabled: true, videoRecordingEnabled: false });
    expect(payload.backgroundSpeechDenoisingPlan).toEqual({ smartDenoisingPlan: { enabled: true } });
    expect(payload.backgroundSound).toBe("office");
    expect(defaults().backgroundSound).toBe("off");
    expect(payload.voicemailMessage).toBe(FULL.voice!.voice_mail);
    expect(defaults()).not.toHaveProperty("voicemailMessage");
    expect(payload.server).toEqual({ url: "https://hooks.example.com/vapi" });
    expect(defaults()).not.toHaveProperty("server");
  });

  it("start speaking plan: wait, transcription endpointing, smart endpointing only when enabled", () => {
    expect(defaults().startSpeakingPlan).toEqual({
      waitSeconds: 2,
      transcriptionEndpointingPlan: { onPunctuationSeconds: 0.8, onNoPunctuationSeconds: 1.8, onNumberSeconds: 1.1 },
    });
    expect(full().startSpeakingPlan).toEqual({
      waitSeconds: 0.6,
      smartEndpointingPlan: { provider: "livekit" },
      transcriptionEndpointingPlan: { onPunctuationSeconds: 0.2, onNoPunctuationSeconds: 2.5, onNumberSeconds: 0.9 },
    });
    const french = toVapiAssistant(agentWith({ transcriber: { transcriber_language: "fr" }, voice: { voice_start_smart_endpointing_enabled: true } }), OPTIONS);
    expect(french.startSpeakingPlan.smartEndpointingPlan).toEqual({ provider: "vapi" });
  });

  it("name cut to Vapi's 40 characters; end-call phrases trimmed, deduplicated, none under 2 characters", () => {
    const payload = full();
    expect(Array.from(payload.name).length).toBeLessThanOrEqual(40);
    expect(payload.name).toBe("Northwind Traders after-hours order desk");
    expect(payload.endCallPhrases).toEqual(["goodbye", "talk to you later"]);
  });

  it("the update variant clears what the agent no longer has; the create variant leaves it out", () => {
    const agent = agentWith({ agent_end_call_message: "", voice: { voice_mail: null } });
    const create: VapiAssistantPayload = toVapiAssistant(agent, OPTIONS);
    expect(create).not.toHaveProperty("endCallMessage");
    expect(create).not.toHaveProperty("voicemailMessage");
    expect(create).not.toHaveProperty("server");
    expect(toVapiAssistantUpdate(agent, OPTIONS)).toMatchObject({ endCallMessage: "", voicemailMessage: "", server: {} });
    const full = toVapiAssistantUpdate(agentWith(FULL), OPTIONS);
    expect(full).toMatchObject({ voicemailMessage: FULL.voice!.voice_mail, server: { url: "https://hooks.example.com/vapi" } });
    expect(toVapiAssistantUpdate(agent, { ...OPTIONS, webhookPath: "/api/webhook/vapi" }).server).toEqual({ url: "https://voice.example.com/api/webhook/vapi" });
  });
});

describe("a campaign call's CreateCallDTO (the dialler)", () => {
  it("carries the contact's variables, our ids and the opt-out function tool in assistantOverrides['tools:append']: valid, nothing unknown", () => {
    const callId = randomUUID();
    const agent = agentWith({ agent_welcome_message: "Hello {{name}}, about your {{plan}} plan." });
    const payload = toVapiCall({
      callId,
      orgId: ORG,
      agent,
      assistantId: "asst-campaign",
      phoneNumber: { id: randomUUID(), number: "+14155550000", providerNumberId: "pn-campaign" },
      customer: { number: "+14155550104", name: "Grace Hopper" },
      variableValues: { plan: "Gold", name: "Grace Hopper" },
      campaign: { campaignId: randomUUID(), contactId: randomUUID(), attempt: 2 },
      optOutTool: OPT_OUT_TOOL,
      signal: AbortSignal.timeout(1000),
    });
    expect(vapi.problems("CreateCallDTO", payload)).toEqual([]);
    expect(payload.assistantOverrides).toEqual({
      variableValues: { plan: "Gold", name: "Grace Hopper" },
      metadata: { callId, orgId: ORG, agentId: agent.id },
      "tools:append": [{ type: "function", function: { name: "do_not_call", description: OPT_OUT_TOOL.description, parameters: OPT_OUT_TOOL.parameters } }],
    });
    // Neither the campaign's ids nor the abort signal travel to Vapi.
    expect(JSON.stringify(payload)).not.toContain("attempt");
  });

  it("an order follow-up call also carries record_order_outcome after do_not_call, with the order's variables: valid, nothing unknown", () => {
    const callId = randomUUID();
    const agent = agentWith({ agent_welcome_message: "Hi {{name}}, this is {{store_name}} about order {{order_reference}}." });
    const variableValues = { name: "Grace Hopper", cart_items: "2 × Blue mug ($12.00)", cart_total: "$24.00", checkout_link: "https://shop.example.com/c/1", store_name: "Mug Shop", order_reference: "#1042" };
    const payload = toVapiCall({
      callId,
      orgId: ORG,
      agent,
      assistantId: "asst-orders",
      phoneNumber: { id: randomUUID(), number: "+14155550000", providerNumberId: "pn-orders" },
      customer: { number: "+14155550100", name: "Grace Hopper" },
      variableValues,
      campaign: { campaignId: randomUUID(), contactId: randomUUID(), attempt: 1 },
      optOutTool: OPT_OUT_TOOL,
      orderOutcomeTool: ORDER_OUTCOME_TOOL,
    });
    expect(vapi.problems("CreateCallDTO", payload)).toEqual([]);
    expect(payload.assistantOverrides["tools:append"]!.map((tool) => tool.function.name)).toEqual(["do_not_call", "record_order_outcome"]);
    expect(payload.assistantOverrides["tools:append"]![1]).toEqual({ type: "function", function: { name: ORDER_OUTCOME_TOOL.name, description: ORDER_OUTCOME_TOOL.description, parameters: ORDER_OUTCOME_TOOL.parameters } });
    expect(payload.assistantOverrides.variableValues).toEqual(variableValues);
  });

  it("the function tool's name passes Vapi's own pattern (its /…/ delimiters stripped) and a bad name would not", () => {
    const payload = (name: string) => ({
      assistantId: "asst-campaign",
      phoneNumberId: "pn-campaign",
      customer: { number: "+14155550104" },
      assistantOverrides: { "tools:append": [{ type: "function", function: { name, parameters: { type: "object", properties: {} } } }] },
    });
    expect(vapi.problems("CreateCallDTO", payload(OPT_OUT_TOOL.name))).toEqual([]);
    expect(vapi.problems("CreateCallDTO", payload("do not call!"))).not.toEqual([]);
  });
});

describe("appointment booking (appointment_enable): the booking tools in model.tools", () => {
  const WEBHOOK = { ...OPTIONS, webhookPath: "/api/webhooks/vapi", webhookCredentialId: "cred-webhook-1" };
  const booking = (on: boolean) => agentWith({ appointment_enable: on, endCallFunctionEnabled: true });
  const functionTools = (payload: VapiAssistantPayload) => (payload.model.tools as { type: string; function?: { name: string } }[]).filter((tool) => tool.type === "function");

  it("on: the issue's four tools and find_appointment, each a function tool whose server is our webhook with its credential", () => {
    const payload = toVapiAssistant(booking(true), WEBHOOK);
    const tools = functionTools(payload);
    expect(tools.map((tool) => tool.function!.name)).toEqual(["check_availability", "book_appointment", "reschedule_appointment", "cancel_appointment", "find_appointment"]);
    for (const name of BOOKING_TOOL_NAMES) expect(tools.map((tool) => tool.function!.name)).toContain(name);
    for (const tool of tools) expect(tool).toMatchObject({ server: { url: "https://voice.example.com/api/webhooks/vapi", credentialId: "cred-webhook-1" } });
    expect(payload.server).toEqual({ url: "https://voice.example.com/api/webhooks/vapi", credentialId: "cred-webhook-1" });
    // The agent's other tools stay.
    expect(payload.model.tools).toContainEqual({ type: "endCall" });
  });

  it("each is a valid CreateFunctionToolDTO with nothing Vapi does not know, inside valid Create- and UpdateAssistantDTOs", () => {
    for (const tool of functionTools(toVapiAssistant(booking(true), WEBHOOK))) {
      expect({ tool: tool.function!.name, problems: vapi.problems("CreateFunctionToolDTO", tool) }).toEqual({ tool: tool.function!.name, problems: [] });
    }
    expectAccepted(toVapiAssistant(booking(true), WEBHOOK));
    expectAcceptedAsUpdate(toVapiAssistantUpdate(booking(true), WEBHOOK));
    expectAccepted(toVapiAssistant(booking(true), OPTIONS));
  });

  it("every argument is described, instants have format date-time and the day format date (issue 18); required ones are listed", () => {
    const byName = new Map(BOOKING_TOOLS.map((tool) => [tool.name, tool]));
    for (const tool of BOOKING_TOOLS) {
      for (const [name, property] of Object.entries(tool.parameters.properties)) {
        expect({ tool: tool.name, name, description: typeof property.description === "string" && property.description.length > 10 }).toEqual({ tool: tool.name, name, description: true });
      }
      for (const required of tool.parameters.required ?? []) expect(Object.keys(tool.parameters.properties)).toContain(required);
    }
    expect(byName.get("check_availability")!.parameters.properties).toMatchObject({ date: { type: "string", format: "date" }, after: { type: "string", format: "date-time" } });
    expect(byName.get("check_availability")!.parameters.required ?? []).toEqual([]);
    expect(byName.get("book_appointment")!.parameters).toMatchObject({ properties: { start: { format: "date-time" }, customer_email: { format: "email" } }, required: ["start", "customer_name"] });
    // The customer's number defaults to the caller's: never required.
    expect(byName.get("book_appointment")!.parameters.properties.customer_number!.description).toMatch(/calling from/);
    expect(byName.get("reschedule_appointment")!.parameters).toMatchObject({ properties: { start: { format: "date-time" }, appointment_id: { format: "uuid" } }, required: ["start"] });
    expect(byName.get("cancel_appointment")!.parameters.required ?? []).toEqual([]);
  });

  it("the descriptions tell the model to check first, to pass back the exact start, and that answers give today's date", () => {
    const check = BOOKING_TOOLS.find((tool) => tool.name === "check_availability")!;
    expect(check.description).toMatch(/before offering or booking/);
    expect(check.description).toMatch(/today's date/);
    expect(check.description).toMatch(/exact start/);
    expect(BOOKING_TOOLS.find((tool) => tool.name === "book_appointment")!.parameters.properties.start!.description).toMatch(/exactly as check_availability wrote it/);
  });

  it("off: none of them, and the update sends model.tools without them (Vapi's PATCH replaces the model, so they are removed there)", () => {
    expect(functionTools(toVapiAssistant(booking(false), WEBHOOK))).toEqual([]);
    const update = toVapiAssistantUpdate(booking(false), WEBHOOK);
    expect(update.model.tools).toEqual([{ type: "endCall" }]);
    expectAcceptedAsUpdate(update);
  });
});
