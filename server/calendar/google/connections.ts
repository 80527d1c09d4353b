/**
 * The organisation's Google connection (table calendar_connections): one row per organisation and
 * provider, its tokens sealed like carrier credentials (server/crypto/credentials.ts), with the row's id
 * and the token's kind as the sealing context so a token copied to another row does not open.
 */
import { randomUUID } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import type { CalendarConnection } from "../../../contract/calendar";
import type { SecretBox } from "../../crypto/credentials";
import type { OrgScope } from "../../data/orgScope";
import { isUniqueViolation } from "../../db/errors";
import { appointments, calendarConnections } from "../../db/schema";

export type ConnectionRow = typeof calendarConnections.$inferSelect;

export const GOOGLE_PROVIDER = "google";
/** The calendar we read busy times from and write events to: the account's main calendar. */
export const GOOGLE_PRIMARY_CALENDAR = "primary";

/** A token's sealing context: the row and the kind of token. */
export const tokenContext = (connectionId: string, kind: "access" | "refresh") => `calendar_connections:${connectionId}:${kind}`;

export function toApiConnection(row: ConnectionRow): CalendarConnection {
  return {
    id: row.id,
    provider: GOOGLE_PROVIDER,
    account_email: row.accountEmail,
    calendar: row.externalCalendar,
    status: row.status === "error" ? "error" : "connected",
    last_error: row.lastError,
    connected_at: row.createdAt.toISOString(),
  };
}

export function listConnections(scope: OrgScope): Promise<ConnectionRow[]> {
  return scope.select(calendarConnections, { orderBy: calendarConnections.createdAt });
}

export function findGoogleConnection(scope: OrgScope): Promise<ConnectionRow | null> {
  return scope.first(calendarConnections, eq(calendarConnections.provider, GOOGLE_PROVIDER));
}

export interface GrantedTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  scope: string | null;
  accountEmail: string | null;
  userId: string;
}

/**
 * Stores a fresh grant: a new row, or (reconnecting) the organisation's existing row with everything
 * replaced, keeping its id. `connected_at` (created_at) becomes now; status connected, no error.
 */
export async function saveGoogleConnection(scope: OrgScope, box: SecretBox, grant: GrantedTokens): Promise<ConnectionRow> {
  const values = (id: string) => ({
    accountEmail: grant.accountEmail,
    externalCalendar: GOOGLE_PRIMARY_CALENDAR,
    accessTokenEncrypted: box.seal(grant.accessToken, tokenContext(id, "access")),
    refreshTokenEncrypted: box.seal(grant.refreshToken, tokenContext(id, "refresh")),
    accessTokenExpiresAt: grant.expiresAt,
    scope: grant.scope,
    status: "connected",
    lastError: null,
    createdBy: grant.userId,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  // Two tries: a first connect racing another one finds the row the other inserted and replaces it.
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await findGoogleConnection(scope);
    if (existing) {
      const [row] = await scope.update(calendarConnections, values(existing.id), eq(calendarConnections.id, existing.id));
      if (row) return row;
      continue;
    }
    const id = randomUUID();
    try {
      return await scope.insert(calendarConnections, { id, provider: GOOGLE_PROVIDER, ...values(id) });
    } catch (error) {
      if (attempt > 0 || !isUniqueViolation(error)) throw error;
    }
  }
  throw new Error("the Google connection could not be saved");
}

/** New tokens from a refresh: the access token, and the refresh token when Google rotated it. */
export async function saveRefreshedTokens(
  scope: OrgScope,
  box: SecretBox,
  row: ConnectionRow,
  tokens: { accessToken: string; expiresAt: Date; refreshToken?: string | undefined },
): Promise<ConnectionRow> {
  const [updated] = await scope.update(
    calendarConnections,
    {
      accessTokenEncrypted: box.seal(tokens.accessToken, tokenContext(row.id, "access")),
      accessTokenExpiresAt: tokens.expiresAt,
      ...(tokens.refreshToken ? { refreshTokenEncrypted: box.seal(tokens.refreshToken, tokenContext(row.id, "refresh")) } : {}),
      updatedAt: new Date(),
    },
    eq(calendarConnections.id, row.id),
  );
  return updated ?? row;
}

/**
 * What went wrong, on the row the page reads: `needsReconnect` turns the status to error (only
 * reconnecting helps); otherwise the status stays and last_error says what the last attempt met.
 * Writes only when something changes, so a failure repeated on every busy read costs one write.
 */
export async function recordConnectionProblem(scope: OrgScope, row: ConnectionRow, message: string, needsReconnect: boolean): Promise<ConnectionRow> {
  const status = needsReconnect ? "error" : row.status;
  if (row.status === status && row.lastError === message) return row;
  const [updated] = await scope.update(calendarConnections, { status, lastError: message, updatedAt: new Date() }, eq(calendarConnections.id, row.id));
  return updated ?? { ...row, status, lastError: message };
}

/** A success after a problem clears the problem (an error status only a reconnect clears). */
export async function clearConnectionProblem(scope: OrgScope, row: ConnectionRow): Promise<ConnectionRow> {
  if (row.lastError === null || row.status === "error") return row;
  const [updated] = await scope.update(
    calendarConnections,
    { lastError: null, updatedAt: new Date() },
    and(eq(calendarConnections.id, row.id), eq(calendarConnections.status, "connected"))!,
  );
  return updated ?? { ...row, lastError: null };
}

/** Disconnecting: the row goes, and no appointment counts as written to Google any more. */
export async function deleteConnection(scope: OrgScope, row: ConnectionRow): Promise<void> {
  await scope.delete(calendarConnections, eq(calendarConnections.id, row.id));
  await scope.update(appointments, { externalEventId: null }, isNotNull(appointments.externalEventId));
}
