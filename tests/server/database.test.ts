import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orgScope } from "../../server/data/orgScope";
import { openDatabase, refreshPlannerStatistics, type Database, type Db } from "../../server/db/client";
import { MIGRATIONS_FOLDER, runMigrations } from "../../server/db/migrate";
import * as schema from "../../server/db/schema";
import { invitations, memberships, organizations, users } from "../../server/db/schema";
import { TEST_DATABASE_URL, migratedDatabase, postgresDatabase } from "./helpers";

const TABLES = ["accounts", "agents", "appointments", "billing_accounts", "billing_documents", "calendar_connections", "calendar_feeds", "calendar_oauth_states", "calendars", "call_daily_stats", "call_list_versions", "calls", "campaign_contacts", "campaign_events", "campaigns", "dnc_numbers", "invitations", "job_leases", "knowledge_base_files", "memberships", "order_events", "order_follow_ups", "orders", "organizations", "phone_numbers", "sandbox_provider_calls", "sandbox_stripe_objects", "sessions", "spend_caps", "store_integrations", "store_webhook_deliveries", "stripe_events", "tool_call_answers", "top_ups", "usage_daily", "users", "verifications", "wallet_ledger", "wallets", "web_call_links", "webhook_events"];
const INDEXES = [
  "invitations_email_status_idx",
  "invitations_pending_unique",
  "memberships_org_user_unique",
  "sessions_token_unique",
  "users_email_unique",
];

// Both drivers answer raw SQL with {rows}; the shared Db type leaves the result untyped.
async function rows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

