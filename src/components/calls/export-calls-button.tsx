import { DownloadOutlined } from "@ant-design/icons";
import { useNotification, type CrudFilter, type CrudSort } from "@refinedev/core";
import { Button, Flex, Progress } from "antd";
import { strings } from "../../config/strings";
import { useCallExport } from "./use-call-export";

const text = strings.callLogs;

/** "Export CSV": the filtered result as the server streams it, with progress while it arrives. */
export function ExportCallsButton({ filters, sorters }: { filters: CrudFilter[]; sorters: CrudSort[] }) {
  const { start, progress } = useCallExport(filters, sorters);
  const { open } = useNotification();

  const run = async () => {
    try {
      const rows = await start();
      open?.({ type: "success", message: text.exportDone(rows) });
    } catch (error) {
      open?.({ type: "error", message: text.exportFailed, description: (error as Error).message });
    }
  };

  const percent = progress?.total ? Math.min(100, Math.round((progress.rows / progress.total) * 100)) : undefined;
  return (
    <Flex align="center" gap={8}>
      {progress && (
        <Progress
          aria-label={text.exportProgress}
          percent={percent ?? 0}
          status="active"
          size="small"
          style={{ width: 160 }}
          format={() => (progress.total ? `${progress.rows}/${progress.total}` : `${Math.round(progress.bytes / 1024)} KB`)}
        />
      )}
      <Button icon={<DownloadOutlined />} loading={Boolean(progress)} onClick={() => void run()}>
        {progress ? text.exporting : text.export}
      </Button>
    </Flex>
  );
}
