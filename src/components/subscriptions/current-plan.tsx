import { Alert, Button, Card, Col, Row, Space, Tag, Tooltip, Typography } from "antd";
import type { Subscription } from "../../../contract/subscription";
import { formatDay, formatPrice, usageRows } from "./format";
import { subscriptionText } from "./strings";
import { UsageBars } from "./usage-bars";

const text = subscriptionText;

const STATUS_COLOURS: Record<string, string> = { active: "green", trialing: "blue", past_due: "red", canceled: "default" };

/** The status as a tag, and what it means when it is not plain "active". */
export function StatusTag({ status }: { status: string }) {
  return <Tag color={STATUS_COLOURS[status]}>{text.statuses[status] ?? status}</Tag>;
}

/**
 * The plan the organisation is on: name, status (past due with the grace end, cancelling at the
 * period's end), price, "Sandbox" when payments are simulated, Manage billing, and the usage against
 * each limit.
 */
export function CurrentPlan({
  subscription,
  canChange,
  permissionKnown,
  portalPending,
  onManageBilling,
}: {
  subscription: Subscription;
  canChange: boolean;
  permissionKnown: boolean;
  portalPending: boolean;
  onManageBilling: () => void;
}) {
  const { plan } = subscription;
  const price = plan.price_usd_monthly === null ? text.current.custom : text.current.perMonth(formatPrice(plan.price_usd_monthly));
  const manage = (
    <Button onClick={onManageBilling} loading={portalPending} disabled={!canChange}>
      {text.current.manageBilling}
    </Button>
  );
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={12}>
        <Card title={<h2 style={{ margin: 0, fontSize: 16 }}>{text.current.title}</h2>} style={{ height: "100%" }}>
          <Space direction="vertical" size={12} style={{ width: "100%" }}>
            <Space wrap align="center" size={8}>
              <Typography.Title level={3} style={{ margin: 0 }} data-testid="current-plan-name">
                {plan.name}
              </Typography.Title>
              <StatusTag status={subscription.status} />
              {subscription.cancel_at_period_end && <Tag color="orange">{subscription.current_period_end ? text.cancelsAt(formatDay(subscription.current_period_end)) : text.cancelsAtEnd}</Tag>}
              {subscription.payments === "sandbox" && (
                <Tooltip title={text.current.sandboxHint}>
                  <Tag color="purple">{text.current.sandbox}</Tag>
                </Tooltip>
              )}
            </Space>
            <Typography.Text type="secondary">
              {price}
              {plan.tagline ? ` · ${plan.tagline}` : ""}
            </Typography.Text>
            {subscription.status === "past_due" && <Alert type="error" showIcon message={text.pastDue(subscription.grace_ends_at ? formatDay(subscription.grace_ends_at) : null)} />}
            {subscription.status !== "past_due" && !subscription.cancel_at_period_end && subscription.current_period_end && plan.price_usd_monthly !== 0 && (
              <Typography.Text type="secondary">{text.current.renews(formatDay(subscription.current_period_end))}</Typography.Text>
            )}
            <div>{canChange || !permissionKnown ? manage : <Tooltip title={text.actions.membersCannotBilling}>
                <span style={{ display: "inline-block", cursor: "not-allowed" }}>{manage}</span>
              </Tooltip>}</div>
          </Space>
        </Card>
      </Col>
      <Col xs={24} lg={12}>
        <Card title={<h2 style={{ margin: 0, fontSize: 16 }}>{text.usage.title}</h2>} style={{ height: "100%" }}>
          <UsageBars rows={usageRows(subscription.limits, subscription.usage)} />
        </Card>
      </Col>
    </Row>
  );
}
