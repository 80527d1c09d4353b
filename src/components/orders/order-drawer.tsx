import { CheckCircleOutlined, DeleteOutlined, ExclamationCircleOutlined, ExportOutlined, PhoneOutlined, StopOutlined } from "@ant-design/icons";
import { useCustom, useOne } from "@refinedev/core";
import { Alert, Button, Descriptions, Drawer, Flex, Skeleton, Table, Timeline, Typography } from "antd";
import { useEffect, useRef, type ReactNode } from "react";
import { Link } from "react-router";
import type { Order, orderTimelineEntrySchema } from "../../../contract/order";
import { CALLABLE_ORDER_STATUSES, ORDER_CALL_OUTCOME_LABELS, ORDER_PATHS, PAID_ORDER_STATUSES, STOPPABLE_ORDER_STATUSES } from "../../../contract/order-shared";
import type { z } from "zod";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { callLogsCallPath } from "./order-links";
import { formatMoney, formatWhen, isOrderLive, ORDER_POLL_MS } from "./order-format";
import { OrderStatusTag } from "./order-status-tag";
import { ordersText } from "./strings";
import type { useOrderActions } from "./use-order-actions";
import type { OrderPermissions } from "./use-order-permissions";

const text = ordersText.drawer;
const actionText = ordersText.actions;

export type OrderTimelineEntry = z.infer<typeof orderTimelineEntrySchema>;

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="order-drawer__section" aria-label={title}>
      <Typography.Title level={5}>{title}</Typography.Title>
      {children}
    </section>
  );
}

/** Consent to be called, plainly: given or not, where and when. */
function Consent({ consent }: { consent: Order["call_consent"] }) {
  if (!consent.given)
    return (
      <Flex vertical gap={2}>
        <Typography.Text strong type="warning">
          <ExclamationCircleOutlined aria-hidden /> {text.consentMissing}
        </Typography.Text>
        <Typography.Text type="secondary">{text.consentMissingHint}</Typography.Text>
      </Flex>
    );
  return (
    <Flex vertical gap={2}>
      <Typography.Text strong type="success">
        <CheckCircleOutlined aria-hidden /> {text.consentGiven}
      </Typography.Text>
      <Typography.Text>{consent.source ? text.consentSource(consent.source) : text.consentNoSource}</Typography.Text>
      {consent.at && <Typography.Text type="secondary">{text.consentAt(formatWhen(consent.at, true))}</Typography.Text>}
    </Flex>
  );
}

function OrderItems({ order }: { order: Order }) {
  return (
    <Table<Order["items"][number] & { key: number }>
      size="small"
      pagination={false}
      dataSource={order.items.map((item, index) => ({ ...item, key: index }))}
      scroll={{ x: "max-content" }}
      locale={{ emptyText: ordersText.noItems }}
      summary={() => (
        <Table.Summary.Row>
          <Table.Summary.Cell index={0} colSpan={3}>
            <Typography.Text strong>{text.total}</Typography.Text>
          </Table.Summary.Cell>
          <Table.Summary.Cell index={1} align="right">
            <Typography.Text strong>{formatMoney(order.total, order.currency)}</Typography.Text>
          </Table.Summary.Cell>
        </Table.Summary.Row>
      )}
    >
      <Table.Column title={text.itemName} dataIndex="name" />
      <Table.Column title={text.itemQuantity} dataIndex="quantity" align="right" />
      <Table.Column<Order["items"][number]> title={text.itemPrice} dataIndex="price" align="right" render={(price: number) => formatMoney(price, order.currency)} />
      <Table.Column<Order["items"][number]> title={text.itemTotal} key="line" align="right" render={(_, item) => formatMoney(item.price * item.quantity, order.currency)} />
    </Table>
  );
}

