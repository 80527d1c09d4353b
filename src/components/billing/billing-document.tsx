import { useCustom } from "@refinedev/core";
import { Button, Card, Descriptions, Skeleton, Space, Table, Tag, Typography } from "antd";
import { useEffect } from "react";
import { Link, useParams } from "react-router";
import type { BillingDocument } from "../../../contract/billing";
import { billingPaths } from "../../../contract/billing-shared";
import { strings } from "../../config/strings";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatInstant, formatUsd } from "./billing-format";
import { billingText } from "./strings";
import { pathOf } from "./use-billing";
import "./billing.css";
import { ListLoadError } from "../list-load-error";

const text = billingText.document;

type PrintableDocument = BillingDocument & { organization_name: string; lines: Array<{ description: string; amount_usd: number }> };

/** /billing/documents/:id: the sandbox's receipt or invoice as a page to print. */
export default function BillingDocumentPage() {
  const { id = "" } = useParams();
  const { result, query } = useCustom<{ data: PrintableDocument }, ApiError>({
    url: pathOf(billingPaths.documentById, id),
    method: "get",
    errorNotification: false,
  });
  const document_ = (result.data as { data?: PrintableDocument } | undefined)?.data;
  const kind = document_ ? (billingText.receipts.kinds[document_.kind] ?? document_.kind) : "";
  const title = document_ ? text.title(kind, document_.number) : strings.screens.billing;

  useEffect(() => {
    document.title = `${title} · ${strings.appName}`;
  }, [title]);

  return (
    <section className="billing-document">
      <Space className="billing-no-print" wrap style={{ marginBottom: 16 }}>
        <Link to="/billing?tab=receipts">{text.back}</Link>
        <Button type="primary" disabled={!document_} onClick={() => window.print()}>
          {text.print}
        </Button>
      </Space>
      <h1 className="billing-screen__title">
        {title} {document_?.sandbox && <Tag color="purple">{billingText.sandbox}</Tag>}
      </h1>
      {query.isError ? (
        <ListLoadError query={query} title={text.loadFailed} retryLabel={billingText.retry} />
      ) : !document_ ? (
        <div role="status" aria-label={billingText.loading}>
          <Skeleton active />
        </div>
      ) : (
        <Card>
          <Descriptions column={1} size="small">
            <Descriptions.Item label={text.billedTo}>{document_.organization_name}</Descriptions.Item>
            <Descriptions.Item label={text.date}>{formatInstant(document_.created_at)}</Descriptions.Item>
          </Descriptions>
          <Table
            pagination={false}
            size="small"
            style={{ marginTop: 16 }}
            dataSource={document_.lines.map((line, index) => ({ ...line, key: index }))}
            columns={[
              { title: text.line, dataIndex: "description" },
              { title: text.amount, dataIndex: "amount_usd", align: "right", render: (value: number) => formatUsd(value) },
            ]}
            summary={() => (
              <Table.Summary.Row>
                <Table.Summary.Cell index={0}>
                  <strong>{text.total}</strong>
                </Table.Summary.Cell>
                <Table.Summary.Cell index={1} align="right">
                  <strong>{formatUsd(document_.amount_usd)}</strong>
                </Table.Summary.Cell>
              </Table.Summary.Row>
            )}
          />
          {document_.sandbox && <Typography.Paragraph type="secondary" style={{ marginTop: 16 }}>{text.sandboxNote}</Typography.Paragraph>}
        </Card>
      )}
    </section>
  );
}
