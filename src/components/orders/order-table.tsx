import { Button, Empty, Flex, Table, Typography, type TableProps } from "antd";
import type { ReactNode } from "react";
import { Link } from "react-router";
import type { Order } from "../../../contract/order";
import { useShell } from "../layout/shell-context";
import { listEmptyText } from "../list-load-error";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { callLogsCallPath } from "./order-links";
import { formatMoney, formatWhen, itemsSummary } from "./order-format";
import { OrderStatusTag } from "./order-status-tag";
import { ordersText } from "./strings";

const text = ordersText;

/** The first-run explanation: where orders come from, and (for admins) the ways to bring them in. */
function NoOrdersYet({ adminActions }: { adminActions?: ReactNode }) {
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <>
          <strong>{text.empty.title}</strong>
          <br />
          <span className="orders__empty-body">{text.empty.body}</span>
          {!adminActions && (
            <>
              <br />
              <span className="orders__empty-body">{text.empty.memberHint}</span>
            </>
          )}
        </>
      }
    >
      {adminActions}
    </Empty>
  );
}

/**
 * The orders of the current page: reference, customer, status and total first (what a phone shows
 * before it scrolls), then items, when abandoned, calls, the last call (to Call Logs) and what was
 * recovered. A row opens the order's drawer.
 */
export function OrderTable({
  tableProps,
  filtered,
  loaded,
  adminActions,
  onOpen,
  onClearFilters,
}: {
  tableProps: TableProps<Order>;
  filtered: boolean;
  /** The list has loaded: until then (failed, or asked again) the table claims neither "none yet" nor "none match". */
  loaded: boolean;
  /** The empty state's buttons (admins: connect a store, import a CSV). */
  adminActions?: ReactNode;
  onOpen: (id: string) => void;
  onClearFilters: () => void;
}) {
  // On a phone the table scrolls sideways: the status goes under the reference, in sight.
  const { narrow } = useShell();
  return (
    <Table<Order>
      {...tableProps}
      rowKey="id"
      // Columns keep their content's width; on a phone the table scrolls inside itself.
      scroll={{ x: "max-content" }}
      onRow={(order) => ({ onClick: () => onOpen(order.id), className: "orders__row" })}
      locale={{
        emptyText: listEmptyText(
          loaded,
          filtered ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={text.empty.filtered}>
              <Button onClick={onClearFilters}>{text.filters.clear}</Button>
            </Empty>
          ) : (
            <NoOrdersYet adminActions={adminActions} />
          ),
        ),
      }}
    >
      <Table.Column<Order>
        title={text.columns.reference}
        dataIndex="reference"
        render={(_, order) => {
          const open = (
            <Button
              type="link"
              className="orders__open"
              aria-label={text.openOrder(order.reference)}
              onClick={(event) => {
                event.stopPropagation();
                onOpen(order.id);
              }}
            >
              {order.reference}
            </Button>
          );
          return narrow ? (
            <Flex vertical align="start" gap={2}>
              {open}
              <span className="orders__row-status">
                <OrderStatusTag status={order.status} detail={order.status_detail} />
              </span>
            </Flex>
          ) : (
            open
          );
        }}
      />
      <Table.Column<Order>
        title={text.columns.customer}
        key="customer"
        render={(_, order) => (
          <Flex vertical gap={0} className="orders__customer">
            <Typography.Text>{order.customer_name || text.noName}</Typography.Text>
            <Typography.Text type="secondary" className="orders__secondary">
              {formatPhoneNumber(order.customer_number)}
            </Typography.Text>
          </Flex>
        )}
      />
      {!narrow && <Table.Column<Order> title={text.columns.status} dataIndex="status" render={(_, order) => <OrderStatusTag status={order.status} detail={order.status_detail} />} />}
      <Table.Column<Order> title={text.columns.total} dataIndex="total" align="right" render={(_, order) => <span className="orders__money">{formatMoney(order.total, order.currency)}</span>} />
      <Table.Column<Order>
        title={text.columns.items}
        key="items"
        render={(_, order) => {
          const summary = itemsSummary(order.items);
          return (
            <Typography.Text className="orders__items" title={order.items.map((item) => `${item.quantity} × ${item.name}`).join("\n")}>
              {summary.text}
              {summary.more > 0 && <Typography.Text type="secondary"> {text.moreItems(summary.more)}</Typography.Text>}
            </Typography.Text>
          );
        }}
      />
      <Table.Column<Order>
        title={text.columns.abandoned}
        dataIndex="abandoned_at"
        render={(_, order) => (
          <time dateTime={order.abandoned_at} className="orders__nowrap">
            {formatWhen(order.abandoned_at)}
          </time>
        )}
      />
      <Table.Column<Order> title={text.columns.attempts} dataIndex="attempts" align="right" />
      <Table.Column<Order>
        title={text.columns.lastCall}
        dataIndex="last_call_id"
        render={(_, order) =>
          order.last_call_id ? (
            <Link
              to={callLogsCallPath(order.last_call_id)}
              className="orders__nowrap"
              aria-label={text.openCallAt(formatWhen(order.last_call_at))}
              onClick={(event) => event.stopPropagation()}
            >
              {order.last_call_at ? formatWhen(order.last_call_at) : text.openCall}
            </Link>
          ) : (
            <Typography.Text type="secondary">{text.notCalled}</Typography.Text>
          )
        }
      />
      <Table.Column<Order>
        title={text.columns.recovered}
        dataIndex="recovered_amount"
        align="right"
        render={(_, order) =>
          order.status === "recovered" ? <span className="orders__money orders__money--recovered">{formatMoney(order.recovered_amount, order.currency)}</span> : <Typography.Text type="secondary">—</Typography.Text>
        }
      />
    </Table>
  );
}
