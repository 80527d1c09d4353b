/**
 * Writing campaigns: create, edit, delete and the state transitions (contract/campaign-shared.ts).
 * Every write to an existing campaign runs in one transaction that first locks the campaign's row
 * (`SELECT … FOR UPDATE`): the dialler reads the row under the same lock when it claims contacts, so
 * a pause, an edit or a cancel and a claim take turns, and a failed request changes nothing. The
 * dialler is nudged (signals.changed) after the transaction commits.
 *
 * A live edit applies to the next dial. An edit of the retry policy also applies, in its transaction, to
 * the retries already scheduled (settle.ts reviewWaitingRetries): calls per contact lowered to a
 * contact's attempts, or its last outcome taken out of retry.on, makes it final at once; a new delay
 * moves its retry. Contacts already final stay final.
 */
import type { PlanSettings } from "../billing/plan-limits";
import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import {
  CAMPAIGN_FIELDS,
  DELETABLE_CAMPAIGN_STATUSES,
  EDITABLE_FIELDS,
  FINAL_CAMPAIGN_STATUSES,
  canTransition,
  type CampaignAction,
  type CampaignField,
  type CampaignStatus,
  type campaignCreateSchema,
  type campaignScheduleSchema,
  type campaignUpdateSchema,
} from "../../contract/campaign";
import { ERROR_CODES } from "../../contract/errors";
import { findAgent } from "../agents/repository";
import { orgScope, type OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaignContacts, campaigns, users } from "../db/schema";
import { findPhoneNumber } from "../phone-numbers/repository";
import { ApiError } from "../plugins/errors";
import { recordCampaignEvent } from "./events";
import { WAITING_CONTACT_STATUSES, recomputeReadiness } from "./readiness";
import { lockCampaign, type CampaignRow } from "./repository";
import { reviewWaitingRetries, type RetryReview } from "./settle";
import type { CampaignSignals } from "./signals";

export interface CampaignContext {
  db: Db;
  scope: OrgScope;
  userId: string;
  /** max_concurrency's upper bound: the plan's concurrent calls (ORG_CONCURRENT_CALLS for a plan without a limit). */
  concurrencyLimit: number;
  signals: CampaignSignals;
  /** The plan rules (DEFAULT_PLAN): the contact import's plan limit. */
  plans: PlanSettings;
}

export type NewCampaign = z.output<typeof campaignCreateSchema>;
export type CampaignChanges = z.output<typeof campaignUpdateSchema>;
type Schedule = z.output<typeof campaignScheduleSchema>;

export const campaignNotFound = () => ApiError.notFound("Campaign not found");

/** 409 naming the campaign's current state: `{detail, code: "conflict", status}`. */
export const stateConflict = (status: string, detail: string) => new ApiError(409, ERROR_CODES.conflict, detail, undefined, { status });

const invalid = (detail: string) => new ApiError(400, ERROR_CODES.validation, detail);

function checkConcurrency(value: number, limit: number): void {
  if (value > limit) throw invalid(`max_concurrency: may be at most ${limit}, the organisation's limit of calls at once (its plan's concurrent calls; ORG_CONCURRENT_CALLS without a plan limit)`);
}

async function checkAgent(scope: OrgScope, id: string | null | undefined): Promise<void> {
  if (id && !(await findAgent(scope, id))) throw invalid(`agent_id: ${id} is not an agent of this organisation`);
}

async function checkPhoneNumber(scope: OrgScope, id: string | null | undefined): Promise<void> {
  if (id && !(await findPhoneNumber(scope, id))) throw invalid(`phone_number_id: ${id} is not a phone number of this organisation`);
}

const scheduleColumns = (schedule: Schedule) => ({
  schedule: { windows: schedule.windows.map((window) => ({ days: [...window.days], start: window.start, end: window.end })), fallback_timezone: schedule.fallback_timezone ?? null },
  startAt: schedule.start_at ? new Date(schedule.start_at) : null,
  endAt: schedule.end_at ? new Date(schedule.end_at) : null,
});

