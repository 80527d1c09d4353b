import { useCustom } from "@refinedev/core";
import { Empty, Table } from "antd";
import { Link } from "react-router";
import type { BillingDocument } from "../../../contract/billing";
import { billingPaths } from "../../../contract/billing-shared";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { ListLoadError, listEmptyText } from "../list-load-error";
import { formatInstant, formatUsd } from "./billing-format";
import { SandboxTag } from "./overview-tab";
import { billingText } from "./strings";
import { splitUrl } from "./use-billing";

const text = billingText.receipts;

/** A document's link: the console's printable page for the sandbox's, Stripe's hosted page otherwise. */
function DocumentLink({ url, label }: { url: string; label: string }) {
  const target = splitUrl(url);
  if ("internal" in target) return <Link to={target.internal} aria-label={label}>{text.open}</Link>;
  return (
    <a href={target.external} target="_blank" rel="noreferrer" aria-label={label}>
      {text.open}
    </a>
  );
}

/** The Receipts tab: GET /billing/documents, newest first, each with its link. */
export default function ReceiptsTab({ zone }: { zone: string | undefined }) {
  const { result, query } = useCustom<{ data: BillingDocument[]; total: number }, ApiError>({
    url: billingPaths.documents,
    method: "get",
    config: { query: { page: 1, limit: 100 } },
    errorNotification: false,
  });
  const documents = (result.data as { data?: BillingDocument[] } | undefined)?.data;
  return (
    <>
      <ListLoadError query={query} title={text.loadFailed} retryLabel={billingText.retry} />
      <Table<BillingDocument>
        rowKey="id"
        size="middle"
        scroll={{ x: "max-content" }}
        loading={query.isLoading}
        dataSource={documents ?? []}
        pagination={false}
        locale={{ emptyText: listEmptyText(query.isSuccess, <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={text.empty} />) }}
        columns={[
          { title: text.columns.number, dataIndex: "number" },
          { title: text.columns.date, dataIndex: "created_at", render: (value: string) => formatInstant(value, zone) },
          { title: text.columns.description, dataIndex: "description" },
          { title: text.columns.kind, dataIndex: "kind", render: (kind: string, document) => <>{text.kinds[kind] ?? kind} <SandboxTag show={document.sandbox} /></> },
          { title: text.columns.amount, dataIndex: "amount_usd", align: "right", render: (value: number) => formatUsd(value) },
          { title: text.columns.link, key: "link", render: (_: unknown, document) => <DocumentLink url={document.url} label={`${text.open} ${document.number}`} /> },
        ]}
      />
    </>
  );
}
