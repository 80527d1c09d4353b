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
import { recomputeReadiness } from "../campaigns/readiness";
import type { SecretBox } from "../crypto/credentials";
import { orgScope, type OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaignContacts, campaigns, orderFollowUps, organizations, orders, storeIntegrations } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { recordOrderEvent } from "./events";
import { cancelWaitingContact, lockOrder, setOrderStatus, WAITING } from "./follow-up";
import { findFollowUp, readFollowUpSettings, saveFollowUpSettings, type FollowUpContext } from "./settings";

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
 * Deletes an integration; its orders stay (integration_id becomes null, as the foreign key says). Their
 * external ids get the integration's id in front first: the ids of orders without an integration are
 * unique per organisation, and two deleted stores (or a CSV) may well have used the same "order:727".
 * Nothing will name them by that id again: their store can no longer deliver.
 */
export async function deleteIntegration(db: Db, orgId: string, id: string, now = new Date()): Promise<string | null> {
  return db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, orgId);
    const [row] = await tx.select({ id: storeIntegrations.id }).from(storeIntegrations).where(and(eq(storeIntegrations.orgId, orgId), eq(storeIntegrations.id, id))).for("update");
    if (!row) throw integrationNotFound();
    const woken = await dropOwnFollowUp(tx, orgId, id, now, "stop");
    await tx
      .update(orders)
      .set({ externalId: sql`${id}::text || ':' || ${orders.externalId}` })
      .where(and(eq(orders.orgId, orgId), eq(orders.integrationId, id)));
    await tx.delete(storeIntegrations).where(and(eq(storeIntegrations.orgId, orgId), eq(storeIntegrations.id, id)));
    return woken;
  });
}

/**
 * PUT /integration/{id} `follow_up`: settings of the integration's own (the orders core's
 * saveFollowUpSettings, as PUT /order/follow-up for the organisation), or null: the organisation's apply
 * again (dropOwnFollowUp). Answers the campaign to wake.
 */
export async function setIntegrationFollowUp(ctx: FollowUpContext, integrationId: string, input: FollowUpSettingsInput | null): Promise<string | null> {
  if (input) return (await saveFollowUpSettings(ctx, integrationId, input)).campaign_id;
  return ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, ctx.orgId);
    return dropOwnFollowUp(tx, ctx.orgId, integrationId, new Date(), "refuse");
  });
}

/**
 * Ends an integration's own follow-up (its settings row goes; its campaign is cancelled and kept, so its
 * calls stay linked in Call Logs). Contacts still waiting in it move to the organisation's follow-up with
 * their place and retries, their times recomputed for its windows. When the organisation has no follow-up
 * to move them to: `refuse` answers 409 (null was asked: set the organisation's up first), `stop` stops
 * their orders' follow-up (the integration is being deleted). A call on the line finishes as it is.
 * Runs in the caller's transaction, under the organisation's row. Answers the campaign to wake, if any.
 */
async function dropOwnFollowUp(tx: Db, orgId: string, integrationId: string, now: Date, noTarget: "refuse" | "stop"): Promise<string | null> {
  const own = await findFollowUp(tx, orgId, integrationId, true);
  if (!own) return null;
  const target = await findFollowUp(tx, orgId, null, true);
  const waiting = await tx
    .select({ id: campaignContacts.id, orderId: campaignContacts.orderId })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, own.campaign.id), inArray(campaignContacts.status, [...WAITING])));
  if (!target && waiting.length > 0 && noTarget === "refuse") {
    throw ApiError.conflict(
      `follow_up: ${waiting.length} order${waiting.length === 1 ? " waits" : "s wait"} in this store's own follow-up and the organisation has none to take ${waiting.length === 1 ? "it" : "them"}: save the organisation's follow-up settings first (PUT /order/follow-up).`,
    );
  }
  await tx.delete(orderFollowUps).where(eq(orderFollowUps.campaignId, own.campaign.id));
  await tx.update(campaigns).set({ status: "cancelled", completedAt: now, updatedAt: now }).where(eq(campaigns.id, own.campaign.id));
  if (waiting.length === 0) return null;
  if (target) {
    await tx.update(campaignContacts).set({ campaignId: target.campaign.id, leaseUntil: null, leasedBy: null, updatedAt: now }).where(inArray(campaignContacts.id, waiting.map((contact) => contact.id)));
    await recomputeReadiness(tx, orgScope(tx, orgId), target.campaign, now.getTime());
    return target.campaign.id;
  }
  const detail = "Follow-up stopped: its store integration was deleted, with its own follow-up settings, and the organisation has none.";
  for (const { orderId } of waiting) {
    const locked = orderId ? await lockOrder(tx, orgId, orderId) : null;
    if (!locked) continue;
    await cancelWaitingContact(tx, locked.contact, now);
    await setOrderStatus(tx, locked.order, "cancelled", detail, now);
    await recordOrderEvent(tx, { orgId, orderId: locked.order.id, kind: "stopped", detail, at: now });
  }
  return null;
}

/** The integration a webhook names, in any organisation (the URL is the only key a store has), or null. */
export async function integrationForWebhook(db: Db, id: string): Promise<IntegrationRow | null> {
  const [row] = await db.select().from(storeIntegrations).where(eq(storeIntegrations.id, id)).limit(1);
  return row ?? null;
}

