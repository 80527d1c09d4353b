import { theme } from "antd";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import { subscriptionText } from "../subscriptions/strings";
import { formatUsd } from "./dashboard-format";

const text = subscriptionText.dashboard.wallet;

/**
 * The wallet card's issue-15 lines, under its balance and available amount: this month's spend and
 * auto-reload (each when the server sends it), a warning when the balance is low, and Add credits.
 */
export function WalletExtras({ wallet }: { wallet: Dashboard["wallet"] }) {
  const { token } = theme.useToken();
  return (
    <>
      {wallet.month_to_date !== undefined && <span className="dash-card__previous">{text.monthToDate(formatUsd(wallet.month_to_date))}</span>}
      {wallet.auto_reload_enabled !== undefined && (
        <span className="dash-card__previous" data-auto-reload={wallet.auto_reload_enabled ? "on" : "off"}>
          {wallet.auto_reload_enabled ? text.autoReloadOn : text.autoReloadOff}
        </span>
      )}
      {wallet.low_balance && (
        <span role="status" style={{ fontSize: 12, fontWeight: 500, color: token.colorErrorText }}>
          {text.low}
        </span>
      )}
      <Link to="/billing" className="dash-card__held">
        {text.addCredits}
      </Link>
    </>
  );
}
