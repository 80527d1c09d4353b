/**
 * CSV in the browser (RFC 4180): reading a file a person drops (contacts, do-not-call numbers) to
 * preview it before anything is sent, and writing one (the invalid rows of an import) to download.
 */

export interface ParsedCsv {
  header: string[];
  /** Data rows, blank lines left out; each row as long as the header (missing cells are ""). */
  rows: string[][];
  /** The file's delimiter: a comma, or the semicolon or tab some spreadsheets write. */
  delimiter: string;
}

const DELIMITERS = [",", ";", "\t"] as const;

/** The delimiter used most outside quotes on the first line. */
function guessDelimiter(text: string): string {
  let best: string = ",";
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    let count = 0;
    let quoted = false;
    for (const char of text) {
      if (char === '"') quoted = !quoted;
      else if (!quoted && (char === "\n" || char === "\r")) break;
      else if (!quoted && char === delimiter) count += 1;
    }
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

/** Every record of `text` as cells: quoted cells may hold delimiters, newlines and doubled quotes. */
function records(text: string, delimiter: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === "") quoted = true;
    else if (char === delimiter) {
      row.push(cell);
      cell = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[index + 1] === "\n") index += 1;
      row.push(cell);
      out.push(row);
      row = [];
      cell = "";
    } else cell += char;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    out.push(row);
  }
  return out;
}

/** Reads a CSV file's text: the first record is the header (names trimmed), blank records are dropped. */
export function parseCsv(text: string): ParsedCsv {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const delimiter = guessDelimiter(body);
  const all = records(body, delimiter).filter((record) => record.some((cell) => cell.trim() !== ""));
  const header = (all[0] ?? []).map((name) => name.trim());
  const rows = all.slice(1).map((record) => header.map((_, column) => record[column] ?? ""));
  return { header, rows, delimiter };
}

function quote(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows (the header first) as CSV text, CRLF line ends as RFC 4180 has them. */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>): string {
  return rows.map((row) => row.map(quote).join(",")).join("\r\n") + "\r\n";
}
