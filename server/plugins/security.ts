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

export const securityPlugin = fp(async (app: FastifyInstance, opts: { config: AppConfig; provider: AuthProvider }) => {
  const { config, provider } = opts;
  const https = config.publicUrl.startsWith("https://");

  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: true, directives: contentSecurityPolicy(config, provider) },
    // HSTS over plain http is ignored by browsers and would pin a future https host by surprise.
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: true } : false,
  });
  // Helmet's middleware only sets headers, synchronously; its callback reports a configuration error.
  app.decorate("applySecurityHeaders", (request: IncomingMessage, response: ServerResponse) =>
    securityHeaders(request, response, (error?: unknown) => {
      if (error) throw error;
    }),
  );
  app.addHook("onRequest", (request, reply, done) => securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));

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
