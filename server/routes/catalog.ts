import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  apiPaths,
  errorBodySchema,
  llmCatalogResponseSchema,
  transcriberCatalogResponseSchema,
  voiceCatalogResponseSchema,
  voiceModelCatalogResponseSchema,
} from "../../contract";
import { LLM_CATALOG, TRANSCRIBER_CATALOG, VOICE_CATALOG, VOICE_MODEL_CATALOG } from "../agents/catalog";

/** Catalogue lists for the agent editor: GET /transcriber/, /voice/, /voice/models, /llm/ (spec §7). Signed-in callers only. */
export const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  const common = { tags: ["catalogue"], security: [{ bearerAuth: [] }] };

  app.get(
    apiPaths.transcribers,
    {
      schema: {
        ...common,
        summary: "Speech-to-text providers, their models and languages",
        response: { 200: transcriberCatalogResponseSchema, 401: errorBodySchema },
      },
    },
    async () => ({ data: TRANSCRIBER_CATALOG }),
  );

  app.get(
    apiPaths.voices,
    {
      schema: {
        ...common,
        summary: "Voice providers and their voices",
        description: "`supportsSpeed` says whether the provider takes the agent's speed; `speedRange` gives its range.",
        response: { 200: voiceCatalogResponseSchema, 401: errorBodySchema },
      },
    },
    async () => ({ data: VOICE_CATALOG }),
  );

  app.get(
    apiPaths.voiceModels,
    {
      schema: {
        ...common,
        summary: "Each voice provider's text-to-speech models",
        response: { 200: voiceModelCatalogResponseSchema, 401: errorBodySchema },
      },
    },
    async () => ({ data: VOICE_MODEL_CATALOG }),
  );

  app.get(
    apiPaths.llms,
    {
      schema: {
        ...common,
        summary: "Language-model providers and their models",
        response: { 200: llmCatalogResponseSchema, 401: errorBodySchema },
      },
    },
    async () => ({ data: LLM_CATALOG }),
  );
};
