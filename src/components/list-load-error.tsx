import { Alert, Button } from "antd";

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
