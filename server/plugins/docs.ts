/**
 * OpenAPI from the routes' own zod schemas (fastify-type-provider-zod), at /api/docs (Swagger UI)
 * and /api/docs/json. Both are public (see PUBLIC_PREFIXES in ./auth.ts).
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { API_BASE, apiPaths } from "../../contract";
import fp from "fastify-plugin";

export const docsPlugin = fp(async (app: FastifyInstance, opts: { version: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Voice-agent platform API",
        version: opts.version,
        description:
          "Every route below /api needs `Authorization: Bearer <session token>` unless marked public. " +
          "Errors answer `{detail, code}`. Local accounts sign in through better-auth at /api/auth.",
      },
      components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: `${API_BASE}${apiPaths.docs}`,
    // The validator badge would call validator.swagger.io: not reachable offline, and not allowed by the CSP.
    uiConfig: { validatorUrl: null, deepLinking: true },
  });
}, { name: "docs" });
