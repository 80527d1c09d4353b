import { useCan } from "@refinedev/core";

/**
 * What the signed-in role may do with orders, from Refine's access control (contract/permissions.ts):
 * members list them, call now and stop (both are edits); admins also delete them and "manage" them
 * (mark as paid, the follow-up settings, store integrations, imports from the header).
 */
export function useOrderPermissions() {
  const edit = useCan({ resource: "order", action: "edit" });
  const remove = useCan({ resource: "order", action: "delete" });
  const manage = useCan({ resource: "order", action: "manage" });
  return { canEdit: edit.data?.can === true, canDelete: remove.data?.can === true, canManage: manage.data?.can === true };
}

export type OrderPermissions = ReturnType<typeof useOrderPermissions>;
