/**
 * What a campaign did over time: calls placed and ended per time bucket (GET /campaign/{id}/progress,
 * from calls where campaign_id = id) and its history (GET /campaign/{id}/events).
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { campaignEventSchema, campaignProgressSchema } from "../../contract/campaign";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { calls, campaignEvents, users } from "../db/schema";
import type { CampaignRow } from "./repository";

type Progress = z.infer<typeof campaignProgressSchema>["data"];

/** Bucket sizes to choose from (seconds): the smallest that keeps the chart within MAX_POINTS points. */
export const PROGRESS_BUCKETS = [60, 300, 900, 1800, 3600, 2 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400] as const;
const MAX_POINTS = 120;

export function progressBucket(spanMs: number): number {
  return PROGRESS_BUCKETS.find((bucket) => spanMs / 1000 / bucket <= MAX_POINTS) ?? PROGRESS_BUCKETS.at(-1)!;
}

type Rows<T> = { rows: T[] };

/**
 * Since the campaign started (its first call if it has no started_at, e.g. a seeded one) until it
 * finished, or now: `calls` placed in each bucket, `ended` calls that ended in it and `answered` those
 * of them answered. Buckets start at multiples of their size (an hourly bucket at :00), zero-filled.
 */
export async function campaignProgress(db: Db, scope: OrgScope, campaign: CampaignRow, now = new Date()): Promise<Progress> {
  const inCampaign = sql`org_id = ${scope.orgId} and campaign_id = ${campaign.id}`;
  // Epoch milliseconds as float8: a number from PGlite and node-postgres alike (timestamps come back as text from one, Date from the other).
  const [span] = ((await db.execute(sql`
    select (extract(epoch from min(started_at)) * 1000)::float8 as first, (extract(epoch from greatest(max(started_at), max(ended_at))) * 1000)::float8 as last
    from ${calls} where ${inCampaign}`)) as unknown as Rows<{ first: number | string | null; last: number | string | null }>).rows;
  const first = span?.first === null || span?.first === undefined ? null : Number(span.first);
  const last = span?.last === null || span?.last === undefined ? null : Number(span.last);
  const start = Math.min(campaign.startedAt?.getTime() ?? Number.POSITIVE_INFINITY, first ?? Number.POSITIVE_INFINITY);
  if (!Number.isFinite(start)) return { bucket_seconds: progressBucket(0), points: [] };
  const end = Math.max(campaign.completedAt?.getTime() ?? now.getTime(), last ?? 0);
  const bucket = progressBucket(end - start);
  const origin = Math.floor(start / 1000 / bucket) * bucket * 1000;
  const originSql = sql`${new Date(origin).toISOString()}::timestamptz`;
  const indexOf = (column: SQL) => sql`floor(extract(epoch from (${column} - ${originSql})) / ${bucket})::int`;
  const [placed, ended] = await Promise.all([
    db.execute(sql`select ${indexOf(sql`started_at`)} as i, count(*)::int as n from ${calls} where ${inCampaign} and started_at >= ${originSql} group by 1`),
    db.execute(sql`
      select ${indexOf(sql`ended_at`)} as i, count(*)::int as n, (count(*) filter (where outcome = 'answered'))::int as answered
      from ${calls} where ${inCampaign} and ended_at is not null and ended_at >= ${originSql} group by 1`),
  ]);
  const count = Math.max(1, Math.floor((end - origin) / 1000 / bucket) + 1);
  const points = Array.from({ length: count }, (_, index) => ({ at: isoTime(new Date(origin + index * bucket * 1000)), calls: 0, answered: 0, ended: 0 }));
  for (const row of (placed as unknown as Rows<{ i: number; n: number }>).rows) if (points[row.i]) points[row.i]!.calls = row.n;
  for (const row of (ended as unknown as Rows<{ i: number; n: number; answered: number }>).rows) {
    if (points[row.i]) {
      points[row.i]!.ended = row.n;
      points[row.i]!.answered = row.answered;
    }
  }
  return { bucket_seconds: bucket, points };
}

export const CAMPAIGN_EVENTS_MAX = 100;

/** The campaign's newest events (at most CAMPAIGN_EVENTS_MAX); actor: the person's name, or their id when it is not known here. */
export async function campaignEventList(db: Db, scope: OrgScope, campaignId: string): Promise<Array<z.infer<typeof campaignEventSchema>>> {
  const rows = await db
    .select({ id: campaignEvents.id, at: campaignEvents.createdAt, kind: campaignEvents.kind, detail: campaignEvents.detail, actor: campaignEvents.actor, actorName: users.name })
    .from(campaignEvents)
    .leftJoin(users, eq(users.id, campaignEvents.actor))
    .where(and(eq(campaignEvents.orgId, scope.orgId), eq(campaignEvents.campaignId, campaignId)))
    .orderBy(desc(campaignEvents.createdAt), desc(campaignEvents.id))
    .limit(CAMPAIGN_EVENTS_MAX);
  return rows.map((row) => ({ id: row.id, at: isoTime(row.at), kind: row.kind, detail: row.detail, actor: row.actorName ?? row.actor }));
}
