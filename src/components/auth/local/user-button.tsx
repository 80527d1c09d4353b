import { LogoutOutlined, MailOutlined } from "@ant-design/icons";
import { useLogout } from "@refinedev/core";
import { Avatar, Button, Dropdown, type MenuProps } from "antd";
import { useAuthSession } from "../../../auth/session";
import { strings } from "../../../config/strings";

function initials(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part.charAt(0).toUpperCase());
  return letters.join("") || "?";
}

/** Local mode's user button: avatar and (expanded) name; the menu shows the email and "Sign out". */
export function LocalUserButton({ expanded }: { expanded: boolean }) {
  const { user } = useAuthSession();
  const { mutate: logout } = useLogout();
  if (!user) return null;

  const items: MenuProps["items"] = [
    { key: "email", icon: <MailOutlined aria-hidden />, label: user.email, disabled: true },
    { type: "divider" },
    { key: "sign-out", icon: <LogoutOutlined aria-hidden />, label: strings.auth.signOut },
  ];

  return (
    <Dropdown
      trigger={["click"]}
      placement="topLeft"
      menu={{ items, onClick: ({ key }) => key === "sign-out" && logout() }}
    >
      <Button type="text" className="shell-footer-button" aria-label={strings.auth.accountMenu} title={user.name}>
        <Avatar size={24} src={user.imageUrl} style={{ flexShrink: 0 }}>
          {initials(user.name)}
        </Avatar>
        {expanded && <span className="shell-footer-button__name">{user.name}</span>}
      </Button>
    </Dropdown>
  );
}
