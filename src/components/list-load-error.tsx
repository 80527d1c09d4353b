import { Alert, Button } from "antd";

/** A list whose request failed: what failed, the server's detail, and a retry. */
export function ListLoadError({ title, detail, retryLabel, onRetry }: { title: string; detail?: string; retryLabel: string; onRetry: () => void }) {
  return (
    <Alert
      type="error"
      showIcon
      style={{ marginBottom: 16 }}
      message={title}
      description={detail}
      action={
        <Button size="small" onClick={onRetry}>
          {retryLabel}
        </Button>
      }
    />
  );
}
