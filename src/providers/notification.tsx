import type { NotificationProvider } from "@refinedev/core";
import { App, Button } from "antd";
import type { NotificationConfig } from "antd/es/notification/interface";

/** Spec §4/§9: toasts top-right, success 3 s, error 4 s, others 5 s, at most 20 on screen. */
export const TOAST_SECONDS = { success: 3, error: 4, default: 5 } as const;
export const notificationConfig: NotificationConfig = {
  placement: "topRight",
  duration: TOAST_SECONDS.default,
  maxCount: 20,
};

/**
 * Refine's notification provider over antd's notification API from `<App>` (so toasts follow the
 * theme and `notificationConfig`). Used as a hook: `<Refine notificationProvider={useNotificationProvider}>`.
 */
export function useNotificationProvider(): NotificationProvider {
  const { notification } = App.useApp();
  return {
    open({ key, message, description, type, cancelMutation, undoableTimeout }) {
      if (type === "progress") {
        // Undoable mutations: the toast lasts as long as the undo window and offers the undo.
        notification.info({
          key,
          message,
          description,
          duration: undoableTimeout ?? TOAST_SECONDS.default,
          btn: cancelMutation ? (
            <Button
              size="small"
              onClick={() => {
                cancelMutation();
                if (key) notification.destroy(key);
              }}
            >
              Undo
            </Button>
          ) : undefined,
        });
        return;
      }
      const duration = type === "success" ? TOAST_SECONDS.success : TOAST_SECONDS.error;
      notification[type]({ key, message, description, duration });
    },
    close(key) {
      notification.destroy(key);
    },
  };
}
