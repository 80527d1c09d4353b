/**
 * Follow-up settings (GET/PUT /order/follow-up; an integration's own through the integrations API):
 * the follow-up's campaign row (agent, caller number, schedule, retry, max_concurrency, status) and its
 * order_follow_ups row (enabled, delay_minutes, attribution_days).
 *
 * - Nothing is stored until the first save, which creates the campaign (kind order_follow_up). Until
 *   then GET answers the defaults: off, the organisation's purchase-completion agent (the newest agent
 *   named like the template) and its default number when it has them, the 30-minute delay, the
 *   9:00–20:00 Monday-to-Saturday window (DEFAULT_FOLLOW_UP_WINDOWS), no fallback zone (an order whose
 *   zone is unknown waits rather than being called at a guessed hour), FOLLOW_UP_DEFAULT_RETRY, 7 days of
 *   attribution, one call at a time.
 * - The campaign runs while it has an agent and a caller number (a draft without them): `enabled` only
 *   decides whether new orders are queued automatically; "call now" uses the running campaign either way.
 *   Enabling needs both (400 naming the missing field). An automatic pause (wallet, spend cap, provider,
 *   circuit breaker, agent or number deleted) shows as state "paused" with its reason; saving with
 *   enabled true resumes it.
 * - Saving with enabled true queues the open orders abandoned within FOLLOW_UP_BACKFILL_HOURS; a changed
 *   schedule recomputes when each waiting contact may be called (the campaigns' recomputeReadiness).
 * Runs under the organisation's row (lockOrganisationForCalls), then the campaign's row.
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import type { CampaignRetry } from "../../contract/campaign";
import { DEFAULT_FOLLOW_UP_WINDOWS } from "../../contract/calling-rules";
import { ERROR_CODES } from "../../contract/errors";
import { DEFAULT_ATTRIBUTION_DAYS, DEFAULT_FOLLOW_UP_DELAY_MINUTES } from "../../contract/order-shared";
import type { FollowUpSettings, FollowUpSettingsInput } from "../../contract/order";
import { agents, campaignContacts, campaigns, orderFollowUps, orders, phoneNumbers, storeIntegrations } from "../db/schema";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { recordCampaignEvent } from "../campaigns/events";
import { recomputeReadiness } from "../campaigns/readiness";
import type { CampaignSignals } from "../campaigns/signals";
import { ApiError } from "../plugins/errors";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { backfillOpenOrders, FOLLOW_UP_KIND, FOLLOW_UP_NOT_SET_DETAIL, type FollowUp } from "./follow-up";

/** Retries of a follow-up: busy, unanswered and failed calls, two hours apart, three calls in all (a voicemail left counts as reaching the customer). */
export const FOLLOW_UP_DEFAULT_RETRY: CampaignRetry = { max_attempts: 3, delay_minutes: 120, on: ["busy", "no-answer", "failed"] };
/** The template's agent name (server/agents/templates.ts): the default follow-up agent. */
const PURCHASE_COMPLETION_AGENT_NAME = "Purchase Completion Agent";

export interface FollowUpContext {
  db: Db;
  orgId: string;
  userId: string;
  /** max_concurrency's upper bound (the plan's concurrent calls, as for campaigns). */
  concurrencyLimit: number;
  signals: CampaignSignals;
}

const invalid = (detail: string) => new ApiError(400, ERROR_CODES.validation, detail);

/** The follow-up (campaign + settings) of the organisation (integrationId null) or of one integration, exactly that one. */
export async function findFollowUp(db: Db, orgId: string, integrationId: string | null, lock = false): Promise<FollowUp | null> {
  const query = db
    .select({ campaign: campaigns, settings: orderFollowUps })
    .from(orderFollowUps)
    .innerJoin(campaigns, eq(campaigns.id, orderFollowUps.campaignId))
    .where(and(eq(orderFollowUps.orgId, orgId), integrationId ? eq(orderFollowUps.integrationId, integrationId) : isNull(orderFollowUps.integrationId)))
    .limit(1);
  const [row] = lock ? await query.for("update", { of: campaigns }) : await query;
  return row ?? null;
}

