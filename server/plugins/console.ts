/**
 * Serves the built console (CONSOLE_DIR, default dist/console) from the same origin as the API:
 * files as they are (long cache for the hashed /assets/*), every other non-/api GET answers
 * index.html (single-page app routing). Unknown /api paths answer a JSON 404.
 */
import { existsSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { isApiPath } from "./auth";
import { sendApiNotFound } from "./errors";

export const CONSOLE_NOT_BUILT = "The console is not built yet: run npm run build (npm start does it for you).";
const LONG_CACHE = "public, max-age=31536000, immutable";

export const consolePlugin = fp(async (app: FastifyInstance, opts: { consoleDir: string }) => {
  const root = resolve(opts.consoleDir);
  const built = existsSync(join(root, "index.html"));

  if (built) {
    await app.register(fastifyStatic, {
      root,
      cacheControl: false,
      // The build writes .br and .gz beside every text asset (vite.config.ts): sent by Accept-Encoding, no work per request.
      preCompressed: true,
      // Never a dotfile, e.g. the build's stamp (.build-stamp.json, scripts/console-build.ts): a page route answers.
      dotfiles: "ignore",
      // Vite's /assets/* names carry a content hash: cache them for good; anything else is revalidated.
      setHeaders: (res, path) => {
        res.setHeader("cache-control", path.startsWith(join(root, "assets") + sep) ? LONG_CACHE : "no-cache");
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    if (isApiPath(request.url)) return sendApiNotFound(request, reply);
    if (!built) return reply.status(503).type("text/plain; charset=utf-8").send(CONSOLE_NOT_BUILT);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return reply.status(404).type("text/plain; charset=utf-8").send("Not found");
    }
    // A missing hashed asset is a real 404, not a page: answering index.html would hide a stale build.
    if (request.url.startsWith("/assets/")) return reply.status(404).type("text/plain; charset=utf-8").send("Not found");
    return reply.header("cache-control", "no-cache").sendFile("index.html");
  });
}, { name: "console" });
