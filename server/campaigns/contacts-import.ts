/**
 * POST /campaign/{id}/contacts: a CSV upload or a JSON list becomes contacts of a draft or paused
 * campaign, in one transaction that holds the campaign's row lock (a failed import changes nothing).
 *
 * Row by row (row 1 = the first contact; a CSV's header is not counted, blank lines are skipped):
 * - number: what people type around the digits is dropped (spaces, dashes, dots, brackets; a leading
 *   ' that spreadsheets and our own export put before a +), then it must be E.164: else the row is
 *   invalid. A number seen earlier in the file, or already a contact of the campaign, is a duplicate
 *   (counted, not imported). A number on the organisation's do-not-call list is stored with status
 *   `dnc` (counted as dnc, shown in the counts and the contact list, never dialled).
 * - timezone (optional): an IANA name, else the row is invalid.
 * - name (optional), every other column a variable (names as written in the header, trimmed; columns
 *   with an empty header are ignored). Values are text. The known columns (CONTACT_CSV_COLUMNS) are
 *   matched ignoring case, and spaces or dashes for _ ("Phone Number", "Time Zone", "Full Name").
 * - Each accepted contact stores its number's zones (numberTimeZones), its position after the existing
 *   contacts, and status queued with ready_at (readiness.ts), or needs_timezone when it has no zone
 *   and the campaign no fallback.
 * Rows go in with multi-row INSERTs of IMPORT_CHUNK rows (orgScope.insertMany).
 *
 * The plan's campaign_contacts limit (contract/plans.ts): an import that would take the campaign past it
 * is refused whole (403 plan_limit_reached with planLimitDetail's sentence), as one past
 * CAMPAIGN_CONTACTS_MAX is: nothing is stored, so the person can trim the file or upgrade and upload the
 * same file again, instead of finding out later which rows were dropped. The count is of the contacts
 * that would be stored (new numbers, do-not-call ones included; duplicates and invalid rows are not),
 * taken under the organisation's row lock, so two imports at once cannot both pass the last places.
 */
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import {
  CAMPAIGN_CONTACTS_MAX,
  CONTACT_CSV_COLUMNS,
  CONTACT_IMPORT_STATUSES,
  CONTACT_NAME_MAX_LENGTH,
  CONTACT_VARIABLE_VALUE_MAX_LENGTH,
  CONTACT_VARIABLES_MAX,
  IMPORT_REPORT_INVALID_MAX,
  type CampaignStatus,
  type ContactImportJson,
  type ContactImportReport,
} from "../../contract/campaign";
import { ERROR_CODES } from "../../contract/errors";
import { PLANS } from "../../contract/plans";
import { lockedPlan, planLimitError, type PlanSettings } from "../billing/plan-limits";
import { isTimeZoneName } from "../../contract/time-zone-name";
import { orgScope, type OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaignContacts, campaigns } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { contactNumber, numberArrayLiteral, numberProblem } from "./contact-number";
import { CsvError, csvColumnKey, parseCsv } from "./csv";
import { listedNumbers } from "./dnc";
import { recordCampaignEvent } from "./events";
import { numberTimeZones } from "./number-zones";
import { readinessPlanner } from "./readiness";
import type { CampaignSignals } from "./signals";
import { lockCampaign } from "./repository";
import { campaignNotFound, stateConflict } from "./service";

/** One contact as given, before it is checked. */
export interface ContactRow {
  /** 1 = the first contact. */
  row: number;
  number: string;
  name: string | null;
  timezone: string | null;
  variables: Record<string, string>;
  /** Why the row is invalid whatever its values (a CSV row with more cells than the header). */
  problem?: string;
}

export interface ContactRows {
  rows: ContactRow[];
  /** The columns that became variables (CSV), or the variable names seen (JSON). */
  variables: string[];
}

const badRequest = (detail: string) => new ApiError(400, ERROR_CODES.validation, detail);

/** A variable's name, as the JSON form allows it. */
const VARIABLE_NAME_MAX_LENGTH = 100;

const columnRole = (header: string): "number" | "name" | "timezone" | null => {
  const key = csvColumnKey(header);
  for (const role of ["number", "name", "timezone"] as const) if ((CONTACT_CSV_COLUMNS[role] as readonly string[]).includes(key)) return role;
  return null;
};

