import type { Role } from "../../contract";

/** Wire role (org:admin | org:member) → the role stored in memberships/invitations, as better-auth writes it. */
export function storedRole(role: Role): "admin" | "member" {
  return role === "org:admin" ? "admin" : "member";
}