/** The suggested agent and number before anything is saved. */
async function defaults(db: Db, orgId: string): Promise<{ agentId: string | null; phoneNumberId: string | null }> {
  const [agent] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.orgId, orgId), eq(agents.name, PURCHASE_COMPLETION_AGENT_NAME)))
    .orderBy(desc(agents.createdAt))
    .limit(1);
  const [number] = await db
    .select({ id: phoneNumbers.id })
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.orgId, orgId), eq(phoneNumbers.isDefault, true)))
    .limit(1);
  return { agentId: agent?.id ?? null, phoneNumberId: number?.id ?? null };
}

const stateOf = (followUp: FollowUp): FollowUpSettings["state"] =>
  followUp.campaign.status === "paused" ? "paused" : followUp.settings.enabled && followUp.campaign.status === "running" ? "running" : "off";

/** The settings as the API answers them (the defaults when none are saved). */
export async function readFollowUpSettings(db: Db, orgId: string, integrationId: string | null): Promise<FollowUpSettings> {
  const followUp = await findFollowUp(db, orgId, integrationId);
  const chosen = followUp ? { agentId: followUp.campaign.agentId, phoneNumberId: followUp.campaign.phoneNumberId } : await defaults(db, orgId);
  const [agent] = chosen.agentId ? await db.select({ name: agents.name }).from(agents).where(and(eq(agents.orgId, orgId), eq(agents.id, chosen.agentId))) : [];
  const [number] = chosen.phoneNumberId
    ? await db.select({ number: phoneNumbers.number }).from(phoneNumbers).where(and(eq(phoneNumbers.orgId, orgId), eq(phoneNumbers.id, chosen.phoneNumberId)))
    : [];
  const schedule = followUp?.campaign.schedule ?? { windows: DEFAULT_FOLLOW_UP_WINDOWS.map((window) => ({ ...window, days: [...window.days] })), fallback_timezone: null };
  const retry = followUp?.campaign.retry ?? FOLLOW_UP_DEFAULT_RETRY;
  return {
    enabled: followUp?.settings.enabled ?? false,
    agent_id: chosen.agentId,
    agent_name: agent?.name ?? null,
    phone_number_id: chosen.phoneNumberId,
    phone_number: number?.number ?? null,
    delay_minutes: followUp?.settings.delayMinutes ?? DEFAULT_FOLLOW_UP_DELAY_MINUTES,
    schedule: { windows: schedule.windows.map((window) => ({ days: [...window.days], start: window.start, end: window.end })), fallback_timezone: schedule.fallback_timezone ?? null, start_at: null, end_at: null },
    retry: { max_attempts: retry.max_attempts, delay_minutes: retry.delay_minutes, on: [...retry.on] },
    attribution_days: followUp?.settings.attributionDays ?? DEFAULT_ATTRIBUTION_DAYS,
    max_concurrency: followUp?.campaign.maxConcurrency ?? 1,
    state: followUp ? stateOf(followUp) : "off",
    pause_reason: followUp?.campaign.status === "paused" ? followUp.campaign.pauseReason : null,
    campaign_id: followUp?.campaign.id ?? null,
  };
}