/** What happened, oldest first; each call a link to it in Call Logs (its transcript and recording), once: not again on its outcome. */
function OrderTimeline({ entries, failed, loading }: { entries: OrderTimelineEntry[]; failed?: string; loading: boolean }) {
  if (failed) return <Alert type="warning" showIcon message={text.timelineFailed} description={failed} />;
  if (loading) return <Skeleton active paragraph={{ rows: 3 }} title={false} />;
  if (entries.length === 0) return <Typography.Text type="secondary">{text.timelineEmpty}</Typography.Text>;
  return (
    <Timeline
      className="order-drawer__timeline"
      items={entries.map((entry, index) => ({
        key: `${entry.at}-${index}`,
        color: entry.kind === "paid" ? "green" : entry.kind === "call" ? "blue" : entry.kind === "opted_out" || entry.kind === "declined" || entry.kind === "unreachable" ? "red" : "gray",
        children: (
          <Flex vertical gap={0}>
            <Flex wrap gap={8} align="baseline">
              <Typography.Text strong>{ordersText.timelineKinds[entry.kind] ?? entry.kind}</Typography.Text>
              <time dateTime={entry.at} className="order-drawer__when">
                {formatWhen(entry.at)}
              </time>
            </Flex>
            {entry.detail && <Typography.Text>{entry.detail}</Typography.Text>}
            {entry.call_id && entry.kind === "call" && (
              <Link to={callLogsCallPath(entry.call_id)} aria-label={ordersText.openCallAt(formatWhen(entry.at))}>
                {ordersText.drawer.callLink}
              </Link>
            )}
          </Flex>
        ),
      }))}
    />
  );
}

function OrderActions({ order, actions, permissions }: { order: Order; actions: ReturnType<typeof useOrderActions>; permissions: OrderPermissions }) {
  const paid = PAID_ORDER_STATUSES.includes(order.status);
  const canCall = permissions.canEdit && CALLABLE_ORDER_STATUSES.includes(order.status);
  const canStop = permissions.canEdit && STOPPABLE_ORDER_STATUSES.includes(order.status);
  const canMarkPaid = permissions.canManage && !paid;
  if (!canCall && !canStop && !canMarkPaid && !permissions.canDelete) return null;
  return (
    <Flex wrap gap={8} role="group" aria-label={actionText.label} className="order-drawer__actions">
      {canCall && (
        <Button type="primary" icon={<PhoneOutlined />} loading={actions.isPending(order, "call")} onClick={() => actions.run(order, "call")}>
          {actionText.callNow}
        </Button>
      )}
      {canStop && (
        <Button icon={<StopOutlined />} loading={actions.isPending(order, "stop")} onClick={() => actions.run(order, "stop")}>
          {actionText.stop}
        </Button>
      )}
      {canMarkPaid && (
        <Button icon={<CheckCircleOutlined />} loading={actions.isPending(order, "paid")} onClick={() => actions.run(order, "paid")}>
          {actionText.markPaid}
        </Button>
      )}
      {permissions.canDelete && (
        <Button danger icon={<DeleteOutlined />} loading={actions.isPending(order, "delete")} onClick={() => actions.run(order, "delete")}>
          {actionText.delete}
        </Button>
      )}
    </Flex>
  );
}

