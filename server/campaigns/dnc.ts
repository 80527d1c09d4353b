/**
 * The organisation's do-not-call list (dnc_numbers). A listed number is never dialled by any of the
 * organisation's campaigns: adding one marks that number's waiting contacts (queued, needs_timezone)
 * in every campaign as `dnc` in the same transaction, and the dialler checks the list again when it
 * dials. Removing a number from the list does not bring its contacts back (they stay `dnc`).
 *
 * `addToDnc` is also the dialler's opt-out tool ("don't call me again" on a call: source `call`).
 * The organisation's orders to a listed number that may still be called become opted_out (issue 16).
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { CONTACT_CSV_COLUMNS, DNC_REASON_MAX_LENGTH, IMPORT_REPORT_INVALID_MAX, type DncEntry, type DncSource } from "../../contract/campaign";
import { ERROR_CODES } from "../../contract/errors";
import { containsPattern } from "../calls/list";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { campaignContacts, dncNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { contactNumber, numberArrayLiteral, numberProblem } from "./contact-number";
import { CsvError, csvColumnKey, parseCsv } from "./csv";
import { WAITING_CONTACT_STATUSES } from "./readiness";
import { optOutOrdersOf } from "../orders/follow-up";

export type DncRow = typeof dncNumbers.$inferSelect;

export function toApiDncEntry(row: DncRow): DncEntry {
  return {
    id: row.id,
    number: row.number,
    reason: row.reason,
    source: row.source as DncSource,
    call_id: row.callId,
    created_at: isoTime(row.createdAt),
  };
}

export interface DncAddition {
  /** E.164 (already normalised and checked). */
  number: string;
  reason?: string | null;
  source: DncSource;
  callId?: string | null;
  createdBy?: string | null;
}

/**
 * Lists `entry.number` for the organisation (a number already listed keeps its first entry) and marks
 * its waiting contacts `dnc`. Run it inside the caller's transaction. Answers the entry and whether it
 * is new, and how many contacts it stopped.
 */
export async function addToDnc(tx: Db, orgId: string, entry: DncAddition): Promise<{ entry: DncRow; added: boolean; contactsStopped: number }> {
  const result = await addManyToDnc(tx, orgId, [entry]);
  const [row] = await tx.select().from(dncNumbers).where(and(eq(dncNumbers.orgId, orgId), eq(dncNumbers.number, entry.number)));
  return { entry: row!, added: result.added > 0, contactsStopped: result.contactsStopped };
}

/** Lists the numbers (a number given twice: its first entry; in INSERT … ON CONFLICT DO NOTHING) and marks their waiting contacts `dnc`. */
export async function addManyToDnc(tx: Db, orgId: string, entries: readonly DncAddition[]): Promise<{ added: number; alreadyListed: number; contactsStopped: number }> {
  const unique: DncAddition[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.number)) continue;
    seen.add(entry.number);
    unique.push(entry);
  }
  if (unique.length === 0) return { added: 0, alreadyListed: 0, contactsStopped: 0 };
  let added = 0;
  const now = new Date();
  for (let i = 0; i < unique.length; i += 2000) {
    const inserted = await tx
      .insert(dncNumbers)
      .values(
        unique.slice(i, i + 2000).map((entry) => ({
          id: randomUUID(),
          orgId,
          number: entry.number,
          reason: entry.reason ?? null,
          source: entry.source,
          callId: entry.callId ?? null,
          createdBy: entry.createdBy ?? null,
          createdAt: now,
        })),
      )
      .onConflictDoNothing({ target: [dncNumbers.orgId, dncNumbers.number] })
      .returning({ id: dncNumbers.id });
    added += inserted.length;
  }
  const contactsStopped = await stopContacts(tx, orgId, unique.map((entry) => entry.number));
  // Orders to these numbers (issue 16) are never called again either: opted_out.
  await optOutOrdersOf(tx, orgId, numberArrayLiteral(unique.map((entry) => entry.number)));
  return { added, alreadyListed: unique.length - added, contactsStopped };
}

