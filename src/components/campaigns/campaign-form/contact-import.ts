/**
 * A contact file read in the browser, mapped and sent as JSON rows (POST /campaign/{id}/contacts
 * {contacts}): the mapping says exactly which column is the number, the name and the time zone, and
 * which become variables under their own header names, so nothing depends on how the server would
 * guess a header. A file longer than one JSON import (CONTACT_IMPORT_JSON_MAX_ROWS) goes in several
 * requests, and their reports are added up (row numbers counted from the file's first row).
 */
import type { ContactImportJson, ContactImportReport } from "../../../../contract/campaign";
import { CONTACT_CSV_COLUMNS, CONTACT_IMPORT_JSON_MAX_ROWS, IMPORT_REPORT_INVALID_MAX, csvColumnKey } from "../../../../contract/campaign-shared";
import { toCsv, type ParsedCsv } from "../../../lib/csv";

export type ContactInput = ContactImportJson["contacts"][number];

export interface ColumnMapping {
  number: number | null;
  name: number | null;
  timezone: number | null;
  /** Columns left out of the variables (unticked). */
  skipped: number[];
}

const columnIndex = (header: string[], names: readonly string[]): number | null => {
  // Matched as the server matches them ("Phone Number", "time-zone" and "TZ" are known columns too).
  const index = header.findIndex((name) => names.includes(csvColumnKey(name)));
  return index < 0 ? null : index;
};

/** The columns whose header names say what they are (CONTACT_CSV_COLUMNS), the rest variables. */
export function guessMapping(header: string[]): ColumnMapping {
  return {
    number: columnIndex(header, CONTACT_CSV_COLUMNS.number),
    name: columnIndex(header, CONTACT_CSV_COLUMNS.name),
    timezone: columnIndex(header, CONTACT_CSV_COLUMNS.timezone),
    skipped: header.flatMap((name, index) => (name.trim() ? [] : [index])),
  };
}

/** The variable columns: neither number, name nor time zone, and not unticked. */
export function variableColumns(header: string[], mapping: ColumnMapping): number[] {
  const special = [mapping.number, mapping.name, mapping.timezone];
  return header.flatMap((_, index) => (special.includes(index) || mapping.skipped.includes(index) ? [] : [index]));
}

/** The column's name as a person reads it ("Column 3" when its header cell is empty). */
export const columnLabel = (header: string[], index: number): string => header[index]?.trim() || `Column ${index + 1}`;

/** Each row as the API's contact: cells trimmed, empty name and zone as null, variables under their header names. */
export function contactsOf(csv: ParsedCsv, mapping: ColumnMapping): ContactInput[] {
  const variables = variableColumns(csv.header, mapping);
  const cell = (row: string[], index: number | null) => (index === null ? "" : (row[index] ?? "").trim());
  return csv.rows.map((row) => ({
    number: cell(row, mapping.number),
    ...(mapping.name !== null ? { name: cell(row, mapping.name) || null } : {}),
    ...(mapping.timezone !== null ? { timezone: cell(row, mapping.timezone) || null } : {}),
    ...(variables.length ? { variables: Object.fromEntries(variables.map((index) => [columnLabel(csv.header, index), cell(row, index)])) } : {}),
  }));
}

export function inChunks<T>(items: T[], size = CONTACT_IMPORT_JSON_MAX_ROWS): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** The reports of consecutive requests as one: counts added, invalid rows numbered from the file's first row. */
export function mergeReports(parts: Array<{ report: ContactImportReport; offset: number }>): ContactImportReport {
  const merged: ContactImportReport = { accepted: 0, duplicates: 0, dnc: 0, invalid: [], invalid_count: 0, needs_timezone: 0, variables: [], total_contacts: 0 };
  for (const { report, offset } of parts) {
    merged.accepted += report.accepted;
    merged.duplicates += report.duplicates;
    merged.dnc += report.dnc;
    merged.invalid_count += report.invalid_count;
    merged.needs_timezone += report.needs_timezone;
    merged.invalid.push(...report.invalid.map((row) => ({ ...row, row: row.row + offset })));
    merged.variables = [...new Set([...merged.variables, ...report.variables])];
    merged.total_contacts = report.total_contacts;
  }
  merged.invalid = merged.invalid.slice(0, IMPORT_REPORT_INVALID_MAX);
  return merged;
}

/** The invalid rows as a CSV to fix and import again: row and reason, then the row as the file had it. */
export function invalidRowsCsv(report: ContactImportReport, csv: ParsedCsv): string {
  return toCsv([
    ["row", "reason", ...csv.header],
    ...report.invalid.map((invalid) => [invalid.row, invalid.reason, ...(csv.rows[invalid.row - 1] ?? csv.header.map(() => ""))]),
  ]);
}
