/**
 * Who is calling. Every /api route requires a valid bearer token unless it declares
 * `config: {public: true}`; the check is fail-closed (a route that says nothing is protected).
 * `request.identity` comes only from the verified token, never from the body or the query.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AuthProvider, Identity } from "../auth/types";
import type { Db } from "../db/client";
import { orgScope, type OrgScope } from "../data/orgScope";
import { ApiError } from "./errors";
import fp from "fastify-plugin";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Answer without a bearer token (health, config, docs, sign-in, public agent pages, webhooks). */
    public?: boolean;
  }
  interface FastifyRequest {
    /** Set from the verified bearer token on protected routes; null on public ones. */
    identity: Identity | null;
    /** The caller's identity, or 401. */
    requireIdentity(): Identity;
    /** Data access scoped to the caller's active organisation, or 403 organization_required. */
    requireOrg(): OrgScope;
  }
  interface FastifyInstance {
    /** Every /api route with its method and whether it is public (collected as routes register). */
    routeTable: RouteTableEntry[];
  }
}

export interface RouteTableEntry {
  method: string;
  /** The route pattern, e.g. /api/organization/:organizationId/invite */
  url: string;
  public: boolean;
}

export const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/") || path.startsWith("/api?");

/** Routes that other plugins register (Swagger UI) and that are public by nature. */
const PUBLIC_PREFIXES = ["/api/docs"];

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: { provider: AuthProvider; db: Db }) => {
  const { provider, db } = opts;
  const routeTable: RouteTableEntry[] = [];
  app.decorate("routeTable", routeTable);

  app.addHook("onRoute", (route) => {
    if (!isApiPath(route.url)) return;
    const isPublic = route.config?.public === true || PUBLIC_PREFIXES.some((prefix) => route.url.startsWith(prefix));
    if (isPublic) route.config = { ...route.config, public: true };
    for (const method of [route.method].flat()) {
      if (method !== "HEAD") routeTable.push({ method, url: route.url, public: isPublic });
    }
  });

  app.decorateRequest("identity", null);
  app.decorateRequest("requireIdentity", function (this: FastifyRequest): Identity {
    if (!this.identity) throw ApiError.unauthorized();
    return this.identity;
  });
  app.decorateRequest("requireOrg", function (this: FastifyRequest): OrgScope {
    const identity = this.requireIdentity();
    if (!identity.orgId) throw ApiError.organizationRequired();
    return orgScope(db, identity.orgId);
  });

  // preParsing: after the rate limiter (a route-level onRequest hook), before the body is read.
  app.addHook("preParsing", async (request) => {
    const pattern = request.routeOptions.url;
    if (!pattern || !isApiPath(pattern) || request.routeOptions.config.public === true) return;
    const token = bearerToken(request.headers.authorization);
    if (!token) throw ApiError.unauthorized();
    const identity = await provider.verify(token);
    if (!identity) throw ApiError.unauthorized("Your session has expired or the token is not valid: sign in again.");
    request.identity = identity;
  });
}, { name: "auth" });
