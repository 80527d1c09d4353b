/**
 * GET /call/export: the call list's rows as CSV, streamed. Rows come from the database in keyset
 * batches (server/calls/list.ts callBatches), so a large export never sits in memory whole.
 */
import { Readable } from "node:stream";
import { CALL_EXPORT_COLUMNS, type CallFilters } from "../../contract";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { microsToUsd } from "../wallet/money";
import { callBatches, type CallQuery } from "./list";
import { callOutcomeOf, successOf, type CallListRow } from "./repository";

/** Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: text that could start a formula gets a leading ', then quotes where CSV needs them. */
export function csvCell(value: string | number | boolean | null | undefined, { guard = true } = {}): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (guard && typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: string[]) => `${cells.join(",")}\r\n`;

export const CSV_HEADER = csvLine(CALL_EXPORT_COLUMNS.map((column) => csvCell(column)));

export function csvRow(row: CallListRow): string {
  const values: Record<(typeof CALL_EXPORT_COLUMNS)[number], string> = {
    id: csvCell(row.id),
    started_at: csvCell(isoTime(row.startedAt)),
    ended_at: csvCell(row.endedAt ? isoTime(row.endedAt) : null),
    type: csvCell(row.type),
    status: csvCell(row.status),
    agent_id: csvCell(row.agentId),
    agent_name: csvCell(row.agentName),
    customer_number: csvCell(row.customerNumber),
    customer_name: csvCell(row.customerName),
    duration_seconds: csvCell(row.durationSeconds),
    cost_usd: csvCell(row.costMicros === null ? null : microsToUsd(Number(row.costMicros))),
    ended_reason: csvCell(row.endedReason),
    success_evaluation: csvCell(row.successEvaluation),
    outcome: csvCell(callOutcomeOf(row)),
    success: csvCell(successOf(row)),
    summary: csvCell(row.summary),
    campaign_id: csvCell(row.campaignId),
    phone_number_id: csvCell(row.phoneNumberId),
    is_sandbox: csvCell(row.isSandbox),
  };
  return csvLine(CALL_EXPORT_COLUMNS.map((column) => values[column]));
}

/** `calls-YYYY-MM-DD.csv`, today in UTC. */
export const exportFileName = (now = new Date()) => `calls-${now.toISOString().slice(0, 10)}.csv`;

/** The CSV as a stream: the header, then every matching row in the list's order. */
export function callsCsvStream(db: Db, query: CallQuery, filters: CallFilters): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield CSV_HEADER;
    for await (const batch of callBatches(db, query, filters)) yield batch.map(csvRow).join("");
  }
  return Readable.from(lines(), { objectMode: false });
}
