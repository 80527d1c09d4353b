import { useCallback } from "react";
import { useSearchParams } from "react-router";

export const BILLING_TABS = ["overview", "usage", "transactions", "receipts"] as const;
export type BillingTab = (typeof BILLING_TABS)[number];

/**
 * What the billing screen shows, in the URL: ?tab=…, each tab's filters (from, to, agent, kind, q,
 * min, max, page), and the checkout (?checkout=<id>) or the top-up being waited for (?top_up=<id>).
 */
export function useBillingUrl() {
  const [params, setParams] = useSearchParams();
  const raw = params.get("tab");
  const tab: BillingTab = (BILLING_TABS as readonly string[]).includes(raw ?? "") ? (raw as BillingTab) : "overview";
  const get = useCallback((key: string) => params.get(key) ?? undefined, [params]);
  /** Sets (or, with undefined or "", removes) some parameters, keeping the others. */
  const patch = useCallback(
    (changes: Record<string, string | undefined>, options: { replace?: boolean } = {}) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes)) {
            if (value === undefined || value === "") next.delete(key);
            else next.set(key, value);
          }
          return next;
        },
        { replace: options.replace ?? true },
      ),
    [setParams],
  );
  /** Another tab: its own filters start empty. */
  const setTab = useCallback((next: BillingTab) => setParams(next === "overview" ? {} : { tab: next }, { replace: false }), [setParams]);
  return { tab, get, patch, setTab };
}
