/**
 * Builds the Fastify app (no listen): plugins, then routes. Used by server/index.ts and by the tests,
 * which inject requests into it.
 */
import { readFileSync } from "node:fs";
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { API_BASE } from "../contract";
import { createAuthProvider } from "./auth";
import { createCampaignSignals, type CampaignSignals } from "./campaigns/signals";
import type { AuthProvider } from "./auth/types";
import type { AppConfig } from "./config";
import type { Database, Db } from "./db/client";
import { createSecretBox, credentialsKey, type SecretBox } from "./crypto/credentials";
import { authPlugin } from "./plugins/auth";
import { consolePlugin } from "./plugins/console";
import { docsPlugin } from "./plugins/docs";
import { frameworkErrors, registerErrorHandler, registerInputGuards } from "./plugins/errors";
import { publicOriginPlugin } from "./plugins/public-origin";
import { securityPlugin } from "./plugins/security";
import { responseSerializerCompiler } from "./plugins/serializer";
import { configRoutes } from "./routes/config";
import { healthRoutes } from "./routes/health";
import { agentRoutes } from "./routes/agents";
import { catalogRoutes } from "./routes/catalog";
import { fileRoutes } from "./routes/files";
import { organizationRoutes } from "./routes/organization";
import { callRoutes } from "./routes/calls";
import { walletRoutes } from "./routes/wallet";
import { billingRoutes } from "./routes/billing";
import { dashboardRoutes } from "./routes/dashboard";
import { webhookRoutes } from "./routes/webhooks";
import { phoneNumberRoutes } from "./routes/phone-numbers";
import { webCallRoutes } from "./routes/web-calls";
import { campaignRoutes } from "./routes/campaigns";
import { dncRoutes } from "./routes/dnc";
import { orderRoutes } from "./routes/orders";
import { availabilityRoutes } from "./routes/availability";
import { appointmentRoutes } from "./routes/appointments";
import { calendarRoutes } from "./routes/calendar";
import { subscriptionRoutes } from "./routes/subscription";
import { createGoogleCalendar, type GoogleCalendar } from "./calendar/google";
import { noCalendarSync, type CalendarSync } from "./calendar/sync";
import { createVoiceProvider } from "./voice";
import { createPaymentProvider } from "./billing/payments";
import type { PaymentProvider } from "./billing/payments/types";
import { stripeWebhookRoutes } from "./routes/stripe-webhook";
import { billingPaymentRoutes } from "./routes/billing-payments";
import { integrationRoutes } from "./routes/integrations";
import { storeWebhookRoutes } from "./routes/store-webhooks";
import { applyStoreEvent } from "./orders/store-events";
import type { VoiceProvider } from "./voice/types";

declare module "fastify" {
  interface FastifyInstance {
    config: AppConfig;
    /** The Drizzle database (PGlite or PostgreSQL). */
    db: Db;
    authProvider: AuthProvider;
    voice: VoiceProvider;
    /** In-process nudges between the campaign API and the dialler (server/campaigns/signals.ts). */
    campaignSignals: CampaignSignals;
    /** Google Calendar (server/calendar/google/), null without GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET; tests settle its writes. */
    googleCalendar: GoogleCalendar | null;
    /** Outside calendars as the calendar core sees them (server/calendar/sync.ts): Google when configured, else none. */
    calendarSync: CalendarSync;
    /** Payments (issue 15): Stripe when configured, else the embedded sandbox (server/billing/payments/). */
    payments: PaymentProvider;
    /** Seals secrets at rest (carrier credentials, calendar tokens, store integration secrets): the seed and the demo store seal and open with it too. */
    secretBox: SecretBox;
  }
}

export const VERSION: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

