import { useCan, useCustom, useCustomMutation } from "@refinedev/core";
import { subscriptionPaths } from "../../../contract/billing-shared";
import type { PlanId } from "../../../contract/plans";
import type { PlanPreview, Subscription } from "../../../contract/subscription";
import type { ApiError } from "../../providers/data/fetch-wrapper";

/** What the role may do here (contract/permissions.ts): members read the subscription, admins change it. */
export function useSubscriptionPermissions() {
  const edit = useCan({ resource: "subscription", action: "edit" });
  return { canChange: edit.data?.can === true, known: edit.data !== undefined };
}

/** GET /subscription/: the plan, its status, the limits and the usage against them. */
export function useSubscription() {
  const { result, query } = useCustom<{ data: Subscription }, ApiError>({
    url: subscriptionPaths.subscription,
    method: "get",
    errorNotification: false,
  });
  return { subscription: (result.data as { data?: Subscription } | undefined)?.data, query };
}

/** GET /subscription/preview?plan=: what changing to `plan` does (null: nothing asked). */
export function usePlanPreview(plan: PlanId | null) {
  const { result, query } = useCustom<{ data: PlanPreview }, ApiError>({
    url: subscriptionPaths.preview,
    method: "get",
    config: { query: plan ? { plan } : {} },
    queryOptions: { enabled: plan !== null },
    errorNotification: false,
  });
  return { preview: plan ? (result.data as { data?: PlanPreview } | undefined)?.data : undefined, query };
}

/** The screen's writes: change the plan, open the billing portal. */
export function useSubscriptionActions() {
  const { mutateAsync, mutation } = useCustomMutation<{ data: unknown }, ApiError>();
  const send = async <T>(url: string, values: object = {}) =>
    ((await mutateAsync({ url, method: "post", values, successNotification: false, errorNotification: false })).data as { data: T }).data;
  return {
    pending: mutation.isPending,
    change: (plan: PlanId) => send<{ url: string | null; subscription: Subscription }>(subscriptionPaths.change, { plan }),
    portal: () => send<{ url: string }>(subscriptionPaths.portal),
  };
}

/** Leaving for Stripe (one object, so tests can watch it instead of navigating jsdom). */
export const browserNavigation = {
  assign(url: string) {
    window.location.assign(url);
  },
};

/** A URL of this console (the sandbox's "/billing?checkout=…"): followed inside the app; anything else leaves it. */
export function isConsolePath(url: string): boolean {
  return url.startsWith("/") && !url.startsWith("//");
}
