import { MenuFoldOutlined, MenuUnfoldOutlined } from "@ant-design/icons";
import { Button, Layout } from "antd";
import { Suspense, useMemo, useState } from "react";
import { Outlet } from "react-router";
import { strings } from "../../config/strings";
import { FullAreaLoader } from "../full-area-loader";
import { ShellContext, type ShellState } from "./shell-context";
import { Sidebar } from "./sidebar";
import "./layout.css";

/** The authenticated shell of spec §2: top bar with the sidebar toggle, sidebar, and the screen. */
export function ShellLayout() {
  const [expanded, setExpanded] = useState(true);
  const shell = useMemo<ShellState>(() => ({ expanded, setExpanded }), [expanded]);

  return (
    <ShellContext.Provider value={shell}>
      <Layout className="shell">
        <Sidebar />
        <Layout>
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
            <Suspense fallback={<FullAreaLoader />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
        </Layout>
      </Layout>
    </ShellContext.Provider>
  );
}