/** Saves the settings (see the file comment); answers them as GET does. */
export async function saveFollowUpSettings(ctx: FollowUpContext, integrationId: string | null, input: FollowUpSettingsInput): Promise<FollowUpSettings> {
  const wake = await ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, ctx.orgId);
    const scope = orgScope(tx, ctx.orgId);
    const current = await findFollowUp(tx, ctx.orgId, integrationId, true);
    const suggested = current ? null : await defaults(tx, ctx.orgId);

    const agentId = input.agent_id !== undefined ? input.agent_id : (current?.campaign.agentId ?? suggested?.agentId ?? null);
    const phoneNumberId = input.phone_number_id !== undefined ? input.phone_number_id : (current?.campaign.phoneNumberId ?? suggested?.phoneNumberId ?? null);
    if (agentId && !(await scope.first(agents, eq(agents.id, agentId)))) throw invalid(`agent_id: ${agentId} is not an agent of this organisation`);
    if (phoneNumberId && !(await scope.first(phoneNumbers, eq(phoneNumbers.id, phoneNumberId)))) throw invalid(`phone_number_id: ${phoneNumberId} is not a phone number of this organisation`);
    if (input.enabled && !agentId) throw invalid("agent_id: automatic follow-up needs the agent that makes the calls");
    if (input.enabled && !phoneNumberId) throw invalid("phone_number_id: automatic follow-up needs the caller number the calls come from");
    const maxConcurrency = input.max_concurrency ?? current?.campaign.maxConcurrency ?? 1;
    if (maxConcurrency > ctx.concurrencyLimit) {
      throw invalid(`max_concurrency: may be at most ${ctx.concurrencyLimit}, the organisation's limit of calls at once (its plan's concurrent calls; ORG_CONCURRENT_CALLS without a plan limit)`);
    }
    const schedule = input.schedule
      ? { windows: input.schedule.windows.map((window) => ({ days: [...window.days], start: window.start, end: window.end })), fallback_timezone: input.schedule.fallback_timezone ?? null }
      : (current?.campaign.schedule ?? { windows: DEFAULT_FOLLOW_UP_WINDOWS.map((window) => ({ ...window, days: [...window.days] })), fallback_timezone: null });
    const retry = input.retry ? { max_attempts: input.retry.max_attempts, delay_minutes: input.retry.delay_minutes, on: [...input.retry.on] } : (current?.campaign.retry ?? FOLLOW_UP_DEFAULT_RETRY);
    const setUp = agentId !== null && phoneNumberId !== null;
    const now = new Date();
    const event = (campaignId: string, kind: "created" | "started" | "resumed" | "edited", detail: string) =>
      recordCampaignEvent(tx, { orgId: ctx.orgId, campaignId, kind, detail, actor: ctx.userId, at: now });

    let campaign = current?.campaign;
    if (!campaign) {
      let name = "Order follow-up";
      if (integrationId) {
        const integration = await scope.first(storeIntegrations, eq(storeIntegrations.id, integrationId));
        if (!integration) throw ApiError.notFound("Integration not found");
        name = `Order follow-up: ${integration.name}`;
      }
      [campaign] = await tx
        .insert(campaigns)
        .values({
          id: randomUUID(),
          orgId: ctx.orgId,
          name,
          kind: FOLLOW_UP_KIND,
          agentId,
          phoneNumberId,
          status: setUp ? "running" : "draft",
          schedule,
          maxConcurrency,
          retry,
          startedAt: setUp ? now : null,
          createdBy: ctx.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await event(campaign!.id, "created", `Order follow-up set up${setUp ? "" : " (needs an agent and a caller number to call)"}.`);
      if (setUp) await event(campaign!.id, "started", "Follow-up calls may go out.");
    } else {
      const before = campaign;
      // Running while set up; a paused one stays paused unless this save switches follow-up on (a person resumes it).
      let status = before.status;
      if (!setUp) status = "draft";
      else if (before.status === "draft" || before.status === "completed" || before.status === "cancelled") status = "running";
      else if (before.status === "paused" && input.enabled) status = "running";
      [campaign] = await tx
        .update(campaigns)
        .set({
          agentId,
          phoneNumberId,
          schedule,
          maxConcurrency,
          retry,
          status,
          ...(status === "running" && before.status !== "running" ? { pauseCode: null, pauseReason: null, startedAt: before.startedAt ?? now } : {}),
          updatedAt: now,
        })
        .where(eq(campaigns.id, before.id))
        .returning();
      if (status === "running" && before.status === "paused") await event(before.id, "resumed", "Resumed: the follow-up settings were saved with automatic follow-up on.");
      else if (status === "running" && before.status !== "running") await event(before.id, "started", "Follow-up calls may go out.");
      else await event(before.id, "edited", "Follow-up settings saved.");
      if (JSON.stringify(before.schedule) !== JSON.stringify(schedule)) await recomputeReadiness(tx, scope, campaign!, now.getTime());
    }

    const settingsValues = {
      enabled: input.enabled,
      delayMinutes: input.delay_minutes ?? current?.settings.delayMinutes ?? DEFAULT_FOLLOW_UP_DELAY_MINUTES,
      attributionDays: input.attribution_days ?? current?.settings.attributionDays ?? DEFAULT_ATTRIBUTION_DAYS,
      updatedAt: now,
    };
    const [settings] = current
      ? await tx.update(orderFollowUps).set(settingsValues).where(eq(orderFollowUps.campaignId, campaign!.id)).returning()
      : await tx.insert(orderFollowUps).values({ campaignId: campaign!.id, orgId: ctx.orgId, integrationId, createdAt: now, ...settingsValues }).returning();
    if (settings!.enabled) await backfillOpenOrders(tx, { campaign: campaign!, settings: settings! }, now);
    return campaign!.id;
  });
  ctx.signals.changed(wake);
  return readFollowUpSettings(ctx.db, ctx.orgId, integrationId);
}

