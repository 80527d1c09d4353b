/**
 * The organisation's settings (GET / PATCH /organization/settings): for now its time zone, in which the
 * dashboard's days are cut (contract/time-zone.ts). The organisation is always the caller's verified one.
 */
import { rebuildUsage } from "../billing/usage";
import { eq, sql } from "drizzle-orm";
import type { OrganizationSettings } from "../../contract";
import type { Db } from "../db/client";
import { organizations } from "../db/schema";

export async function organizationSettings(db: Db, orgId: string): Promise<OrganizationSettings | null> {
  const [row] = await db.select({ timezone: organizations.timezone }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return row ?? null;
}

/**
 * The database's own spelling of the zone `name` (compared without case: "europe/berlin" is
 * Europe/Berlin), or null when it does not know it: the rollup's triggers cut days with it, so a name
 * only the runtime (Intl) knows would fail every later write of the organisation's calls.
 */
export async function databaseTimeZone(db: Db, name: string): Promise<string | null> {
  const found = (await db.execute(
    sql`select name from pg_timezone_names where lower(name) = lower(${name}) order by name = ${name} desc, name limit 1`,
  )) as unknown as { rows: { name: string }[] };
  return found.rows[0]?.name ?? null;
}

/**
 * Sets the organisation's time zone and cuts its call_daily_stats again in it, in one transaction
 * with the organisation's row locked first (as the calls triggers lock it before touching the rollup),
 * so no call written meanwhile is counted in the old zone or missed. Answers null when there is no
 * such organisation.
 */
export async function setOrganizationTimeZone(db: Db, orgId: string, timezone: string): Promise<OrganizationSettings | null> {
  return db.transaction(async (tx) => {
    const locked = (await tx.execute(sql`select timezone from organizations where id = ${orgId} for no key update`)) as unknown as { rows: { timezone: string }[] };
    const current = locked.rows[0];
    if (!current) return null;
    if (current.timezone === timezone) return { timezone };
    await tx.update(organizations).set({ timezone }).where(eq(organizations.id, orgId));
    await tx.execute(sql`select call_daily_stats_rebuild(${orgId})`);
    // The usage rollups' days move with the zone too (the debits are cut again in it).
    await rebuildUsage(tx, orgId);
    return { timezone };
  });
}
