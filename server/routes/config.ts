import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { apiPaths, publicConfigSchema } from "../../contract";
import type { AppConfig } from "../config";

/** GET /api/config: the public keys the browser needs and the server's one public origin, served at run time so one console build fits every environment. */
export const configRoutes: FastifyPluginAsyncZod<{ config: AppConfig }> = async (app, { config }) => {
  const body = {
    data: {
      authMode: config.modes.auth,
      voiceMode: config.modes.voice,
      clerkPublishableKey: config.clerk?.publishableKey ?? null,
      vapiPublicKey: config.vapi.publicKey,
      vapiApiUrl: config.modes.voice === "vapi" ? config.vapi.apiUrl : null,
      publicUrl: config.publicUrl,
    },
  };
  app.get(
    apiPaths.config,
    {
      config: { public: true },
      schema: { tags: ["system"], summary: "Public run-time configuration for the console", response: { 200: publicConfigSchema } },
    },
    async () => body,
  );
};
