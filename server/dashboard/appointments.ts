/**
 * The dashboard's upcoming appointments (contract/dashboard.ts): booked appointments starting today in
 * the organisation's zone, those starting in the next 7 days from now, and the next few, soonest first
 * (one still under way counts as upcoming until it ends). Not tied to the period or the agent: it says
 * what is coming.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { DASHBOARD_APPOINTMENTS_MAX, type Dashboard } from "../../contract/dashboard";
import type { Db } from "../db/client";
import { agents, appointments, organizations } from "../db/schema";

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export async function dashboardAppointments(db: Db, orgId: string, now: Date = new Date()): Promise<Dashboard["appointments"]> {
  const from = sql`${now.toISOString()}::timestamptz`;
  const weekEnd = sql`${new Date(now.getTime() + WEEK_MS).toISOString()}::timestamptz`;
  // Today's bounds in the organisation's zone, cut by the database as the dashboard's days are.
  const today = sql`(${from} at time zone ${organizations.timezone})::date`;
  const todayStart = sql`(${today}::timestamp at time zone ${organizations.timezone})`;
  const todayEnd = sql`((${today} + 1)::timestamp at time zone ${organizations.timezone})`;
  const [counts, upcoming] = await Promise.all([
    db
      .select({
        today: sql<number>`count(*) filter (where ${appointments.startAt} >= ${todayStart} and ${appointments.startAt} < ${todayEnd})`.mapWith(Number),
        next7: sql<number>`count(*) filter (where ${appointments.startAt} >= ${from} and ${appointments.startAt} < ${weekEnd})`.mapWith(Number),
      })
      .from(organizations)
      .leftJoin(
        appointments,
        and(
          eq(appointments.orgId, organizations.id),
          eq(appointments.status, "booked"),
          sql`${appointments.startAt} >= least(${todayStart}, ${from})`,
          sql`${appointments.startAt} < greatest(${todayEnd}, ${weekEnd})`,
        ),
      )
      .where(eq(organizations.id, orgId)),
    db
      .select({
        id: appointments.id,
        title: appointments.title,
        startAt: appointments.startAt,
        endAt: appointments.endAt,
        customerName: appointments.customerName,
        agentId: appointments.agentId,
        agentName: agents.name,
        source: appointments.source,
        callId: appointments.callId,
      })
      .from(appointments)
      .leftJoin(agents, eq(agents.id, appointments.agentId))
      .where(and(eq(appointments.orgId, orgId), eq(appointments.status, "booked"), gt(appointments.endAt, now)))
      .orderBy(asc(appointments.startAt), asc(appointments.id))
      .limit(DASHBOARD_APPOINTMENTS_MAX),
  ]);
  return {
    today: counts[0]?.today ?? 0,
    next_7_days: counts[0]?.next7 ?? 0,
    upcoming: upcoming.map((row) => ({
      id: row.id,
      title: row.title,
      start: row.startAt.toISOString(),
      end: row.endAt.toISOString(),
      customer_name: row.customerName,
      agent_id: row.agentId,
      agent_name: row.agentName,
      source: row.source,
      call_id: row.callId,
    })),
  };
}
