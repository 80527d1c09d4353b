import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Db } from "../db/client";
import type { VoiceProvider } from "../voice/types";

/** /agent routes (spec §7): CRUD, templates, appointment toggle, clone, public profile. */
export const agentRoutes: FastifyPluginAsyncZod<{ db: Db; voice: VoiceProvider }> = async () => {};
