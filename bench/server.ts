// The API server that `npm run bench` loads with autocannon, run in a child process of its own so the
// load generator does not share its event loop. Not part of the product.
//
// It builds the app as server/index.ts does (buildApp, production settings, logging off), adds the
// floor route (bench/floor.ts) that exists only here, seeds the demo organisation (3 agents, 3 numbers,
// 2,000 calls over 90 days: server/seed/demo.ts), signs the demo user in and prints one JSON line:
//   {"url": "http://127.0.0.1:…", "token": "…", "agentId": "…", "database": "PostgreSQL 15.x" | "PGlite"}
// `token` is the demo's session token (an API client's, from signing in with the password): the parent
// exchanges it at GET /api/auth/token for the short-lived bearer the console sends.
// It stops on SIGTERM (or when stdin closes: the parent went away).
//
// BENCH_DATABASE_URL: the PostgreSQL database to use (fresh; the parent creates and drops it);
// unset: PGlite in memory.
import { randomUUID } from "node:crypto";
import { buildApp } from "../server/app";
import { loadConfig } from "../server/config";
import { openDatabase } from "../server/db/client";
import { runMigrations } from "../server/db/migrate";
import { seedDemo } from "../server/seed/demo";
import { addFloorRoute } from "./floor";

const databaseUrl = process.env.BENCH_DATABASE_URL || null;
const database = await openDatabase(databaseUrl ? { kind: "postgres", url: databaseUrl } : { kind: "pglite-memory" });
await runMigrations(database);

const loaded = loadConfig({
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: randomUUID() + randomUUID(),
  RATE_LIMIT_PER_MINUTE: "1000000",
  LOG_LEVEL: "silent",
  SEED_DEMO: "true",
  DEMO_EMAIL: "bench@example.com",
  DEMO_PASSWORD: "bench-password-0123456789",
  PUBLIC_URL: "http://127.0.0.1:3000",
  CONSOLE_DIR: "/nonexistent/console",
  DATA_DIR: `/tmp/vap-bench-server-${process.pid}`,
});
// The bench must not measure 429s, and 1,000,000 a minute (the most RATE_LIMIT_PER_MINUTE accepts) is
// not enough: the floor alone passes 40,000 req/s on a quiet 2-core machine, so the runs of one minute
// reached it and the next route's run was answered 429. Set here, past the configuration's check: the
// limiter still counts every request, as in production, it just never refuses one.
const config = { ...loaded, rateLimitPerMinute: 1_000_000_000 };
const app = await buildApp({ config, database, logger: false });
addFloorRoute(app);

const demo = await seedDemo(database.db, config);
if (!demo) throw new Error("the demo organisation was not seeded");
const signIn = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: demo.email, password: demo.password } });
if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.statusCode} ${signIn.body}`);
const token = (signIn.json() as { token: string }).token;

const agents = await app.inject({ method: "GET", url: "/api/agent/", headers: { authorization: `Bearer ${token}` } });
if (agents.statusCode !== 200) throw new Error(`agents: ${agents.statusCode} ${agents.body}`);
const agentBody = agents.json() as { data: { id: string }[] } | { id: string }[];
const agentList = Array.isArray(agentBody) ? agentBody : agentBody.data;
const agentId = agentList[0]?.id;
if (!agentId) throw new Error(`no agent in ${agents.body.slice(0, 200)}`);

let databaseName = "PGlite (in memory)";
if (database.kind === "postgres") {
  const version = (await database.db.execute("show server_version")) as unknown as { rows: { server_version: string }[] };
  databaseName = `PostgreSQL ${version.rows[0]?.server_version.split(" ")[0] ?? ""}`.trim();
}

const url = await app.listen({ host: "127.0.0.1", port: 0 });

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 10_000).unref();
  await app.close();
  await database.close();
  process.exit(0);
}
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
process.stdin.on("end", () => void stop());
process.stdin.resume();

console.log(JSON.stringify({ url, token, agentId, database: databaseName }));
