/**
 * GET /api/dashboard/'s campaigns: how many run, and the running, scheduled and paused campaigns (at
 * most 5, running first) with their counts, progress and next window; drafts and finished ones are
 * left out, and so is every other organisation's.
 */
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_CAMPAIGNS_MAX, type Dashboard } from "../../contract/dashboard";
import type { Database } from "../../server/db/client";
import { campaignContacts, campaigns as campaignsTable } from "../../server/db/schema";
import { act, campaignBody, campaignOrg, createCampaign, importJson, type CampaignOrg } from "./campaigns-fixtures";
import { dashboard } from "./dashboard-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: CampaignOrg;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  org = await campaignOrg(app, database.db, "Dialling Ltd");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function campaignIn(state: "draft" | "running" | "scheduled" | "paused" | "cancelled", name: string, contacts = 2): Promise<string> {
  const startAt = state === "scheduled" ? new Date(Date.now() + 86_400_000).toISOString() : null;
  const campaign = await createCampaign(app, org.memberToken, campaignBody(org, { name, schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "00:00", end: "24:00" }], fallback_timezone: "UTC", start_at: startAt } }));
  await importJson(app, org.memberToken, campaign.id, Array.from({ length: contacts }, (_, i) => ({ number: `+1212555${String(2000 + i)}` })));
  if (state !== "draft") await act(app, org.memberToken, campaign.id, state === "cancelled" ? "cancel" : "start");
  if (state === "paused") await act(app, org.memberToken, campaign.id, "pause");
  return campaign.id;
}

describe("the dashboard's campaigns", () => {
  it("an organisation without campaigns has none", async () => {
    const empty = await campaignOrg(app, database.db);
    expect((await dashboard(app, empty.memberToken)).campaigns).toEqual({ running: 0, items: [] });
  });

  it("lists running, scheduled and paused campaigns (running first) with counts, progress and next window; at most 5", async () => {
    await campaignIn("draft", "Draft");
    await campaignIn("cancelled", "Cancelled");
    const paused = await campaignIn("paused", "Paused");
    const scheduled = await campaignIn("scheduled", "Scheduled");
    const running = await campaignIn("running", "Running", 4);
    // Half of the running campaign's contacts are done.
    const contacts = await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, running)).orderBy(campaignContacts.position);
    await database.db.update(campaignContacts).set({ status: "answered", outcome: "answered", attempts: 1 }).where(eq(campaignContacts.id, contacts[0]!.id));
    await database.db.update(campaignContacts).set({ status: "dnc" }).where(eq(campaignContacts.id, contacts[1]!.id));
    await database.db.update(campaignContacts).set({ status: "in_progress", attempts: 1 }).where(eq(campaignContacts.id, contacts[2]!.id));

    const { campaigns }: Dashboard = await dashboard(app, org.memberToken);
    expect(campaigns.running).toBe(1);
    expect(campaigns.items.map((item) => [item.name, item.status])).toEqual([
      ["Running", "running"],
      ["Scheduled", "scheduled"],
      ["Paused", "paused"],
    ]);
    expect(campaigns.items[0]).toEqual({
      id: running,
      name: "Running",
      status: "running",
      counts: { total: 4, queued: 1, in_progress: 1, answered: 1, busy: 0, no_answer: 0, voicemail: 0, failed: 0, dnc: 1, needs_timezone: 0, cancelled: 0 },
      progress: 0.5,
      next_window_at: null,
      pause_code: null,
      pause_reason: null,
    });
    expect(campaigns.items[1]).toMatchObject({ id: scheduled, progress: 0, next_window_at: expect.any(String) });
    expect(Date.parse(campaigns.items[1]!.next_window_at!)).toBeGreaterThan(Date.now());
    expect(campaigns.items[2]).toMatchObject({ id: paused, counts: { total: 2, queued: 2 }, pause_code: "manual" });

    // The dialler's own pause says why on the dashboard, as on the campaign.
    const reason = "The wallet balance ($0.40) is below the minimum of $1.00: add funds, then resume.";
    await database.db.update(campaignsTable).set({ pauseCode: "wallet", pauseReason: reason }).where(eq(campaignsTable.id, paused));
    expect((await dashboard(app, org.memberToken)).campaigns.items[2]).toMatchObject({ id: paused, pause_code: "wallet", pause_reason: reason });
    expect((await dashboard(app, org.memberToken)).campaigns.items[0]).toMatchObject({ id: running, pause_code: null, pause_reason: null });

    for (let i = 0; i < DASHBOARD_CAMPAIGNS_MAX; i++) await campaignIn("running", `More ${i}`, 1);
    const more = (await dashboard(app, org.adminToken)).campaigns;
    expect(more.running).toBe(6);
    expect(more.items).toHaveLength(DASHBOARD_CAMPAIGNS_MAX);
    expect(more.items.every((item) => item.status === "running")).toBe(true);

    const elsewhere = await campaignOrg(app, database.db);
    expect((await dashboard(app, elsewhere.adminToken)).campaigns).toEqual({ running: 0, items: [] });
  });
});
