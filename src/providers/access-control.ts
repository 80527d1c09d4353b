import type { AccessControlProvider } from "@refinedev/core";
import { can, RESOURCES, type Action, type Resource } from "../../contract/permissions";
import type { Role } from "../../contract/roles";

const isResource = (value: string | undefined): value is Resource =>
  (RESOURCES as readonly string[]).includes(value ?? "");

/**
 * Reads the one permission table in contract/ (the server enforces the same table with 403).
 * What the table does not name is not allowed.
 */
export function createAccessControlProvider(getRole: () => Role | null): AccessControlProvider {
  return {
    async can({ resource, action }) {
      if (!isResource(resource)) return { can: false, reason: `Unknown resource "${resource ?? ""}"` };
      const allowed = can(getRole(), resource, action as Action);
      return allowed ? { can: true } : { can: false, reason: "Your role in this organization does not allow this." };
    },
    options: {
      buttons: { enableAccessControl: true, hideIfUnauthorized: true },
    },
  };
}
