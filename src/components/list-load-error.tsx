import { Alert, Button } from "antd";
import type { ReactNode } from "react";

/** What ListLoadError reads of a list's query (Refine's tableQuery fits). */
interface FailedQuery {
  isError: boolean;
  error?: { message?: string } | null;
  refetch: () => unknown;
}

/** While a list's request has failed: what failed, the server's detail, and a retry; nothing otherwise. */
export function ListLoadError({ query, title, retryLabel }: { query: FailedQuery; title: string; retryLabel: string }) {
  if (!query.isError) return null;
  return (
    <Alert
      type="error"
      showIcon
      style={{ marginBottom: 16 }}
      message={title}
      description={query.error?.message}
      action={
        <Button size="small" onClick={() => void query.refetch()}>
          {retryLabel}
        </Button>
      }
    />
  );
}

/**
 * A list table's `locale.emptyText`: `empty` ("none yet", "none match") only once the list has loaded
 * (`loaded`: its query's isSuccess); while it has failed, or is asked again after failing, a quiet dash,
 * since nothing is known about the items and ListLoadError above says why. Rows already shown stay.
 */
export function listEmptyText(loaded: boolean, empty: ReactNode): ReactNode {
  return loaded ? empty : "—";
}
