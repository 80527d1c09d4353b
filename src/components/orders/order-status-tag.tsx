import { Tag, Tooltip } from "antd";
import { ORDER_STATUS_LABELS, type OrderStatus } from "../../../contract/order-shared";

/** Green for money back, red-ish for a no, grey for nothing happening, blue while calls go out. */
export const ORDER_STATUS_COLOR: Record<OrderStatus, string> = {
  open: "default",
  calling: "processing",
  recovered: "success",
  declined: "volcano",
  unreachable: "orange",
  paid_without_call: "cyan",
  opted_out: "magenta",
  cancelled: "default",
  no_consent: "gold",
};

/** The order's status; its status_detail (why it is there) on hover, as text. */
export function OrderStatusTag({ status, detail }: { status: OrderStatus; detail?: string | null }) {
  const tag = <Tag color={ORDER_STATUS_COLOR[status]}>{ORDER_STATUS_LABELS[status] ?? status}</Tag>;
  return detail ? <Tooltip title={detail}>{tag}</Tooltip> : tag;
}