/**
 * Drops an integration's own follow-up settings (PUT /integration/{id} with follow_up null, or before the
 * integration is deleted): its orders fall back to the organisation's follow-up. Contacts still waiting
 * move to the organisation's follow-up campaign (re-timed to its windows) when there is one, else they
 * are cancelled and their orders stay open; the integration's campaign is cancelled (its calls keep its
 * id in Call Logs) and its settings row removed. Answers whether there was anything to drop.
 */
export async function removeIntegrationFollowUp(ctx: Pick<FollowUpContext, "db" | "orgId" | "userId" | "signals">, integrationId: string): Promise<boolean> {
  const moved = await ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, ctx.orgId);
    const own = await findFollowUp(tx, ctx.orgId, integrationId, true);
    if (!own) return null;
    const organisation = await findFollowUp(tx, ctx.orgId, null, true);
    const now = new Date();
    const scope = orgScope(tx, ctx.orgId);
    const waiting = and(eq(campaignContacts.campaignId, own.campaign.id), inArray(campaignContacts.status, ["queued", "needs_timezone"]));
    if (organisation) {
      await tx.update(campaignContacts).set({ campaignId: organisation.campaign.id, updatedAt: now }).where(waiting);
      await recomputeReadiness(tx, scope, organisation.campaign, now.getTime());
    } else {
      // Their orders stay open, no longer waiting for a call: say so (their detail named the call).
      await tx
        .update(orders)
        .set({ statusDetail: FOLLOW_UP_NOT_SET_DETAIL, updatedAt: now })
        .where(and(eq(orders.orgId, ctx.orgId), eq(orders.status, "open"), inArray(orders.id, tx.select({ id: campaignContacts.orderId }).from(campaignContacts).where(waiting))));
      await tx.update(campaignContacts).set({ status: "cancelled", readyAt: null, updatedAt: now }).where(waiting);
    }
    await tx.update(campaigns).set({ status: "cancelled", completedAt: now, updatedAt: now }).where(eq(campaigns.id, own.campaign.id));
    await recordCampaignEvent(tx, { orgId: ctx.orgId, campaignId: own.campaign.id, kind: "cancelled", detail: "The integration's own follow-up settings were removed: its orders follow the organisation's.", actor: ctx.userId, at: now });
    await tx.delete(orderFollowUps).where(eq(orderFollowUps.campaignId, own.campaign.id));
    return organisation?.campaign.id ?? own.campaign.id;
  });
  if (moved) ctx.signals.changed(moved);
  return moved !== null;
}

