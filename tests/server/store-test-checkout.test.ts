/**
 * "Send a test checkout" (contract/store-webhook-example.ts): the shell lines, run as a person would run them
 * (bash, openssl, curl) against the listening server, make an order; its paid line pays it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testCheckoutShell } from "../../contract/store-webhook-example";
import type { Database } from "../../server/db/client";
import { orders } from "../../server/db/schema";
import { buildTestApp, migratedDatabase, organisationCast } from "./helpers";
import { createIntegration } from "./store-fixtures";

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

it("the test checkout's shell lines sign and post a checkout the route takes; the paid line pays it", async () => {
  const { adminToken } = await organisationCast(app, "Try It Ltd");
  const integration = await createIntegration(app, adminToken, { kind: "generic", name: "Trying" });
  const address = app.server.address() as { port: number };
  const webhookUrl = integration.webhook_url.replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${address.port}`);
  const shell = testCheckoutShell({ webhookUrl, secret: integration.secret });
  // The paid line is a comment to uncomment later; here it runs in the same shell.
  const both = `${shell}\n${shell.split("\n").at(-1)!.replace(/^# /, "")}`;
  // Asynchronously: the server answering curl runs in this process.
  const { stdout } = await promisify(execFile)("bash", ["-c", both], { encoding: "utf8", timeout: 20_000 });
  const output = stdout.trim().split("\n");
  const [checkout, paid] = output.map((line) => JSON.parse(line) as { data: { result: string; order_id: string } });
  expect(checkout!.data).toMatchObject({ result: "applied" });
  expect(paid!.data).toMatchObject({ result: "applied", order_id: checkout!.data.order_id });
  const [row] = await database.db.select().from(orders).where(eq(orders.id, checkout!.data.order_id));
  expect(row).toMatchObject({ reference: "#TEST", customerNumber: "+14155550100", totalMinor: 5990, consentGiven: true, status: "paid_without_call", paidMinor: 5990 });
});
