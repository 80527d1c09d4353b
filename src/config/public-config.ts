import type { PublicConfig } from "../../contract/config";
import { apiPaths } from "../../contract/api";
import { API_URL } from "./api-url";

/**
 * GET /api/config: which sign-in runs and the public keys, read at run time so one build of the
 * console works in every environment (ARCHITECTURE.md §2). VITE_CLERK_PUBLISHABLE_KEY and
 * VITE_VAPI_PUBLIC_KEY, when set at build time, override the served keys.
 * Checked by hand rather than with the contract's zod schema, to keep zod out of the first chunk.
 */
export async function fetchPublicConfig(): Promise<PublicConfig> {
  const response = await fetch(`${API_URL}${apiPaths.config}`, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`GET ${apiPaths.config} answered ${response.status}`);
  const body = (await response.json()) as { data?: Partial<PublicConfig> } | null;
  const data = body?.data;
  if (!data || (data.authMode !== "local" && data.authMode !== "clerk")) {
    throw new Error(`GET ${apiPaths.config} did not name an auth mode`);
  }
  const text = (value: unknown) => (typeof value === "string" && value ? value : null);
  return {
    authMode: data.authMode,
    voiceMode: data.voiceMode === "vapi" ? "vapi" : "sandbox",
    clerkPublishableKey: text(import.meta.env.VITE_CLERK_PUBLISHABLE_KEY) ?? text(data.clerkPublishableKey),
    vapiPublicKey: text(import.meta.env.VITE_VAPI_PUBLIC_KEY) ?? text(data.vapiPublicKey),
    vapiApiUrl: text(data.vapiApiUrl),
    // A server from before issue 31 did not say: its own origin is the best guess.
    publicUrl: (text(data.publicUrl) ?? window.location.origin).replace(/\/+$/, ""),
  };
}

let pending: Promise<PublicConfig> | null = null;
let loaded: PublicConfig | null = null;

/** One request per page load; a failed one can be retried. */
export function loadPublicConfig(): Promise<PublicConfig> {
  pending ??= fetchPublicConfig().then(
    (config) => (loaded = config),
    (error: unknown) => {
      pending = null;
      throw error;
    },
  );
  return pending;
}

/** The answer, once it has come (the signed-in console renders only after it has: src/console.tsx). */
export function loadedPublicConfig(): PublicConfig | null {
  return loaded;
}

/**
 * The server's one public origin (PUBLIC_URL), for addresses people copy and share (web-call and agent links):
 * on the server's origin even when this browser reached the server by another name. This page's origin only
 * before GET /api/config has answered, which the signed-in console never renders before.
 */
export function publicOrigin(): string {
  return loaded?.publicUrl ?? window.location.origin;
}

/** Forgets the answer, so the next load asks again (each test starts from a fresh page load). */
export function forgetPublicConfig(): void {
  pending = null;
  loaded = null;
}
