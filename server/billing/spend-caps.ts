/**
 * Spend caps per organisation and per agent, per day and per month (issue 15). Days and months are the
 * organisation's time zone's (organizations.timezone); what was spent is read from the usage rollups
 * (usage_daily), never the calls.
 *
 * A new call is refused when, for any cap covering it (the organisation's caps, and its agent's caps),
 *   spent in the period + the holds of the calls not ended yet in that scope + one more hold > limit
 * where a hold is CALL_HOLD_USD, counted exactly as walletStanding counts them (calls not ended, started
 * within CALL_HOLD_WINDOW_MS). A cap already spent in full refuses too (also when calls hold nothing).
 * assertUnderSpendCaps runs in reserveCall's transaction under the organisation's row lock (call-gate.ts),
 * so N requests at once against a cap with room for K calls let exactly K through. The campaign dialler
 * asks spendCapRoom for a batch (claim.ts).
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { SpendCap, SpendCapInput } from "../../contract/billing";
import { ERROR_CODES } from "../../contract/errors";
import type { Db } from "../db/client";
import { spendCaps } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { microsToUsd, usdToMicros } from "../wallet/money";
import { CALL_HOLD_WINDOW_MS, type WalletPolicy } from "../wallet/wallet";

/** One cap as it stands now. */
export interface CapStanding {
  id: string;
  scope: "organization" | "agent";
  agentId: string | null;
  agentName: string | null;
  period: "day" | "month";
  limitMicros: number;
  /** Spent in the current period (usage_daily). */
  spentMicros: number;
  /** Calls not ended yet in the cap's scope (each holds CALL_HOLD_USD). */
  holding: number;
  timeZone: string;
  resetsAt: Date;
}

/**
 * The organisation's caps with what was spent in their current period and the calls holding in their
 * scope. `agentId` given (a string or null): only the caps that cover a call of that agent (the
 * organisation's, and that agent's); undefined: all of them. Reads only.
 */
export async function spendCapStandings(db: Db, orgId: string, options: { agentId?: string | null; now?: Date } = {}): Promise<CapStanding[]> {
  const now = options.now ?? new Date();
  const at = sql`${now.toISOString()}::timestamptz`;
  const only =
    options.agentId === undefined ? sql`true` : options.agentId === null ? sql`s."scope" = 'organization'` : sql`(s."scope" = 'organization' or s."agent_id" = ${options.agentId})`;
  const since = new Date(now.getTime() - CALL_HOLD_WINDOW_MS).toISOString();
  const result = (await db.execute(sql`
    with o as (select "timezone", (${at} at time zone "timezone")::date as "today" from "organizations" where "id" = ${orgId}),
    holding as (
      select "agent_id", count(*)::int as "n" from "calls"
      where "org_id" = ${orgId} and "status" <> 'ended' and "started_at" > ${since}::timestamptz
      group by "agent_id"
    )
    select s."id", s."scope", s."agent_id", s."period", s."limit_micros", a."name" as "agent_name", o."timezone",
      coalesce((
        select sum(u."cost_micros") from "usage_daily" u
        where u."org_id" = ${orgId} and u."day" <= o."today"
          and u."day" >= (case when s."period" = 'day' then o."today" else date_trunc('month', o."today")::date end)
          and (s."scope" = 'organization' or u."agent_key" = s."agent_id"::text)
      ), 0)::bigint as "spent",
      coalesce((select sum(h."n") from holding h where s."scope" = 'organization' or h."agent_id" = s."agent_id"), 0)::int as "holding",
      ((case when s."period" = 'day' then (o."today" + 1)::timestamp else (date_trunc('month', o."today") + interval '1 month')::timestamp end)
        at time zone o."timezone") as "resets_at"
    from "spend_caps" s cross join o left join "agents" a on a."id" = s."agent_id"
    where s."org_id" = ${orgId} and ${only}
    order by (s."scope" = 'agent'), a."name", s."agent_id", (s."period" = 'month'), s."id"`)) as unknown as { rows: Record<string, unknown>[] };
  return result.rows.map((row) => ({
    id: String(row.id),
    scope: row.scope as CapStanding["scope"],
    agentId: (row.agent_id as string | null) ?? null,
    agentName: (row.agent_name as string | null) ?? null,
    period: row.period as CapStanding["period"],
    limitMicros: Number(row.limit_micros),
    spentMicros: Number(row.spent),
    holding: Number(row.holding),
    timeZone: String(row.timezone),
    resetsAt: new Date(row.resets_at as string | Date),
  }));
}

/** How many more calls the cap lets through, one after another, each holding CALL_HOLD_USD. */
export function callsUnderCap(cap: Pick<CapStanding, "limitMicros" | "spentMicros" | "holding">, policy: Pick<WalletPolicy, "callHoldMicros">): number {
  if (cap.spentMicros >= cap.limitMicros) return 0;
  const room = cap.limitMicros - cap.spentMicros - cap.holding * policy.callHoldMicros;
  if (policy.callHoldMicros <= 0) return room >= 0 ? Number.POSITIVE_INFINITY : 0;
  return room < policy.callHoldMicros ? 0 : Math.floor(room / policy.callHoldMicros);
}

const money = (micros: number) => `$${microsToUsd(micros).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** "3 h 12 min", "45 min", "5 d 3 h": how long until `to` (rounded up to the minute). */
export function timeUntil(to: Date, now: Date): string {
  const minutes = Math.max(1, Math.ceil((to.getTime() - now.getTime()) / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return rest > 0 ? `${hours} h ${rest} min` : `${hours} h`;
  return `${rest} min`;
}

/** Who the cap belongs to, as a sentence names it. */
function capOwner(cap: Pick<CapStanding, "scope" | "agentName" | "agentId">): string {
  if (cap.scope === "organization") return "the organisation's";
  return `the agent ${cap.agentName ?? cap.agentId ?? "(deleted)"}'s`;
}

