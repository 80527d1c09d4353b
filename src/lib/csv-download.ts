import { strings } from "../config/strings";

/**
 * A CSV the server streams (Call Logs' export, a campaign's export) fetched with the bearer token, read
 * as a stream so progress can be shown, then saved through a Blob URL. Its own fetch because the JSON
 * client cannot hand over a stream.
 */
export interface CsvDownloadProgress {
  /** Data rows received so far (lines after the header). */
  rows: number;
  bytes: number;
  /** The server's x-total-count, when it sent one. */
  total?: number;
}

const NEWLINE = 10;
const QUOTE = 34;

/** Counts CSV record ends across chunks: a newline inside a quoted cell (a summary, say) is not one. */
function createRowCounter() {
  let quoted = false;
  let lines = 0;
  let lastByte = NEWLINE;
  return {
    add(chunk: Uint8Array) {
      for (const byte of chunk) {
        if (byte === QUOTE) quoted = !quoted;
        else if (byte === NEWLINE && !quoted) lines += 1;
      }
      if (chunk.length) lastByte = chunk[chunk.length - 1]!;
    },
    /** Data rows (the header is not one); `final` counts a last row that ends without a newline. */
    rows(final = false) {
      return Math.max(0, lines + (final && lastByte !== NEWLINE ? 1 : 0) - 1);
    },
  };
}

async function failureDetail(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body?.detail === "string" && body.detail) return body.detail;
  } catch {
    // not JSON
  }
  return strings.errors.requestFailed(response.status);
}

/** Hands `parts` to the browser as a file download named `name`. */
export function saveFile(parts: BlobPart[], name: string, type = "text/csv;charset=utf-8"): void {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser the time to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** GET `url` as CSV with the token, reporting progress, and save it as `fileName`; resolves to the data rows saved. */
export async function downloadCsv({
  url,
  token,
  fileName,
  onProgress,
}: {
  url: string;
  token: string | null;
  fileName: string;
  onProgress: (progress: CsvDownloadProgress) => void;
}): Promise<number> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: "text/csv", ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  } catch {
    throw new Error(strings.errors.network);
  }
  if (!response.ok) throw new Error(await failureDetail(response));
  const header = Number(response.headers.get("x-total-count"));
  const total = Number.isFinite(header) && header >= 0 && response.headers.has("x-total-count") ? header : undefined;
  const parts: Uint8Array[] = [];
  const counter = createRowCounter();
  let bytes = 0;
  const reader = response.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      bytes += value.byteLength;
      counter.add(value);
      onProgress({ rows: counter.rows(), bytes, total });
    }
  } else {
    const whole = new Uint8Array(await response.arrayBuffer());
    parts.push(whole);
    counter.add(whole);
  }
  const rows = counter.rows(true);
  saveFile(parts as BlobPart[], fileName);
  return rows;
}
