import { useTable, type CrudFilter } from "@refinedev/core";
import { Button, Col, DatePicker, Empty, Input, InputNumber, Popconfirm, Row, Select, Space, Table, Typography, Alert } from "antd";
import dayjs from "dayjs";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import type { BillingSummary, LedgerEntry } from "../../../contract/billing";
import { LEDGER_PAGE_SIZE } from "../../../contract/billing-shared";
import { WALLET_LEDGER_KINDS } from "../../../contract/wallet";
import { useAgentList } from "../../hooks/use-agent-list";
import { API_URL } from "../../config/api-url";
import { useAuthSession } from "../../auth/session";
import { downloadCsv } from "../../lib/csv-download";
import { ledgerFilterQuery } from "../../providers/data";
import { buildQueryString, type ApiError } from "../../providers/data/fetch-wrapper";
import { useShell } from "../layout/shell-context";
import { ListLoadError, listEmptyText } from "../list-load-error";
import { AdminButton } from "./admin-button";
import { formatInstant, formatSignedUsd, formatUsd, isDay } from "./billing-format";
import { useBillingUrl } from "./billing-url";
import { billingText } from "./strings";
import { useBillingActions, useRefreshBilling } from "./use-billing";

const text = billingText.transactions;

/** A ledger amount, signed and coloured (credits green, debits red). */
function Amount({ value }: { value: number }) {
  return (
    <Typography.Text type={value > 0 ? "success" : value < 0 ? "danger" : undefined} className="billing-amount">
      {formatSignedUsd(value, formatUsd)}
    </Typography.Text>
  );
}

/** The ledger's filters as the URL holds them, as Refine filters (the data provider maps them to the query). */
export function ledgerFilters(get: (key: string) => string | undefined): CrudFilter[] {
  const filters: CrudFilter[] = [];
  const add = (field: string, value: string | undefined) => {
    if (value) filters.push({ field, operator: "eq", value });
  };
  const from = get("from");
  const to = get("to");
  add("startDate", isDay(from) ? from : undefined);
  add("endDate", isDay(to) ? to : undefined);
  add("kind", get("kind"));
  add("agentId", get("agent"));
  add("q", get("q"));
  const min = Number(get("min"));
  const max = Number(get("max"));
  if (get("min") && Number.isFinite(min)) filters.push({ field: "minAmount", operator: "gte", value: min });
  if (get("max") && Number.isFinite(max)) filters.push({ field: "maxAmount", operator: "lte", value: max });
  return filters;
}

