import { useCan } from "@refinedev/core";

/**
 * What the signed-in role may do with campaigns, from Refine's access control (contract/permissions.ts):
 * members list, create, edit and run them (start, pause, resume, cancel; the do-not-call list's additions
 * too); admins also delete campaigns and do-not-call entries.
 */
export function useCampaignPermissions() {
  const create = useCan({ resource: "campaign", action: "create" });
  const edit = useCan({ resource: "campaign", action: "edit" });
  const remove = useCan({ resource: "campaign", action: "delete" });
  return { canCreate: create.data?.can === true, canEdit: edit.data?.can === true, canDelete: remove.data?.can === true };
}
