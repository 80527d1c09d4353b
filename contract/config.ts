import { z } from "zod";

/** Which implementation runs for each outside concern (ARCHITECTURE.md §2). */
export const modesSchema = z.object({
  database: z.enum(["pglite", "postgres"]),
  auth: z.enum(["local", "clerk"]),
  voice: z.enum(["sandbox", "vapi"]),
  rateLimit: z.enum(["memory", "redis"]),
  /** Outside calendars: Google Calendar when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set, else none (the ICS feed needs no keys). */
  calendar: z.enum(["none", "google"]),
  /** Payments (issue 15): Stripe when STRIPE_SECRET_KEY is set, else the embedded sandbox. */
  payments: z.enum(["sandbox", "stripe"]),
});
export type Modes = z.infer<typeof modesSchema>;

/** GET /api/health */
export const healthSchema = z.object({
  status: z.literal("ok"),
  version: z.string(),
  uptimeSeconds: z.number(),
  modes: modesSchema,
});
export type Health = z.infer<typeof healthSchema>;

/** GET /api/config: what the browser needs at run time, so one build works in every environment. */
export const publicConfigSchema = z.object({
  data: z.object({
    authMode: z.enum(["local", "clerk"]),
    voiceMode: z.enum(["sandbox", "vapi"]),
    clerkPublishableKey: z.string().nullable(),
    vapiPublicKey: z.string().nullable(),
    /** VAPI_API_URL in Vapi mode (where @vapi-ai/web creates web calls), null in the sandbox. */
    vapiApiUrl: z.string().nullable(),
    /**
     * PUBLIC_URL (no trailing slash): the one origin the server builds browser addresses on (checkout returns,
     * Google's redirect URI, invitation links). The console shows and shares addresses on it, not on its own.
     */
    publicUrl: z.string(),
  }),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>["data"];