/** The contacts of a CSV (text already decoded). 400 when the file as a whole cannot be read. */
export function contactRowsFromCsv(text: string): ContactRows {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) throw badRequest(`file: the CSV is not well-formed: ${error.message}.`);
    throw error;
  }
  const [header, ...body] = records;
  if (!header) throw badRequest(`file: the CSV is empty: give a header row with a number column (${CONTACT_CSV_COLUMNS.number.join(", ")}) and one contact per row.`);
  const roles: Array<{ index: number; role: "number" | "name" | "timezone" | "variable"; name: string }> = [];
  const seen = new Set<string>();
  const taken = new Set<string>();
  header.cells.forEach((cell, index) => {
    const name = cell.trim();
    if (!name) return;
    if (name.length > VARIABLE_NAME_MAX_LENGTH) throw badRequest(`file: the column name "${name.slice(0, 40)}…" is longer than ${VARIABLE_NAME_MAX_LENGTH} characters.`);
    if (name.includes("\u0000")) throw badRequest("file: a column name holds the NUL character.");
    if (seen.has(name)) throw badRequest(`file: the column "${name}" appears twice in the header row.`);
    seen.add(name);
    const role = columnRole(name);
    if (role && !taken.has(role)) {
      taken.add(role);
      roles.push({ index, role, name });
    } else roles.push({ index, role: "variable", name });
  });
  if (!taken.has("number")) {
    throw badRequest(`file: the CSV has no number column: name the column of phone numbers one of ${CONTACT_CSV_COLUMNS.number.join(", ")} in the header row.`);
  }
  const variables = roles.filter((column) => column.role === "variable").map((column) => column.name);
  if (variables.length > CONTACT_VARIABLES_MAX) {
    throw badRequest(`file: the CSV has ${variables.length} columns that become variables; a contact may carry at most ${CONTACT_VARIABLES_MAX}.`);
  }
  if (body.length === 0) throw badRequest("file: the CSV holds a header row but no contacts.");
  const width = header.cells.length;
  const rows = body.map((record, index): ContactRow => {
    const contact: ContactRow = { row: index + 1, number: "", name: null, timezone: null, variables: {} };
    for (const column of roles) {
      const value = record.cells[column.index] ?? "";
      if (column.role === "variable") contact.variables[column.name] = value;
      else if (column.role === "number") contact.number = value;
      else if (value.trim()) contact[column.role] = value.trim();
    }
    // Cells past the header's last column: the row is shifted or has a stray comma (trailing empty cells are fine).
    if (record.cells.length > width && record.cells.slice(width).some((cell) => cell.trim() !== "")) {
      contact.problem = `the row has ${record.cells.length} cells but the header has ${width} columns (a comma inside a value needs quotes)`;
    }
    return contact;
  });
  return { rows, variables };
}

/** The contacts of a JSON import (already checked against contactImportJsonSchema). */
export function contactRowsFromJson(body: ContactImportJson): ContactRows {
  const names = new Set<string>();
  const rows = body.contacts.map((contact, index): ContactRow => {
    const variables = Object.fromEntries(Object.entries(contact.variables ?? {}).map(([key, value]) => [key, String(value)]));
    for (const key of Object.keys(variables)) names.add(key);
    const row: ContactRow = { row: index + 1, number: contact.number, name: contact.name?.trim() || null, timezone: contact.timezone?.trim() || null, variables };
    if (Object.keys(variables).length > CONTACT_VARIABLES_MAX) row.problem = `the contact has ${Object.keys(variables).length} variables; at most ${CONTACT_VARIABLES_MAX}`;
    return row;
  });
  return { rows, variables: [...names] };
}

/** Zone names checked once per import (Intl's check builds a formatter each time). */
function zoneChecker(): (name: string) => boolean {
  const known = new Map<string, boolean>();
  return (name) => {
    let ok = known.get(name);
    if (ok === undefined) known.set(name, (ok = isTimeZoneName(name)));
    return ok;
  };
}

/** Why the row cannot be imported, or null. */
function problemOf(row: ContactRow, number: string | null, isZone: (name: string) => boolean): string | null {
  if (row.problem) return row.problem;
  const numberIssue = numberProblem(row.number, number);
  if (numberIssue) return numberIssue;
  if (row.timezone && !isZone(row.timezone)) return `timezone "${row.timezone.slice(0, 64)}" is not a known time zone (use a name such as America/New_York)`;
  if (row.name && row.name.length > CONTACT_NAME_MAX_LENGTH) return `name is longer than ${CONTACT_NAME_MAX_LENGTH} characters`;
  for (const [key, value] of Object.entries(row.variables)) {
    if (value.length > CONTACT_VARIABLE_VALUE_MAX_LENGTH) return `variable "${key}" is longer than ${CONTACT_VARIABLE_VALUE_MAX_LENGTH} characters`;
  }
  // PostgreSQL cannot store the NUL character (a binary file read as text, mostly).
  if ([row.name, row.timezone, ...Object.values(row.variables)].some((value) => value?.includes("\u0000"))) return "the row holds the NUL character (is this a text file?)";
  return null;
}

/** Rows per INSERT (one JSON parameter each: orgScope.insertMany). */
const IMPORT_CHUNK = 2500;

export interface ImportContext {
  db: Db;
  scope: OrgScope;
  userId: string;
  signals: CampaignSignals;
  /** The plan rules (DEFAULT_PLAN): the plan's contacts per campaign. */
  plans: PlanSettings;
}

