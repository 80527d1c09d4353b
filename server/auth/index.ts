/**
 * Chooses the sign-in service at start-up: Clerk when both Clerk keys are set, else local accounts.
 * Only the chosen implementation is loaded (better-auth or @clerk/backend), which keeps start-up fast.
 */
import type { FastifyBaseLogger } from "fastify";
import type { AppConfig } from "../config";
import type { Database } from "../db/client";
import type { AuthProvider } from "./types";

export type { AuthProvider, Identity } from "./types";

export async function createAuthProvider(config: AppConfig, database: Database, log: FastifyBaseLogger): Promise<AuthProvider> {
  if (config.clerk) {
    const { createClerkAuth } = await import("./clerk");
    return createClerkAuth(config.clerk, database.db, log);
  }
  const { createLocalAuth } = await import("./local");
  return createLocalAuth(config, database, log);
}
