import { useCallback, useContext } from "react";
import { UNSAFE_NavigationContext, useSearchParams } from "react-router";

/**
 * One query parameter of the address, e.g. the call open in a drawer (`?call=<id>`), beside the filters
 * and paging Refine keeps there (syncWithLocation).
 *
 * Setting it starts from the router's history as it is now, not from this render's copy of the address:
 * the router renders a navigation as a transition, so a click can run before the render that follows
 * Refine's last change of the address (a filter just typed), and building on that render's copy wrote the
 * address back without the filter: a copied link then reopened the call but no longer filtered the list
 * (seen in the Call Logs browser test on a loaded machine). The history object (the router's navigator:
 * browser or memory history, both with a current `location`) has every navigation at once; the render's
 * copy is the fallback should a router's navigator have none.
 */
export function useQueryParam(name: string): [string | undefined, (value: string | undefined) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const { navigator } = useContext(UNSAFE_NavigationContext);
  const set = useCallback(
    (value: string | undefined) =>
      setSearchParams((rendered) => {
        const current = (navigator as { location?: { search?: unknown } }).location?.search;
        const params = typeof current === "string" ? new URLSearchParams(current) : rendered;
        if (value) params.set(name, value);
        else params.delete(name);
        return params;
      }),
    [name, navigator, setSearchParams],
  );
  return [searchParams.get(name) ?? undefined, set];
}