async function tableNames(db: Db): Promise<string[]> {
  const found = await rows<{ table_name: string }>(
    db,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return found.map((row) => row.table_name);
}

async function indexNames(db: Db): Promise<string[]> {
  const found = await rows<{ indexname: string }>(db, sql`select indexname from pg_indexes where schemaname = 'public'`);
  return found.map((row) => row.indexname);
}

/** The same checks on whichever database: tables, indexes, idempotent re-run, and the constraints we rely on. */
async function checkMigratedDatabase(database: Database) {
  expect(await tableNames(database.db)).toEqual(TABLES);
  expect(await indexNames(database.db)).toEqual(expect.arrayContaining(INDEXES));
  // Applying again is a no-op (start-up runs it every time).
  await runMigrations(database);
  expect(await tableNames(database.db)).toEqual(TABLES);

  const { db } = database;
  await db.insert(users).values({ id: "u1", name: "One", email: "one@example.com" });
  await db.insert(organizations).values({ id: "o1", name: "Org", slug: "org" });
  await db.insert(memberships).values({ id: "m1", orgId: "o1", userId: "u1", role: "admin" });
  await expect(db.insert(memberships).values({ id: "m2", orgId: "o1", userId: "u1", role: "member" })).rejects.toThrow();
  const pending = { orgId: "o1", email: "x@example.com", inviterId: "u1", expiresAt: new Date(Date.now() + 60_000) };
  await db.insert(invitations).values({ id: "i1", ...pending });
  await expect(db.insert(invitations).values({ id: "i2", ...pending })).rejects.toThrow();
  // Accepted invitations do not block a new pending one for the same person.
  await db.update(invitations).set({ status: "accepted" }).where(eq(invitations.id, "i1"));
  await db.insert(invitations).values({ id: "i3", ...pending });
}

describe("migrations", () => {
  it("are in step with server/db/schema.ts (run npm run db:generate after changing it)", async () => {
    const meta = join(MIGRATIONS_FOLDER, "meta");
    const latest = readdirSync(meta).filter((file) => file.endsWith("_snapshot.json")).sort().at(-1);
    expect(latest).toBeDefined();
    const committed = JSON.parse(readFileSync(join(meta, latest as string), "utf8"));
    const missing = await generateMigration(committed, generateDrizzleJson(schema, committed.id));
    expect(missing).toEqual([]);
  });

  it("create the identity tables and indexes on a new PGlite", async () => {
    const database = await openDatabase({ kind: "pglite-memory" });
    try {
      await runMigrations(database);
      await checkMigratedDatabase(database);
    } finally {
      await database.close();
    }
  });

  describe.skipIf(!TEST_DATABASE_URL)("on PostgreSQL (TEST_DATABASE_URL)", () => {
    let pgTest: Awaited<ReturnType<typeof postgresDatabase>>;
    beforeAll(async () => {
      pgTest = await postgresDatabase(TEST_DATABASE_URL as string);
    });
    afterAll(() => pgTest?.drop());

    it("the same migrations create the same tables and indexes", async () => {
      expect(pgTest.database.kind).toBe("postgres");
      await checkMigratedDatabase(pgTest.database);
    });

    it("two processes migrating at once do not collide (advisory lock)", async () => {
      const other = await openDatabase({ kind: "postgres", url: pgTest.url });
      try {
        await Promise.all([runMigrations(pgTest.database), runMigrations(other)]);
        expect(await tableNames(other.db)).toEqual(TABLES);
      } finally {
        await other.close();
      }
    });
  });
  if (!TEST_DATABASE_URL) {
    it.skip("on PostgreSQL: skipped because TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)", () => {});
  }
});

describe("orgScope", () => {
  let database: Database;
  const orgA = "org-a";
  const orgB = "org-b";

  beforeAll(async () => {
    database = await migratedDatabase();
    const { db } = database;
    await db.insert(users).values([
      { id: "alice", name: "Alice", email: "alice@example.com" },
      { id: "bob", name: "Bob", email: "bob@example.com" },
    ]);
    await db.insert(organizations).values([
      { id: orgA, name: "A", slug: "a" },
      { id: orgB, name: "B", slug: "b" },
    ]);
    await db.insert(memberships).values([
      { id: "a-alice", orgId: orgA, userId: "alice", role: "admin" },
      { id: "b-alice", orgId: orgB, userId: "alice", role: "member" },
      { id: "b-bob", orgId: orgB, userId: "bob", role: "admin" },
    ]);
  });
  afterAll(() => database.close());

  it("reads only the scope's own rows", async () => {
    const a = orgScope(database.db, orgA);
    expect((await a.select(memberships)).map((row) => row.id)).toEqual(["a-alice"]);
    // A filter naming another organisation's row still finds nothing.
    expect(await a.first(memberships, eq(memberships.id, "b-bob"))).toBeNull();
    expect(await a.count(memberships)).toBe(1);
    expect(await a.count(memberships, eq(memberships.orgId, orgB))).toBe(0);
  });

  it("inserts into the scope's organisation, whatever orgId the values carry", async () => {
    const a = orgScope(database.db, orgA);
    const values = { id: randomUUID(), email: "new@example.com", inviterId: "alice", expiresAt: new Date(Date.now() + 60_000), orgId: orgB };
    const row = await a.insert(invitations, values as Omit<typeof values, "orgId">);
    expect(row.orgId).toBe(orgA);
    expect(await orgScope(database.db, orgB).first(invitations, eq(invitations.id, row.id))).toBeNull();
  });

  it("updates and deletes never touch another organisation's rows", async () => {
    const a = orgScope(database.db, orgA);
    expect(await a.update(memberships, { role: "member" }, eq(memberships.id, "b-bob"))).toEqual([]);
    expect(await a.delete(memberships, eq(memberships.id, "b-bob"))).toEqual([]);
    const [bob] = await database.db.select().from(memberships).where(eq(memberships.id, "b-bob"));
    expect(bob?.role).toBe("admin");

    // Nor can an update move a row to another organisation.
    const changes = { role: "admin", orgId: orgB };
    const [moved] = await a.update(memberships, changes as Omit<typeof changes, "orgId">, eq(memberships.id, "a-alice"));
    expect(moved).toMatchObject({ id: "a-alice", orgId: orgA, role: "admin" });
  });

  it("finds a row by id only in the scope's organisation, with the statement prepared once, in a transaction too", async () => {
    const a = orgScope(database.db, orgA);
    const b = orgScope(database.db, orgB);
    // Another organisation's id is not found, like a made-up one; each scope finds its own, every time.
    for (let round = 0; round < 7; round++) {
      expect(await a.byId(memberships, "a-alice")).toMatchObject({ id: "a-alice", orgId: orgA, userId: "alice" });
      expect(await a.byId(memberships, "b-bob")).toBeNull();
      expect(await a.byId(memberships, "nobody")).toBeNull();
      expect(await b.byId(memberships, "b-bob")).toMatchObject({ id: "b-bob", orgId: orgB });
      expect(await b.byId(memberships, "a-alice")).toBeNull();
    }
    // Inside a transaction the statement runs on the transaction's connection: it sees the transaction's
    // own uncommitted row, and after a rollback nobody does.
    const id = randomUUID();
    await database.db
      .transaction(async (tx) => {
        await orgScope(tx as unknown as Db, orgA).insert(invitations, { id, email: "tx@example.com", inviterId: "alice", expiresAt: new Date(Date.now() + 60_000) });
        expect(await orgScope(tx as unknown as Db, orgA).byId(invitations, id)).toMatchObject({ id, orgId: orgA });
        expect(await orgScope(tx as unknown as Db, orgB).byId(invitations, id)).toBeNull();
        tx.rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || !/rollback/i.test(error.message)) throw error;
      });
    expect(await a.byId(invitations, id)).toBeNull();
  });

  it("orders, limits and offsets within the scope", async () => {
    const b = orgScope(database.db, orgB);
    const page = await b.select(memberships, { orderBy: memberships.id, limit: 1, offset: 1 });
    expect(page.map((row) => row.id)).toEqual(["b-bob"]);
  });

  it("refuses an empty organisation id; tables without an organisation column are type errors (tsc)", () => {
    // Never called: `npx tsc` fails if these stop being type errors.
    const typeChecks = (db: Db) => {
      const scope = orgScope(db, orgA);
      // @ts-expect-error users has no orgId column, so it cannot be queried through an organisation scope
      void scope.select(users);
      // @ts-expect-error organizations is the organisation itself, not an organisation-owned table
      void scope.first(organizations);
    };
    void typeChecks;
    expect(() => orgScope(database.db, "")).toThrow(/organisation id/);
  });
});

