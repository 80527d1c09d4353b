/**
 * GET / PATCH /api/organization/settings: the active organisation's time zone. Members and admins read
 * it, admins change it; a zone the database does not know is refused and changes nothing; the change
 * re-cuts the organisation's call_daily_stats in the new zone in the same transaction, and touches no
 * other organisation.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { isUnknownTimeZone } from "../../server/db/errors";
import { calls, organizations } from "../../server/db/schema";
import { expectRollupMatchesCalls, sqlRows } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase, organisationCast } from "./helpers";

let database: Database;
let app: FastifyInstance;
let cast: Awaited<ReturnType<typeof organisationCast>>;

const settings = (token: string) => app.inject({ method: "GET", url: "/api/organization/settings", headers: bearer(token) });
const patch = (token: string, payload: unknown) => app.inject({ method: "PATCH", url: "/api/organization/settings", headers: bearer(token), payload: payload as object });

/** The organisation's rollup rows as (day, calls), oldest first. */
async function rollupDays(orgId: string): Promise<[string, number][]> {
  const rows = await sqlRows<{ day: string; calls: number }>(database.db, "select day::text as day, calls from call_daily_stats where org_id = $1 order by day", [orgId]);
  return rows.map((row) => [row.day, row.calls]);
}

async function timeZoneOf(orgId: string) {
  return (await database.db.select({ timezone: organizations.timezone }).from(organizations).where(eq(organizations.id, orgId)))[0]?.timezone;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  cast = await organisationCast(app, "Zones Inc");
  // 22:30 and 23:30 UTC on 1 March, 00:30 UTC on 2 March; the same in the other organisation.
  for (const orgId of [cast.orgId, cast.otherOrgId]) {
    await database.db.insert(calls).values(
      ["2026-03-01T22:30:00Z", "2026-03-01T23:30:00Z", "2026-03-02T00:30:00Z"].map((at) => ({ id: randomUUID(), orgId, type: "web", status: "ended", startedAt: new Date(at) })),
    );
  }
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("GET /api/organization/settings", () => {
  it("answers the organisation's time zone, UTC by default, to members and admins", async () => {
    for (const token of [cast.adminToken, cast.memberToken]) {
      const response = await settings(token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ data: { timezone: "UTC" } });
    }
  });

  it("needs a signed-in person with an organisation", async () => {
    expect((await app.inject({ method: "GET", url: "/api/organization/settings" })).statusCode).toBe(401);
    const noOrg = await settings(cast.noOrgToken);
    expect(noOrg.statusCode).toBe(403);
    expect(noOrg.json()).toMatchObject({ code: "organization_required" });
  });
});