/** The person's name for events and pause reasons (null when the users table does not know them). */
export async function personName(db: Db, userId: string): Promise<string | null> {
  const [row] = await db.select({ name: users.name }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.name?.trim() || null;
}

export async function createCampaign(ctx: CampaignContext, input: NewCampaign): Promise<CampaignRow> {
  checkConcurrency(input.max_concurrency, ctx.concurrencyLimit);
  await checkAgent(ctx.scope, input.agent_id);
  await checkPhoneNumber(ctx.scope, input.phone_number_id);
  return ctx.db.transaction(async (tx) => {
    const scope = orgScope(tx, ctx.scope.orgId);
    const row = await scope.insert(campaigns, {
      id: randomUUID(),
      name: input.name,
      agentId: input.agent_id ?? null,
      phoneNumberId: input.phone_number_id ?? null,
      status: "draft",
      ...scheduleColumns(input.schedule),
      maxConcurrency: input.max_concurrency,
      retry: { max_attempts: input.retry.max_attempts, delay_minutes: input.retry.delay_minutes, on: [...input.retry.on] },
      createdBy: ctx.userId,
    });
    await recordCampaignEvent(tx, { orgId: scope.orgId, campaignId: row.id, kind: "created", detail: `Created "${row.name}" as a draft.`, actor: ctx.userId, at: row.createdAt });
    return row;
  });
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const timeOf = (date: Date | null) => date?.getTime() ?? null;

/** The fields of `changes` whose value differs from the row's (an edit form sends every field back). */
function changedFields(row: CampaignRow, changes: CampaignChanges): CampaignField[] {
  const changed: CampaignField[] = [];
  for (const field of CAMPAIGN_FIELDS) {
    if (changes[field] === undefined) continue;
    let same: boolean;
    switch (field) {
      case "name":
        same = changes.name === row.name;
        break;
      case "agent_id":
        same = (changes.agent_id ?? null) === row.agentId;
        break;
      case "phone_number_id":
        same = (changes.phone_number_id ?? null) === row.phoneNumberId;
        break;
      case "max_concurrency":
        same = changes.max_concurrency === row.maxConcurrency;
        break;
      case "retry":
        same = sameJson(changes.retry, { max_attempts: row.retry.max_attempts, delay_minutes: row.retry.delay_minutes, on: row.retry.on });
        break;
      case "schedule": {
        const next = scheduleColumns(changes.schedule!);
        same = sameJson(next.schedule, { windows: row.schedule.windows.map((w) => ({ days: w.days, start: w.start, end: w.end })), fallback_timezone: row.schedule.fallback_timezone ?? null }) && timeOf(next.startAt) === timeOf(row.startAt) && timeOf(next.endAt) === timeOf(row.endAt);
        break;
      }
    }
    if (!same) changed.push(field);
  }
  return changed;
}

function notEditable(status: CampaignStatus, fields: CampaignField[]): ApiError {
  const named = fields.join(", ");
  if (status === "running") return stateConflict(status, `${named} cannot change while the campaign is running: pause the campaign first.`);
  return stateConflict(status, `The campaign is ${status}: only its name can change (not ${named}).`);
}

function describeEdit(row: CampaignRow, fields: CampaignField[], next: CampaignRow): string {
  const parts = fields.map((field) => {
    switch (field) {
      case "name":
        return `name "${row.name}" → "${next.name}"`;
      case "max_concurrency":
        return `max_concurrency ${row.maxConcurrency} → ${next.maxConcurrency}`;
      case "agent_id":
        return next.agentId ? "agent" : "agent removed";
      case "phone_number_id":
        return next.phoneNumberId ? "caller number" : "caller number removed";
      case "retry":
        return `retry (${next.retry.max_attempts} ${next.retry.max_attempts === 1 ? "call" : "calls"} per contact, ${next.retry.delay_minutes} min apart, on ${next.retry.on.join(", ") || "nothing"})`;
      case "schedule": {
        const what: string[] = [];
        if (!sameJson(row.schedule.windows, next.schedule.windows)) what.push("calling windows");
        if ((row.schedule.fallback_timezone ?? null) !== (next.schedule.fallback_timezone ?? null)) what.push(`fallback time zone ${next.schedule.fallback_timezone ?? "removed"}`);
        if (timeOf(row.startAt) !== timeOf(next.startAt)) what.push(next.startAt ? `start ${next.startAt.toISOString()}` : "start time removed");
        if (timeOf(row.endAt) !== timeOf(next.endAt)) what.push(next.endAt ? `end ${next.endAt.toISOString()}` : "end time removed");
        return `schedule (${what.join(", ") || "unchanged"})`;
      }
    }
    return field;
  });
  return `Changed ${parts.join("; ")}.`;
}

/** What the retry edit did to the retries already scheduled, for the edit's event ("" when nothing). */
function describeReview(review: RetryReview | null): string {
  if (!review) return "";
  const parts: string[] = [];
  if (review.finished > 0) parts.push(`${review.finished} ${review.finished === 1 ? "contact waiting for a retry is" : "contacts waiting for a retry are"} finished (no more calls)`);
  if (review.moved > 0) parts.push(`${review.moved} ${review.moved === 1 ? "retry" : "retries"} moved to the new delay`);
  return parts.length > 0 ? ` ${parts.join("; ")}.` : "";
}

export async function updateCampaign(ctx: CampaignContext, id: string, changes: CampaignChanges): Promise<CampaignRow> {
  let signal = false;
  const row = await ctx.db.transaction(async (tx) => {
    const scope = orgScope(tx, ctx.scope.orgId);
    const current = await lockCampaign(tx, scope, id);
    if (!current) throw campaignNotFound();
    const status = current.status as CampaignStatus;
    const fields = changedFields(current, changes);
    if (fields.length === 0) return current;
    const refused = fields.filter((field) => !EDITABLE_FIELDS[status].includes(field));
    if (refused.length > 0) throw notEditable(status, refused);
    if (fields.includes("max_concurrency")) checkConcurrency(changes.max_concurrency!, ctx.concurrencyLimit);
    if (fields.includes("agent_id")) await checkAgent(scope, changes.agent_id);
    if (fields.includes("phone_number_id")) await checkPhoneNumber(scope, changes.phone_number_id);

    const now = new Date();
    const [next] = await scope.update(
      campaigns,
      {
        ...(fields.includes("name") ? { name: changes.name! } : {}),
        ...(fields.includes("agent_id") ? { agentId: changes.agent_id ?? null } : {}),
        ...(fields.includes("phone_number_id") ? { phoneNumberId: changes.phone_number_id ?? null } : {}),
        ...(fields.includes("schedule") ? scheduleColumns(changes.schedule!) : {}),
        ...(fields.includes("max_concurrency") ? { maxConcurrency: changes.max_concurrency! } : {}),
        ...(fields.includes("retry") ? { retry: { max_attempts: changes.retry!.max_attempts, delay_minutes: changes.retry!.delay_minutes, on: [...changes.retry!.on] } } : {}),
        updatedAt: now,
      },
      eq(campaigns.id, id),
    );
    // A retry policy edit applies to the retries already scheduled (settle.ts reviewWaitingRetries): fewer calls per contact or an outcome taken out finishes them, a new delay moves them.
    const review = fields.includes("retry") && !FINAL_CAMPAIGN_STATUSES.includes(status) ? await reviewWaitingRetries(tx, next!, current.retry, now.getTime()) : null;
    // A schedule edit moves waiting contacts: new ready_at, and queued ⇄ needs_timezone when the fallback came or went.
    if (fields.includes("schedule") && !FINAL_CAMPAIGN_STATUSES.includes(status)) await recomputeReadiness(tx, scope, next!, now.getTime());
    await recordCampaignEvent(tx, { orgId: scope.orgId, campaignId: id, kind: "edited", detail: describeEdit(current, fields, next!) + describeReview(review), actor: ctx.userId, at: now });
    signal = true;
    return next!;
  });
  if (signal) ctx.signals.changed(id);
  return row;
}

/** Admins (the route checks): drafts and finished campaigns only. Their calls keep the campaign's id. */
export async function deleteCampaign(ctx: CampaignContext, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const scope = orgScope(tx, ctx.scope.orgId);
    const current = await lockCampaign(tx, scope, id);
    if (!current) throw campaignNotFound();
    if (!DELETABLE_CAMPAIGN_STATUSES.includes(current.status as CampaignStatus)) {
      throw stateConflict(current.status, `A ${current.status} campaign cannot be deleted: cancel it first (drafts, completed and cancelled campaigns can be deleted).`);
    }
    await scope.delete(campaigns, eq(campaigns.id, id));
  });
  ctx.signals.changed(id);
}

