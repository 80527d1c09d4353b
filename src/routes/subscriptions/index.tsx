import { Alert, Empty, Skeleton, Space, Typography } from "antd";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import type { PlanId } from "../../../contract/plans";
import type { Subscription } from "../../../contract/subscription";
import { ListLoadError } from "../../components/list-load-error";
import { ChangeDialog } from "../../components/subscriptions/change-dialog";
import { CurrentPlan } from "../../components/subscriptions/current-plan";
import { PlanTable } from "../../components/subscriptions/plan-table";
import { PortalDialog } from "../../components/subscriptions/portal-dialog";
import { subscriptionText as text } from "../../components/subscriptions/strings";
import { browserNavigation, isConsolePath, useSubscription, useSubscriptionActions, useSubscriptionPermissions } from "../../components/subscriptions/use-subscription";
import { strings } from "../../config/strings";
import { isApiError } from "../../providers/data/fetch-wrapper";
import { useToasts } from "../../lib/toast";

/**
 * /subscriptions (issue 15): the plan the organisation is on, its usage against each limit, every plan
 * side by side with a way to change (a preview first, then Checkout or the change at once), and the
 * billing portal. Members see it all; only admins change anything.
 */
export default function SubscriptionsPage() {
  const { subscription: fetched, query } = useSubscription();
  const { canChange, known } = useSubscriptionPermissions();
  const actions = useSubscriptionActions();
  const toasts = useToasts();
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const [choosing, setChoosing] = useState<PlanId | null>(null);
  // The answer of a change applied at once, shown until GET /subscription/ catches up.
  const [changed, setChanged] = useState<Subscription | null>(null);
  const subscription = changed ?? fetched;
  const portalOpen = searchParams.get("portal") === "sandbox";
  // Back from Checkout in subscription mode (success_url / cancel_url): say what happened and read the plan again.
  const checkoutReturn = searchParams.get("subscription");
  const closeReturn = () => {
    const next = new URLSearchParams(searchParams);
    next.delete("subscription");
    setSearchParams(next, { replace: true });
  };
  useEffect(() => {
    if (checkoutReturn === "success") void query.refetch();
    // Only when the return arrives.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [checkoutReturn]);

  useEffect(() => {
    document.title = `${strings.screens.subscriptions} · ${strings.appName}`;
  }, []);

  const follow = (url: string) => (isConsolePath(url) ? navigate(url) : browserNavigation.assign(url));

  const confirm = async (plan: PlanId) => {
    try {
      const result = await actions.change(plan);
      setChoosing(null);
      if (result.url) {
        follow(result.url);
        return;
      }
      setChanged(result.subscription);
      toasts.success(text.preview.changed(result.subscription.plan.name));
      void Promise.resolve(query.refetch()).finally(() => setChanged(null));
    } catch (error) {
      toasts.error(text.preview.changeFailed, isApiError(error) ? error.message : undefined);
    }
  };

  const manageBilling = async () => {
    try {
      follow((await actions.portal()).url);
    } catch (error) {
      toasts.error(text.current.portalFailed, isApiError(error) ? error.message : undefined);
    }
  };

  const closePortal = () => {
    const next = new URLSearchParams(searchParams);
    next.delete("portal");
    setSearchParams(next, { replace: true });
  };

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: 16, minWidth: 0 }}>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 24 }}>
        {strings.screens.subscriptions}
      </Typography.Title>
      {checkoutReturn === "success" && <Alert type="success" role="status" showIcon closable onClose={closeReturn} message={text.checkoutReturn.success} description={text.checkoutReturn.successDetail} />}
      {checkoutReturn === "cancelled" && <Alert type="info" role="status" showIcon closable onClose={closeReturn} message={text.checkoutReturn.cancelled} />}
      {query.isError && !subscription && <ListLoadError query={query} title={text.loadFailed} retryLabel={text.retry} />}
      {query.isLoading && !subscription && (
        <div aria-busy="true" aria-label={text.loading}>
          <Skeleton active paragraph={{ rows: 6 }} />
        </div>
      )}
      {!query.isLoading && !query.isError && !subscription && (
        <Empty description={<Space direction="vertical" size={0}><span>{text.empty}</span><Typography.Text type="secondary">{text.emptyHint}</Typography.Text></Space>} />
      )}
      {subscription && (
        <>
          <CurrentPlan subscription={subscription} canChange={canChange} permissionKnown={known} portalPending={actions.pending && choosing === null} onManageBilling={() => void manageBilling()} />
          <PlanTable current={subscription.plan} canChange={canChange} permissionKnown={known} onChoose={setChoosing} />
        </>
      )}
      <ChangeDialog plan={choosing} pending={actions.pending} onConfirm={(plan) => void confirm(plan)} onClose={() => setChoosing(null)} />
      <PortalDialog open={portalOpen} onClose={closePortal} />
    </section>
  );
}
