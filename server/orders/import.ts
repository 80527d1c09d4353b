/**
 * POST /order/import: a CSV (multipart field `file`) or JSON `{orders: [...]}` becomes orders, with a
 * report like campaign contacts' (accepted, updated, duplicates, no_consent, invalid rows).
 *
 * CSV: a header row, then one order per row (row 1 = the first order; blank lines are not rows). Columns
 * (ORDER_CSV_COLUMNS, matched ignoring case, spaces and dashes: "Phone Number", "Order ID"):
 * - reference (required): the order's reference; an order with the same reference already imported or
 *   added by hand is updated, not duplicated; a reference seen earlier in the file is a duplicate;
 * - customer_number (required): E.164 once spaces, dashes, dots and brackets are dropped;
 * - customer_name, email, checkout_url (http or https), timezone (IANA), currency (ISO 4217, default USD);
 * - items: "Blue mug x2 12.00; Tote bag x1 35.90" — items separated by ";", each "name xQUANTITY
 *   UNIT_PRICE" (price in the currency's major unit; "name x2" has price 0, a bare "name" is one at 0);
 * - total: the amount in the major unit (59.90); without it, the items' sum;
 * - abandoned_at: an ISO 8601 time (a date alone is midnight UTC); default now;
 * - call_consent: true/yes/y/1/on is consent to be called (anything else is none), call_consent_source,
 *   call_consent_at (ISO 8601; default the import's time when consent is given). Email or SMS marketing
 *   consent is not consent to be called.
 * JSON: each element is POST /order/'s body (orderCreateSchema); an element it refuses is an invalid row.
 *
 * New orders go in with multi-row INSERTs (orgScope.insertMany) in one transaction, their follow-up
 * planned in bulk (consent, the do-not-call list in one lookup, the follow-up's delay and windows through
 * one readiness planner): 10,000 rows take a few seconds. Known references are updated one by one (their
 * follow-up re-planned when they were not called yet). A failed import changes nothing.
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { isConsentYes } from "../../contract/calling-rules";
import { contactZones } from "../../contract/campaign-schedule";
import { ERROR_CODES } from "../../contract/errors";
import { IMPORT_REPORT_INVALID_MAX } from "../../contract/campaign";
import {
  FOLLOW_UP_BACKFILL_HOURS,
  ORDER_CSV_COLUMNS,
  ORDER_IMPORT_MAX_ROWS,
  ORDER_ITEM_NAME_MAX_LENGTH,
  ORDER_ITEMS_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  ORDER_TEXT_MAX_LENGTH,
  ORDER_URL_MAX_LENGTH,
  majorToMinor,
} from "../../contract/order-shared";
import { orderCreateSchema } from "../../contract/order";
import { isTimeZoneName } from "../../contract/time-zone-name";
import { contactNumber, numberProblem } from "../campaigns/contact-number";
import { CsvError, csvColumnKey, parseCsv } from "../campaigns/csv";
import { listedNumbers } from "../campaigns/dnc";
import { numberTimeZones } from "../campaigns/number-zones";
import { readinessPlanner } from "../campaigns/readiness";
import type { CampaignSignals } from "../campaigns/signals";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaignContacts, orderEvents, orders } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { recordOrderEvent } from "./events";
import { DNC_DETAIL, FOLLOW_UP_NOT_SET_DETAIL, FOLLOW_UP_OFF_DETAIL, followUpFor, lockOrder, localTimeText, noConsentDetail, orderVariables, planFollowUp, refreshContact } from "./follow-up";

export interface OrderImportReport {
  accepted: number;
  updated: number;
  duplicates: number;
  no_consent: number;
  invalid: { row: number; reason: string }[];
  invalid_count: number;
}

/** One order as read from a row, checked. */
interface ImportRow {
  row: number;
  reference: string;
  customerName: string | null;
  customerNumber: string;
  customerEmail: string | null;
  items: { name: string; quantity: number; price_minor: number }[];
  totalMinor: number;
  currency: string;
  checkoutUrl: string | null;
  abandonedAt: Date;
  timezone: string | null;
  storeName: string | null;
  consent: { given: boolean; source: string | null; at: Date | null };
}

type Parsed = { ok: ImportRow } | { problem: string; row: number };

