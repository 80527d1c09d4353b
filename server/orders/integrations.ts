/**
 * Store integrations (issue 16 §2): a shop's Shopify, WooCommerce or generic connection, each with its own
 * webhook secret. The secret is sealed at rest (server/crypto/credentials.ts, context
 * "store_integrations:<id>": a sealed value copied onto another integration does not open) because every
 * delivery's HMAC is checked with it; it is shown whole only when made (creation, rotation), and
 * `secret_hint` (its last four characters) after that.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { and, count, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { API_BASE } from "../../contract/api";
import { INTEGRATIONS_MAX, ORDER_PATHS, type IntegrationKind } from "../../contract/order-shared";
import type { FollowUpSettings, FollowUpSettingsInput, Integration } from "../../contract/order";
import type { SecretBox } from "../crypto/credentials";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { orderFollowUps, organizations, orders, storeIntegrations } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { readFollowUpSettings, removeIntegrationFollowUp, saveFollowUpSettings, type FollowUpContext } from "./settings";

export type IntegrationRow = typeof storeIntegrations.$inferSelect;

/** A new secret: 32 random bytes, base64url (43 characters, safe in a header, a form field or a shell). */
export const newStoreSecret = (): string => randomBytes(32).toString("base64url");

export const sealContext = (integrationId: string) => `store_integrations:${integrationId}`;
export const sealStoreSecret = (box: SecretBox, integrationId: string, secret: string): string => box.seal(secret, sealContext(integrationId));
export const openStoreSecret = (box: SecretBox, row: Pick<IntegrationRow, "id" | "secretSealed">): string => box.open<string>(row.secretSealed, sealContext(row.id));
const hintOf = (secret: string) => secret.slice(-4);

export const integrationNotFound = () => ApiError.notFound("Store integration not found: it does not exist or belongs to another organisation.");

/** Where a kind's store posts: PUBLIC_URL + /api + the kind's path. */
export function webhookUrl(publicUrl: string, kind: string, id: string): string {
  const path = kind === "shopify" ? ORDER_PATHS.shopifyWebhook(id) : kind === "woocommerce" ? ORDER_PATHS.woocommerceWebhook(id) : ORDER_PATHS.genericWebhook(id);
  return `${publicUrl}${API_BASE}${path}`;
}

/** The API's integrations (contract/order.ts integrationSchema) with their order counts. */
export async function toApiIntegrations(db: Db, publicUrl: string, rows: IntegrationRow[]): Promise<Integration[]> {
  if (rows.length === 0) return [];
  const counts = await db
    .select({ id: orders.integrationId, n: count() })
    .from(orders)
    .where(and(eq(orders.orgId, rows[0]!.orgId), inArray(orders.integrationId, rows.map((row) => row.id))))
    .groupBy(orders.integrationId);
  const byId = new Map(counts.map((row) => [row.id, row.n]));
  // Follow-up settings of their own (order_follow_ups.integration_id), as GET /order/follow-up answers them.
  const own = await db
    .select({ integrationId: orderFollowUps.integrationId })
    .from(orderFollowUps)
    .where(and(eq(orderFollowUps.orgId, rows[0]!.orgId), isNotNull(orderFollowUps.integrationId), inArray(orderFollowUps.integrationId, rows.map((row) => row.id))));
  const followUps = new Map<string, FollowUpSettings>();
  for (const { integrationId } of own) followUps.set(integrationId!, await readFollowUpSettings(db, rows[0]!.orgId, integrationId));
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as IntegrationKind,
    name: row.name,
    webhook_url: webhookUrl(publicUrl, row.kind, row.id),
    secret_hint: row.secretHint,
    is_demo: row.isDemo,
    follow_up: followUps.get(row.id) ?? null,
    orders: byId.get(row.id) ?? 0,
    last_delivery_at: row.lastDeliveryAt?.toISOString() ?? null,
    secret_rotated_at: row.secretRotatedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  }));
}

export async function listIntegrations(scope: OrgScope, page: number, limit: number): Promise<{ rows: IntegrationRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    scope.select(storeIntegrations, { orderBy: [storeIntegrations.createdAt, storeIntegrations.id], limit, offset: (page - 1) * limit }),
    scope.count(storeIntegrations),
  ]);
  return { rows, total };
}

export async function findIntegration(scope: OrgScope, id: string): Promise<IntegrationRow> {
  const row = await scope.byId(storeIntegrations, id);
  if (!row) throw integrationNotFound();
  return row;
}

export interface CreateIntegrationInput {
  kind: IntegrationKind;
  name: string;
  secret?: string | undefined;
  isDemo?: boolean;
  createdBy: string | null;
}

