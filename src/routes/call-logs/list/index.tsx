import { List, useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";

import { useEffect } from "react";
import { DEFAULT_PAGE_SIZE } from "../../../../contract/paging";
import { applyFilterPatch, type CallFilterPatch } from "../../../components/calls/call-filter-values";
import { CallDetailDrawer } from "../../../components/calls/call-detail-drawer";
import { CallFilters } from "../../../components/calls/call-filters";
import type { CallListItem } from "../../../components/calls/call-format";
import { CallTable } from "../../../components/calls/call-table";
import { ExportCallsButton } from "../../../components/calls/export-calls-button";
import "../../../components/calls/call-logs.css";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";
import { useQueryParam } from "../../../hooks/use-query-param";

const text = strings.callLogs;
/** The drawer's query parameter: /call-logs?call=<id> opens that call over the list. */
const CALL_PARAM = "call";

/**
 * Call Logs: server-side paging, filters and sort through Refine's useTable, all kept in the URL
 * (Refine's syncWithLocation), so a link reproduces the view; a row opens the call in a drawer.
 */
export default function CallLogListPage() {
  const { tableProps, tableQuery, filters, setFilters, sorters } = useTable<CallListItem, HttpError>({
    resource: "call",
    syncWithLocation: true,
    pagination: { pageSize: DEFAULT_PAGE_SIZE },
    filters: { mode: "server" },
    sorters: { mode: "server" },
    errorNotification: false,
  });
  const [callId, setCall] = useQueryParam(CALL_PARAM);

  useEffect(() => {
    document.title = `${strings.screens.callLogs} · ${strings.appName}`;
  }, []);

  // Replacing the whole list keeps the filters exactly what the bar shows (and resets to page 1).
  const changeFilters = (patch: CallFilterPatch) => setFilters((current) => applyFilterPatch(current, patch));
  const estimate = tableQuery.data?.totalIsEstimate === true;

  return (
    <List
      title={<h1 className="call-logs__title">{strings.screens.callLogs}</h1>}
      breadcrumb={false}
      headerButtons={<ExportCallsButton filters={filters} sorters={sorters} />}
    >
      <CallFilters filters={filters} onChange={changeFilters} />
      <ListLoadError query={tableQuery} title={text.listFailed} retryLabel={text.retry} />
      <CallTable
        tableProps={{
          ...tableProps,
          pagination: tableProps.pagination && {
            ...tableProps.pagination,
            showSizeChanger: true,
            showTotal: (total) => text.total(total, estimate),
          },
        }}
        sorters={sorters}
        filtered={filters.length > 0}
        loaded={tableQuery.isSuccess}
        onOpen={(id) => setCall(id)}
      />
      <CallDetailDrawer callId={callId} onClose={() => setCall(undefined)} />
    </List>
  );
}
