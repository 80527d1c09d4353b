import { useGo } from "@refinedev/core";
import { useCallback } from "react";
import { applyFilterPatch, type CallFilterPatch } from "./call-filter-values";

/**
 * Links into Call Logs with filters applied, in exactly the form its URL is read in: the filters as
 * the screen keeps them (call-filter-values.ts, each under its operator) and the query written by
 * Refine's own router encoder (the one syncWithLocation uses), not a hand-built string. Empty values
 * are left out, as the screen leaves them out.
 */
export function useCallLogsLink(): (patch: CallFilterPatch) => string {
  const go = useGo();
  return useCallback(
    (patch: CallFilterPatch) =>
      go({ to: { resource: "call", action: "list" }, query: { filters: applyFilterPatch([], patch) }, type: "path" }) ?? "",
    [go],
  );
}
