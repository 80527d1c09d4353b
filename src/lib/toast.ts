/**
 * The console's toasts, all in one place (spec §4, §9):
 * - toasts: top-right, success 3 s, error 4 s, any other kind 5 s, at most 20 on screen;
 * - page-level notices (copied, saved, switched on or off): 1 s, in a top-center container, at most 20.
 * Every console toast goes through `useToasts()` or Refine's notification provider (src/providers/notification.tsx),
 * which uses the same functions; eslint.config.js refuses antd's `notification`/`message` anywhere else.
 * The public pages keep their own toasts (components/public/toast.tsx: spec §8's 5 s).
 */
import { App } from "antd";
import type { ConfigOptions as MessageConfig, MessageInstance } from "antd/es/message/interface";
import type { NotificationConfig, NotificationInstance } from "antd/es/notification/interface";
import { useMemo, type ReactNode } from "react";

export const TOAST_SECONDS = { success: 3, error: 4, default: 5, pageNotice: 1 } as const;
export const MAX_TOASTS = 20;

/** `<App notification>`: the top-right container. */
export const notificationConfig: NotificationConfig = {
  placement: "topRight",
  duration: TOAST_SECONDS.default,
  maxCount: MAX_TOASTS,
};

/** `<App message>`: the page-level notices' top-center container. */
export const pageNoticeConfig: MessageConfig = {
  duration: TOAST_SECONDS.pageNotice,
  maxCount: MAX_TOASTS,
};

export interface ToastContent {
  message: ReactNode;
  description?: ReactNode;
  /** The same key replaces a toast still on screen instead of adding another. */
  key?: string;
}

export function showSuccess(notification: NotificationInstance, { message, description, key }: ToastContent): void {
  notification.success({ key, message, description, duration: TOAST_SECONDS.success });
}

export function showError(notification: NotificationInstance, { message, description, key }: ToastContent): void {
  notification.error({ key, message, description, duration: TOAST_SECONDS.error });
}

/** A page-level notice: "Link copied", "Agent saved"... One second, top-center; the same text replaces itself. */
export function showPageNotice(messages: MessageInstance, text: string): void {
  void messages.success({ key: `notice:${text}`, content: text, duration: TOAST_SECONDS.pageNotice });
}

export interface Toasts {
  success: (message: string, description?: string) => void;
  error: (message: string, description?: string) => void;
  /** Page-level: 1 s, top-center. For confirmations of what the page itself shows (copied, saved, on/off). */
  notice: (message: string) => void;
}

/** The console's toasts, from antd's `<App>` context (AntdRoot), with the spec's durations and places. */
export function useToasts(): Toasts {
  const { notification, message } = App.useApp();
  return useMemo(
    () => ({
      success: (text, description) => showSuccess(notification, { message: text, description }),
      error: (text, description) => showError(notification, { message: text, description }),
      notice: (text) => showPageNotice(message, text),
    }),
    [notification, message],
  );
}
