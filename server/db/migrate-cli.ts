// `npm run db:migrate`: applies the migrations to the configured database (DATABASE_URL, or PGlite in DATA_DIR) and exits.
import { ConfigError, loadConfig } from "../config";
import { databaseTarget, openDatabase } from "./client";
import { runMigrations } from "./migrate";

try {
  const config = loadConfig();
  const database = await openDatabase(databaseTarget(config));
  const started = Date.now();
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
  console.log(`database: migrations applied to ${database.kind === "pglite" ? "PGlite" : "PostgreSQL"} (${database.location}) in ${Date.now() - started} ms`);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