const badRequest = (detail: string) => new ApiError(400, ERROR_CODES.validation, detail);
const BACKFILL_MS = FOLLOW_UP_BACKFILL_HOURS * 60 * 60 * 1000;
const CHUNK = 2500;

type Column = keyof typeof ORDER_CSV_COLUMNS;

function columnOf(header: string): Column | null {
  const key = csvColumnKey(header);
  for (const column of Object.keys(ORDER_CSV_COLUMNS) as Column[]) if ((ORDER_CSV_COLUMNS[column] as readonly string[]).includes(key)) return column;
  return null;
}

/** "Blue mug x2 12.00; Tote bag x1 35.90" → items (null: a price that does not fit the currency). */
export function parseItemsCell(cell: string, currency: string): { items: ImportRow["items"] } | { problem: string } {
  const items: ImportRow["items"] = [];
  for (const part of cell.split(";")) {
    const text = part.trim();
    if (!text) continue;
    const match = /^(.+?)\s+[x×]\s?(\d+)(?:\s+(\d+(?:\.\d+)?))?$/i.exec(text);
    const name = (match ? match[1]! : text).trim();
    const quantity = match ? Number(match[2]) : 1;
    const price = match?.[3] !== undefined ? majorToMinor(match[3], currency) : 0;
    if (price === null) return { problem: `items: the price of "${name.slice(0, 40)}" has more decimals than ${currency} has` };
    if (quantity < 1 || quantity > 1_000_000) return { problem: `items: the quantity of "${name.slice(0, 40)}" must be 1 or more` };
    if (name.length > ORDER_ITEM_NAME_MAX_LENGTH) return { problem: `items: an item name is longer than ${ORDER_ITEM_NAME_MAX_LENGTH} characters` };
    items.push({ name, quantity, price_minor: price });
  }
  if (items.length > ORDER_ITEMS_MAX) return { problem: `items: an order may hold at most ${ORDER_ITEMS_MAX} items` };
  return { items };
}

const parseTime = (text: string): Date | null => {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return null;
  const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed);
  return Number.isFinite(at) ? new Date(at) : null;
};

const zoneChecker = () => {
  const known = new Map<string, boolean>();
  return (name: string) => {
    let ok = known.get(name);
    if (ok === undefined) known.set(name, (ok = isTimeZoneName(name)));
    return ok;
  };
};

/** One CSV row's cells (by column) → an order, or why not. */
function rowFromCells(row: number, cells: Partial<Record<Column, string>>, now: Date, isZone: (name: string) => boolean): Parsed {
  const fail = (problem: string): Parsed => ({ problem, row });
  const text = (column: Column) => (cells[column] ?? "").trim();
  if ([...Object.values(cells)].some((value) => value?.includes("\u0000"))) return fail("the row holds the NUL character (is this a text file?)");
  const reference = text("reference");
  if (!reference) return fail("reference is missing");
  if (reference.length > ORDER_REFERENCE_MAX_LENGTH) return fail(`reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`);
  const raw = text("customer_number");
  const number = contactNumber(raw);
  const numberIssue = numberProblem(raw, number);
  if (numberIssue) return fail(numberIssue.replace(/^number/, "customer_number"));
  const currency = (text("currency") || "USD").toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) return fail(`currency "${currency.slice(0, 10)}" is not a three-letter ISO 4217 code`);
  const parsedItems = parseItemsCell(text("items"), currency);
  if ("problem" in parsedItems) return fail(parsedItems.problem);
  const totalText = text("total").replace(/^[^\d-]+/, "").replace(/,/g, "");
  let totalMinor: number | null;
  if (totalText) {
    totalMinor = majorToMinor(totalText, currency);
    if (totalMinor === null || totalMinor < 0) return fail(`total "${text("total").slice(0, 20)}" is not an amount in ${currency} (e.g. 59.90)`);
  } else {
    totalMinor = parsedItems.items.reduce((sum, item) => sum + item.price_minor * item.quantity, 0);
  }
  const email = text("email");
  if (email && (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > ORDER_TEXT_MAX_LENGTH)) return fail(`email "${email.slice(0, 40)}" is not an email address`);
  const url = text("checkout_url");
  if (url && (!/^https?:\/\/\S+$/i.test(url) || url.length > ORDER_URL_MAX_LENGTH)) return fail("checkout_url must be an http(s) address");
  const zone = text("timezone");
  if (zone && !isZone(zone)) return fail(`timezone "${zone.slice(0, 64)}" is not a known time zone (use a name such as America/New_York)`);
  const abandonedText = text("abandoned_at");
  const abandonedAt = abandonedText ? parseTime(abandonedText) : now;
  if (!abandonedAt) return fail(`abandoned_at "${abandonedText.slice(0, 40)}" is not an ISO 8601 time (e.g. 2026-12-01T14:30:00Z)`);
  const given = isConsentYes(text("call_consent"));
  const consentAtText = text("call_consent_at");
  const consentAt = consentAtText ? parseTime(consentAtText) : null;
  if (consentAtText && !consentAt) return fail(`call_consent_at "${consentAtText.slice(0, 40)}" is not an ISO 8601 time`);
  const name = text("customer_name");
  if (name.length > ORDER_TEXT_MAX_LENGTH) return fail(`customer_name is longer than ${ORDER_TEXT_MAX_LENGTH} characters`);
  const source = text("call_consent_source");
  return {
    ok: {
      row,
      reference,
      customerName: name || null,
      customerNumber: number!,
      customerEmail: email || null,
      items: parsedItems.items,
      totalMinor,
      currency,
      checkoutUrl: url || null,
      abandonedAt,
      timezone: zone || null,
      storeName: null,
      consent: { given, source: given || source ? source.slice(0, ORDER_TEXT_MAX_LENGTH) || null : null, at: given ? (consentAt ?? now) : null },
    },
  };
}

