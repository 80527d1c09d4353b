import "@ant-design/v5-patch-for-react-19";
import { App as AntdApp, ConfigProvider } from "antd";
import type { ReactNode } from "react";
import { usePrefersReducedMotion } from "../lib/reduced-motion";
import { notificationConfig, pageNoticeConfig } from "../lib/toast";

/**
 * antd's theme and its `<App>` (which gives hooks their notification/modal context; antd 5 under
 * React 19 also needs the patch imported above, before antd renders anything).
 *
 * Motion (dialogs zooming, drawers sliding, toasts fading) is off for a person whose system asks for
 * reduced motion (prefers-reduced-motion), and follows that setting as it changes. The browser suite
 * runs so (tests/e2e/harness.ts): a dialog that zooms in from the clicked button moves its own buttons
 * under the pointer, and a click sent mid-zoom landed beside them.
 */
export function AntdRoot({ children, motion }: { children: ReactNode; motion?: boolean }) {
  const reduced = usePrefersReducedMotion();
  return (
    // `motion={false}` is for tests: jsdom never ends a CSS animation, so closing dialogs would never finish.
    <ConfigProvider theme={{ token: { colorPrimary: "#1677ff", borderRadius: 8, motion: motion ?? !reduced } }}>
      <AntdApp notification={notificationConfig} message={pageNoticeConfig} style={{ height: "100%" }}>
        {children}
      </AntdApp>
    </ConfigProvider>
  );
}
