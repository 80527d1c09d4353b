import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { apiPaths, healthSchema, type Modes } from "../../contract";

/** GET /api/health: liveness, version and which implementation runs for each outside service. */
export const healthRoutes: FastifyPluginAsyncZod<{ version: string; modes: Modes; startedAt: number }> = async (app, opts) => {
  app.get(
    apiPaths.health,
    {
      config: { public: true },
      schema: { tags: ["system"], summary: "Liveness, version and run modes", response: { 200: healthSchema } },
    },
    async () => ({
      status: "ok" as const,
      version: opts.version,
      uptimeSeconds: Math.round((Date.now() - opts.startedAt) / 1000),
      modes: opts.modes,
    }),
  );
};
