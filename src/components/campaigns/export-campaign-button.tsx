import { DownloadOutlined } from "@ant-design/icons";
import { Button, Progress, Space, Tooltip } from "antd";
import { useRef, useState } from "react";
import type { Campaign } from "../../../contract/campaign";
import { CAMPAIGN_PATHS } from "../../../contract/campaign-shared";
import { useAuthSession } from "../../auth/session";
import { API_URL } from "../../config/api-url";
import { strings } from "../../config/strings";
import { downloadCsv, type CsvDownloadProgress } from "../../lib/csv-download";
import { useToasts } from "../../lib/toast";
import { formatCount } from "./campaign-format";

const text = strings.campaigns;

/** "spring-renewals-2026-03-05.csv" */
function fileName(campaign: Campaign): string {
  const slug = campaign.name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `${slug || "campaign"}-${new Date().toISOString().slice(0, 10)}.csv`;
}

/** GET /campaign/{id}/export: the contacts and their outcomes as the server streams them, with progress. */
export function ExportCampaignButton({ campaign, size, compact = false }: { campaign: Campaign; size?: "small" | "middle"; compact?: boolean }) {
  const { getToken } = useAuthSession();
  const toasts = useToasts();
  const [progress, setProgress] = useState<CsvDownloadProgress | null>(null);
  const running = useRef(false);

  const run = async () => {
    if (running.current) return;
    running.current = true;
    setProgress({ rows: 0, bytes: 0 });
    try {
      const rows = await downloadCsv({ url: `${API_URL}${CAMPAIGN_PATHS.export(campaign.id)}`, token: await getToken(), fileName: fileName(campaign), onProgress: setProgress });
      toasts.success(text.exportDone(rows));
    } catch (error) {
      toasts.error(text.exportFailed, (error as Error).message);
    } finally {
      running.current = false;
      setProgress(null);
    }
  };

  const total = progress?.total ?? campaign.counts.total;
  return (
    <Space size={4}>
      {progress && total > 0 && (
        <Progress aria-label={text.exportProgress} type="circle" size={20} percent={Math.min(100, Math.round((progress.rows / total) * 100))} />
      )}
      <Tooltip title={compact ? (progress ? text.exporting(formatCount(progress.rows)) : text.actions.export) : undefined}>
        <Button size={size} icon={<DownloadOutlined />} loading={Boolean(progress)} aria-label={text.actionOn(text.actions.export, campaign.name)} onClick={() => void run()}>
          {compact ? null : progress ? text.exporting(formatCount(progress.rows)) : text.actions.export}
        </Button>
      </Tooltip>
    </Space>
  );
}
