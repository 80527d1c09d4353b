import "@ant-design/v5-patch-for-react-19";
import { App as AntdApp, ConfigProvider } from "antd";
import type { ReactNode } from "react";
import { notificationConfig, pageNoticeConfig } from "../lib/toast";

/**
 * antd's theme and its `<App>` (which gives hooks their notification/modal context; antd 5 under
 * React 19 also needs the patch imported above, before antd renders anything).
 */
export function AntdRoot({ children, motion = true }: { children: ReactNode; motion?: boolean }) {
  return (
    // `motion: false` is for tests: jsdom never ends a CSS animation, so closing dialogs would never finish.
    <ConfigProvider theme={{ token: { colorPrimary: "#1677ff", borderRadius: 8, motion } }}>
      <AntdApp notification={notificationConfig} message={pageNoticeConfig} style={{ height: "100%" }}>
        {children}
      </AntdApp>
    </ConfigProvider>
  );
}
