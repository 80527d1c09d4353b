import { Alert, Card, Checkbox, Col, Form, InputNumber, Popconfirm, Radio, Row, Space, Statistic, Switch, Tag, Typography } from "antd";
import { useState } from "react";
import type { BillingSummary } from "../../../contract/billing";
import {
  AUTO_RELOAD_MAX_AMOUNT_USD,
  AUTO_RELOAD_MAX_THRESHOLD_USD,
  AUTO_RELOAD_MIN_AMOUNT_USD,
  TOP_UP_MAX_USD,
  TOP_UP_MIN_USD,
  TOP_UP_PRESETS_USD,
} from "../../../contract/billing-shared";
import { AdminButton } from "./admin-button";
import { formatUsd } from "./billing-format";
import { useGoToUrl } from "./go-to-url";
import { SpendCapsCard } from "./spend-caps-card";
import { billingText } from "./strings";
import { useBillingActions, useRefreshBilling } from "./use-billing";

/** What the auto-reload form suggests before it was ever saved. */
const SUGGESTED_RELOAD = { amount_usd: 25, threshold_usd: 10 } as const;

const text = billingText;
const errorOf = (error: unknown) => (error instanceof Error || (typeof error === "object" && error !== null && "message" in error) ? String((error as { message: unknown }).message) : String(error));

export function SandboxTag({ show }: { show: boolean }) {
  return show ? <Tag color="purple">{text.sandbox}</Tag> : null;
}

export function BalanceCards({ summary }: { summary: BillingSummary }) {
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} sm={8}>
        <Card>
          <Statistic title={text.overview.balance} value={formatUsd(summary.balance_usd)} />
        </Card>
      </Col>
      <Col xs={24} sm={8}>
        <Card>
          <Statistic title={text.overview.available} value={formatUsd(summary.available_usd)} />
          {summary.held_usd > 0 && <Typography.Text type="secondary">{text.overview.held(formatUsd(summary.held_usd))}</Typography.Text>}
        </Card>
      </Col>
      <Col xs={24} sm={8}>
        <Card>
          <Statistic title={text.overview.month} value={formatUsd(summary.month_to_date_usd)} />
          <Typography.Text type="secondary">{text.overview.monthHint}</Typography.Text>
        </Card>
      </Col>
    </Row>
  );
}