/** Marks the organisation's waiting contacts with these numbers `dnc` (every campaign). */
async function stopContacts(tx: Db, orgId: string, numbers: readonly string[]): Promise<number> {
  const rows = await tx
    .update(campaignContacts)
    .set({ status: "dnc", readyAt: null, updatedAt: new Date() })
    .where(and(eq(campaignContacts.orgId, orgId), sql`${campaignContacts.number} = any(${numberArrayLiteral(numbers)}::text[])`, inArray(campaignContacts.status, [...WAITING_CONTACT_STATUSES])))
    .returning({ id: campaignContacts.id });
  return rows.length;
}

/** Which of `numbers` the organisation lists (one array parameter). */
export async function listedNumbers(tx: Db, scope: OrgScope, numbers: readonly string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const rows = await tx
    .select({ number: dncNumbers.number })
    .from(dncNumbers)
    .where(and(eq(dncNumbers.orgId, scope.orgId), sql`${dncNumbers.number} = any(${numberArrayLiteral(numbers)}::text[])`));
  return new Set(rows.map((row) => row.number));
}

/** The list, newest first; `search` matches the number's digits or the reason. */
export async function listDnc(scope: OrgScope, query: { page: number; limit: number; search?: string | undefined }): Promise<{ rows: DncRow[]; total: number }> {
  let where: SQL | undefined;
  if (query.search) {
    const digits = query.search.replace(/\D/g, "");
    where = or(
      digits ? sql`${dncNumbers.number} like ${containsPattern(digits)}` : undefined,
      sql`${dncNumbers.reason} ilike ${containsPattern(query.search)}`,
    );
  }
  const [rows, total] = await Promise.all([
    scope.select(dncNumbers, { where, orderBy: [desc(dncNumbers.createdAt), desc(dncNumbers.id)], limit: query.limit, offset: (query.page - 1) * query.limit }),
    scope.count(dncNumbers, where),
  ]);
  return { rows, total };
}

/** The numbers of a do-not-call CSV: a number column (the contact import's names for it) and an optional reason column. */
export function dncEntriesFromCsv(text: string): { entries: Array<{ number: string; reason: string | null }>; invalid: Array<{ row: number; reason: string }> } {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) throw new ApiError(400, ERROR_CODES.validation, `file: the CSV is not well-formed: ${error.message}.`);
    throw error;
  }
  const [header, ...body] = records;
  const names = header?.cells.map(csvColumnKey) ?? [];
  const numberColumn = names.findIndex((name) => (CONTACT_CSV_COLUMNS.number as readonly string[]).includes(name));
  if (numberColumn === -1) {
    throw new ApiError(400, ERROR_CODES.validation, `file: the CSV has no number column: name the column of phone numbers one of ${CONTACT_CSV_COLUMNS.number.join(", ")} in the header row.`);
  }
  if (body.length === 0) throw new ApiError(400, ERROR_CODES.validation, "file: the CSV holds a header row but no numbers.");
  const reasonColumn = names.indexOf("reason");
  const entries: Array<{ number: string; reason: string | null }> = [];
  const invalid: Array<{ row: number; reason: string }> = [];
  body.forEach((record, index) => {
    const raw = (record.cells[numberColumn] ?? "").trim();
    const reason = reasonColumn === -1 ? null : (record.cells[reasonColumn] ?? "").trim() || null;
    const number = contactNumber(raw);
    const problem =
      numberProblem(raw, number) ??
      (reason && reason.length > DNC_REASON_MAX_LENGTH
        ? `reason is longer than ${DNC_REASON_MAX_LENGTH} characters`
        : reason?.includes("\u0000")
          ? "the row holds the NUL character (is this a text file?)"
          : null);
    if (problem) {
      if (invalid.length < IMPORT_REPORT_INVALID_MAX) invalid.push({ row: index + 1, reason: problem });
    } else entries.push({ number: number!, reason });
  });
  return { entries, invalid };
}
