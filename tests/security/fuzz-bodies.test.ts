/**
 * Fuzzing, part 1: every write route's request body (POST/PUT/PATCH/DELETE from the route table,
 * public ones included), generated from the route's OpenAPI schema: see fuzz-kit.ts for what is
 * generated and why. Each answer is a 4xx {detail, code}, never a 5xx, and the database is unchanged.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fuzzingForThisFile, jsonBodyCases, uploadCases, webhookCases, type CaseSource, type JsonSchema } from "./fuzz-kit";
import { WRITE_METHODS, routeKey } from "./world";

const fuzzing = fuzzingForThisFile(import.meta.filename);

/** Routes that take a CSV upload (multipart) beside their JSON body: fuzzed with the upload cases too. */
const CSV_UPLOAD_ROUTES = new Set(["POST /api/campaign/:id/contacts", "POST /api/dnc/", "POST /api/order/import"]);

const writeRoutes = () => fuzzing.world.routes.filter((route) => WRITE_METHODS.has(route.method));
/** The store webhooks (Shopify's, WooCommerce's, the generic one): public, verified by their integration's signature. */
const isStoreWebhook = (url: string) => /^\/api\/webhooks\/(shopify|woocommerce|store)\/:integrationId$/.test(url);

describe("fuzzing request bodies", () => {
  it("covers every write route of the table", () => {
    expect(writeRoutes().map(routeKey)).toEqual(expect.arrayContaining(["POST /api/call/public", "POST /api/webhooks/vapi", "POST /api/file/upload", "PUT /api/agent/:id"]));
    // Every write route with a body has its schema in the OpenAPI document (the generators need it).
    const missing = writeRoutes()
      .filter((route) => route.method !== "DELETE" && !["/api/webhooks/vapi", "/api/webhooks/stripe", "/api/file/upload"].includes(route.url) && !isStoreWebhook(route.url) && !fuzzing.fuzzer.bodySchema(route))
      .map(routeKey);
    expect(missing).toEqual([]);
  });

  it("write routes: malformed bodies answer 4xx {detail, code}, never 5xx, and change nothing", async () => {
    for (const route of writeRoutes()) {
      const token = route.public ? null : fuzzing.world.b.adminToken;
      if (route.url === "/api/webhooks/vapi") {
        // Public and verified by signature: anything unsigned or forged is a 401 (webhooks.test.ts has the signed cases).
        await fuzzing.fuzzer.fuzzRoute(route, null, webhookCases(), (status) => status === 401);
      } else if (route.url === "/api/webhooks/stripe") {
        // Stripe's events: unsigned or forged is a 400 (tests/server/billing-sandbox.test.ts has the signed cases).
        await fuzzing.fuzzer.fuzzRoute(route, null, webhookCases(), (status) => status === 400);
      } else if (isStoreWebhook(route.url)) {
        // A store's delivery: anything not signed with the integration's secret is a 401 (webhooks.test.ts has the signed cases).
        await fuzzing.fuzzer.fuzzRoute(route, null, webhookCases(), (status) => status === 401);
      } else if (route.url === "/api/file/upload") {
        await fuzzing.fuzzer.fuzzRoute(route, token, uploadCases());
      } else if (route.method !== "DELETE") {
        await fuzzing.fuzzer.fuzzRoute(route, token, jsonBodyCases(fuzzing.fuzzer.bodySchema(route)));
        if (CSV_UPLOAD_ROUTES.has(routeKey(route))) await fuzzing.fuzzer.fuzzRoute(route, token, uploadCases());
      }
      // DELETE routes take no body: their ids are fuzzed in fuzz-ids.test.ts.
    }
    // One test over the whole route table: its time grows with every route (the orders' added about 30 s; 283 s in all on a 2-core machine under heavy load).
  }, 600_000);

  it("sign-in routes (better-auth behind the public POST /api/auth/*): malformed bodies answer 4xx, never 5xx, and change nothing", async () => {
    const route = fuzzing.world.app.routeTable.find((r) => r.method === "POST" && r.url === "/api/auth/*")!;
    expect(route).toBeDefined();
    const objectBody: JsonSchema = { type: "object", additionalProperties: false, properties: {}, required: [] };
    const endpoints: Array<[string, JsonSchema]> = [
      ["sign-in/email", { ...objectBody, properties: { email: { type: "string", format: "email" }, password: { type: "string", minLength: 1 } }, required: ["email", "password"] }],
      ["sign-up/email", { ...objectBody, properties: { email: { type: "string", format: "email" }, password: { type: "string", minLength: 8, maxLength: 128 }, name: { type: "string", minLength: 1 } }, required: ["email", "password", "name"] }],
      ["organization/create", { ...objectBody, properties: { name: { type: "string", minLength: 1 }, slug: { type: "string", minLength: 1 } }, required: ["name", "slug"] }],
    ];
    for (const [path, schema] of endpoints) {
      const cases = jsonBodyCases(schema).map((source): CaseSource => (Array.isArray(source) ? [source[0], Math.min(source[1], 15)] : [source, 15]));
      // The proxy in server/auth/local.ts answers better-auth's errors as {detail, code} too (authErrorBody).
      await fuzzing.fuzzer.fuzzRoute({ ...route, url: `/api/auth/${path}` }, path === "organization/create" ? fuzzing.world.b.adminToken : null, cases, (status) => status >= 400 && status < 500, {
        errorBody: (response) => {
          const body = response.json() as Record<string, unknown>;
          return typeof body.detail === "string" && typeof body.code === "string" && /^[a-z0-9_]+$/.test(body.code);
        },
      });
    }
  });

  it("public write routes: the same with any bearer token at all", async () => {
    for (const route of writeRoutes().filter((r) => r.public && r.url !== "/api/webhooks/vapi" && r.url !== "/api/webhooks/stripe" && !isStoreWebhook(r.url))) {
      await fuzzing.fuzzer.fuzzRoute(route, `x${randomUUID()}`, jsonBodyCases(fuzzing.fuzzer.bodySchema(route)));
    }
  });
});