/** The Transactions tab: the ledger, 50 a page, filtered from the URL, exported as CSV with the same filters. */
export default function TransactionsTab({ summary, canEdit }: { summary: BillingSummary | undefined; canEdit: boolean }) {
  const { get, patch } = useBillingUrl();
  const { agents } = useAgentList();
  const { getToken } = useAuthSession();
  const actions = useBillingActions();
  const refresh = useRefreshBilling();
  const page = Math.max(1, Number(get("page")) || 1);
  const filters = ledgerFilters(get);
  const [search, setSearch] = useState(get("q") ?? "");
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const [refundError, setRefundError] = useState<string | null>(null);
  // Refine's useTable on the ledger. The URL (beside ?tab=) holds the page and filters in readable names
  // (startDate, kind, q…), so the table follows it rather than syncing its own encoding into it.
  const {
    result,
    tableQuery: query,
    currentPage,
    setCurrentPage,
  } = useTable<LedgerEntry, ApiError>({
    resource: "billing-ledger",
    pagination: { currentPage: page, pageSize: LEDGER_PAGE_SIZE, mode: "server" },
    filters: { permanent: filters, mode: "server" },
    syncWithLocation: false,
    errorNotification: false,
  });
  useEffect(() => {
    if (currentPage !== page) setCurrentPage(page);
  }, [page, currentPage, setCurrentPage]);
  const zone = summary?.time_zone;
  const { narrow } = useShell();
  const filtered = filters.length > 0;
  const set = (changes: Record<string, string | undefined>) => patch({ ...changes, page: undefined });

  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      await downloadCsv({
        url: `${API_URL}/billing/ledger/export${buildQueryString(ledgerFilterQuery(filters))}`,
        token: await getToken(),
        fileName: `transactions-${new Date().toISOString().slice(0, 10)}.csv`,
        onProgress: () => undefined,
      });
    } catch (cause) {
      setExportError((cause as Error).message);
    } finally {
      setExporting(false);
    }
  };

  const from = get("from");
  const to = get("to");
  return (
    <Space direction="vertical" size={16} style={{ width: "100%" }}>
      <Row gutter={[8, 8]}>
        <Col xs={24} md={12} xl={7}>
          <DatePicker.RangePicker
            aria-label={text.range}
            style={{ width: "100%" }}
            value={[isDay(from) ? dayjs(from) : null, isDay(to) ? dayjs(to) : null]}
            onChange={(range) => set({ from: range?.[0]?.format("YYYY-MM-DD"), to: range?.[1]?.format("YYYY-MM-DD") })}
          />
        </Col>
        <Col xs={12} md={6} xl={4}>
          <Select
            aria-label={text.kind}
            style={{ width: "100%" }}
            value={get("kind") ?? ""}
            onChange={(value: string) => set({ kind: value })}
            options={[{ value: "", label: text.allKinds }, ...WALLET_LEDGER_KINDS.map((kind) => ({ value: kind, label: text.kinds[kind] ?? kind }))]}
          />
        </Col>
        <Col xs={12} md={6} xl={4}>
          <Select
            aria-label={text.agent}
            style={{ width: "100%" }}
            showSearch
            optionFilterProp="label"
            value={get("agent") ?? ""}
            onChange={(value: string) => set({ agent: value })}
            options={[{ value: "", label: text.allAgents }, ...agents.map((agent) => ({ value: String(agent.id), label: agent.agent_name }))]}
          />
        </Col>
        <Col xs={24} md={12} xl={5}>
          <Input.Search aria-label={text.search} placeholder={text.search} allowClear value={search} onChange={(event) => setSearch(event.target.value)} onSearch={(value) => set({ q: value.trim() })} />
        </Col>
        <Col xs={12} md={6} xl={2}>
          <InputNumber aria-label={text.minAmount} placeholder={text.minAmount} min={0} style={{ width: "100%" }} value={get("min") ? Number(get("min")) : null} onChange={(value) => set({ min: value === null ? undefined : String(value) })} />
        </Col>
        <Col xs={12} md={6} xl={2}>
          <InputNumber aria-label={text.maxAmount} placeholder={text.maxAmount} min={0} style={{ width: "100%" }} value={get("max") ? Number(get("max")) : null} onChange={(value) => set({ max: value === null ? undefined : String(value) })} />
        </Col>
      </Row>
      <Space wrap>
        {filtered && (
          <Button
            onClick={() => {
              setSearch("");
              set({ from: undefined, to: undefined, kind: undefined, agent: undefined, q: undefined, min: undefined, max: undefined });
            }}
          >
            {text.clear}
          </Button>
        )}
        <Button loading={exporting} onClick={() => void exportCsv()}>
          {text.export}
        </Button>
      </Space>
      {exportError && <Alert type="error" showIcon message={text.exportFailed} description={exportError} />}
      {refundError && <Alert type="error" showIcon closable onClose={() => setRefundError(null)} message={refundError} />}
      <ListLoadError query={query} title={text.loadFailed} retryLabel={billingText.retry} />
      <Table<LedgerEntry>
        rowKey="id"
        size="middle"
        scroll={{ x: "max-content" }}
        loading={query.isLoading}
        dataSource={result.data}
        locale={{ emptyText: listEmptyText(query.isSuccess, <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={filtered ? text.noneMatching : text.empty} />) }}
        pagination={{
          current: page,
          pageSize: LEDGER_PAGE_SIZE,
          total: result.total ?? 0,
          showSizeChanger: false,
          showTotal: (total) => text.total(total),
          onChange: (next) => patch({ page: next === 1 ? undefined : String(next) }),
        }}
        columns={[
          {
            title: text.columns.date,
            dataIndex: "created_at",
            // On a phone the table scrolls sideways: the amount goes under the date, in sight.
            render: (value: string, entry) =>
              narrow ? (
                <Space direction="vertical" size={0}>
                  <span>{formatInstant(value, zone)}</span>
                  <Amount value={entry.amount_usd} />
                </Space>
              ) : (
                formatInstant(value, zone)
              ),
          },
          { title: text.columns.description, dataIndex: "description" },
          { title: text.columns.kind, dataIndex: "kind", render: (kind: string) => text.kinds[kind] ?? kind },
          { title: text.columns.agent, dataIndex: "agent_name", render: (name: string | null) => name ?? "" },
          {
            title: text.columns.call,
            dataIndex: "call_id",
            render: (callId: string | null) => (callId ? <Link to={`/call-logs?call=${encodeURIComponent(callId)}`} aria-label={`${text.openCall} ${callId}`}>{text.openCall}</Link> : null),
          },
          ...(narrow ? [] : [{ title: text.columns.amount, dataIndex: "amount_usd", align: "right" as const, render: (amount: number) => <Amount value={amount} /> }]),
          { title: text.columns.balance, dataIndex: "balance_after_usd", align: "right", render: (value: number) => formatUsd(value) },
          {
            title: text.columns.actions,
            key: "actions",
            render: (_: unknown, entry) =>
              entry.top_up_id && (entry.kind === "top-up" || entry.kind === "auto-reload") ? (
                canEdit ? (
                  <Popconfirm
                    title={text.refundConfirm}
                    onConfirm={async () => {
                      setRefundError(null);
                      try {
                        await actions.refund(entry.top_up_id!);
                        refresh();
                      } catch (cause) {
                        setRefundError((cause as ApiError).message);
                      }
                    }}
                  >
                    <Button size="small">{text.refund}</Button>
                  </Popconfirm>
                ) : (
                  <AdminButton allowed={false} size="small">
                    {text.refund}
                  </AdminButton>
                )
              ) : null,
          },
        ]}
      />
    </Space>
  );
}
