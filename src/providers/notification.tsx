import type { NotificationProvider } from "@refinedev/core";
import { App, Button } from "antd";
import { showError, showSuccess, TOAST_SECONDS } from "../lib/toast";

/**
 * Refine's notification provider over antd's notification API from `<App>` (so toasts follow the
 * theme and `notificationConfig`), with the durations of src/lib/toast.ts (spec §9).
 * Used as a hook: `<Refine notificationProvider={useNotificationProvider}>`.
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
      (type === "success" ? showSuccess : showError)(notification, { key, message, description });
    },
    close(key) {
      notification.destroy(key);
    },
  };
}