describe("PATCH /api/organization/settings", () => {
  it("an admin changes the time zone: answered, stored, read back by members, and the rollup's days cut again in it", async () => {
    expect(await rollupDays(cast.orgId)).toEqual([
      ["2026-03-01", 2],
      ["2026-03-02", 1],
    ]);
    const response = await patch(cast.adminToken, { timezone: "Europe/Berlin" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { timezone: "Europe/Berlin" } });
    expect(await timeZoneOf(cast.orgId)).toBe("Europe/Berlin");
    expect((await settings(cast.memberToken)).json()).toEqual({ data: { timezone: "Europe/Berlin" } });
    // 23:30 UTC is 00:30 in Berlin (UTC+1 in March): two calls on 2 March now.
    expect(await rollupDays(cast.orgId)).toEqual([
      ["2026-03-01", 1],
      ["2026-03-02", 2],
    ]);
    await expectRollupMatchesCalls(database.db, cast.orgId);

    // West of UTC: all three on 1 March in New York; a call added afterwards is counted in the new zone too.
    expect((await patch(cast.adminToken, { timezone: "America/New_York" })).statusCode).toBe(200);
    expect(await rollupDays(cast.orgId)).toEqual([["2026-03-01", 3]]);
    await database.db.insert(calls).values({ id: randomUUID(), orgId: cast.orgId, type: "web", status: "ended", startedAt: new Date("2026-03-02T04:59:59Z") });
    expect(await rollupDays(cast.orgId)).toEqual([["2026-03-01", 4]]);
    await expectRollupMatchesCalls(database.db, cast.orgId);
  });

  it("takes a zone name in any case and stores the database's spelling", async () => {
    const response = await patch(cast.adminToken, { timezone: "america/santiago" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { timezone: "America/Santiago" } });
    expect(await timeZoneOf(cast.orgId)).toBe("America/Santiago");
    await expectRollupMatchesCalls(database.db, cast.orgId);
  });

  it("a member is refused (403 {detail, code}) and nothing changes", async () => {
    const before = await timeZoneOf(cast.orgId);
    const rollup = await rollupDays(cast.orgId);
    const response = await patch(cast.memberToken, { timezone: "Asia/Tokyo" });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ detail: expect.stringContaining("admins"), code: "forbidden" });
    expect(await timeZoneOf(cast.orgId)).toBe(before);
    expect(await rollupDays(cast.orgId)).toEqual(rollup);
  });

  it("refuses an unknown zone, an offset or a malformed body (400 naming timezone) and changes nothing", async () => {
    const before = await timeZoneOf(cast.orgId);
    const rollup = await rollupDays(cast.orgId);
    // US/Pacific-New: a name the runtime's Intl still accepts, but not the database's zone data.
    for (const body of [{ timezone: "Mars/Olympus_Mons" }, { timezone: "US/Pacific-New" }, { timezone: "+02:00" }, { timezone: "" }, { timezone: 1 }, {}, { timezone: "UTC", name: "x" }]) {
      const response = await patch(cast.adminToken, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json(), JSON.stringify(body)).toEqual({ detail: expect.stringMatching(/timezone|name/), code: expect.any(String) });
    }
    expect((await patch(cast.adminToken, { timezone: "US/Pacific-New" })).json().detail).toContain("database");
    expect(await timeZoneOf(cast.orgId)).toBe(before);
    expect(await rollupDays(cast.orgId)).toEqual(rollup);
  });

  it("never touches another organisation: its zone and its rollup stay as they were", async () => {
    expect((await patch(cast.adminToken, { timezone: "Asia/Kolkata" })).statusCode).toBe(200);
    expect(await timeZoneOf(cast.otherOrgId)).toBe("UTC");
    expect((await settings(cast.otherToken)).json()).toEqual({ data: { timezone: "UTC" } });
    expect(await rollupDays(cast.otherOrgId)).toEqual([
      ["2026-03-01", 2],
      ["2026-03-02", 1],
    ]);
    // The other organisation's admin changes only their own.
    expect((await patch(cast.otherToken, { timezone: "Pacific/Auckland" })).statusCode).toBe(200);
    expect(await timeZoneOf(cast.orgId)).toBe("Asia/Kolkata");
    expect(await timeZoneOf(cast.otherOrgId)).toBe("Pacific/Auckland");
    await expectRollupMatchesCalls(database.db);
  });

  it("is in the OpenAPI document", async () => {
    const doc = (await app.inject({ method: "GET", url: "/api/docs/json" })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths["/api/organization/settings"] ?? {}).sort()).toEqual(["get", "patch"]);
  });
});

describe("a zone the database does not know", () => {
  it("answers 400 naming timezone on the call list, not 500", async () => {
    const response = await app.inject({ method: "GET", url: "/api/call/?startDate=2026-03-01&timezone=US/Pacific-New", headers: bearer(cast.adminToken) });
    // Refused by the contract when the runtime no longer knows the name, else by the database.
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().detail).toContain("timezone");
  });

  it("is recognised from the database's error alone", async () => {
    const error = await sqlRows(database.db, "select now() at time zone $1", ["Mars/Olympus_Mons"]).catch((caught: unknown) => caught);
    expect(isUnknownTimeZone(error)).toBe(true);
    const other = await sqlRows(database.db, "select 1/0").catch((caught: unknown) => caught);
    expect(isUnknownTimeZone(other)).toBe(false);
  });
});
