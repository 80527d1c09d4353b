// The bench's floor: a route that returns a constant, added to the app only by bench/server.ts (never
// by the product). Public and under /api, so it pays exactly what every /api request pays before its
// own work (Fastify's routing, helmet's headers, the CORS check, the rate limiter, the auth hook
// deciding it is public, JSON serialization) and nothing else. An API row's ratio to it is the share of
// the framework's throughput that the route's own work (validation, sign-in check, queries,
// serialization) leaves.
import type { FastifyInstance } from "fastify";

export const FLOOR_PATH = "/api/__bench/floor";

export function addFloorRoute(app: FastifyInstance): void {
  app.get(FLOOR_PATH, { config: { public: true } }, async () => ({ status: "ok" }));
}
