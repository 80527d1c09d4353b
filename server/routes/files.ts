import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import type { VoiceProvider } from "../voice/types";

/** Knowledge-base files (spec §7): POST /file/upload, GET /file/files, DELETE /file/file/{id}. */
export const fileRoutes: FastifyPluginAsyncZod<{ db: Db; voice: VoiceProvider; config: AppConfig }> = async () => {};
