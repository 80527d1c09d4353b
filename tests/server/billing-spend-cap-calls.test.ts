/**
 * N concurrent POST /api/call/ against a spend cap with room for K calls: exactly K are placed, the
 * others answer 403 spend_cap_reached with the cap's sentence. The cap is checked in reserveCall's
 * transaction under the organisation's row lock by server/billing/call-gate.ts gateCall, which every
 * caller of reserveCall passes. Run it with TEST_DATABASE_URL for PostgreSQL, where the requests truly race.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { addPhoneNumber, createAgent, newOrganisation } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";


let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  // Calls stay on the line for the whole test: each holds $1 and none is debited meanwhile.
  ({ app } = await buildTestApp(database, { CALL_HOLD_USD: "1", STARTING_CREDIT_USD: "100", SANDBOX_CALL_SECONDS: "120" }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("spend caps on POST /api/call/", () => {
  it("8 requests at once against a daily cap with room for 3: exactly 3 are placed, 5 answer 403 spend_cap_reached", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Race desk" });
    const phoneNumberId = await addPhoneNumber(database.db, org.orgId);
    const put = await app.inject({ method: "PUT", url: "/api/billing/spend-caps", headers: bearer(org.token), payload: { caps: [{ scope: "organization", period: "day", limit_usd: 3.5 }] } });
    expect(put.statusCode, put.body).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.inject({ method: "POST", url: "/api/call/", headers: bearer(org.token), payload: { agent_id: agent.id, phone_number_id: phoneNumberId, customer_number: `+1415555${String(100 + i).padStart(4, "0")}` } }),
      ),
    );
    expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(3);
    const refused = answers.filter((answer) => answer.statusCode === 403);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.json()).toMatchObject({ code: "spend_cap_reached" });
      expect((answer.json() as { detail: string }).detail).toMatch(/^This call would pass the organisation's daily spend cap of \$3\.50 \(\$0\.00 spent today\)\. It resets at midnight \(UTC\), in .+\.$/);
    }
  });
});