/** The rows of a CSV (text already decoded). 400 when the file as a whole cannot be read. */
export function orderRowsFromCsv(text: string, now = new Date()): Parsed[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) throw badRequest(`file: the CSV is not well-formed: ${error.message}.`);
    throw error;
  }
  const [header, ...body] = records;
  if (!header) throw badRequest(`file: the CSV is empty: give a header row (${Object.keys(ORDER_CSV_COLUMNS).join(", ")}) and one order per row.`);
  const columns = header.cells.map((cell) => columnOf(cell));
  for (const required of ["reference", "customer_number"] as const) {
    if (!columns.includes(required)) {
      throw badRequest(`file: the CSV has no ${required} column: name it one of ${ORDER_CSV_COLUMNS[required].join(", ")} in the header row.`);
    }
  }
  if (body.length === 0) throw badRequest("file: the CSV holds a header row but no orders.");
  if (body.length > ORDER_IMPORT_MAX_ROWS) throw badRequest(`file: at most ${ORDER_IMPORT_MAX_ROWS.toLocaleString("en-US")} orders in one import; this one has ${body.length.toLocaleString("en-US")}.`);
  const isZone = zoneChecker();
  const width = header.cells.length;
  return body.map((record, index) => {
    const cells: Partial<Record<Column, string>> = {};
    columns.forEach((column, at) => {
      if (column && cells[column] === undefined) cells[column] = record.cells[at] ?? "";
    });
    if (record.cells.length > width && record.cells.slice(width).some((cell) => cell.trim() !== "")) {
      return { problem: `the row has ${record.cells.length} cells but the header has ${width} columns (a comma inside a value needs quotes)`, row: index + 1 };
    }
    return rowFromCells(index + 1, cells, now, isZone);
  });
}

/** The rows of a JSON import: each element is POST /order/'s body. */
export function orderRowsFromJson(body: { orders: Record<string, unknown>[] }, now = new Date()): Parsed[] {
  return body.orders.map((element, index): Parsed => {
    const parsed = orderCreateSchema.safeParse(element);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.join(".");
      return { problem: issue ? `${path && !issue.message.startsWith(path.split(".")[0]!) ? `${path}: ` : ""}${issue.message}` : "not an order", row: index + 1 };
    }
    const order = parsed.data;
    const currency = order.currency;
    return {
      ok: {
        row: index + 1,
        reference: order.reference,
        customerName: order.customer_name ?? null,
        customerNumber: order.customer_number,
        customerEmail: order.customer_email ?? null,
        items: (order.items ?? []).map((item) => ({ name: item.name, quantity: item.quantity, price_minor: majorToMinor(item.price, currency) ?? 0 })),
        totalMinor: majorToMinor(order.total, currency) ?? 0,
        currency,
        checkoutUrl: order.checkout_url ?? null,
        abandonedAt: order.abandoned_at ? new Date(order.abandoned_at) : now,
        timezone: order.timezone ?? null,
        storeName: order.store_name ?? null,
        consent: {
          given: order.call_consent?.given ?? false,
          source: order.call_consent?.source ?? null,
          at: order.call_consent?.given ? (order.call_consent.at ? new Date(order.call_consent.at) : now) : null,
        },
      },
    };
  });
}

