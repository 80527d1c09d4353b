import { z } from "zod";

/**
 * GET /api/auth/token (local accounts): a short-lived bearer token for the API, minted from the HttpOnly
 * session cookie (or an API client's session token). The console fetches one every 10 s.
 */
export const apiTokenSchema = z.object({
  data: z.object({
    /** The bearer token: a signed token accepted for a few minutes. */
    token: z.string(),
    /** When the API stops accepting it (ISO 8601 UTC). */
    expiresAt: z.string(),
    /** Whose session it is, and the organisation active in it now (the console notices changes made elsewhere). */
    userId: z.string(),
    activeOrganizationId: z.string().nullable(),
  }),
});
export type ApiToken = z.infer<typeof apiTokenSchema>["data"];
