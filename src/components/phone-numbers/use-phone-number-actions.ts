import { useDelete, useUpdate } from "@refinedev/core";
import { App } from "antd";
import { useCallback } from "react";
import type { PhoneNumber } from "../../../contract/phone-number";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import { formatPhoneNumber } from "./format-number";

const text = strings.phoneNumbers;

/** Make default (PUT {isDefault: true}) and delete after a confirmation; toasts say how it went. */
export function usePhoneNumberActions() {
  const { modal } = App.useApp();
  const { mutate: update } = useUpdate<PhoneNumber>();
  const toasts = useToasts();
  const { mutateAsync: remove } = useDelete<PhoneNumber>();

  const makeDefault = useCallback(
    (record: PhoneNumber) =>
      update(
        {
          resource: "phonenumber",
          id: record.id,
          values: { isDefault: true },
          successNotification: false, // page-level, below
          errorNotification: (error) => ({ type: "error", message: text.makeDefaultFailed, description: error?.message }),
        },
        { onSuccess: () => toasts.notice(text.madeDefault) },
      ),
    [toasts, update],
  );

  const confirmDelete = useCallback(
    (record: PhoneNumber) => {
      modal.confirm({
        title: text.deleteConfirmTitle,
        content: `${text.deleteConfirmBody(record.name, formatPhoneNumber(record.number))}${record.isDefault ? ` ${text.deleteDefaultNote}` : ""}`,
        okText: text.delete,
        okButtonProps: { danger: true },
        cancelText: text.cancel,
        onOk: async () => {
          try {
            await remove({
              resource: "phonenumber",
              id: record.id,
              successNotification: () => ({ type: "success", message: text.deleted }),
              errorNotification: (error) => ({ type: "error", message: text.deleteFailed, description: error?.message }),
            });
          } catch {
            // the toast says why; the number stays
          }
        },
      });
    },
    [modal, remove],
  );

  return { makeDefault, confirmDelete };
}
