import { MenuFoldOutlined, MenuUnfoldOutlined } from "@ant-design/icons";
import { Button, Layout } from "antd";
import { Suspense, useMemo, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { strings } from "../../config/strings";
import { ScreenErrorBoundary } from "../error-boundary";
import { FullAreaLoader } from "../full-area-loader";
import { ShellContext, useNarrowScreen, type ShellState } from "./shell-context";
import { Sidebar } from "./sidebar";
import "./layout.css";

/**
 * The authenticated shell of spec §2: top bar with the sidebar toggle, sidebar, and the screen.
 * The sidebar starts expanded (spec §2, §4), except below antd's `md` breakpoint (a phone), where an
 * expanded 240 px sidebar would leave the screen about 150 px: there it starts collapsed to an icon
 * rail, and expanded it lies over the screen like a drawer, folding away again when an item is chosen
 * or the dimmed screen beside it is tapped.
 */
export function ShellLayout() {
  const narrow = useNarrowScreen();
  const [expanded, setExpanded] = useState(() => !narrow);
  const { pathname } = useLocation();
  const [seen, setSeen] = useState({ narrow, pathname });
  if (seen.narrow !== narrow || seen.pathname !== pathname) {
    // Adjusted while rendering (no effect, so no frame with the old state): becoming narrow, or moving
    // to another screen while narrow, folds the drawer away.
    setSeen({ narrow, pathname });
    if (narrow && expanded) setExpanded(false);
  }
  const shell = useMemo<ShellState>(() => ({ expanded, setExpanded, narrow }), [expanded, narrow]);

  return (
    <ShellContext.Provider value={shell}>
      <Layout className={narrow ? "shell shell--narrow" : "shell"}>
        <Sidebar />
        {narrow && expanded && <div className="shell-mask" aria-hidden="true" onClick={() => setExpanded(false)} />}
        <Layout className="shell-main">
          <Layout.Header className="shell-header">
            <Button
              type="text"
              icon={expanded ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
              aria-label={expanded ? strings.shell.collapseSidebar : strings.shell.expandSidebar}
              aria-expanded={expanded}
              onClick={() => setExpanded(!expanded)}
            />
          </Layout.Header>
          <Layout.Content className="shell-content">
            <ScreenErrorBoundary resetKey={pathname}>
              {/* Each screen has its own boundary (src/routes/index.tsx); this one catches anything else. */}
              <Suspense fallback={<FullAreaLoader />}>
                <Outlet />
              </Suspense>
            </ScreenErrorBoundary>
          </Layout.Content>
        </Layout>
      </Layout>
    </ShellContext.Provider>
  );
}
