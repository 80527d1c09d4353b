/**
 * When each waiting contact may be dialled (`ready_at`) and whether it can be at all (`queued`) or
 * waits for a time zone (`needs_timezone`): its zones (contactZones: its own zone, else its number's,
 * else the campaign's fallback) and nextOpening over the campaign's windows from max(now, its
 * not_before, the campaign's start_at), no later than end_at.
 *
 * Contacts share zone sets (a 10,000-row import has a handful), so the planner computes nextOpening
 * once per (zone set, from) and the contacts read it from a cache. A queued contact whose windows never
 * open in all its zones (or not before end_at) keeps ready_at null: the dialler never picks it until
 * the schedule changes.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { contactZones, nextOpening } from "../../contract/campaign-schedule";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { campaignContacts } from "../db/schema";
import type { CampaignRow } from "./repository";

/** Contact states whose readiness follows the schedule (the others are dialling or over). */
export const WAITING_CONTACT_STATUSES = ["queued", "needs_timezone"] as const;
export type WaitingStatus = (typeof WAITING_CONTACT_STATUSES)[number];

export interface Readiness {
  status: WaitingStatus;
  readyAt: Date | null;
}

export interface ContactZonesInput {
  timezone: string | null;
  numberZones: readonly string[];
  notBefore?: Date | null;
}

export type ReadinessPlanner = ((contact: ContactZonesInput) => Readiness) & { /** nextOpening calls made so far */ readonly openings: () => number };

/** A planner for one campaign's schedule as of `now` (epoch ms). */
export function readinessPlanner(campaign: Pick<CampaignRow, "schedule" | "startAt" | "endAt">, now: number): ReadinessPlanner {
  const windows = campaign.schedule.windows;
  const fallback = campaign.schedule.fallback_timezone ?? null;
  const earliest = Math.max(now, campaign.startAt?.getTime() ?? 0);
  const until = campaign.endAt?.getTime();
  const cache = new Map<string, number | null>();
  let openings = 0;
  const plan = (contact: ContactZonesInput): Readiness => {
    const zones = contactZones({ timezone: contact.timezone, numberZones: contact.numberZones }, fallback);
    if (zones.length === 0) return { status: "needs_timezone", readyAt: null };
    const from = Math.max(earliest, contact.notBefore?.getTime() ?? 0);
    const key = `${zones.join(" ")}@${from}`;
    let opening = cache.get(key);
    if (opening === undefined) {
      openings++;
      opening = nextOpening(windows, zones, from, until === undefined ? {} : { until });
      cache.set(key, opening);
    }
    return { status: "queued", readyAt: opening === null ? null : new Date(opening) };
  };
  return Object.assign(plan, { openings: () => openings });
}

const UPDATE_CHUNK = 2000;

/**
 * Recomputes status (queued ⇄ needs_timezone) and ready_at of every waiting contact of the campaign
 * after a start, a resume or a schedule edit; writes only the contacts that change, with one
 * UPDATE … FROM (VALUES …) per chunk. Runs inside the caller's transaction, which holds the
 * campaign's row lock. Answers how many contacts are queued and waiting for a zone afterwards.
 */
export async function recomputeReadiness(tx: Db, scope: OrgScope, campaign: CampaignRow, now = Date.now()): Promise<{ queued: number; needsTimezone: number; changed: number }> {
  const rows = await tx
    .select({
      id: campaignContacts.id,
      status: campaignContacts.status,
      timezone: campaignContacts.timezone,
      numberZones: campaignContacts.numberZones,
      notBefore: campaignContacts.notBefore,
      readyAt: campaignContacts.readyAt,
    })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.orgId, scope.orgId), eq(campaignContacts.campaignId, campaign.id), inArray(campaignContacts.status, [...WAITING_CONTACT_STATUSES])));
  const plan = readinessPlanner(campaign, now);
  const changes: Array<{ id: string; status: WaitingStatus; readyAt: Date | null }> = [];
  let queued = 0;
  for (const row of rows) {
    const next = plan(row);
    if (next.status === "queued") queued++;
    if (next.status !== row.status || (next.readyAt?.getTime() ?? null) !== (row.readyAt?.getTime() ?? null)) changes.push({ id: row.id, ...next });
  }
  for (let i = 0; i < changes.length; i += UPDATE_CHUNK) {
    const chunk = changes.slice(i, i + UPDATE_CHUNK);
    const values = sql.join(
      chunk.map((change) => sql`(${change.id}::uuid, ${change.status}::text, ${change.readyAt ? change.readyAt.toISOString() : null}::timestamptz)`),
      sql`, `,
    );
    await tx.execute(sql`
      update ${campaignContacts} as c
      set status = v.status, ready_at = v.ready_at, updated_at = now()
      from (values ${values}) as v(id, status, ready_at)
      where c.id = v.id and c.org_id = ${scope.orgId} and c.campaign_id = ${campaign.id} and c.status in ('queued', 'needs_timezone')`);
  }
  return { queued, needsTimezone: rows.length - queued, changed: changes.length };
}