export function BillingAlerts({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  const actions = useBillingActions();
  const go = useGoToUrl();
  const [error, setError] = useState<string | null>(null);
  if (summary.alerts.length === 0) return null;
  const confirm = async () => {
    setError(null);
    try {
      go((await actions.confirmAutoReload()).url);
    } catch (cause) {
      setError(errorOf(cause));
    }
  };
  return (
    <Space direction="vertical" style={{ width: "100%" }}>
      {summary.alerts.map((alert) => (
        <Alert
          key={alert.code}
          type={alert.code === "low_balance" ? "warning" : "error"}
          showIcon
          message={alert.detail}
          action={
            alert.code === "reload_needs_action" ? (
              <AdminButton allowed={canEdit} size="small" loading={actions.pending} onClick={() => void confirm()}>
                {text.alerts.confirmCard}
              </AdminButton>
            ) : undefined
          }
        />
      ))}
      {error && <Alert type="error" showIcon message={error} />}
    </Space>
  );
}

const inRange = (value: number | null): value is number => value !== null && value >= TOP_UP_MIN_USD && value <= TOP_UP_MAX_USD && Math.abs(Math.round(value * 100) - value * 100) < 1e-6;

export function TopUpCard({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  const actions = useBillingActions();
  const go = useGoToUrl();
  const [amount, setAmount] = useState<number | null>(TOP_UP_PRESETS_USD[1]);
  const [custom, setCustom] = useState(false);
  const [saveCard, setSaveCard] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const valid = inRange(amount);
  const min = formatUsd(TOP_UP_MIN_USD);
  const max = formatUsd(TOP_UP_MAX_USD);

  const submit = async () => {
    if (!valid) return;
    setError(null);
    setBusy(true);
    try {
      const created = await actions.topUp({ amount_usd: amount, save_card: saveCard });
      go(created.url);
    } catch (cause) {
      setError(errorOf(cause));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={text.topUp.title} extra={<SandboxTag show={summary.payments === "sandbox"} />}>
      <Space direction="vertical" style={{ width: "100%" }}>
        <Radio.Group
          optionType="button"
          value={custom ? "custom" : amount}
          onChange={(event) => {
            const value = event.target.value as number | "custom";
            setCustom(value === "custom");
            if (value !== "custom") setAmount(value);
          }}
          className="billing-wrap"
        >
          {TOP_UP_PRESETS_USD.map((preset) => (
            <Radio.Button key={preset} value={preset}>
              {formatUsd(preset)}
            </Radio.Button>
          ))}
          <Radio.Button value="custom">{text.topUp.custom}</Radio.Button>
        </Radio.Group>
        {custom && (
          <Form.Item
            label={text.topUp.custom}
            htmlFor="billing-top-up-custom"
            validateStatus={amount !== null && !valid ? "error" : undefined}
            help={amount !== null && !valid ? text.topUp.outOfRange(min, max) : text.topUp.customHint(min, max)}
            style={{ marginBottom: 0 }}
          >
            <InputNumber id="billing-top-up-custom" prefix="$" min={0} precision={2} step={1} value={amount} onChange={(value) => setAmount(typeof value === "number" ? value : null)} style={{ width: "100%", maxWidth: 240 }} />
          </Form.Item>
        )}
        <Checkbox checked={saveCard} onChange={(event) => setSaveCard(event.target.checked)}>
          {text.topUp.saveCard}
        </Checkbox>
        <AdminButton allowed={canEdit} type="primary" disabled={!valid} loading={busy} onClick={() => void submit()}>
          {valid ? text.topUp.submit(formatUsd(amount)) : text.topUp.submitNone}
        </AdminButton>
        {error && <Alert type="error" showIcon message={text.topUp.failed} description={error} />}
      </Space>
    </Card>
  );
}

interface AutoReloadValues {
  enabled: boolean;
  amount_usd: number | null;
  threshold_usd: number | null;
  monthly_cap_usd: number | null;
}

export function AutoReloadCard({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  const actions = useBillingActions();
  const refresh = useRefreshBilling();
  const [form] = Form.useForm<AutoReloadValues>();
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const reload = summary.auto_reload;

  const save = async (values: AutoReloadValues) => {
    setError(null);
    setSaved(false);
    try {
      await actions.saveAutoReload({
        enabled: values.enabled,
        amount_usd: values.amount_usd ?? AUTO_RELOAD_MIN_AMOUNT_USD,
        threshold_usd: values.threshold_usd ?? 0,
        monthly_cap_usd: values.monthly_cap_usd ?? null,
      });
      setSaved(true);
      refresh();
    } catch (cause) {
      setError(errorOf(cause));
    }
  };

  return (
    <Card
      title={text.autoReload.title}
      extra={<Tag color={reload.status === "ok" && reload.enabled ? "green" : reload.status === "needs_action" ? "orange" : undefined}>{reload.enabled ? text.autoReload.status[reload.status] : text.autoReload.status.disabled}</Tag>}
    >
      <Form<AutoReloadValues>
        form={form}
        layout="vertical"
        disabled={!canEdit}
        // Never set up (both 0): suggest $25 whenever the balance falls below $10, rather than an invalid $0.
        initialValues={{
          enabled: reload.enabled,
          amount_usd: reload.amount_usd > 0 ? reload.amount_usd : SUGGESTED_RELOAD.amount_usd,
          threshold_usd: reload.amount_usd > 0 ? reload.threshold_usd : SUGGESTED_RELOAD.threshold_usd,
          monthly_cap_usd: reload.monthly_cap_usd,
        }}
        onFinish={(values) => void save(values)}
      >
        <Form.Item name="enabled" label={text.autoReload.enabled} valuePropName="checked">
          <Switch />
        </Form.Item>
        {!summary.card && <Alert type="info" role="status" showIcon message={text.autoReload.needsCard} style={{ marginBottom: 16 }} />}
        <Row gutter={16}>
          <Col xs={24} md={8}>
            <Form.Item name="amount_usd" label={text.autoReload.amount} rules={[{ required: true, type: "number", min: AUTO_RELOAD_MIN_AMOUNT_USD, max: AUTO_RELOAD_MAX_AMOUNT_USD }]}>
              <InputNumber prefix="$" precision={2} style={{ width: "100%" }} />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item name="threshold_usd" label={text.autoReload.threshold} rules={[{ required: true, type: "number", min: 0, max: AUTO_RELOAD_MAX_THRESHOLD_USD }]}>
              <InputNumber prefix="$" precision={2} style={{ width: "100%" }} />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item name="monthly_cap_usd" label={text.autoReload.cap} extra={text.autoReload.capHint}>
              <InputNumber prefix="$" precision={2} min={AUTO_RELOAD_MIN_AMOUNT_USD} style={{ width: "100%" }} />
            </Form.Item>
          </Col>
        </Row>
        <Typography.Paragraph type="secondary">{text.autoReload.reloadedThisMonth(formatUsd(reload.reloaded_this_month_usd))}</Typography.Paragraph>
        {reload.last_error && <Alert type="warning" showIcon message={reload.last_error} style={{ marginBottom: 16 }} />}
        {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} />}
        {saved && <Alert type="success" role="status" showIcon message={text.saved} style={{ marginBottom: 16 }} />}
      </Form>
      <AdminButton allowed={canEdit} type="primary" loading={actions.pending} onClick={() => form.submit()}>
        {text.autoReload.save}
      </AdminButton>
    </Card>
  );
}

export function CardOnFile({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  const actions = useBillingActions();
  const refresh = useRefreshBilling();
  const go = useGoToUrl();
  const [error, setError] = useState<string | null>(null);
  const card = summary.card;
  const run = async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (cause) {
      setError(errorOf(cause));
    }
  };
  return (
    <Card title={text.card.title} extra={<SandboxTag show={card?.sandbox === true} />}>
      <Space direction="vertical" style={{ width: "100%" }}>
        {card ? (
          <div>
            <Typography.Text strong>
              {card.brand.toUpperCase()} •••• {card.last4}
            </Typography.Text>
            <br />
            <Typography.Text type="secondary">{text.card.expires(card.exp_month, card.exp_year)}</Typography.Text>
          </div>
        ) : (
          <Typography.Text type="secondary">{text.card.none}</Typography.Text>
        )}
        <Space wrap>
          {card &&
            (canEdit ? (
              <Popconfirm title={text.card.removeConfirm} onConfirm={() => run(async () => { await actions.removeCard(); refresh(); })}>
                <AdminButton allowed danger>
                  {text.card.remove}
                </AdminButton>
              </Popconfirm>
            ) : (
              <AdminButton allowed={false} danger>
                {text.card.remove}
              </AdminButton>
            ))}
          <AdminButton allowed={canEdit} onClick={() => void run(async () => go((await actions.portal()).url))}>
            {text.card.portal}
          </AdminButton>
        </Space>
        {error && <Alert type="error" showIcon message={error} />}
      </Space>
    </Card>
  );
}

/** The Overview tab: the balance, banners, adding credits, auto-reload, caps and the card. */
export default function OverviewTab({ summary, canEdit }: { summary: BillingSummary; canEdit: boolean }) {
  return (
    <Space direction="vertical" size={16} style={{ width: "100%" }}>
      <BillingAlerts summary={summary} canEdit={canEdit} />
      <BalanceCards summary={summary} />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <TopUpCard summary={summary} canEdit={canEdit} />
        </Col>
        <Col xs={24} lg={12}>
          <CardOnFile summary={summary} canEdit={canEdit} />
        </Col>
      </Row>
      <AutoReloadCard summary={summary} canEdit={canEdit} />
      <SpendCapsCard summary={summary} canEdit={canEdit} />
    </Space>
  );
}