export interface ImportContext {
  db: Db;
  orgId: string;
  userId: string;
  signals: CampaignSignals;
}

/** Checks, dedupes and stores the rows (see the file comment). */
export async function importOrders(ctx: ImportContext, parsed: Parsed[]): Promise<OrderImportReport> {
  const report: OrderImportReport = { accepted: 0, updated: 0, duplicates: 0, no_consent: 0, invalid: [], invalid_count: 0 };
  const valid: ImportRow[] = [];
  const seen = new Set<string>();
  for (const one of parsed) {
    if ("problem" in one) {
      report.invalid_count++;
      if (report.invalid.length < IMPORT_REPORT_INVALID_MAX) report.invalid.push({ row: one.row, reason: one.problem });
    } else if (seen.has(one.ok.reference)) {
      report.duplicates++;
    } else {
      seen.add(one.ok.reference);
      valid.push(one.ok);
    }
  }
  if (valid.length === 0) return report;

  const wake = await ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, ctx.orgId);
    const scope = orgScope(tx, ctx.orgId);
    const now = new Date();
    const references = valid.map((row) => row.reference);
    const existing = new Map<string, string>();
    for (let i = 0; i < references.length; i += CHUNK) {
      const rows = await tx
        .select({ id: orders.id, externalId: orders.externalId })
        .from(orders)
        .where(and(eq(orders.orgId, ctx.orgId), isNull(orders.integrationId), inArray(orders.externalId, references.slice(i, i + CHUNK))));
      for (const row of rows) existing.set(row.externalId, row.id);
    }
    const fresh = valid.filter((row) => !existing.has(row.reference));
    const known = valid.filter((row) => existing.has(row.reference));
    const wakeCampaigns = new Set<string>();

    // New orders: their follow-up decided in bulk, as planFollowUp decides it for one.
    const followUp = await followUpFor(tx, ctx.orgId, null);
    const listed = await listedNumbers(tx, scope, [...new Set(fresh.map((row) => row.customerNumber))]);
    const planner = followUp ? readinessPlanner(followUp.campaign, now.getTime()) : null;
    const setUp = followUp !== null && followUp.campaign.agentId !== null && followUp.campaign.phoneNumberId !== null;
    const orderRows: (typeof orders.$inferInsert)[] = [];
    const contactRows: (typeof campaignContacts.$inferInsert)[] = [];
    const eventRows: (typeof orderEvents.$inferInsert)[] = [];
    for (const row of fresh) {
      const id = randomUUID();
      let status = "open";
      let detail: string;
      let queued = false;
      const base = {
        id,
        orgId: ctx.orgId,
        integrationId: null,
        source: "csv",
        externalId: row.reference,
        reference: row.reference,
        storeName: row.storeName,
        customerName: row.customerName,
        customerNumber: row.customerNumber,
        customerEmail: row.customerEmail,
        timezone: row.timezone,
        items: row.items,
        totalMinor: row.totalMinor,
        currency: row.currency,
        checkoutUrl: row.checkoutUrl,
        abandonedAt: row.abandonedAt,
        consentGiven: row.consent.given,
        consentSource: row.consent.source,
        consentAt: row.consent.at,
        createdBy: ctx.userId,
        createdAt: now,
        updatedAt: now,
      };
      if (!row.consent.given) {
        status = "no_consent";
        detail = noConsentDetail({ consentSource: row.consent.source });
        report.no_consent++;
      } else if (listed.has(row.customerNumber)) {
        status = "opted_out";
        detail = DNC_DETAIL;
      } else if (!followUp || !followUp.settings.enabled) {
        detail = setUp ? FOLLOW_UP_OFF_DETAIL : FOLLOW_UP_NOT_SET_DETAIL;
      } else if (row.abandonedAt.getTime() < now.getTime() - BACKFILL_MS) {
        detail = `Abandoned more than ${FOLLOW_UP_BACKFILL_HOURS} hours before automatic follow-up could take it: not called automatically (use Call now).`;
      } else {
        const numberZones = numberTimeZones(row.customerNumber);
        const notBefore = new Date(row.abandonedAt.getTime() + followUp.settings.delayMinutes * 60_000);
        const readiness = planner!({ timezone: row.timezone, numberZones, notBefore });
        const zones = contactZones({ timezone: row.timezone, numberZones }, followUp.campaign.schedule.fallback_timezone);
        contactRows.push({
          id: randomUUID(),
          orgId: ctx.orgId,
          campaignId: followUp.campaign.id,
          orderId: id,
          position: 1,
          number: row.customerNumber,
          name: row.customerName,
          timezone: row.timezone,
          numberZones,
          variables: orderVariables(base),
          status: readiness.status,
          notBefore,
          readyAt: readiness.readyAt,
          createdAt: now,
          updatedAt: now,
        });
        queued = true;
        wakeCampaigns.add(followUp.campaign.id);
        detail =
          readiness.status === "needs_timezone"
            ? "Waiting for a time zone: give the order a timezone, or set a fallback zone in the follow-up settings."
            : readiness.readyAt && readiness.readyAt.getTime() > now.getTime()
              ? `Queued: the first call may go from ${localTimeText(readiness.readyAt, zones)}.`
              : "Queued: the first call goes out when a line is free.";
      }
      orderRows.push({ ...base, status, statusDetail: detail });
      // One event per imported order (its queueing said in the same line): 10,000 rows, 10,000 events.
      eventRows.push({ id: randomUUID(), orgId: ctx.orgId, orderId: id, kind: "imported", detail: `Imported (row ${row.row}).${queued ? ` ${detail}` : ""}`, actor: ctx.userId, createdAt: now });
      report.accepted++;
    }
    for (let i = 0; i < orderRows.length; i += CHUNK) await scope.insertMany(orders, orderRows.slice(i, i + CHUNK) as never);
    for (let i = 0; i < contactRows.length; i += CHUNK) await scope.insertMany(campaignContacts, contactRows.slice(i, i + CHUNK) as never);
    for (let i = 0; i < eventRows.length; i += CHUNK) await scope.insertMany(orderEvents, eventRows.slice(i, i + CHUNK) as never);

    // Known references: their details, then (not called yet) their follow-up again.
    for (const row of known) {
      const lockedOrder = await lockOrder(tx, ctx.orgId, existing.get(row.reference)!);
      if (!lockedOrder) continue;
      const before = lockedOrder.order;
      const consent = before.consentGiven || !row.consent.given ? {} : { consentGiven: true, consentSource: row.consent.source, consentAt: row.consent.at };
      const [order] = await tx
        .update(orders)
        .set({
          customerName: row.customerName ?? before.customerName,
          customerNumber: row.customerNumber,
          customerEmail: row.customerEmail ?? before.customerEmail,
          items: row.items.length > 0 ? row.items : before.items,
          totalMinor: row.totalMinor,
          currency: row.currency,
          checkoutUrl: row.checkoutUrl ?? before.checkoutUrl,
          timezone: row.timezone ?? before.timezone,
          ...consent,
          updatedAt: now,
        })
        .where(eq(orders.id, before.id))
        .returning();
      await refreshContact(tx, order!, lockedOrder.contact, now);
      if (!order!.consentGiven) report.no_consent++;
      const replan = order!.customerNumber !== before.customerNumber || order!.timezone !== before.timezone;
      if ((order!.status === "open" || order!.status === "no_consent") && lockedOrder.contact?.status !== "in_progress") {
        const planned = await planFollowUp(tx, { order: order!, contact: lockedOrder.contact }, now, { replan });
        if (planned.queued && planned.campaignId) {
          wakeCampaigns.add(planned.campaignId);
          await recordOrderEvent(tx, { orgId: ctx.orgId, orderId: order!.id, kind: "queued", detail: planned.order.statusDetail ?? "Queued for a call.", at: now });
        }
      }
      report.updated++;
    }
    return [...wakeCampaigns];
  });
  for (const campaignId of wake) ctx.signals.changed(campaignId);
  return report;
}
