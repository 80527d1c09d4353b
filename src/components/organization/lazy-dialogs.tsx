import { Suspense, useState } from "react";
import { lazyRetry } from "../../lib/lazy-retry";

// The dialogs' forms load when a dialog is first opened, not with the shell.
const CreateOrganizationModal = lazyRetry(() =>
  import("./create-organization-modal").then((module) => ({ default: module.CreateOrganizationModal })),
);
const InviteMemberModal = lazyRetry(() =>
  import("./invite-member-modal").then((module) => ({ default: module.InviteMemberModal })),
);

export type OrganizationDialog = "create" | "invite" | null;

/** The create-organisation and invite-member dialogs; each stays mounted once opened, to animate closing. */
export function OrganizationDialogs({
  open,
  onClose,
  onCreated,
}: {
  open: OrganizationDialog;
  onClose: () => void;
  onCreated: () => void;
}) {
  const [opened, setOpened] = useState<{ create: boolean; invite: boolean }>({ create: false, invite: false });
  if (open && !opened[open]) setOpened({ ...opened, [open]: true });

  return (
    <Suspense fallback={null}>
      {opened.create && <CreateOrganizationModal open={open === "create"} onClose={onClose} onCreated={onCreated} />}
      {opened.invite && <InviteMemberModal open={open === "invite"} onClose={onClose} />}
    </Suspense>
  );
}