function OrderDetail({ order, timeline, actions, permissions }: { order: Order; timeline: ReturnType<typeof useOrderTimeline>; actions: ReturnType<typeof useOrderActions>; permissions: OrderPermissions }) {
  const refusal = actions.refusal?.orderId === order.id ? actions.refusal : null;
  const store = order.integration_name ?? order.store_name;
  return (
    <Flex vertical gap={20}>
      <Flex vertical gap={8}>
        <Flex wrap gap={8} align="center">
          <OrderStatusTag status={order.status} />
          {order.status_detail && <Typography.Text type="secondary">{order.status_detail}</Typography.Text>}
        </Flex>
        <OrderActions order={order} actions={actions} permissions={permissions} />
        {refusal && <Alert type="error" showIcon closable onClose={actions.clearRefusal} message={refusal.title} description={refusal.detail} role="alert" />}
      </Flex>

      <Section title={text.details}>
        <Descriptions size="small" column={1} bordered className="order-drawer__facts">
          <Descriptions.Item label={text.customer}>{order.customer_name || ordersText.noName}</Descriptions.Item>
          <Descriptions.Item label={text.number}>
            <a href={`tel:${order.customer_number}`}>{formatPhoneNumber(order.customer_number)}</a>
          </Descriptions.Item>
          <Descriptions.Item label={text.email}>{order.customer_email || text.none}</Descriptions.Item>
          <Descriptions.Item label={text.consent}>
            <Consent consent={order.call_consent} />
          </Descriptions.Item>
          <Descriptions.Item label={text.store}>
            {store ? `${store} · ` : ""}
            {text.sources[order.source]}
          </Descriptions.Item>
          <Descriptions.Item label={text.abandoned}>{formatWhen(order.abandoned_at, true)}</Descriptions.Item>
          {order.next_call_at && <Descriptions.Item label={text.nextCall}>{formatWhen(order.next_call_at, true)}</Descriptions.Item>}
          {order.call_outcome && <Descriptions.Item label={text.lastOutcome}>{ORDER_CALL_OUTCOME_LABELS[order.call_outcome]}</Descriptions.Item>}
          {order.callback_at && <Descriptions.Item label={text.callbackAt}>{formatWhen(order.callback_at, true)}</Descriptions.Item>}
          {order.paid_at && <Descriptions.Item label={text.paid}>{formatWhen(order.paid_at, true)}</Descriptions.Item>}
          {order.status === "recovered" && <Descriptions.Item label={text.recoveredAmount}>{formatMoney(order.recovered_amount, order.currency)}</Descriptions.Item>}
          <Descriptions.Item label={text.timezone}>{order.timezone ?? order.timezones.join(", ") ?? text.none}</Descriptions.Item>
        </Descriptions>
        <div className="order-drawer__checkout">
          {order.checkout_url ? (
            <Button href={order.checkout_url} target="_blank" rel="noopener noreferrer" icon={<ExportOutlined />} title={text.checkoutHint}>
              {text.checkout}
            </Button>
          ) : (
            <Typography.Text type="secondary">{text.noCheckout}</Typography.Text>
          )}
        </div>
      </Section>

      <Section title={text.items}>
        <OrderItems order={order} />
      </Section>

      <Section title={text.timeline}>
        <OrderTimeline entries={timeline.entries} loading={timeline.query.isLoading} failed={timeline.query.isError ? (timeline.query.error?.message ?? "") : undefined} />
      </Section>
    </Flex>
  );
}

/** GET /order/{id}/timeline, asked again while the order is live. */
function useOrderTimeline(id: string | undefined, live: boolean) {
  const { result, query } = useCustom<{ data: OrderTimelineEntry[] }, ApiError>({
    url: ORDER_PATHS.timeline(id ?? ""),
    method: "get",
    queryOptions: { enabled: Boolean(id), refetchInterval: live ? ORDER_POLL_MS : false },
    errorNotification: false,
  });
  return { entries: result.data?.data ?? [], query };
}

/**
 * One order (GET /order/{id}) in a drawer with its timeline and what may be done to it now; the page
 * keeps its id in the URL (?order=) so the view can be linked. Asked again while the order is live.
 */
export function OrderDrawer({
  orderId,
  onClose,
  actions,
  permissions,
}: {
  orderId: string | undefined;
  onClose: () => void;
  actions: ReturnType<typeof useOrderActions>;
  permissions: OrderPermissions;
}) {
  const { result, query } = useOne<Order, ApiError>({
    resource: "order",
    id: orderId ?? "",
    queryOptions: { enabled: Boolean(orderId), refetchInterval: (current) => (current.state.data?.data && isOrderLive(current.state.data.data) ? ORDER_POLL_MS : false) },
    errorNotification: false,
  });
  const order = orderId && result?.id === orderId ? result : undefined;
  const timeline = useOrderTimeline(orderId, order ? isOrderLive(order) : false);
  // A changed order (an action, a call ending, a payment) has a new timeline entry: ask for it too.
  const updatedAt = order?.updated_at;
  const refetchTimeline = timeline.query.refetch;
  const seenUpdate = useRef(updatedAt);
  useEffect(() => {
    if (updatedAt && seenUpdate.current && updatedAt !== seenUpdate.current) void refetchTimeline();
    seenUpdate.current = updatedAt;
  }, [updatedAt, refetchTimeline]);

  let body;
  if (query.isError) body = <Alert type="error" showIcon message={query.error?.statusCode === 404 ? text.notFound : text.loadFailed} description={query.error?.statusCode === 404 ? undefined : query.error?.message} />;
  else if (!order)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active />
      </div>
    );
  else body = <OrderDetail order={order} timeline={timeline} actions={actions} permissions={permissions} />;

  return (
    <Drawer open={Boolean(orderId)} onClose={onClose} width="min(640px, 100vw)" destroyOnHidden title={order ? text.title(order.reference) : text.loading}>
      {body}
    </Drawer>
  );
}
