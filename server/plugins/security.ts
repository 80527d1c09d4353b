/**
 * Security headers (helmet, with a CSP the built console runs under), CORS closed to other origins
 * unless CORS_ORIGINS lists them, and per-IP rate limits on /api: counted in-process, or in Redis when
 * REDIS_URL is set (rate-limit-store.ts, which also says what happens when Redis does not answer).
 *
 * Helmet is used directly, not through @fastify/helmet: that plugin builds helmet's middleware again
 * on every request (the CSP directives parsed each time, about 0.08 ms in a bench:calls profile). Here
 * it is built once, runs in an onRequest hook, and is the app's `applySecurityHeaders`, which the
 * answers Fastify's router makes before any hook (server/plugins/errors.ts frameworkErrors) call too.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "@fastify/cors";
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import helmet from "helmet";
import type { Redis } from "ioredis";
import type { AuthProvider } from "../auth/types";
import type { AppConfig } from "../config";
import fp from "fastify-plugin";
import { isApiPath } from "./auth";
import { RATE_LIMIT_NAMESPACE, rateLimitRedis } from "./rate-limit-store";

declare module "fastify" {
  interface FastifyInstance {
    /** Sets the security headers every answer carries on a raw response (see the file comment). */
    applySecurityHeaders(request: IncomingMessage, response: ServerResponse): void;
    /** The Redis connection the rate limits are counted in (REDIS_URL), or null: the sign-in throttle counts there too. */
    rateLimitRedis: Redis | null;
  }
}

export function contentSecurityPolicy(config: AppConfig, provider: Pick<AuthProvider, "csp">) {
  const extra = provider.csp ?? {};
  const https = config.publicUrl.startsWith("https://");
  return {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'self'"],
    formAction: ["'self'"],
    scriptSrc: ["'self'", ...(extra.scriptSrc ?? [])],
    scriptSrcAttr: ["'none'"],
    connectSrc: ["'self'", ...(extra.connectSrc ?? [])],
    imgSrc: ["'self'", "data:", "blob:", ...(extra.imgSrc ?? [])],
    // antd (and Clerk's components) inject styles at run time.
    styleSrc: ["'self'", "'unsafe-inline'"],
    fontSrc: ["'self'", "data:"],
    frameSrc: ["'self'", ...(extra.frameSrc ?? [])],
    workerSrc: ["'self'", ...(extra.workerSrc ?? [])],
    // Upgrading requests would break a plain-http deployment (a LAN address, localhost).
    upgradeInsecureRequests: https ? [] : null,
  };
}

/**
 * The pages that start a browser call through Vapi: the public web-call page (/web-call/:callSlug). No
 * other page of the console starts one (links to it are copied, not followed inside the app, so the page
 * is always loaded with its own headers).
 */
export const CALL_PAGE_PREFIX = "/web-call/";
export const isCallPage = (url: string): boolean => url.startsWith(CALL_PAGE_PREFIX);

/**
 * What the call pages add to the CSP in Vapi mode, exactly what @vapi-ai/web 2.7 and the daily-js 0.87 it
 * runs on need (read in node_modules/@vapi-ai/web/dist/vapi.js and @daily-co/daily-js/dist/daily-esm.js,
 * and Daily's CSP guide for call-object mode). In sandbox mode nothing is added: no call leaves the page.
 *
 * - connect-src: Vapi's API (the origin of VAPI_API_URL; the SDK POSTs /call/web there); Daily's HTTPS and
 *   WebSocket hosts (https://*.daily.co, wss://*.daily.co: room info, signalling, the Krisp noise-cancellation
 *   files, the call bundle's own requests) and *.pluot.blue (Daily's media and signalling servers, listed in
 *   Daily's guide). Not daily-js's own error reports to Sentry (o77906.ingest.sentry.io): telemetry the
 *   call does not need (should daily-js send one, the browser refuses it and the call is unaffected).
 * - script-src: https://c.daily.co, where daily-js loads its call machine
 *   (call-machine/versioned/0.87.0/static/call-machine-object-bundle.js). The Vapi client passes
 *   `avoidEval: true` (src/web-call/vapi-client.ts), so it is a <script> element, not Function() on a
 *   fetched text, and 'unsafe-eval' is not needed. blob: for the audio worklets the call machine builds in
 *   memory (the audio-level observers, Krisp), and 'wasm-unsafe-eval' for Krisp's WebAssembly.
 * - worker-src blob:: the call machine's workers are made from blobs.
 * - media-src 'self' blob:: remote audio plays from MediaStreams (srcObject, which CSP does not govern) and,
 *   in some browsers, blob: URLs.
 * - No frame-src: call-object mode (what Vapi uses) has no iframe.
 */