/**
 * The sentence a refused call (403 spend_cap_reached) and a paused campaign show, e.g.
 * "This call would pass the organisation's daily spend cap of $5.00 ($4.60 spent today). It resets at
 * midnight (Europe/Berlin), in 3 h 12 min." Monthly: "($80.00 spent this month). It resets on 1 December
 * (Europe/Berlin), in 5 d 3 h." Agent caps: "the agent Sales's daily spend cap". Exported so the console
 * and the e2e tests can match it.
 */
export function spendCapDetail(
  cap: Pick<CapStanding, "scope" | "agentName" | "agentId" | "period" | "limitMicros" | "spentMicros" | "timeZone" | "resetsAt">,
  now: Date = new Date(),
  subject = "This call",
): string {
  const daily = cap.period === "day";
  const when = daily
    ? "at midnight"
    : `on ${new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", timeZone: cap.timeZone }).format(cap.resetsAt)}`;
  return (
    `${subject} would pass ${capOwner(cap)} ${daily ? "daily" : "monthly"} spend cap of ${money(cap.limitMicros)} (${money(cap.spentMicros)} spent ${daily ? "today" : "this month"}). ` +
    `It resets ${when} (${cap.timeZone}), in ${timeUntil(cap.resetsAt, now)}.`
  );
}

/**
 * The first cap (of those covering a call of `agentId`) that one more call would pass, or null. Run
 * under the organisation's row lock so the answer holds until the call is recorded.
 */
export async function capBlockingCall(tx: Db, orgId: string, agentId: string | null, policy: Pick<WalletPolicy, "callHoldMicros">, now = new Date()): Promise<CapStanding | null> {
  const standings = await spendCapStandings(tx, orgId, { agentId, now });
  return standings.find((cap) => callsUnderCap(cap, policy) === 0) ?? null;
}

/** Throws 403 spend_cap_reached when one more call of `agentId` would pass a cap (see the file comment). */
export async function assertUnderSpendCaps(tx: Db, orgId: string, agentId: string | null, policy: WalletPolicy): Promise<void> {
  const now = new Date();
  const blocking = await capBlockingCall(tx, orgId, agentId, policy, now);
  if (blocking) throw new ApiError(403, ERROR_CODES.spendCapReached, spendCapDetail(blocking, now));
}

/** How many more calls of `agentId` every cap covering it lets through (Infinity without caps), and the tightest cap. */
export async function spendCapRoom(tx: Db, orgId: string, agentId: string | null, policy: Pick<WalletPolicy, "callHoldMicros">, now = new Date()): Promise<{ calls: number; tightest: CapStanding | null }> {
  let calls = Number.POSITIVE_INFINITY;
  let tightest: CapStanding | null = null;
  for (const cap of await spendCapStandings(tx, orgId, { agentId, now })) {
    const room = callsUnderCap(cap, policy);
    if (room < calls) {
      calls = room;
      tightest = cap;
    }
  }
  return { calls, tightest };
}

/** A standing as the API answers it (GET /billing/spend-caps, GET /billing/). */
export function toApiSpendCap(cap: CapStanding): SpendCap {
  return {
    id: cap.id,
    scope: cap.scope,
    agent_id: cap.agentId,
    agent_name: cap.agentName,
    period: cap.period,
    limit_usd: microsToUsd(cap.limitMicros),
    spent_usd: microsToUsd(cap.spentMicros),
    remaining_usd: microsToUsd(Math.max(0, cap.limitMicros - cap.spentMicros)),
    progress: cap.limitMicros > 0 ? cap.spentMicros / cap.limitMicros : 0,
    reached: cap.spentMicros >= cap.limitMicros,
    resets_at: cap.resetsAt.toISOString(),
  };
}

/**
 * PUT /billing/spend-caps: replaces the organisation's caps with `caps` in one transaction (the
 * organisation's row locked first, as reserveCall locks it). An agent_id that is not one of the
 * organisation's agents is a 404 naming it, and nothing changes.
 */
export async function replaceSpendCaps(db: Db, orgId: string, caps: SpendCapInput[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select 1 from "organizations" where "id" = ${orgId} for update`);
    const wanted = [...new Set(caps.flatMap((cap) => (cap.scope === "agent" ? [cap.agent_id] : [])))];
    if (wanted.length > 0) {
      const found = (await tx.execute(
        sql`select "id" from "agents" where "org_id" = ${orgId} and "id" in (${sql.join(
          wanted.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
      )) as unknown as { rows: { id: string }[] };
      const known = new Set(found.rows.map((row) => String(row.id)));
      const missing = wanted.find((id) => !known.has(id));
      if (missing) throw ApiError.notFound(`caps: agent ${missing} was not found in this organisation (agent caps need one of its agents' ids).`);
    }
    await tx.delete(spendCaps).where(sql`${spendCaps.orgId} = ${orgId}`);
    if (caps.length > 0) {
      await tx.insert(spendCaps).values(
        caps.map((cap) => ({
          id: randomUUID(),
          orgId,
          scope: cap.scope,
          agentId: cap.scope === "agent" ? cap.agent_id : null,
          period: cap.period,
          limitMicros: usdToMicros(cap.limit_usd),
        })),
      );
    }
  });
}
