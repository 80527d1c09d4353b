import { useCustomMutation, useDelete, useInvalidate } from "@refinedev/core";
import { App } from "antd";
import { useCallback, useState } from "react";
import type { Order } from "../../../contract/order";
import { ORDER_PATHS } from "../../../contract/order-shared";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatMoney } from "./order-format";
import { ordersText } from "./strings";

const text = ordersText.actions;

export type OrderCommand = "call" | "stop" | "paid" | "delete";

/** Why the last action on an order was refused: the server's sentence (a 409 says when a call may go). */
export interface OrderRefusal {
  orderId: string;
  command: OrderCommand;
  title: string;
  detail: string;
}

const POST_PATHS: Record<Exclude<OrderCommand, "delete">, (id: string) => string> = {
  call: ORDER_PATHS.call,
  stop: ORDER_PATHS.stop,
  paid: ORDER_PATHS.markPaid,
};

/**
 * Call now, stop, mark as paid (POST /order/{id}/call|stop|paid) and delete (DELETE /order/{id}).
 * Call now on an order without consent to be called asks the member first, and sends
 * `confirm_consent: true` only once they confirm (also when the server answers 409
 * consent_required). Mark as paid and delete ask first. A refusal is kept (`refusal`) for the drawer
 * to show in full; `onDone` refreshes what the screen shows.
 */
export function useOrderActions(onDone?: (command: OrderCommand, order: Order) => void) {
  const { modal } = App.useApp();
  const toasts = useToasts();
  const invalidate = useInvalidate();
  const { mutateAsync: post } = useCustomMutation<{ data?: Order }, ApiError, { confirm_consent: true } | undefined>();
  const { mutateAsync: remove } = useDelete<Order, ApiError>();
  const [pending, setPending] = useState<{ id: string; command: OrderCommand } | null>(null);
  const [refusal, setRefusal] = useState<OrderRefusal | null>(null);

  const send = useCallback(
    async (order: Order, command: OrderCommand, confirmConsent = false): Promise<"done" | "consent_required" | "failed"> => {
      setPending({ id: order.id, command });
      setRefusal(null);
      try {
        if (command === "delete") await remove({ resource: "order", id: order.id, successNotification: false, errorNotification: false });
        else
          await post({
            url: POST_PATHS[command](order.id),
            method: "post",
            values: confirmConsent ? { confirm_consent: true } : undefined,
            successNotification: false,
            errorNotification: false,
          });
        toasts.success(text.done[command]);
        await invalidate({ resource: "order", invalidates: command === "delete" ? ["list"] : ["list", "detail"], id: order.id });
        onDone?.(command, order);
        return "done";
      } catch (caught) {
        const error = caught as ApiError | undefined;
        if (command === "call" && error?.code === "consent_required" && !confirmConsent) return "consent_required";
        setRefusal({ orderId: order.id, command, title: text.failed[command], detail: error?.message ?? "" });
        return "failed";
      } finally {
        setPending(null);
      }
    },
    [invalidate, onDone, post, remove, toasts],
  );

  const confirmConsent = useCallback(
    (order: Order) => {
      modal.confirm({
        title: text.consentTitle,
        content: text.consentBody(order.customer_name || text.theCustomer),
        okText: text.consentOk,
        cancelText: text.consentCancel,
        onOk: async () => {
          await send(order, "call", true);
        },
      });
    },
    [modal, send],
  );

  /** Runs `command`; mark as paid and delete ask first, and so does call now without consent on record. */
  const run = useCallback(
    (order: Order, command: OrderCommand) => {
      if (command === "call") {
        if (!order.call_consent.given) {
          confirmConsent(order);
          return;
        }
        void send(order, "call").then((result) => {
          if (result === "consent_required") confirmConsent(order);
        });
        return;
      }
      if (command === "paid" || command === "delete") {
        const paid = command === "paid";
        modal.confirm({
          title: paid ? text.paidTitle : text.deleteTitle,
          content: paid ? text.paidBody(order.reference, formatMoney(order.total, order.currency)) : text.deleteBody(order.reference),
          okText: paid ? text.paidOk : text.deleteOk,
          okButtonProps: paid ? undefined : { danger: true },
          cancelText: text.keep,
          onOk: async () => {
            await send(order, command);
          },
        });
        return;
      }
      void send(order, command);
    },
    [confirmConsent, modal, send],
  );

  const isPending = (order: Order, command?: OrderCommand) => pending !== null && pending.id === order.id && (command === undefined || pending.command === command);

  return { run, isPending, refusal, clearRefusal: () => setRefusal(null) };
}
