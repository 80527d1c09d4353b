import { theme } from "antd";
import { useId } from "react";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import type { UsageRow } from "../subscriptions/format";
import { subscriptionText } from "../subscriptions/strings";
import { UsageBars } from "../subscriptions/usage-bars";

const text = subscriptionText.dashboard.plan;

/** GET /dashboard/'s optional `plan`: the plan, its status and the usage against each limit. */
export type DashboardPlan = NonNullable<Dashboard["plan"]>;

/**
 * The plan on the landing page: its name and status, a bar per limit (call history shows the plan's
 * days, nothing is "used" of it), and View plans. Absent from the answer (an older server): no card.
 */
export function PlanUsageCard({ plan }: { plan: DashboardPlan | undefined }) {
  const titleId = useId();
  const { token } = theme.useToken();
  if (!plan) return null;
  const rows: UsageRow[] = plan.usage.map((row) => ({ limit: row.limit, used: row.limit === "retention_days" ? null : row.used, allowed: row.allowed }));
  const statusColour = plan.status === "past_due" ? token.colorErrorText : plan.status === "canceled" ? token.colorTextSecondary : token.colorSuccessText;
  return (
    <section aria-labelledby={titleId} className="dash-panel dash-panel--wide">
      <div className="dash-panel__head">
        <h2 id={titleId} className="dash-panel__title">
          {text.title}
        </h2>
        <span style={{ marginRight: "auto", fontSize: 13, color: "var(--dash-text-secondary)" }}>
          <strong style={{ color: "var(--dash-text)" }}>{plan.name}</strong> ·{" "}
          <span style={{ color: statusColour }}>{subscriptionText.statuses[plan.status] ?? plan.status}</span>
        </span>
        <Link to="/subscriptions">{text.viewPlans}</Link>
      </div>
      <div style={{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(220px, 1fr))", gap: "12px 24px" }}>
        {rows.map((row) => (
          <UsageBars key={row.limit} rows={[row]} />
        ))}
      </div>
    </section>
  );
}