/** Creates an integration (at most INTEGRATIONS_MAX per organisation, counted under the organisation's row lock); answers it with its secret. */
export async function createIntegration(db: Db, box: SecretBox, orgId: string, input: CreateIntegrationInput): Promise<{ row: IntegrationRow; secret: string }> {
  const id = randomUUID();
  const secret = input.secret ?? newStoreSecret();
  const row = await db.transaction(async (tx) => {
    await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for("update");
    const [existing] = await tx.select({ n: count() }).from(storeIntegrations).where(eq(storeIntegrations.orgId, orgId));
    if ((existing?.n ?? 0) >= INTEGRATIONS_MAX) {
      throw ApiError.conflict(`An organisation may have at most ${INTEGRATIONS_MAX} store integrations: delete one you no longer use first.`);
    }
    const [created] = await tx
      .insert(storeIntegrations)
      .values({
        id,
        orgId,
        kind: input.kind,
        name: input.name,
        secretSealed: sealStoreSecret(box, id, secret),
        secretHint: hintOf(secret),
        isDemo: input.isDemo ?? false,
        createdBy: input.createdBy,
      })
      .returning();
    return created!;
  });
  return { row, secret };
}

export async function renameIntegration(scope: OrgScope, id: string, name: string): Promise<IntegrationRow> {
  const [row] = await scope.update(storeIntegrations, { name, updatedAt: new Date() }, eq(storeIntegrations.id, id));
  if (!row) throw integrationNotFound();
  return row;
}

/** A new secret (generated, or the store's own): the old one stops verifying with this commit. */
export async function rotateIntegrationSecret(scope: OrgScope, box: SecretBox, id: string, given?: string): Promise<{ row: IntegrationRow; secret: string }> {
  const secret = given ?? newStoreSecret();
  const now = new Date();
  const [row] = await scope.update(storeIntegrations, { secretSealed: sealStoreSecret(box, id, secret), secretHint: hintOf(secret), secretRotatedAt: now, updatedAt: now }, eq(storeIntegrations.id, id));
  if (!row) throw integrationNotFound();
  return { row, secret };
}

/**
 * Deletes an integration; its orders stay (integration_id becomes null, as the foreign key says). Its own
 * follow-up, if it had one, ends first through the orders core (removeIntegrationFollowUp: waiting orders move
 * to the organisation's follow-up). The orders' external ids then get the integration's id in front: the ids
 * of orders without an integration are unique per organisation, and two deleted stores (or a CSV) may well
 * have used the same "order:727". Nothing will name them by that id again: their store can no longer deliver.
 */
export async function deleteIntegration(ctx: Pick<FollowUpContext, "db" | "orgId" | "userId" | "signals">, id: string): Promise<void> {
  const { db, orgId } = ctx;
  const [exists] = await db.select({ id: storeIntegrations.id }).from(storeIntegrations).where(and(eq(storeIntegrations.orgId, orgId), eq(storeIntegrations.id, id)));
  if (!exists) throw integrationNotFound();
  await removeIntegrationFollowUp(ctx, id);
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ id: storeIntegrations.id }).from(storeIntegrations).where(and(eq(storeIntegrations.orgId, orgId), eq(storeIntegrations.id, id))).for("update");
    if (!row) throw integrationNotFound();
    await tx
      .update(orders)
      .set({ externalId: sql`${id}::text || ':' || ${orders.externalId}` })
      .where(and(eq(orders.orgId, orgId), eq(orders.integrationId, id)));
    await tx.delete(storeIntegrations).where(and(eq(storeIntegrations.orgId, orgId), eq(storeIntegrations.id, id)));
  });
}

/**
 * PUT /integration/{id} `follow_up`: settings of the integration's own (saveFollowUpSettings, as
 * PUT /order/follow-up does for the organisation's), or null: the organisation's apply again
 * (removeIntegrationFollowUp). Both are the orders core's (server/orders/settings.ts).
 */
export async function setIntegrationFollowUp(ctx: FollowUpContext, integrationId: string, input: FollowUpSettingsInput | null): Promise<void> {
  if (input) await saveFollowUpSettings(ctx, integrationId, input);
  else await removeIntegrationFollowUp(ctx, integrationId);
}

/** The integration a webhook names, in any organisation (the URL is the only key a store has), or null. */
export async function integrationForWebhook(db: Db, id: string): Promise<IntegrationRow | null> {
  const [row] = await db.select().from(storeIntegrations).where(eq(storeIntegrations.id, id)).limit(1);
  return row ?? null;
}
