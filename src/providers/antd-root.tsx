import "@ant-design/v5-patch-for-react-19";
import { App as AntdApp, ConfigProvider } from "antd";
import type { ReactNode } from "react";
import { usePrefersReducedMotion } from "../lib/reduced-motion";
import { notificationConfig, pageNoticeConfig } from "../lib/toast";

/**
 * antd's default colours, a shade darker where they are text, so that text reaches WCAG 2.2 AA's 4.5:1
 * (checked by axe in tests/e2e/accessibility.e2e.ts). antd's defaults fall short: links and primary
 * buttons (#1677ff, 4.1:1 on white), secondary text (#8c8c8c, 3.4:1), success, warning and error text and
 * their tags (#52c41a on #f6ffed, 2.2:1), the avatar's white initial on #bfbfbf. The seeds stay antd's
 * hues; antd derives the hover, background and border shades from them as before.
 */
export const CONTRAST_TOKENS = {
  colorPrimary: "#1668dc", // 5.2:1 on white, 4.6:1 on the selected menu item's #e6f4ff-like background
  colorInfo: "#1668dc",
  colorLink: "#1668dc",
  colorTextSecondary: "rgba(0, 0, 0, 0.65)", // #595959: 7:1
  colorTextTertiary: "rgba(0, 0, 0, 0.6)", // #666666: 5.7:1 on white, 5.3:1 on #f5f5f5
  colorTextDescription: "rgba(0, 0, 0, 0.6)",
  colorSuccess: "#237804", // 5.6:1 on white; its tag's text (#135200-like) on its background more
  colorWarning: "#a35f00", // 5:1 on white
  colorError: "#cf1322", // 5.6:1 on white
  // antd's own light backgrounds and borders for these (derived from the darker seeds they came out grey).
  colorSuccessBg: "#f6ffed",
  colorSuccessBorder: "#b7eb8f",
  colorWarningBg: "#fffbe6",
  colorWarningBorder: "#ffe58f",
  colorErrorBg: "#fff2f0",
  colorErrorBorder: "#ffccc7",
} as const;

/** Component shades antd takes from its preset palettes: tags' text (`<colour>-7`) and the avatar's background. */
export const CONTRAST_COMPONENTS = {
  Tag: { green7: "#237804", gold7: "#874d00", orange7: "#873800", volcano7: "#ad2102", cyan7: "#006d75", red7: "#a8071a", lime7: "#3f6600" },
  Avatar: { colorTextPlaceholder: "#6b6b6b" }, // white on it: 5.3:1
};

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
    <ConfigProvider theme={{ token: { ...CONTRAST_TOKENS, borderRadius: 8, motion: motion ?? !reduced }, components: CONTRAST_COMPONENTS }}>
      <AntdApp notification={notificationConfig} message={pageNoticeConfig} style={{ height: "100%" }}>
        {children}
      </AntdApp>
    </ConfigProvider>
  );
}
