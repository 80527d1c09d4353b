import { CheckOutlined, DownOutlined, LogoutOutlined, PlusOutlined, UserAddOutlined } from "@ant-design/icons";
import { useCan } from "@refinedev/core";
import { App, Avatar, Button, Dropdown, Tooltip, type MenuProps } from "antd";
import { useState } from "react";
import { activeOrganization, useAuthSession, type SessionOrganization } from "../../../auth/session";
import { strings } from "../../../config/strings";
import { useToasts } from "../../../lib/toast";
import { useAfterOrganizationChange } from "../../layout/shell-context";
import { OrganizationDialogs, type OrganizationDialog } from "../../organization/lazy-dialogs";

/**
 * 'Leave organization'; for the organisation's only admin (whom better-auth would refuse) it is
 * disabled, and hovering it says why.
 */
function leaveItem(active: SessionOrganization) {
  if (!active.onlyAdmin) return { key: "leave", icon: <LogoutOutlined aria-hidden />, danger: true, label: strings.organization.leave };
  const reason = strings.organization.leaveOnlyAdmin(active.name);
  return {
    key: "leave",
    icon: <LogoutOutlined aria-hidden />,
    disabled: true,
    title: reason,
    label: (
      <Tooltip title={reason} placement="right">
        <span aria-description={reason}>{strings.organization.leave}</span>
      </Tooltip>
    ),
  };
}

/** Local mode's organisation switcher: organisations (no personal account), create, invite, leave. */
export function LocalOrganizationSwitcher({ expanded }: { expanded: boolean }) {
  const session = useAuthSession();
  const active = activeOrganization(session);
  const afterChange = useAfterOrganizationChange();
  const { modal } = App.useApp();
  const toasts = useToasts();
  const { data: invitePermission } = useCan({ resource: "organization", action: "invite" });
  const [dialog, setDialog] = useState<OrganizationDialog>(null);

  const fail = (error: unknown, fallback: string) =>
    toasts.error(error instanceof Error && error.message ? error.message : fallback);

  const select = async (organizationId: string) => {
    if (organizationId === session.activeOrganizationId) return;
    try {
      await session.setActive(organizationId);
      afterChange();
    } catch (error) {
      fail(error, strings.organization.switchFailed);
    }
  };

  const confirmLeave = () => {
    if (!active) return;
    modal.confirm({
      title: strings.organization.leaveConfirmTitle,
      content: strings.organization.leaveConfirmBody(active.name),
      okText: strings.organization.leaveConfirmOk,
      okButtonProps: { danger: true },
      cancelText: strings.organization.cancel,
      onOk: async () => {
        try {
          await session.leaveOrganization(active.id);
          afterChange();
        } catch (error) {
          fail(error, strings.organization.leaveFailed);
        }
      },
    });
  };

  const items: MenuProps["items"] = [
    ...session.organizations.map((org) => ({
      key: `org:${org.id}`,
      label: org.name,
      icon: org.id === active?.id ? <CheckOutlined aria-label="Active organization" /> : <span style={{ width: 14 }} />,
    })),
    { type: "divider" as const },
    { key: "create", icon: <PlusOutlined aria-hidden />, label: strings.organization.create },
    ...(invitePermission?.can ? [{ key: "invite", icon: <UserAddOutlined aria-hidden />, label: strings.organization.invite }] : []),
    ...(active ? [leaveItem(active)] : []),
  ];

  const onClick: MenuProps["onClick"] = ({ key }) => {
    if (key.startsWith("org:")) void select(key.slice(4));
    else if (key === "create") setDialog("create");
    else if (key === "invite") setDialog("invite");
    else if (key === "leave") confirmLeave();
  };

  const name = active?.name ?? strings.organization.noOrganization;
  return (
    <>
      <Dropdown
        trigger={["click"]}
        placement="topLeft"
        menu={{ items, onClick, selectable: true, selectedKeys: active ? [`org:${active.id}`] : [] }}
      >
        <Button type="text" className="shell-footer-button" aria-label={strings.organization.switcher} title={name}>
          <Avatar shape="square" size={24} style={{ flexShrink: 0 }}>
            {name.charAt(0).toUpperCase()}
          </Avatar>
          {/* Two direct children, not a fragment: antd's Button wraps a fragment in a span of its own. */}
          {expanded && <span className="shell-footer-button__name">{name}</span>}
          {expanded && <DownOutlined aria-hidden style={{ fontSize: 10 }} />}
        </Button>
      </Dropdown>
      <OrganizationDialogs open={dialog} onClose={() => setDialog(null)} onCreated={afterChange} />
    </>
  );
}
