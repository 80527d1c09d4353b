import { useCallback } from "react";
import { useNavigate } from "react-router";
import { browserNavigation, splitUrl } from "./use-billing";

/** Follows a URL the server gave: in the app when it is the console's own, else a full page load (Stripe). */
export function useGoToUrl() {
  const navigate = useNavigate();
  return useCallback(
    (url: string) => {
      const target = splitUrl(url);
      if ("internal" in target) navigate(target.internal);
      else browserNavigation.assign(target.external);
    },
    [navigate],
  );
}
