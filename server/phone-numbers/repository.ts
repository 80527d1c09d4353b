/**
 * Phone-number rows: queries and the mapping to the API shape. Every query goes through the
 * organisation scope (server/data/orgScope.ts); the stored credentials never leave this module's
 * mapping (toApiPhoneNumber answers only whether there are some).
 */
import { asc, desc, eq } from "drizzle-orm";
import type { PhoneNumber, PhoneNumberProvider } from "../../contract";
import type { OrgScope } from "../data/orgScope";
import { phoneNumbers } from "../db/schema";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

export function toApiPhoneNumber(row: PhoneNumberRow): PhoneNumber {
  return {
    id: row.id,
    name: row.name,
    number: row.number,
    isDefault: row.isDefault,
    provider: row.provider as PhoneNumberProvider,
    agent_id: row.agentId,
    provider_number_id: row.providerNumberId,
    is_sandbox: row.providerNumberId === null,
    has_credentials: row.credentialsEncrypted !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The organisation's numbers: the default first, then newest first. */
export async function listPhoneNumbers(scope: OrgScope, page: number, limit: number): Promise<{ rows: PhoneNumberRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    scope.select(phoneNumbers, {
      orderBy: [desc(phoneNumbers.isDefault), desc(phoneNumbers.createdAt), desc(phoneNumbers.id)],
      limit,
      offset: (page - 1) * limit,
    }),
    scope.count(phoneNumbers),
  ]);
  return { rows, total };
}

export function findPhoneNumber(scope: OrgScope, id: string): Promise<PhoneNumberRow | null> {
  return scope.first(phoneNumbers, eq(phoneNumbers.id, id));
}

export function findPhoneNumberByNumber(scope: OrgScope, number: string): Promise<PhoneNumberRow | null> {
  return scope.first(phoneNumbers, eq(phoneNumbers.number, number));
}

export function findDefaultPhoneNumber(scope: OrgScope): Promise<PhoneNumberRow | null> {
  return scope.first(phoneNumbers, eq(phoneNumbers.isDefault, true));
}

/** The number that becomes the default when the default is deleted: the oldest remaining. */
export async function oldestPhoneNumber(scope: OrgScope): Promise<PhoneNumberRow | null> {
  const [row] = await scope.select(phoneNumbers, { orderBy: [asc(phoneNumbers.createdAt), asc(phoneNumbers.id)], limit: 1 });
  return row ?? null;
}
