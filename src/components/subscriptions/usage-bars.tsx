import { theme } from "antd";
import { PLAN_LIMIT_LABELS } from "../../../contract/plans";
import { formatCount, isOver, type UsageRow } from "./format";
import { subscriptionText } from "./strings";

const text = subscriptionText.usage;

/**
 * Usage against each limit: a labelled bar each ("3 of 10"), "Unlimited" for no limit, the plan's
 * figure for call history, and over a limit the bar in red with what that means. Plain elements, so
 * the dashboard's landing chunk can show it too.
 */
export function UsageBars({ rows }: { rows: UsageRow[] }) {
  const { token } = theme.useToken();
  return (
    <ul style={{ listStyle: "none", margin: 0, padding: 0, display: "grid", gap: 12 }}>
      {rows.map((row) => {
        const label = PLAN_LIMIT_LABELS[row.limit];
        const over = isOver(row);
        const percent = row.used === null || row.allowed === null ? 0 : row.allowed === 0 ? (row.used > 0 ? 100 : 0) : Math.min(100, Math.round((row.used / row.allowed) * 100));
        const figure =
          row.used === null
            ? row.allowed === null
              ? text.unlimited
              : text.retention(formatCount(row.allowed))
            : row.allowed === null
              ? `${formatCount(row.used)} · ${text.unlimited}`
              : text.of(formatCount(row.used), formatCount(row.allowed));
        const colour = over ? token.colorError : percent >= 80 ? token.colorWarning : token.colorPrimary;
        return (
          <li key={row.limit} data-limit={row.limit} data-over={over || undefined} style={{ minWidth: 0 }}>
            <div style={{ display: "flex", justifyContent: "space-between", gap: 8, fontSize: 13 }}>
              <span>{label}</span>
              <span style={{ fontVariantNumeric: "tabular-nums", color: over ? token.colorErrorText : token.colorTextSecondary }}>{figure}</span>
            </div>
            {row.used !== null && row.allowed !== null && (
              <div
                role="progressbar"
                aria-label={text.barLabel(label)}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                aria-valuetext={figure}
                style={{ height: 6, marginTop: 4, borderRadius: 3, background: token.colorFillSecondary, overflow: "hidden" }}
              >
                <div style={{ width: `${percent}%`, height: "100%", background: colour }} />
              </div>
            )}
            {over && <div style={{ marginTop: 4, fontSize: 12, color: token.colorErrorText }}>{text.over(label.toLowerCase())}</div>}
          </li>
        );
      })}
    </ul>
  );
}
