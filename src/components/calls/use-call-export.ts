import type { CrudFilter, CrudSort } from "@refinedev/core";
import { useCallback, useRef, useState } from "react";
import { useAuthSession } from "../../auth/session";
import { API_URL } from "../../config/api-url";
import { downloadCsv, type CsvDownloadProgress } from "../../lib/csv-download";
import { callListFilterQuery } from "../../providers/data";
import { buildQueryString } from "../../providers/data/fetch-wrapper";

export type ExportProgress = CsvDownloadProgress;

/**
 * GET /call/export with exactly the list's filters and sort (the same mapping as the data provider),
 * the bearer token, the body read as a stream so progress can be shown, then saved through a Blob URL.
 */
export function useCallExport(filters: CrudFilter[], sorters: CrudSort[]) {
  const { getToken } = useAuthSession();
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const running = useRef(false);

  const start = useCallback(async (): Promise<number> => {
    if (running.current) return 0;
    running.current = true;
    setProgress({ rows: 0, bytes: 0 });
    try {
      return await downloadCsv({
        url: `${API_URL}/call/export${buildQueryString(callListFilterQuery(filters, sorters))}`,
        token: await getToken(),
        fileName: `calls-${new Date().toISOString().slice(0, 10)}.csv`,
        onProgress: setProgress,
      });
    } finally {
      running.current = false;
      setProgress(null);
    }
  }, [filters, sorters, getToken]);

  return { start, progress };
}
