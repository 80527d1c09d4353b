import { useCan, useCustom, useCustomMutation, useInvalidate } from "@refinedev/core";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { AutoReloadRequest, BillingSummary, SpendCapsRequest, TopUp, TopUpRequest } from "../../../contract/billing";
import { billingPaths } from "../../../contract/billing-shared";
import { publicOrigin } from "../../config/public-config";
import type { ApiError } from "../../providers/data/fetch-wrapper";

export const pathOf = (template: string, id: string) => template.replace(":id", encodeURIComponent(id));

/** What the role may do here (contract/permissions.ts): members read billing, admins move money. */
export function useBillingPermissions() {
  const edit = useCan({ resource: "billing", action: "edit" });
  return { canEdit: edit.data?.can === true, known: edit.data !== undefined };
}

/** GET /billing/: balance, auto-reload, caps, card, alerts. */
export function useBillingSummary() {
  const { result, query } = useCustom<{ data: BillingSummary }, ApiError>({
    url: billingPaths.billing,
    method: "get",
    errorNotification: false,
  });
  return { summary: (result.data as { data?: BillingSummary } | undefined)?.data, query };
}

/** Refetch everything billing shows (after a payment, a save). */
export function useRefreshBilling() {
  const client = useQueryClient();
  const invalidate = useInvalidate();
  return useCallback(() => {
    // The figures, not a top-up's or a checkout's own state (a finished one does not change).
    void client.invalidateQueries({
      predicate: (query) => {
        const key = JSON.stringify(query.queryKey);
        return key.includes("/billing") && !key.includes("/billing/top-up/") && !key.includes("/billing/sandbox/");
      },
    });
    void invalidate({ resource: "billing-ledger", invalidates: ["list"] });
  }, [client, invalidate]);
}

/** GET /billing/top-up/{id}, asked again every 2 s while it is pending. */
export function useTopUpStatus(id: string | undefined) {
  const { result, query } = useCustom<{ data: TopUp }, ApiError>({
    url: pathOf(billingPaths.topUpById, id ?? ""),
    method: "get",
    queryOptions: {
      enabled: Boolean(id),
      // While pending, for at most TOP_UP_POLL_MAX answers (the checkout expires by itself; the page can be reloaded).
      refetchInterval: (current) =>
        (current.state.data?.data as { data?: TopUp } | undefined)?.data?.status === "pending" && current.state.dataUpdateCount < TOP_UP_POLL_MAX ? TOP_UP_POLL_MS.value : false,
    },
    errorNotification: false,
  });
  return { topUp: (result.data as { data?: TopUp } | undefined)?.data, query };
}

/** How often a pending top-up is asked again (tests shorten it). */
export const TOP_UP_POLL_MS = { value: 2_000 };
const TOP_UP_POLL_MAX = 150;

/** The screen's writes; each answers the `data` of the server's answer. */
export function useBillingActions() {
  const { mutateAsync, mutation } = useCustomMutation<{ data: unknown }, ApiError>();
  const send = async <T>(url: string, method: "post" | "put" | "delete", values: object = {}) =>
    ((await mutateAsync({ url, method, values, successNotification: false, errorNotification: false })).data as { data: T }).data;
  return {
    pending: mutation.isPending,
    topUp: (request: TopUpRequest) => send<{ top_up_id: string; url: string }>(billingPaths.topUp, "post", request),
    saveAutoReload: (request: AutoReloadRequest) => send<unknown>(billingPaths.autoReload, "put", request),
    confirmAutoReload: () => send<{ url: string }>(billingPaths.autoReloadConfirm, "post"),
    saveCaps: (request: SpendCapsRequest) => send<unknown>(billingPaths.spendCaps, "put", request),
    removeCard: () => send<unknown>(billingPaths.card, "delete"),
    portal: () => send<{ url: string }>(billingPaths.portal, "post"),
    refund: (topUpId: string) => send<unknown>(pathOf(billingPaths.topUpRefund, topUpId), "post"),
  };
}

/** Leaving for Stripe (one object, so tests can watch it instead of navigating jsdom). */
export const browserNavigation = {
  assign(url: string) {
    window.location.assign(url);
  },
};

/**
 * Where a URL the server gave goes: the console's own address (the sandbox's checkout, its success
 * URL) stays in the app (`internal` is its path and query); anything else is a full page load. The
 * server's PUBLIC_URL is the console's own too, even when this browser reached it by another name: a
 * page load there would leave this name's session behind.
 */
export function splitUrl(url: string): { internal: string } | { external: string } {
  if (url.startsWith("/") && !url.startsWith("//")) return { internal: url };
  try {
    const parsed = new URL(url);
    if (parsed.origin === window.location.origin || parsed.origin === new URL(publicOrigin()).origin) {
      return { internal: `${parsed.pathname}${parsed.search}${parsed.hash}` };
    }
  } catch {
    // not a URL: hand it to the browser as it is
  }
  return { external: url };
}
