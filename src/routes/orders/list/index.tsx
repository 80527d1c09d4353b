import { ImportOutlined, SettingOutlined, ShopOutlined } from "@ant-design/icons";
import { List, useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Button } from "antd";
import { useCallback, useEffect, useState } from "react";
import type { Order } from "../../../../contract/order";
import { DEFAULT_PAGE_SIZE } from "../../../../contract/paging";
import { ListLoadError } from "../../../components/list-load-error";
import { OrderDrawer } from "../../../components/orders/order-drawer";
import { applyOrderFilters, OrderFilters, orderFilterText, type OrderFilterPatch } from "../../../components/orders/order-filters";
import { isOrderLive, ORDER_POLL_MS } from "../../../components/orders/order-format";
import { OrderKpis, useOrderStats } from "../../../components/orders/order-kpis";
import { OrderTable } from "../../../components/orders/order-table";
import "../../../components/orders/orders.css";
import { FollowUpSettingsDrawer, ImportOrdersDialog, IntegrationsDrawer } from "../../../components/orders/settings";
import { ordersText } from "../../../components/orders/strings";
import { useOrderActions } from "../../../components/orders/use-order-actions";
import { useOrderPermissions } from "../../../components/orders/use-order-permissions";
import { strings } from "../../../config/strings";
import { useQueryParam } from "../../../hooks/use-query-param";

const text = ordersText;
/** The drawer's query parameter: /orders?order=<id> opens that order over the list. */
const ORDER_PARAM = "order";
type Panel = "followUp" | "integrations" | "import";

/**
 * Orders: abandoned checkouts and unpaid orders followed up by phone. KPI cards for the chosen days,
 * the orders paged, filtered by status, days and search (all in the URL); a row opens the order in a
 * drawer with its timeline and actions. While an order on the page is being called (or waits for a
 * queued call) the page asks again every few seconds.
 */
export default function OrderListPage() {
  const permissions = useOrderPermissions();
  const [panel, setPanel] = useState<Panel | null>(null);
  const [orderId, setOrder] = useQueryParam(ORDER_PARAM);
  const { tableProps, tableQuery, filters, setFilters } = useTable<Order, HttpError>({
    resource: "order",
    syncWithLocation: true,
    pagination: { pageSize: DEFAULT_PAGE_SIZE },
    filters: { mode: "server" },
    sorters: { mode: "off" },
    errorNotification: false,
    queryOptions: {
      refetchInterval: (query) => (query.state.data?.data.some(isOrderLive) ? ORDER_POLL_MS : false),
    },
  });
  const live = tableQuery.data?.data.some(isOrderLive) ?? false;
  const stats = useOrderStats({ startDate: orderFilterText(filters, "startDate"), endDate: orderFilterText(filters, "endDate"), refetchInterval: live ? ORDER_POLL_MS : false });
  const refetchStats = stats.query.refetch;
  const refresh = useCallback(() => {
    void refetchStats();
    void tableQuery.refetch();
  }, [refetchStats, tableQuery]);
  const actions = useOrderActions(
    useCallback(
      (command: string) => {
        void refetchStats();
        if (command === "delete") setOrder(undefined);
      },
      [refetchStats, setOrder],
    ),
  );

  useEffect(() => {
    document.title = `${strings.screens.orders} · ${strings.appName}`;
  }, []);

  const changeFilters = (patch: OrderFilterPatch) => setFilters((current) => applyOrderFilters(current, patch));
  const admin = permissions.canManage;
  const emptyActions = admin ? (
    <div className="orders__empty-actions">
      <Button type="primary" icon={<ShopOutlined />} onClick={() => setPanel("integrations")}>
        {text.header.integrations}
      </Button>
      <Button icon={<ImportOutlined />} onClick={() => setPanel("import")}>
        {text.header.import}
      </Button>
    </div>
  ) : undefined;
  const panelProps = (which: Panel) => ({ open: panel === which, onClose: () => setPanel(null), onChanged: refresh });

  return (
    <List
      title={<h1 className="orders__title">{strings.screens.orders}</h1>}
      breadcrumb={false}
      headerButtons={
        admin ? (
          <div className="orders__header-buttons">
            <Button icon={<SettingOutlined />} onClick={() => setPanel("followUp")}>
              {text.header.followUp}
            </Button>
            <Button icon={<ShopOutlined />} onClick={() => setPanel("integrations")}>
              {text.header.integrations}
            </Button>
            <Button icon={<ImportOutlined />} onClick={() => setPanel("import")}>
              {text.header.import}
            </Button>
          </div>
        ) : null
      }
    >
      <OrderKpis {...stats} onShow={changeFilters} />
      <OrderFilters filters={filters} onChange={changeFilters} />
      <ListLoadError query={tableQuery} title={text.listFailed} retryLabel={text.retry} />
      <OrderTable
        tableProps={{
          ...tableProps,
          pagination: tableProps.pagination && { ...tableProps.pagination, showSizeChanger: true, showTotal: (total) => text.total(total) },
        }}
        filtered={filters.length > 0}
        loaded={tableQuery.isSuccess}
        adminActions={emptyActions}
        onOpen={setOrder}
        onClearFilters={() => setFilters(() => [])}
      />
      <OrderDrawer orderId={orderId} onClose={() => setOrder(undefined)} actions={actions} permissions={permissions} />
      {admin && (
        <>
          <FollowUpSettingsDrawer {...panelProps("followUp")} />
          <IntegrationsDrawer {...panelProps("integrations")} />
          <ImportOrdersDialog {...panelProps("import")} />
        </>
      )}
    </List>
  );
}
