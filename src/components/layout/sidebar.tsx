import { CrownOutlined } from "@ant-design/icons";
import { Button, Layout } from "antd";
import { Link, useNavigate } from "react-router";
import { useAuthUi } from "../../auth/session";
import { strings } from "../../config/strings";
import { useShell } from "./shell-context";
import { SidebarNav } from "./sidebar-nav";

export const SIDEBAR_WIDTH = 240;
export const SIDEBAR_COLLAPSED_WIDTH = 80;
/** On a phone the collapsed rail is narrower, to leave the screen its room. */
export const SIDEBAR_NARROW_COLLAPSED_WIDTH = 56;

/** Logo, the menu, VIEW PLANS, and the organisation switcher and user button at the foot. */
export function Sidebar() {
  const { expanded, narrow } = useShell();
  const navigate = useNavigate();
  const { OrganizationSwitcher, UserButton } = useAuthUi();

  return (
    <Layout.Sider
      className="shell-sider"
      theme="light"
      collapsible
      collapsed={!expanded}
      trigger={null}
      width={SIDEBAR_WIDTH}
      collapsedWidth={narrow ? SIDEBAR_NARROW_COLLAPSED_WIDTH : SIDEBAR_COLLAPSED_WIDTH}
    >
      <div className="shell-sider__inner">
        <Link to="/dashboard" className="shell-sider__logo">
          {expanded ? (
            <img src="/logo-full.svg" width={170} alt={strings.shell.logoAlt} />
          ) : (
            <img src="/logo-mark.svg" width={28} alt={strings.shell.logoAlt} />
          )}
        </Link>

        <SidebarNav expanded={expanded} />

        <div className="shell-sider__plans">
          <Button
            type="primary"
            block
            icon={<CrownOutlined />}
            aria-label={strings.shell.viewPlansAccessible}
            onClick={() => navigate("/subscriptions")}
          >
            {expanded ? strings.shell.viewPlans : null}
          </Button>
        </div>

        <div className="shell-sider__footer">
          <OrganizationSwitcher expanded={expanded} />
          <UserButton expanded={expanded} />
        </div>
      </div>
    </Layout.Sider>
  );
}
