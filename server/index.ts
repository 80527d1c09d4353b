/**
 * The API server: reads the configuration, opens and migrates the database, seeds the demo, listens,
 * and prints a short start-up summary. `npm run server` runs it; `npm start` builds the console first.
 */
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { FastifyInstance } from "fastify";
import { buildApp, VERSION } from "./app";
import { startDialler, type Dialler } from "./campaigns/dialler";
import { startBillingSweeps } from "./billing/sweeps";
import { startDemoStore } from "./orders/demo-store";
import { startDeliveryPurge } from "./orders/store-deliveries";
import { ConfigError, describeRedisUrl, isLoopbackHost, isWildcardHost, loadConfig, type AppConfig, type Env } from "./config";
import { databaseTarget, openDatabase, refreshPlannerStatistics, type Database } from "./db/client";
import { runMigrations } from "./db/migrate";
import { secureDemoAccount, seedDemo } from "./seed/demo";
import { resumeSandboxCallsAtStartUp } from "./voice/sandbox-resume";

export interface MainOptions {
  /** Environment to read (default process.env). */
  env?: Env;
  /** Line printer for the start-up summary (default console.log). */
  print?: (line: string) => void;
  /** Handle SIGTERM/SIGINT by closing gracefully and exiting (default true). */
  handleSignals?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  database: Database;
  config: AppConfig;
  /** Stops accepting connections, finishes in-flight requests, then closes the database. */
  stop(): Promise<void>;
}

function describeStartupError(error: unknown, config: AppConfig | null): string {
  const err = error as NodeJS.ErrnoException;
  if (err.code === "EADDRINUSE" && config) return `PORT ${config.port} is already in use: stop the other process or set PORT to a free port.`;
  if (err.code === "EACCES" && config) return `Not allowed to listen on ${config.host}:${config.port}: choose a PORT above 1023.`;
  if (err.code === "ECONNREFUSED" && config?.databaseUrl) return `Cannot reach PostgreSQL at DATABASE_URL (connection refused): is it running?`;
  return `The server could not start: ${err.message ?? String(error)}`;
}

export async function main(options: MainOptions = {}): Promise<RunningServer> {
  const print = options.print ?? ((line: string) => console.log(line));
  let config: AppConfig | null = null;
  let database: Database | null = null;
  try {
    config = loadConfig(options.env ?? process.env);
    database = await openDatabase(databaseTarget(config));
    await runMigrations(database);
    const app = await buildApp({ config, database });
    const demoLines: string[] = [];
    // A new demo account, or else (bound beyond loopback) an old one whose published password is replaced.
    const demo = (await seedDemo(database.db, config, { box: app.secretBox, print: (line) => demoLines.push(line) })) ?? (await secureDemoAccount(database.db, config));
    // Sandbox calls left running (by a previous process, or seeded as running) end like any sandbox call.
    const resumed = await resumeSandboxCallsAtStartUp(app);
    // Fastify's own line would print http://HOST:PORT as an address to open: name the one origin instead (issue 31).
    const { host, port, publicUrl } = config;
    await app.listen({ port, host, listenTextResolver: () => `Server listening on ${host}:${port}, open ${publicUrl}` });
    // Campaigns: every process may dial; they share the work through row claims (server/campaigns/dialler.ts).
    const dialler: Dialler | null = config.campaigns.diallerEnabled ? startDialler(app) : null;
    // Billing: the grace, retention and top-up reconciliation sweeps, each claimed once across processes (server/billing/sweeps.ts).
    const sweeps = startBillingSweeps(database.db, config, app.payments, app.log);
    // The demo store pays its demo orders after a sandbox call agreed to it (server/orders/demo-store.ts); never with real calls.
    const demoStore = config.modes.voice === "sandbox" ? startDemoStore(app) : null;
    // Store delivery ids older than a month are not needed to refuse replays (server/orders/store-deliveries.ts).
    const deliveryPurge = startDeliveryPurge(database.db, app.log);
    void refreshPlannerStatistics(database, (error) => app.log.warn({ err: error }, "refreshing the planner's statistics failed"));

    print(`Voice-agent platform ${VERSION} (NODE_ENV=${config.nodeEnv})`);
    print(database.kind === "pglite" ? `database: PGlite (${database.location})` : `database: PostgreSQL (${database.location})`);
    print(config.clerk ? `auth: Clerk (${config.clerk.frontendApiHost})` : "auth: local accounts (better-auth)");
    print(config.modes.voice === "vapi" ? `voice: Vapi (${config.vapi.apiUrl})` : "voice: sandbox (no VAPI_PRIVATE_KEY)");
    print(config.modes.calendar === "google" ? "outside calendar: Google Calendar (GOOGLE_CLIENT_ID)" : "outside calendar: none (no GOOGLE_CLIENT_ID; the ICS feed works without keys)");
    print(`rate limits: ${config.redisUrl ? `Redis (${describeRedisUrl(config.redisUrl)})` : "in-process"} (${config.rateLimitPerMinute}/min per IP on /api)`);
    print(`API docs: ${config.publicUrl}/api/docs`);
    print(dialler ? `campaign dialler: on (${dialler.id}, every ${config.campaigns.diallerIntervalMs} ms)` : "campaign dialler: off (DIALLER_ENABLED=false)");
    print(
      isLoopbackHost(config.host)
        ? `listening on ${config.host}:${config.port}, this machine only (HOST=0.0.0.0 lets other machines connect)`
        : `listening on ${config.host}:${config.port}, reachable from other machines`,
    );
    if (!config.publicUrlFromEnv && isWildcardHost(config.host)) {
      // Every interface, no one address: the links the server builds would send other machines to their own localhost.
      print(
        `PUBLIC_URL is not set: checkout returns, invitation links and Google's redirect URI point at ${config.publicUrl}, ` +
          `which other machines cannot open. Set PUBLIC_URL to the address they use (e.g. http://192.168.1.20:${config.port}).`,
      );
    }
    if (demo) print(`demo sign-in: ${demo.email} / ${demo.password} (${demo.organisation})`);
    if (demo?.note) print(demo.note);
    for (const line of demoLines) print(line);
    print(`ready in ${Math.round(performance.now())} ms`);
    print(`Open ${config.publicUrl}`);

    const running: RunningServer = {
      app,
      database,
      config,
      stop: async () => {
        await dialler?.stop();
        await sweeps.stop();
        await demoStore?.stop();
        await deliveryPurge.stop();
        await resumed.close();
        await app.close();
        await database?.close();
      },
    };
    if (options.handleSignals !== false) {
      let stopping = false;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        app.log.info(`${signal}: finishing in-flight requests, then stopping`);
        // A request that never ends must not keep the process alive forever.
        setTimeout(() => process.exit(1), 10_000).unref();
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(`Stopping failed: ${(error as Error).message}`);
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    }
    return running;
  } catch (error) {
    console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : describeStartupError(error, config));
    await database?.close().catch(() => undefined);
    process.exit(1);
  }
}

// Run when executed directly (`tsx server/index.ts`), not when imported (scripts/start.ts, tests).
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
