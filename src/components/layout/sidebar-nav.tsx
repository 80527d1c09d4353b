import { Tooltip } from "antd";
import { Link, useLocation } from "react-router";
import { activeSidebarItem, sidebarItems } from "../../config/resources";
import { strings } from "../../config/strings";
import { SafeHtml } from "../safe-html";

/** The seven items of spec §2, in order, each with its hover tooltip; the current one is highlighted. */
export function SidebarNav({ expanded }: { expanded: boolean }) {
  const { pathname } = useLocation();
  const active = activeSidebarItem(pathname);

  return (
    <nav aria-label={strings.nav.mainLabel} className="shell-nav">
      <ul>
        {sidebarItems.map((item) => {
          const isActive = item === active;
          return (
            <li key={item.to}>
              <Tooltip title={<SafeHtml html={item.tooltip} />} placement="right" mouseEnterDelay={0.2}>
                <Link
                  to={item.to}
                  className={isActive ? "shell-nav__item shell-nav__item--active" : "shell-nav__item"}
                  aria-current={isActive ? "page" : undefined}
                  // Collapsed, the label is not drawn; the link keeps it as its name.
                  aria-label={expanded ? undefined : item.label}
                >
                  <span className="shell-nav__icon" aria-hidden="true">
                    {item.icon}
                  </span>
                  {expanded && <span className="shell-nav__label">{item.label}</span>}
                </Link>
              </Tooltip>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
