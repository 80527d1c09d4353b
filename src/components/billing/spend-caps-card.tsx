import { useList } from "@refinedev/core";
import { Alert, Button, Card, Col, Empty, Form, InputNumber, Progress, Row, Select, Space, Tag, Typography } from "antd";
import { useState } from "react";
import type { Agent } from "../../../contract/agent";
import type { BillingSummary, SpendCapInput } from "../../../contract/billing";
import { SPEND_CAP_MAX_USD, SPEND_CAPS_MAX, type SpendCapPeriod } from "../../../contract/billing-shared";
import { AGENT_LIST_MAX_LIMIT } from "../../../contract/paging";
import { AdminButton } from "./admin-button";
import { formatInstant, formatUsd } from "./billing-format";
import { billingText } from "./strings";
import { useBillingActions, useRefreshBilling } from "./use-billing";

const text = billingText.caps;
const ORGANIZATION = "__organization__";

interface CapRow {
  target: string;
  period: SpendCapPeriod;
  limit_usd: number | null;
}

/** Spend caps: each cap's progress this day or month, and (admins) an editor for the whole list. */
export function SpendCapsCard({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  const [editing, setEditing] = useState(false);
  const caps = summary.spend_caps;
  return (
    <Card
      title={text.title}
      extra={
        !editing && (
          <AdminButton allowed={canEdit} onClick={() => setEditing(true)}>
            {text.edit}
          </AdminButton>
        )
      }
    >
      {editing ? (
        <SpendCapsEditor summary={summary} onDone={() => setEditing(false)} />
      ) : caps.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={text.none} />
      ) : (
        <Row gutter={[16, 16]}>
          {caps.map((cap) => {
            const name = cap.scope === "organization" ? text.organization : (cap.agent_name ?? text.deletedAgent);
            return (
              <Col xs={24} md={12} key={cap.id}>
                <Space wrap size={4}>
                  <Typography.Text strong>{name}</Typography.Text>
                  <Typography.Text type="secondary">· {text.periods[cap.period]}</Typography.Text>
                  {cap.reached && <Tag color="red">{text.reached}</Tag>}
                </Space>
                <Progress
                  percent={Math.min(100, Math.round(cap.progress * 1000) / 10)}
                  status={cap.reached ? "exception" : cap.progress >= 0.8 ? "active" : "normal"}
                  aria-label={`${name} ${text.periods[cap.period]}: ${text.progress(formatUsd(cap.spent_usd), formatUsd(cap.limit_usd))}`}
                />
                <Typography.Text type="secondary">
                  {text.progress(formatUsd(cap.spent_usd), formatUsd(cap.limit_usd))} · {text.resets(formatInstant(cap.resets_at, summary.time_zone))}
                </Typography.Text>
              </Col>
            );
          })}
        </Row>
      )}
    </Card>
  );
}

function SpendCapsEditor({ summary, onDone }: { summary: BillingSummary; onDone: () => void }) {
  const actions = useBillingActions();
  const refresh = useRefreshBilling();
  const [form] = Form.useForm<{ caps: CapRow[] }>();
  const [error, setError] = useState<string | null>(null);
  const agents = useList<Agent>({ resource: "agent", pagination: { currentPage: 1, pageSize: AGENT_LIST_MAX_LIMIT }, errorNotification: false });
  const options = [
    { value: ORGANIZATION, label: text.organization },
    ...(agents.result.data ?? []).map((agent) => ({ value: String(agent.id), label: agent.agent_name })),
  ];
  const initial: CapRow[] = summary.spend_caps.map((cap) => ({ target: cap.scope === "organization" ? ORGANIZATION : (cap.agent_id ?? ""), period: cap.period, limit_usd: cap.limit_usd }));

  const save = async ({ caps }: { caps: CapRow[] }) => {
    setError(null);
    const request: SpendCapInput[] = caps.map((row) =>
      row.target === ORGANIZATION
        ? { scope: "organization", period: row.period, limit_usd: row.limit_usd ?? 0 }
        : { scope: "agent", agent_id: row.target, period: row.period, limit_usd: row.limit_usd ?? 0 },
    );
    try {
      await actions.saveCaps({ caps: request });
      refresh();
      onDone();
    } catch (cause) {
      setError(String((cause as { message?: unknown }).message ?? cause));
    }
  };

  return (
    <Form form={form} layout="vertical" initialValues={{ caps: initial }} onFinish={(values) => void save(values)}>
      {agents.query.isError && <Alert type="warning" showIcon message={text.agentsFailed} style={{ marginBottom: 16 }} />}
      <Form.List name="caps">
        {(fields, { add, remove }) => (
          <>
            {fields.map((field) => (
              <Row gutter={8} key={field.key} align="bottom">
                <Col xs={24} md={10}>
                  <Form.Item name={[field.name, "target"]} label={text.scope} rules={[{ required: true }]}>
                    <Select options={options} showSearch optionFilterProp="label" loading={agents.query.isLoading} />
                  </Form.Item>
                </Col>
                <Col xs={10} md={5}>
                  <Form.Item name={[field.name, "period"]} label={text.period} rules={[{ required: true }]}>
                    <Select options={[{ value: "day", label: text.periods.day }, { value: "month", label: text.periods.month }]} />
                  </Form.Item>
                </Col>
                <Col xs={14} md={7}>
                  <Form.Item name={[field.name, "limit_usd"]} label={text.limit} rules={[{ required: true, type: "number", min: 0.01, max: SPEND_CAP_MAX_USD }]}>
                    <InputNumber prefix="$" precision={2} style={{ width: "100%" }} />
                  </Form.Item>
                </Col>
                <Col xs={24} md={2}>
                  <Form.Item>
                    <Button danger type="text" onClick={() => remove(field.name)} aria-label={text.remove}>
                      ✕
                    </Button>
                  </Form.Item>
                </Col>
              </Row>
            ))}
            <Button type="dashed" disabled={fields.length >= SPEND_CAPS_MAX} onClick={() => add({ target: ORGANIZATION, period: "month", limit_usd: null })} style={{ marginBottom: 16 }}>
              {text.add}
            </Button>
          </>
        )}
      </Form.List>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} />}
      <Space wrap>
        <Button type="primary" htmlType="submit" loading={actions.pending}>
          {text.save}
        </Button>
        <Button onClick={onDone}>{text.cancel}</Button>
      </Space>
    </Form>
  );
}