const REFUSED: Record<CampaignAction, (status: string) => string> = {
  start: (status) => `Only a draft campaign can be started; this one is ${status}.`,
  pause: (status) => `Only a running or scheduled campaign can be paused; this one is ${status}.`,
  resume: (status) => `Only a paused campaign can be resumed; this one is ${status}.`,
  cancel: (status) => `This campaign is already ${status}: it cannot be cancelled.`,
};

/** What start and resume need: an agent and a caller number that still exist (and, to start, contacts). */
async function checkReady(scope: OrgScope, row: CampaignRow, action: "start" | "resume"): Promise<void> {
  const missing: string[] = [];
  if (!row.agentId || !(await findAgent(scope, row.agentId))) missing.push("an agent (agent_id)");
  if (!row.phoneNumberId || !(await findPhoneNumber(scope, row.phoneNumberId))) missing.push("a caller number (phone_number_id)");
  if (action === "start" && (await scope.count(campaignContacts, eq(campaignContacts.campaignId, row.id))) === 0) {
    missing.push(`contacts (POST /campaign/${row.id}/contacts)`);
  }
  if (missing.length > 0) {
    const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)}`;
    throw invalid(`The campaign cannot ${action} yet: it needs ${list}.`);
  }
}

/** start | pause | resume | cancel (CAMPAIGN_TRANSITIONS); any other answers 409 naming the current state. */
export async function transitionCampaign(ctx: CampaignContext, id: string, action: CampaignAction): Promise<CampaignRow> {
  const name = await personName(ctx.db, ctx.userId);
  const by = name ? ` by ${name}` : "";
  const row = await ctx.db.transaction(async (tx) => {
    const scope = orgScope(tx, ctx.scope.orgId);
    const current = await lockCampaign(tx, scope, id);
    if (!current) throw campaignNotFound();
    const status = current.status as CampaignStatus;
    if (!canTransition(action, status)) throw stateConflict(status, REFUSED[action](status));
    const now = new Date();
    const event = (kind: Parameters<typeof recordCampaignEvent>[1]["kind"], detail: string) =>
      recordCampaignEvent(tx, { orgId: scope.orgId, campaignId: id, kind, detail, actor: ctx.userId, at: now });

    if (action === "start" || action === "resume") {
      await checkReady(scope, current, action);
      const later = current.startAt !== null && current.startAt.getTime() > now.getTime();
      const target: CampaignStatus = later ? "scheduled" : "running";
      const [next] = await scope.update(
        campaigns,
        { status: target, pauseCode: null, pauseReason: null, ...(target === "running" && !current.startedAt ? { startedAt: now } : {}), updatedAt: now },
        eq(campaigns.id, id),
      );
      const { queued, needsTimezone } = await recomputeReadiness(tx, scope, next!, now.getTime());
      const waiting = `${queued} contact${queued === 1 ? "" : "s"} queued${needsTimezone ? `, ${needsTimezone} waiting for a time zone` : ""}`;
      const verb = action === "start" ? "Started" : "Resumed";
      if (later) await event(action === "start" ? "scheduled" : "resumed", `${verb}${by}: scheduled to start at ${current.startAt!.toISOString()} (${waiting}).`);
      else await event(action === "start" ? "started" : "resumed", `${verb}${by} (${waiting}).`);
      return next!;
    }
    if (action === "pause") {
      const [next] = await scope.update(campaigns, { status: "paused", pauseCode: "manual", pauseReason: name ? `Paused by ${name}` : null, updatedAt: now }, eq(campaigns.id, id));
      await event("paused", `Paused${by}: calls in progress finish, no new calls start.`);
      return next!;
    }
    // cancel: waiting contacts are cancelled; calls in progress finish (the dialler settles them without retries).
    const stopped = await tx
      .update(campaignContacts)
      .set({ status: "cancelled", readyAt: null, updatedAt: now })
      .where(and(eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, id), inArray(campaignContacts.status, [...WAITING_CONTACT_STATUSES])))
      .returning({ id: campaignContacts.id });
    const [next] = await scope.update(campaigns, { status: "cancelled", pauseCode: null, pauseReason: null, completedAt: now, updatedAt: now }, eq(campaigns.id, id));
    await event("cancelled", `Cancelled${by}: ${stopped.length} waiting contact${stopped.length === 1 ? "" : "s"} will not be called.`);
    return next!;
  });
  ctx.signals.changed(id);
  return row;
}
