import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleNodePg, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite, type PgliteDatabase } from "drizzle-orm/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { describeDatabaseUrl } from "../config";
import * as schema from "./schema";

export type Schema = typeof schema;

/** The Drizzle database, whichever driver is underneath (PGlite and node-postgres share this base). */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** For the start-up log: the PGlite folder, or host:port/db with the password hidden. */
  location: string;
  /** True for a PGlite that lives only in this process (tests). */
  inMemory: boolean;
  /** The driver-specific handle, for the migrator of that driver (server/db/migrate.ts). */
  driver: { kind: "pglite"; db: PgliteDatabase<Schema> & { $client: PGlite } } | { kind: "postgres"; db: NodePgDatabase<Schema>; pool: pg.Pool };
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: "pglite"; dataDir: string }
  /** In this process only; `snapshot` (a PGlite dumpDataDir tarball) starts it from saved contents. */
  | { kind: "pglite-memory"; snapshot?: Blob }
  | { kind: "postgres"; url: string };

/** Where the configured database is: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR/pglite. */
export function databaseTarget(config: { databaseUrl: string | null; dataDir: string }): DatabaseTarget {
  return config.databaseUrl ? { kind: "postgres", url: config.databaseUrl } : { kind: "pglite", dataDir: config.dataDir };
}

/**
 * PGlite's start parameters: its defaults, with PostgreSQL's shared_buffers at 32 MB instead of
 * 128 MB (an embedded, one-process database; this saves about 120 MB of resident memory).
 */
function pgliteStartParams(): string[] {
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams ?? [];
  return [...defaults, "-c", "shared_buffers=32MB"];
}

/** Extensions the migrations use (pg_trgm: the call list's search indexes, migration 0003; btree_gist: appointments that never overlap, 0009). */
const pgliteExtensions = { pg_trgm, btree_gist };

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    // An idle client that loses its connection must not crash the process; the pool replaces it.
    pool.on("error", () => undefined);
    const db = drizzleNodePg({ client: pool, schema });
    return {
      db: db as unknown as Db,
      kind: "postgres",
      location: describeDatabaseUrl(target.url),
      inMemory: false,
      driver: { kind: "postgres", db, pool },
      close: () => pool.end(),
    };
  }
  let client: PGlite;
  let location: string;
  if (target.kind === "pglite-memory") {
    client = await PGlite.create({ startParams: pgliteStartParams(), extensions: pgliteExtensions, ...(target.snapshot ? { loadDataDir: target.snapshot } : {}) });
    location = "in memory";
  } else {
    const folder = join(target.dataDir, "pglite");
    mkdirSync(resolve(folder), { recursive: true });
    client = await PGlite.create({ dataDir: resolve(folder), startParams: pgliteStartParams(), extensions: pgliteExtensions });
    location = `${target.dataDir.replace(/\/+$/, "")}/pglite`;
  }
  const db = drizzlePglite({ client, schema });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    location,
    inMemory: target.kind === "pglite-memory",
    driver: { kind: "pglite", db },
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

/**
 * PGlite has no autovacuum daemon, so nothing refreshes the planner's statistics as the data grows:
 * the server runs this once per start (after listening, so a large embedded database does not delay
 * start-up; requests meanwhile wait on PGlite's one connection at most), and the call list's plans
 * and estimated totals follow the data. PostgreSQL's autovacuum does this itself: nothing to do.
 * A failure is reported to `warn`, never thrown.
 */
export async function refreshPlannerStatistics(database: Database, warn: (error: unknown) => void): Promise<void> {
  if (database.kind !== "pglite") return;
  try {
    await database.db.execute(sql`analyze`);
  } catch (error) {
    warn(error);
  }
}
