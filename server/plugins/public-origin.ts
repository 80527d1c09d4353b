/**
 * One origin for browsers (issue 31). A session is a cookie of one host, and every address the server builds for a
 * browser (checkout returns, Google's redirect URI, invitation and web-call links) is on PUBLIC_URL's origin. So a
 * page opened on another loopback name of this server (http://127.0.0.1:3000 while PUBLIC_URL is
 * http://localhost:3000, or the reverse) is sent to the same path on PUBLIC_URL: the member signs in where the
 * checkout and Google will bring them back, instead of being signed out on their return.
 *
 * Only page loads (GET and HEAD outside /api: scripts and tests keep calling the API on any name), and only when the
 * browser reached this process directly: PUBLIC_URL is plain http on a loopback name and this server's port, and the
 * request came on another loopback name on that port. A proxy in front (PUBLIC_URL on another host, port or https)
 * is never redirected, so its requests (often carrying Host: 127.0.0.1:3000) cannot loop.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { isLoopbackHost, type AppConfig } from "../config";
import { isApiPath } from "./auth";

/** Where a page load for `path` on `hostHeader` belongs instead, or null when it is where it belongs. */
export function publicOriginRedirect(config: Pick<AppConfig, "publicUrl" | "port">, hostHeader: string | undefined, path: string): string | null {
  if (!hostHeader || isApiPath(path)) return null;
  let canonical: URL;
  let requested: URL;
  try {
    canonical = new URL(config.publicUrl);
    requested = new URL(`http://${hostHeader}`);
  } catch {
    return null;
  }
  const port = (url: URL) => Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (canonical.protocol !== "http:" || !isLoopbackHost(canonical.hostname) || port(canonical) !== config.port) return null;
  if (!isLoopbackHost(requested.hostname) || port(requested) !== config.port) return null;
  if (requested.hostname.toLowerCase() === canonical.hostname.toLowerCase()) return null;
  return `${canonical.origin}${path.startsWith("/") ? path : `/${path}`}`;
}

export const publicOriginPlugin = fp(
  async (app: FastifyInstance, { config }: { config: Pick<AppConfig, "publicUrl" | "port"> }) => {
    app.addHook("onRequest", async (request, reply) => {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      const target = publicOriginRedirect(config, request.headers.host, request.url);
      // 307: the same request there; not permanent, since PUBLIC_URL may change.
      if (target) return reply.redirect(target, 307);
    });
  },
  { name: "public-origin" },
);
