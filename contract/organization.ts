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

export const inviteResponseSchema = z.object({ status: z.literal("success") });
export type InviteResponse = z.infer<typeof inviteResponseSchema>;

export const organizationParamsSchema = z.object({ organizationId: z.string().min(1).max(200) });
