import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";

/** Catalogue lists for the agent editor: GET /transcriber/, /voice/, /voice/models, /llm/ (spec §7). */
export const catalogRoutes: FastifyPluginAsyncZod = async () => {};