/** Checks, dedupes and stores the rows (see the file comment). */
export async function importContacts(ctx: ImportContext, campaignId: string, input: ContactRows): Promise<ContactImportReport> {
  const report: ContactImportReport = { accepted: 0, duplicates: 0, dnc: 0, invalid: [], invalid_count: 0, needs_timezone: 0, variables: input.variables, total_contacts: 0 };
  const valid: Array<ContactRow & { e164: string }> = [];
  const inFile = new Set<string>();
  const isZone = zoneChecker();
  for (const row of input.rows) {
    const number = contactNumber(row.number);
    const problem = problemOf(row, number, isZone);
    if (problem) {
      report.invalid_count++;
      if (report.invalid.length < IMPORT_REPORT_INVALID_MAX) report.invalid.push({ row: row.row, reason: problem, number: row.number.slice(0, 60) });
    } else if (inFile.has(number!)) {
      report.duplicates++;
    } else {
      inFile.add(number!);
      valid.push({ ...row, e164: number! });
    }
  }

  const answer = await ctx.db.transaction(async (tx) => {
    const scope = orgScope(tx, ctx.scope.orgId);
    // The organisation's row first (the lock order of every writer: organisation, then campaign).
    const plan = await lockedPlan(tx, scope.orgId, ctx.plans);
    const campaign = await lockCampaign(tx, scope, campaignId);
    if (!campaign) throw campaignNotFound();
    if (!CONTACT_IMPORT_STATUSES.includes(campaign.status as CampaignStatus)) {
      throw stateConflict(campaign.status, `Contacts can be added to a draft or paused campaign; this one is ${campaign.status}${campaign.status === "running" ? ": pause it first" : ""}.`);
    }
    const numbers = valid.map((row) => row.e164);
    const existing = await numbersInCampaign(tx, scope, campaignId, numbers);
    const fresh = valid.filter((row) => !existing.has(row.e164));
    report.duplicates += valid.length - fresh.length;
    const listed = await listedNumbers(tx, scope, fresh.map((row) => row.e164));

    const [{ count, last } = { count: 0, last: 0 }] = await tx
      .select({ count: sql<number>`count(*)::int`, last: sql<number>`coalesce(max(${campaignContacts.position}), 0)::int` })
      .from(campaignContacts)
      .where(and(eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, campaignId)));
    if (count + fresh.length > CAMPAIGN_CONTACTS_MAX) {
      throw badRequest(`A campaign holds at most ${CAMPAIGN_CONTACTS_MAX.toLocaleString("en-US")} contacts: it has ${count.toLocaleString("en-US")}, and this import would add ${fresh.length.toLocaleString("en-US")}.`);
    }
    const planLimit = PLANS[plan].limits.campaign_contacts;
    if (planLimit !== null && fresh.length > 0 && count + fresh.length > planLimit) throw planLimitError("campaign_contacts", plan);

    const now = new Date();
    const planner = readinessPlanner(campaign, now.getTime());
    const rows = fresh.map((contact, index) => {
      const numberZones = numberTimeZones(contact.e164);
      const onList = listed.has(contact.e164);
      const readiness = onList ? { status: "dnc", readyAt: null } : planner({ timezone: contact.timezone, numberZones });
      if (onList) report.dnc++;
      else {
        report.accepted++;
        if (readiness.status === "needs_timezone") report.needs_timezone++;
      }
      return {
        id: randomUUID(),
        campaignId,
        position: last + index + 1,
        number: contact.e164,
        name: contact.name,
        timezone: contact.timezone,
        numberZones,
        variables: contact.variables,
        status: readiness.status,
        readyAt: readiness.readyAt,
        createdAt: now,
        updatedAt: now,
      };
    });
    for (let i = 0; i < rows.length; i += IMPORT_CHUNK) await scope.insertMany(campaignContacts, rows.slice(i, i + IMPORT_CHUNK));
    report.total_contacts = count + rows.length;

    if (rows.length > 0) {
      const parts = [`${report.accepted} contact${report.accepted === 1 ? "" : "s"} added`];
      if (report.dnc) parts.push(`${report.dnc} on the do-not-call list`);
      if (report.duplicates) parts.push(`${report.duplicates} duplicate${report.duplicates === 1 ? "" : "s"} skipped`);
      if (report.invalid_count) parts.push(`${report.invalid_count} invalid row${report.invalid_count === 1 ? "" : "s"} skipped`);
      await recordCampaignEvent(tx, { orgId: scope.orgId, campaignId, kind: "imported", detail: `${parts.join(", ")}.`, actor: ctx.userId, at: now });
      await scope.update(campaigns, { updatedAt: now }, eq(campaigns.id, campaignId));
    }
    return report;
  });
  if (answer.accepted + answer.dnc > 0) ctx.signals.changed(campaignId);
  return answer;
}

/** Which of `numbers` are already contacts of the campaign (one array parameter: a list of 10,000 parameters costs more than the lookup). */
async function numbersInCampaign(tx: Db, scope: OrgScope, campaignId: string, numbers: readonly string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const rows = await tx
    .select({ number: campaignContacts.number })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, campaignId), sql`${campaignContacts.number} = any(${numberArrayLiteral(numbers)}::text[])`));
  return new Set(rows.map((row) => row.number));
}