describe("refreshPlannerStatistics", () => {
  it("gives PGlite's planner the calls table's real size (PGlite has no autovacuum)", async () => {
    const embedded = await openDatabase({ kind: "pglite-memory" });
    try {
      await runMigrations(embedded);
      const orgId = randomUUID();
      await embedded.db.insert(organizations).values({ id: orgId, name: "Statistics", slug: `statistics-${orgId.slice(0, 8)}` });
      await embedded.db.execute(
        sql.raw(`insert into calls (id, org_id, type, status, started_at) select gen_random_uuid(), '${orgId}', 'web', 'ended', now() from generate_series(1, 1500)`),
      );
      const plannerRows = async () => Number(((await embedded.db.execute(sql`select reltuples from pg_class where relname = 'calls'`)) as unknown as { rows: { reltuples: number }[] }).rows[0]?.reltuples);
      expect(await plannerRows()).not.toBe(1500);
      const warnings: unknown[] = [];
      await refreshPlannerStatistics(embedded, (error) => warnings.push(error));
      expect(await plannerRows()).toBe(1500);
      expect(warnings).toEqual([]);
    } finally {
      await embedded.close();
    }
  });

  it("leaves PostgreSQL to its autovacuum: nothing is sent", async () => {
    const sent: unknown[] = [];
    const postgres = { kind: "postgres", db: { execute: async (query: unknown) => sent.push(query) } } as unknown as Database;
    await refreshPlannerStatistics(postgres, (error) => sent.push(error));
    expect(sent).toEqual([]);
  });

  it("reports a failure instead of throwing", async () => {
    const closed = await openDatabase({ kind: "pglite-memory" });
    await closed.close();
    const warnings: unknown[] = [];
    await expect(refreshPlannerStatistics(closed, (error) => warnings.push(error))).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
  });
});
