import { z } from "zod";
import { DEFAULT_INVITE_ROLE, roleSchema } from "./roles";

/** POST /organization/{organizationId}/invite */
export const inviteBodySchema = z
  .object({
    email_address: z.email({ error: "email_address must be a valid email address" }),
    role: roleSchema
      .default(DEFAULT_INVITE_ROLE)
      .describe("org:admin or org:member (default org:member)"),
  })
  .strict();
export type InviteBody = z.input<typeof inviteBodySchema>;

export const inviteResponseSchema = z.object({
  status: z.literal("success"),
  /**
   * Local accounts only (no email service): the link the invited person opens to join. Possession of
   * the link and signing in with the invited email are both needed. Clerk emails its own link.
   */
  invitation_url: z.string().optional(),
});
export type InviteResponse = z.infer<typeof inviteResponseSchema>;

export const organizationParamsSchema = z.object({ organizationId: z.string().min(1).max(200) });
