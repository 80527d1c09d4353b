/**
 * The agent editor's catalogue lists (GET /transcriber/, /voice/, /voice/models, /llm/): their shape,
 * that the spec's defaults are offered, and that every id is one Vapi's published OpenAPI document
 * accepts (../shared/vendor/vapi/openapi.json).
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_AGENT_CONFIG,
  llmCatalogResponseSchema,
  transcriberCatalogResponseSchema,
  voiceCatalogResponseSchema,
  voiceModelCatalogResponseSchema,
  type LlmCatalogEntry,
  type TranscriberCatalogEntry,
  type VoiceCatalogEntry,
  type VoiceModelCatalogEntry,
} from "../../contract";
import type { Database } from "../../server/db/client";
import { bearer, buildTestApp, migratedDatabase, signUp } from "./helpers";

const OPENAPI = fileURLToPath(new URL("../../../shared/vendor/vapi/openapi.json", import.meta.url));

interface JsonSchema {
  type?: string;
  enum?: string[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
}

let schemas: Record<string, JsonSchema>;
let database: Database;
let app: FastifyInstance;
let token: string;

beforeAll(async () => {
  if (!existsSync(OPENAPI)) throw new Error(`Vapi's OpenAPI document is expected at ${OPENAPI} (shared/vendor/vapi/openapi.json beside the project)`);
  schemas = (JSON.parse(readFileSync(OPENAPI, "utf8")) as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  token = (await signUp(app)).token;
});
afterAll(async () => {
  await app.close();
  await database.close();
});

async function list<T>(path: string): Promise<T[]> {
  const response = await app.inject({ method: "GET", url: `/api${path}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: T[] }).data;
}

function property(schemaName: string, name: string): JsonSchema | undefined {
  const schema = schemas[schemaName];
  if (!schema) throw new Error(`Vapi has no schema ${schemaName}`);
  return schema.properties?.[name];
}

/** The values a property lists, and whether it also takes any other string (an enum beside a free string). */
function allowedValues(schemaName: string, name: string): { values: string[]; open: boolean } {
  const schema = property(schemaName, name);
  if (!schema) return { values: [], open: false };
  const options = schema.oneOf ?? [schema];
  return {
    values: options.flatMap((option) => option.enum ?? []),
    open: options.some((option) => option.type === "string" && !option.enum),
  };
}

const TRANSCRIBER_SCHEMAS: Record<string, string> = {
  deepgram: "DeepgramTranscriber",
  openai: "OpenAITranscriber",
  "11labs": "ElevenLabsTranscriber",
  gladia: "GladiaTranscriber",
  cartesia: "CartesiaTranscriber",
};
const VOICE_SCHEMAS: Record<string, string> = { deepgram: "DeepgramVoice", openai: "OpenAIVoice", "11labs": "ElevenLabsVoice", azure: "AzureVoice", cartesia: "CartesiaVoice" };
const LLM_SCHEMAS: Record<string, string> = { openai: "OpenAIModel", anthropic: "AnthropicModel", google: "GoogleModel", groq: "GroqModel", xai: "XaiModel" };

describe("catalogue routes", () => {
  it("need a signed-in caller", async () => {
    for (const path of ["/transcriber/", "/voice/", "/voice/models", "/llm/", "/llm"]) {
      const response = await app.inject({ method: "GET", url: `/api${path}` });
      expect(response.statusCode, path).toBe(401);
    }
  });

  it("answer the contract's shapes", async () => {
    transcriberCatalogResponseSchema.parse({ data: await list("/transcriber/") });
    voiceCatalogResponseSchema.parse({ data: await list("/voice/") });
    voiceModelCatalogResponseSchema.parse({ data: await list("/voice/models") });
    llmCatalogResponseSchema.parse({ data: await list("/llm/") });
  });

  it("offer the spec's defaults: Deepgram nova-3 in English, Deepgram's angus voice, OpenAI's gpt-4o", async () => {
    const { transcriber, voice } = DEFAULT_AGENT_CONFIG;
    const deepgram = (await list<TranscriberCatalogEntry>("/transcriber/")).find((entry) => entry.provider === transcriber.transcriber_provider);
    expect(deepgram?.models[0]).toBe(transcriber.transcriber_model);
    expect(deepgram?.models).toContain("nova-2");
    expect(deepgram?.languages[0]).toEqual({ code: transcriber.transcriber_language, name: "English" });

    const voices = (await list<VoiceCatalogEntry>("/voice/")).find((entry) => entry.provider === voice.voice_provider);
    expect(voices?.voices).toContainEqual(expect.objectContaining({ id: voice.voice_providerId }));
    expect(voices?.supportsSpeed).toBe(false);

    const llm = (await list<LlmCatalogEntry>("/llm/")).find((entry) => entry.provider === DEFAULT_AGENT_CONFIG.model_provider);
    expect(llm?.models[0]).toEqual({ id: DEFAULT_AGENT_CONFIG.model, name: "GPT-4o" });
  });

  it("include the providers the editor needs", async () => {
    expect((await list<VoiceCatalogEntry>("/voice/")).map((entry) => entry.provider)).toEqual(expect.arrayContaining(["openai", "azure", "11labs", "cartesia", "deepgram"]));
    expect((await list<LlmCatalogEntry>("/llm/")).map((entry) => entry.provider)).toEqual(expect.arrayContaining(["openai", "anthropic", "google", "groq"]));
    const voiceProviders = (await list<VoiceCatalogEntry>("/voice/")).map((entry) => entry.provider);
    expect((await list<VoiceModelCatalogEntry>("/voice/models")).map((entry) => entry.provider)).toEqual(voiceProviders);
  });
});

