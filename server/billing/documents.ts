/**
 * Billing documents (issue 15): a receipt per paid top-up and an invoice per paid subscription invoice.
 * Stripe's hosted receipt or invoice when known; the sandbox's are printed by the console
 * (/billing/documents/<id>). One document per provider object (provider_id unique).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { and, count, desc, eq } from "drizzle-orm";
import type { BillingDocument, BillingDocumentKind } from "../../contract/billing";
import type { Db } from "../db/client";
import { billingDocuments } from "../db/schema";
import { microsToUsd } from "../wallet/money";

export type BillingDocumentRow = typeof billingDocuments.$inferSelect;

export interface DocumentInput {
  orgId: string;
  kind: BillingDocumentKind;
  amountMicros: number;
  description: string;
  /** What makes it one: `receipt:<top-up id>`, or the provider's invoice id (in_…). */
  providerId: string;
  /** Stripe's hosted receipt or invoice, or null (the console's printable page). */
  url: string | null;
  topUpId?: string | null;
  isSandbox: boolean;
  /** The document's number; default R-YYYYMMDD-XXXX (receipts) or I-YYYYMMDD-XXXX (invoices). */
  number?: string | null;
}

/** A document number: R-20261125-7F3A. */
export function documentNumber(kind: BillingDocumentKind, at = new Date()): string {
  const day = at.toISOString().slice(0, 10).replace(/-/g, "");
  return `${kind === "receipt" ? "R" : "I"}-${day}-${randomBytes(2).toString("hex").toUpperCase()}`;
}

/** Records a document once (inside the caller's transaction): a second one for the same providerId is none. Answers the row. */
export async function recordDocument(tx: Db, input: DocumentInput): Promise<BillingDocumentRow> {
  await tx
    .insert(billingDocuments)
    .values({
      id: randomUUID(),
      orgId: input.orgId,
      kind: input.kind,
      number: input.number ?? documentNumber(input.kind),
      amountMicros: input.amountMicros,
      description: input.description,
      providerId: input.providerId,
      url: input.url,
      topUpId: input.topUpId ?? null,
      isSandbox: input.isSandbox,
      createdAt: new Date(),
    })
    .onConflictDoNothing();
  const [row] = await tx.select().from(billingDocuments).where(eq(billingDocuments.providerId, input.providerId)).limit(1);
  return row!;
}

export function toApiDocument(row: BillingDocumentRow): BillingDocument {
  return {
    id: row.id,
    kind: row.kind as BillingDocumentKind,
    number: row.number,
    amount_usd: microsToUsd(row.amountMicros),
    description: row.description,
    created_at: row.createdAt.toISOString(),
    url: row.url ?? `/billing/documents/${row.id}`,
    top_up_id: row.topUpId,
    sandbox: row.isSandbox,
  };
}

export async function listDocuments(db: Db, orgId: string, page: number, limit: number): Promise<{ rows: BillingDocumentRow[]; total: number }> {
  const where = eq(billingDocuments.orgId, orgId);
  const [rows, [total]] = await Promise.all([
    db.select().from(billingDocuments).where(where).orderBy(desc(billingDocuments.createdAt), desc(billingDocuments.id)).limit(limit).offset((page - 1) * limit),
    db.select({ value: count() }).from(billingDocuments).where(where),
  ]);
  return { rows, total: Number(total?.value ?? 0) };
}

export async function documentById(db: Db, orgId: string, id: string): Promise<BillingDocumentRow | null> {
  const [row] = await db.select().from(billingDocuments).where(and(eq(billingDocuments.orgId, orgId), eq(billingDocuments.id, id))).limit(1);
  return row ?? null;
}