export interface BuildAppOptions {
  config: AppConfig;
  /** An open, migrated database (server/db/client.ts, server/db/migrate.ts). */
  database: Database;
  /** Replaces the sign-in service chosen from the config. */
  authProvider?: AuthProvider;
  /** Fastify's logger option; default: pino at LOG_LEVEL. */
  logger?: FastifyServerOptions["logger"];
  /** The voice provider (default: chosen from the configuration); tests pass fakes. */
  voiceProvider?: VoiceProvider;
  /** For uptime in /api/health (default: now). */
  startedAt?: number;
  /** The campaign signals (default: new ones for this app). */
  campaignSignals?: CampaignSignals;
  /** Outside calendars for the calendar core (default: Google Calendar when configured, else none). */
  calendarSync?: CalendarSync;
  /** The payment provider (default: Stripe when configured, else the sandbox); tests pass their own. */
  paymentProvider?: PaymentProvider;
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: 1024 * 1024,
    // TRUST_PROXY (default off): only then is X-Forwarded-For believed for request.ip, which the per-IP limits count by.
    trustProxy: config.trustProxy,
    // Registering the routes and building their OpenAPI document is CPU work: on a busy small machine it
    // passed Fastify's default 10 s and start-up failed ("onReady hook timed out"). A minute still catches a hang.
    pluginTimeout: 60_000,
    // `GET /api/agent` and `GET /api/agent/` are the same route (ARCHITECTURE.md §3).
    routerOptions: { ignoreTrailingSlash: true },
    // A malformed URL or an over-long path parameter answers {detail, code} like every other error.
    frameworkErrors,
    // One log line per request only when debugging; errors are always logged by the error handler.
    logController: new LogController({ disableRequestLogging: config.logLevel !== "debug" && config.logLevel !== "trace" }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Compiled writers (fast-json-stringify) from the contract's schemas; zod also checks every answer outside production.
  app.setSerializerCompiler(responseSerializerCompiler({ checkResponses: config.nodeEnv !== "production" }));
  registerErrorHandler(app);
  registerInputGuards(app);

  const provider = options.authProvider ?? (await createAuthProvider(config, database, app.log));
  const voice = options.voiceProvider ?? createVoiceProvider(config);
  // The sandbox keeps its ledger of placed calls in our database (any process answers for any call).
  voice.useDatabase?.(database.db);
  const campaignSignals = options.campaignSignals ?? createCampaignSignals();
  app.decorate("config", config);
  app.decorate("db", database.db);
  app.decorate("authProvider", provider);
  app.decorate("voice", voice);
  app.decorate("campaignSignals", campaignSignals);
  const payments = options.paymentProvider ?? createPaymentProvider(config, database.db, app.log);
  app.decorate("payments", payments);

  // Order matters: the auth plugin's onRoute hook and the rate limiter must see every route that follows.
  await app.register(authPlugin, { provider, db: database.db });
  await app.register(securityPlugin, { config, provider });
  // A page opened on another loopback name of this server goes to PUBLIC_URL's, where sessions and returns live.
  await app.register(publicOriginPlugin, { config });
  await app.register(docsPlugin, { version: VERSION });

  if (provider.registerRoutes) await provider.registerRoutes(app);
  await app.register(healthRoutes, { prefix: API_BASE, version: VERSION, modes: config.modes, startedAt: options.startedAt ?? Date.now() });
  await app.register(configRoutes, { prefix: API_BASE, config });
  await app.register(organizationRoutes, { prefix: API_BASE, db: database.db, provider });
  // Carrier credentials' key: agents re-point the numbers that answer with them (Vapi), phone numbers seal them.
  const box = createSecretBox(credentialsKey(config, database).key);
  app.decorate("secretBox", box);
  await app.register(agentRoutes, { prefix: API_BASE, db: database.db, voice, box });
  await app.register(catalogRoutes, { prefix: API_BASE });
  await app.register(fileRoutes, { prefix: API_BASE, db: database.db, voice, config, inMemoryDatabase: database.inMemory });
  await app.register(phoneNumberRoutes, { prefix: API_BASE, db: database.db, voice, config, database });
  await app.register(webCallRoutes, { prefix: API_BASE, db: database.db, voice });

  await app.register(callRoutes, { prefix: API_BASE, db: database.db, voice, config });
  await app.register(walletRoutes, { prefix: API_BASE, db: database.db, config });
  await app.register(billingRoutes, { prefix: API_BASE, db: database.db, config, payments });
  await app.register(dashboardRoutes, { prefix: API_BASE, db: database.db, config });
  await app.register(campaignRoutes, { prefix: API_BASE, db: database.db, config, signals: app.campaignSignals });
  await app.register(dncRoutes, { prefix: API_BASE, db: database.db });
  await app.register(orderRoutes, { prefix: API_BASE, db: database.db, config, signals: app.campaignSignals });
  await app.register(subscriptionRoutes, { prefix: API_BASE, db: database.db, config, payments });
  // Outside calendars: Google when configured (its busy times block slots, bookings are written there), and the ICS feed.
  const googleCalendar = createGoogleCalendar({ config, db: database.db, box, log: app.log });
  app.decorate("googleCalendar", googleCalendar);
  app.addHook("onClose", async () => googleCalendar?.close());
  // What the calendar core's routes take as `calendarSync` (its busy times and the writes of its changes).
  const calendarSync: CalendarSync = options.calendarSync ?? googleCalendar ?? noCalendarSync;
  app.decorate("calendarSync", calendarSync);
  await app.register(availabilityRoutes, { prefix: API_BASE, db: database.db, calendarSync });
  await app.register(appointmentRoutes, { prefix: API_BASE, db: database.db, calendarSync });
  await app.register(calendarRoutes, { prefix: API_BASE, db: database.db, config, box, google: googleCalendar });
  // Stripe's events (and the sandbox payment provider's, delivered through the same verification), then billing's payment routes.
  await app.register(stripeWebhookRoutes, { prefix: API_BASE, db: database.db, config, payments });
  await app.register(billingPaymentRoutes, { prefix: API_BASE, db: database.db, config, payments });
  // Store integrations (issue 16): their secrets are sealed with the same key as the carrier credentials.
  await app.register(integrationRoutes, { prefix: API_BASE, db: database.db, config, box, signals: app.campaignSignals });
  await app.register(storeWebhookRoutes, { prefix: API_BASE, db: database.db, box, applyStoreEvent });
  // Also connects the sandbox's simulated calls to the webhook route, and stops them when the app closes.
  await app.register(webhookRoutes, { prefix: API_BASE, db: database.db, voice, config, campaignSignals, calendarSync });

  await app.register(consolePlugin, { consoleDir: config.consoleDir });
  return app;
}
