/**
 * The campaign dialler and spend caps: a campaign whose next call would pass a cap pauses itself with
 * pause_code spend_cap, naming the cap, and places no call.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { usageDaily } from "../../server/db/schema";
import { WEBHOOK_SECRET } from "./calls-fixtures";
import { addContacts, callsOf, campaignRow, campaignWorld, createCampaign, diallerFor, eventsOf, numbers } from "./dialler-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, CALL_HOLD_USD: "1" }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("spend caps and the dialler", () => {
  it("a campaign whose next call would pass the organisation's daily cap pauses with spend_cap", async () => {
    const world = await campaignWorld(app, database.db, `Cap Co ${randomUUID().slice(0, 4)}`);
    const today = new Date().toISOString().slice(0, 10);
    await database.db.insert(usageDaily).values({ orgId: world.org.orgId, day: today, agentKey: world.agentId, calls: 3, seconds: 90, costMicros: 4_600_000, otherMicros: 4_600_000 });
    const put = await world.app.inject({ method: "PUT", url: "/api/billing/spend-caps", headers: bearer(world.org.token), payload: { caps: [{ scope: "organization", period: "day", limit_usd: 5 }] } });
    expect(put.statusCode, put.body).toBe(200);
    const campaignId = await createCampaign(world);
    await addContacts(world, campaignId, numbers(3, "00", "501"));
    const report = await diallerFor(world.app).tick();
    expect(report.paused).toEqual([campaignId]);
    const campaign = await campaignRow(database.db, campaignId);
    expect(campaign).toMatchObject({ status: "paused", pauseCode: "spend_cap" });
    expect(campaign.pauseReason).toMatch(
      /^Paused automatically: the next call would pass the organisation's daily spend cap of \$5\.00 \(\$4\.60 spent today\)\. It resets at midnight \(UTC\), in .+\. Raise the cap in Billing, or wait until it resets, then resume the campaign\.$/,
    );
    expect((await eventsOf(database.db, campaignId)).at(-1)).toMatchObject({ kind: "auto_paused", detail: campaign.pauseReason });
    expect(await callsOf(database.db, campaignId)).toEqual([]);
  });

  it("with room for two calls under the agent's cap, it places two and no more", async () => {
    const world = await campaignWorld(app, database.db, `Cap Co ${randomUUID().slice(0, 4)}`);
    const put = await world.app.inject({
      method: "PUT",
      url: "/api/billing/spend-caps",
      headers: bearer(world.org.token),
      payload: { caps: [{ scope: "agent", agent_id: world.agentId, period: "month", limit_usd: 2.5 }] },
    });
    expect(put.statusCode, put.body).toBe(200);
    const campaignId = await createCampaign(world, { maxConcurrency: 10 });
    await addContacts(world, campaignId, numbers(6, "01", "502"));
    const report = await diallerFor(world.app).tick();
    expect(report.claimed).toBe(2);
    expect((await campaignRow(database.db, campaignId)).status).toBe("running");
  });
});