export function callPageSources(config: AppConfig): { connectSrc: string[]; scriptSrc: string[]; workerSrc: string[]; mediaSrc: string[] } | null {
  if (config.modes.voice !== "vapi") return null;
  return {
    connectSrc: [new URL(config.vapi.apiUrl).origin, "https://*.daily.co", "wss://*.daily.co", "https://*.pluot.blue", "wss://*.pluot.blue"],
    scriptSrc: ["https://c.daily.co", "blob:", "'wasm-unsafe-eval'"],
    workerSrc: ["blob:"],
    mediaSrc: ["'self'", "blob:"],
  };
}

/** The CSP of a page that starts calls: the console's, plus callPageSources. */
export function callPageContentSecurityPolicy(config: AppConfig, provider: Pick<AuthProvider, "csp">) {
  const base = contentSecurityPolicy(config, provider);
  const extra = callPageSources(config);
  if (!extra) return base;
  return {
    ...base,
    connectSrc: [...base.connectSrc, ...extra.connectSrc],
    scriptSrc: [...base.scriptSrc, ...extra.scriptSrc],
    workerSrc: [...base.workerSrc, ...extra.workerSrc],
    mediaSrc: extra.mediaSrc,
  };
}

export const securityPlugin = fp(async (app: FastifyInstance, opts: { config: AppConfig; provider: AuthProvider }) => {
  const { config, provider } = opts;
  const https = config.publicUrl.startsWith("https://");

  // HSTS over plain http is ignored by browsers and would pin a future https host by surprise.
  const strictTransportSecurity = https ? { maxAge: 15_552_000, includeSubDomains: true } : false;
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: true, directives: contentSecurityPolicy(config, provider) },
    strictTransportSecurity,
  });
  // The pages that start calls (callPageSources): a second instance, also built once, chosen by path.
  const callPageHeaders = callPageSources(config)
    ? helmet({ contentSecurityPolicy: { useDefaults: true, directives: callPageContentSecurityPolicy(config, provider) }, strictTransportSecurity })
    : securityHeaders;
  const headersFor = (url: string | undefined) => (url && isCallPage(url) ? callPageHeaders : securityHeaders);
  // Helmet's middleware only sets headers, synchronously; its callback reports a configuration error.
  app.decorate("applySecurityHeaders", (request: IncomingMessage, response: ServerResponse) =>
    headersFor(request.url)(request, response, (error?: unknown) => {
      if (error) throw error;
    }),
  );
  app.addHook("onRequest", (request, reply, done) => headersFor(request.url)(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));

  const allowed = new Set(config.corsOrigins);
  await app.register(cors, {
    // Same-origin requests carry no CORS headers at all; other origins only when listed.
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    maxAge: 600,
  });

  // Routes' own limits (`config.rateLimit`) are counted in the same store, under keys of their own.
  const redis = config.redisUrl ? await rateLimitRedis(app, config.redisUrl) : null;
  app.decorate("rateLimitRedis", redis);
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    // The console's static files are not limited; the API is.
    allowList: (request) => !isApiPath(request.url),
    // Fail open when Redis does not answer: the request is served uncounted (see rate-limit-store.ts).
    ...(redis ? { redis, nameSpace: RATE_LIMIT_NAMESPACE, skipOnError: true } : {}),
  });
}, { name: "security" });
