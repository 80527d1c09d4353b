import { Button, Card, Table, Tag, Tooltip, Typography, type TableProps } from "antd";
import type { HTMLAttributes } from "react";
import { PLAN_LIMIT_KEYS, PLAN_LIMIT_LABELS, PLAN_ORDER, PLANS, type Plan, type PlanId } from "../../../contract/plans";
import { useShell } from "../layout/shell-context";
import { formatCount, formatPrice } from "./format";
import { subscriptionText } from "./strings";
import "./subscriptions.css";

const text = subscriptionText;

export type PlanAction = "current" | "contact" | "upgrade" | "switch" | "downgrade";

/**
 * What choosing `target` is from `current`: the same plan; sales (Enterprise); else by price (higher:
 * upgrade, lower: downgrade, equal: switch), or by the catalogue's order when a price is custom.
 */
export function planAction(current: Plan, target: Plan): PlanAction {
  if (current.id === target.id) return "current";
  if (target.contact_sales) return "contact";
  if (current.price_usd_monthly !== null && target.price_usd_monthly !== null) {
    if (target.price_usd_monthly > current.price_usd_monthly) return "upgrade";
    if (target.price_usd_monthly < current.price_usd_monthly) return "downgrade";
    return "switch";
  }
  return PLAN_ORDER.indexOf(target.id) > PLAN_ORDER.indexOf(current.id) ? "upgrade" : "downgrade";
}

const ACTION_LABELS: Record<PlanAction, string> = {
  current: text.actions.current,
  contact: text.actions.contactSales,
  upgrade: text.actions.upgrade,
  switch: text.actions.switch,
  downgrade: text.actions.downgrade,
};

function PlanButton({ current, plan, canChange, permissionKnown, onChoose }: { current: Plan; plan: Plan; canChange: boolean; permissionKnown: boolean; onChoose: (plan: PlanId) => void }) {
  const action = planAction(current, plan);
  const label = ACTION_LABELS[action];
  if (action === "current") {
    return (
      <Button disabled block>
        {label}
      </Button>
    );
  }
  if (action === "contact") {
    return (
      <Button href={text.salesMailto(plan.name)} block>
        {label}
      </Button>
    );
  }
  const button = (
    <Button type={action === "upgrade" ? "primary" : "default"} block disabled={!canChange} aria-label={text.actions.choose(label, plan.name)} onClick={() => onChoose(plan.id)}>
      {label}
    </Button>
  );
  // A disabled button gets no pointer events: the tooltip hangs on a wrapper.
  return canChange || !permissionKnown ? (
    button
  ) : (
    <Tooltip title={text.actions.membersCannot}>
      <span style={{ display: "block", cursor: "not-allowed" }}>{button}</span>
    </Tooltip>
  );
}

const limitFigure = (value: number | null) => (value === null ? text.table.unlimited : formatCount(value));

/**
 * Every plan side by side (contract/plans.ts, cheapest first): price, each limit, the current plan
 * marked, and what choosing each one is. On a phone, one block per plan (its limits listed, its button under
 * them), so that nothing hides in a sideways scroll.
 */
export function PlanTable({ current, canChange, permissionKnown, onChoose }: { current: Plan; canChange: boolean; permissionKnown: boolean; onChoose: (plan: PlanId) => void }) {
  const plans = PLAN_ORDER.map((id) => PLANS[id]);
  const { narrow } = useShell();
  const price = (plan: Plan) => (plan.price_usd_monthly === null ? text.table.custom : text.table.perMonth(formatPrice(plan.price_usd_monthly)));
  if (narrow) {
    return (
      <Card title={<h2 style={{ margin: 0, fontSize: 16 }}>{text.table.title}</h2>}>
        <ul className="plan-list" aria-label={text.table.title}>
          {plans.map((plan) => (
            <li key={plan.id} className="plan-list__plan" aria-current={plan.id === current.id ? "true" : undefined}>
              <div className="plan-list__head">
                <Typography.Text strong>{plan.name}</Typography.Text>
                {plan.id === current.id && <Tag color="blue">{text.table.currentTag}</Tag>}
                <span className="plan-list__price">{price(plan)}</span>
              </div>
              <dl className="plan-list__limits">
                {PLAN_LIMIT_KEYS.map((key) => (
                  <div key={key}>
                    <dt>{PLAN_LIMIT_LABELS[key]}</dt>
                    <dd>{limitFigure(plan.limits[key])}</dd>
                  </div>
                ))}
              </dl>
              <PlanButton current={current} plan={plan} canChange={canChange} permissionKnown={permissionKnown} onChoose={onChoose} />
            </li>
          ))}
        </ul>
      </Card>
    );
  }
  const columns: NonNullable<TableProps<Plan>["columns"]> = [
    {
      key: "plan",
      title: text.table.plan,
      fixed: "left",
      width: 150,
      render: (_, plan) => (
        <div>
          <Typography.Text strong>{plan.name}</Typography.Text>
          {plan.id === current.id && (
            <div>
              <Tag color="blue" style={{ marginTop: 4 }}>
                {text.table.currentTag}
              </Tag>
            </div>
          )}
        </div>
      ),
    },
    {
      key: "price",
      title: text.table.price,
      width: 110,
      render: (_, plan) => price(plan),
    },
    ...PLAN_LIMIT_KEYS.map((key) => ({
      key,
      title: PLAN_LIMIT_LABELS[key],
      width: 120,
      align: "right" as const,
      render: (_: unknown, plan: Plan) => limitFigure(plan.limits[key]),
    })),
    {
      key: "action",
      title: text.table.action,
      width: 150,
      render: (_, plan) => <PlanButton current={current} plan={plan} canChange={canChange} permissionKnown={permissionKnown} onChoose={onChoose} />,
    },
  ];
  return (
    <Card title={<h2 style={{ margin: 0, fontSize: 16 }}>{text.table.title}</h2>} styles={{ body: { padding: 0 } }}>
      <Table<Plan>
        rowKey="id"
        columns={columns}
        dataSource={plans}
        pagination={false}
        scroll={{ x: 1100 }}
        onRow={(plan) => ({ "aria-current": plan.id === current.id ? "true" : undefined }) as HTMLAttributes<HTMLElement>}
      />
    </Card>
  );
}
