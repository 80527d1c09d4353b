import { Skeleton, Tabs, Typography } from "antd";
import { Suspense, useEffect } from "react";
import { lazyRetry } from "../../lib/lazy-retry";
import { BILLING_TABS, useBillingUrl, type BillingTab } from "../../components/billing/billing-url";
import OverviewTab, { SandboxTag } from "../../components/billing/overview-tab";
import ReceiptsTab from "../../components/billing/receipts-tab";
import { SandboxCheckoutDialog } from "../../components/billing/sandbox-checkout-dialog";
import { billingText as text } from "../../components/billing/strings";
import { TopUpResult } from "../../components/billing/top-up-result";
import TransactionsTab from "../../components/billing/transactions-tab";
import { useBillingPermissions, useBillingSummary } from "../../components/billing/use-billing";
import "../../components/billing/billing.css";
import { strings } from "../../config/strings";
import { ListLoadError } from "../../components/list-load-error";

/** The Usage tab and its chart (visx) are their own chunk, loaded when the tab opens. */
const UsageTab = lazyRetry(() => import("../../components/billing/usage-tab"));

const loader = (
  <div role="status" aria-label={text.loading}>
    <Skeleton active paragraph={{ rows: 6 }} />
  </div>
);

/**
 * Billing (spec §2 /billing, issue 15): the balance and adding credits, auto-reload, spend caps and the
 * card (Overview), usage by day and component, the ledger, and receipts. The tab and its filters are in
 * the URL; ?checkout=<id> opens the sandbox's checkout, ?top_up=<id> waits for a top-up's result.
 */
export default function BillingPage() {
  const { tab, get, patch, setTab } = useBillingUrl();
  const { summary, query } = useBillingSummary();
  const { canEdit } = useBillingPermissions();
  const checkoutId = get("checkout");
  const topUpId = get("top_up");

  useEffect(() => {
    document.title = `${strings.screens.billing} · ${strings.appName}`;
  }, []);

  const failed = query.isError && !summary;
  const body = (which: BillingTab) => {
    if (which === "receipts") return <ReceiptsTab zone={summary?.time_zone} />;
    if (which === "transactions") return <TransactionsTab summary={summary} canEdit={canEdit} />;
    if (failed) return null;
    if (!summary) return loader;
    if (which === "usage")
      return (
        <Suspense fallback={loader}>
          <UsageTab zone={summary.time_zone} />
        </Suspense>
      );
    return <OverviewTab summary={summary} canEdit={canEdit} />;
  };

  return (
    <section className="billing-screen">
      <header className="billing-screen__header">
        <h1 className="billing-screen__title">{strings.screens.billing}</h1>
        <Typography.Text type="secondary">{text.subtitle}</Typography.Text>
        {summary && <SandboxTag show={summary.payments === "sandbox"} />}
      </header>
      {failed && <ListLoadError query={query} title={text.loadFailed} retryLabel={text.retry} />}
      {topUpId && (
        <div style={{ marginBottom: 16 }}>
          <TopUpResult topUpId={topUpId} summary={summary} onDismiss={() => patch({ top_up: undefined })} />
        </div>
      )}
      <Tabs
        activeKey={tab}
        onChange={(key) => setTab(key as BillingTab)}
        destroyOnHidden
        items={BILLING_TABS.map((key) => ({ key, label: text.tabs[key], children: key === tab ? body(key) : null }))}
      />
      {checkoutId && <SandboxCheckoutDialog checkoutId={checkoutId} onClose={() => patch({ checkout: undefined })} />}
    </section>
  );
}