describe("every id is one Vapi accepts (2026 OpenAPI document)", () => {
  it("transcribers: provider, models and languages", async () => {
    for (const entry of await list<TranscriberCatalogEntry>("/transcriber/")) {
      const schema = TRANSCRIBER_SCHEMAS[entry.provider];
      expect(schema, `a Vapi schema for transcriber ${entry.provider}`).toBeDefined();
      expect(allowedValues(schema!, "provider").values).toContain(entry.provider);
      const models = allowedValues(schema!, "model").values;
      for (const model of entry.models) expect(models, `${entry.provider} model ${model}`).toContain(model);
      const languages = allowedValues(schema!, "language").values;
      for (const { code } of entry.languages) expect(languages, `${entry.provider} language ${code}`).toContain(code);
      expect(new Set(entry.languages.map((language) => language.code)).size).toBe(entry.languages.length);
    }
  });

  it("voices: provider, voice ids, speed support and range", async () => {
    for (const entry of await list<VoiceCatalogEntry>("/voice/")) {
      const schema = VOICE_SCHEMAS[entry.provider];
      expect(schema, `a Vapi schema for voice ${entry.provider}`).toBeDefined();
      expect(allowedValues(schema!, "provider").values).toContain(entry.provider);
      const speed = property(schema!, "speed");
      expect(entry.supportsSpeed, `${entry.provider} speed`).toBe(speed !== undefined);
      if (speed) expect(entry.speedRange).toEqual({ min: speed.minimum, max: speed.maximum });

      const { values: presets, open } = allowedValues(schema!, "voiceId");
      const models = allowedValues(schema!, "model").values;
      for (const voice of entry.voices) {
        if (entry.provider === "azure" && !presets.includes(voice.id)) {
          // Azure takes any of its neural voice names.
          expect(open).toBe(true);
          expect(voice.id).toMatch(/^[a-z]{2}-[A-Z]{2}-[A-Za-z]+Neural$/);
        } else if (entry.provider === "cartesia") {
          expect(voice.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        } else {
          expect(presets, `${entry.provider} voice ${voice.id}`).toContain(voice.id);
        }
        for (const model of voice.models ?? []) expect(models).toContain(model);
      }
      expect(new Set(entry.voices.map((voice) => voice.id)).size).toBe(entry.voices.length);
    }
  });

  it("voice models", async () => {
    for (const entry of await list<VoiceModelCatalogEntry>("/voice/models")) {
      const schema = VOICE_SCHEMAS[entry.provider]!;
      const models = allowedValues(schema, "model").values;
      if (entry.models.length === 0) expect(property(schema, "model"), `${entry.provider} has no model choice`).toBeUndefined();
      for (const model of entry.models) expect(models, `${entry.provider} voice model ${model}`).toContain(model);
    }
  });

  it("language models", async () => {
    for (const entry of await list<LlmCatalogEntry>("/llm/")) {
      const schema = LLM_SCHEMAS[entry.provider];
      expect(schema, `a Vapi schema for model provider ${entry.provider}`).toBeDefined();
      expect(allowedValues(schema!, "provider").values).toContain(entry.provider);
      const models = allowedValues(schema!, "model").values;
      for (const model of entry.models) expect(models, `${entry.provider} model ${model.id}`).toContain(model.id);
      expect(new Set(entry.models.map((model) => model.id)).size).toBe(entry.models.length);
    }
  });
});
