import { z } from "zod";

/** The two organisation roles, in the wire form Clerk uses. */
export const ROLES = ["org:admin", "org:member"] as const;
// Marked pure so the console bundle can drop zod where it only needs the role names.
export const roleSchema = /* @__PURE__ */ z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const DEFAULT_INVITE_ROLE: Role = "org:member";

/**
 * Normalises a role as identity providers write it: Clerk session tokens v2 carry `admin`,
 * v1 and the API carry `org:admin`; better-auth stores `admin`, `member` or `owner`.
 * Anything unknown is treated as the least-privileged role.
 */
export function normaliseRole(raw: string | null | undefined): Role {
  const bare = (raw ?? "").replace(/^org:/, "");
  return bare === "admin" || bare === "owner" ? "org:admin" : "org:member";
}
