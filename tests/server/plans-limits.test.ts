/**
 * Plan limits (issue 15): each limit refuses the next thing with 403 plan_limit_reached and the
 * sentence naming the limit and the plan that lifts it; requests at once let exactly the limit through;
 * a downgrade keeps what exists and refuses new things. Run on PostgreSQL too (TEST_DATABASE_URL).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planLimitDetail, type PlanId } from "../../contract/plans";
import type { Database } from "../../server/db/client";
import { agents, billingAccounts, calls, campaignContacts, invitations, phoneNumbers } from "../../server/db/schema";
import { addPhoneNumber, createAgent, newOrganisation } from "./calls-fixtures";
import { api, campaignBody, createCampaign, type CampaignOrg } from "./campaigns-fixtures";
import { bearer, buildTestApp, invite, migratedDatabase, uniqueEmail } from "./helpers";
import { lockOrganisationForCalls } from "../../server/wallet/wallet";

const ENV = {
  DEFAULT_PLAN: "free",
  STARTING_CREDIT_USD: "1000",
  CALL_HOLD_USD: "0",
  SANDBOX_CALL_SECONDS: "60",
  PUBLIC_CALL_PER_IP_PER_MINUTE: "1000",
  PUBLIC_CALL_PER_NUMBER_PER_HOUR: "1000",
  RATE_LIMIT_PER_MINUTE: "100000",
};

let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  app = (await buildTestApp(database, ENV)).app;
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function setPlan(orgId: string, plan: PlanId): Promise<void> {
  await database.db.insert(billingAccounts).values({ orgId, plan }).onConflictDoUpdate({ target: billingAccounts.orgId, set: { plan } });
}

function expectPlanLimit(response: { statusCode: number; json(): unknown; body: string }, key: Parameters<typeof planLimitDetail>[0], plan: PlanId) {
  expect(response.statusCode, response.body).toBe(403);
  expect(response.json()).toEqual({ code: "plan_limit_reached", detail: planLimitDetail(key, plan) });
}

const countRows = async (table: typeof agents | typeof phoneNumbers, orgId: string) => (await database.db.select().from(table).where(eq(table.orgId, orgId))).length;

describe("plan limits", () => {
  it("agents: Free allows 2; the third (created or cloned) is refused and nothing is written", async () => {
    const org = await newOrganisation(app);
    await createAgent(app, org.token, { agent_name: "One" });
    await createAgent(app, org.token, { agent_name: "Two" });
    const third = await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(org.token), payload: { agent_name: "Three" } });
    expectPlanLimit(third, "agents", "free");
    expect(third.json().detail).toBe("Your Free plan allows 2 agents. Upgrade to Starter for 10 agents.");
    expect(await countRows(agents, org.orgId)).toBe(2);

    // A clone through another organisation's shared link counts as a new agent too.
    const owner = await newOrganisation(app);
    await setPlan(owner.orgId, "enterprise");
    const shared = await createAgent(app, owner.token, { agent_name: "Shared", clone_enabled: true } as Record<string, unknown>);
    const key = (shared as unknown as { clone_key?: string | null }).clone_key;
    expect(key).toBeTruthy();
    {
      const clone = await app.inject({ method: "GET", url: `/api/agent/${shared.id}/clone?key=${encodeURIComponent(key!)}`, headers: bearer(org.token) });
      expectPlanLimit(clone, "agents", "free");
      expect(await countRows(agents, org.orgId)).toBe(2);
    }
  });

  it("agents: requests at once let exactly the limit through (Starter: 10)", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) => app.inject({ method: "POST", url: "/api/agent/", headers: bearer(org.token), payload: { agent_name: `A${i}` } })),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(10);
    for (const refused of answers.filter((a) => a.statusCode !== 201)) expectPlanLimit(refused, "agents", "starter");
    expect(await countRows(agents, org.orgId)).toBe(10);
  });

  it("phone numbers: Free allows 1, also when two are asked for at once", async () => {
    const org = await newOrganisation(app);
    const add = (i: number) => app.inject({ method: "POST", url: "/api/phonenumber/", headers: bearer(org.token), payload: { name: `Line ${i}`, provider: "byo", number: `+1415555${2000 + i}` } });
    const answers = await Promise.all([0, 1, 2].map(add));
    expect(answers.filter((a) => a.statusCode === 201), answers.map((a) => a.body).join("\n")).toHaveLength(1);
    for (const refused of answers.filter((a) => a.statusCode !== 201)) expectPlanLimit(refused, "phone_numbers", "free");
    expect(await countRows(phoneNumbers, org.orgId)).toBe(1);
  });

  it("seats: members plus pending invitations; Free allows 2 (the admin and one invitation); refreshing that invitation is fine", async () => {
    const org = await newOrganisation(app);
    const first = uniqueEmail("seat");
    expect((await invite(app, org.token, org.orgId, { email_address: first })).statusCode).toBe(200);
    expect((await invite(app, org.token, org.orgId, { email_address: first })).statusCode).toBe(200);
    expectPlanLimit(await invite(app, org.token, org.orgId, { email_address: uniqueEmail("seat") }), "seats", "free");
    const pending = await database.db.select().from(invitations).where(eq(invitations.orgId, org.orgId));
    expect(pending).toHaveLength(1);
  });

  it("seats: invitations at once let exactly the free seats through (Starter: 5 = admin + 4)", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    const answers = await Promise.all(Array.from({ length: 8 }, () => invite(app, org.token, org.orgId, { email_address: uniqueEmail("many") })));
    expect(answers.filter((a) => a.statusCode === 200), answers.map((a) => a.body).join("\n")).toHaveLength(4);
    for (const refused of answers.filter((a) => a.statusCode !== 200)) expectPlanLimit(refused, "seats", "starter");
  });

  it("campaign contacts: an import past the plan's limit is refused whole; imports at once cannot pass it together", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    const agent = await createAgent(app, org.token, { agent_name: "Caller" });
    const phoneNumberId = await addPhoneNumber(database.db, org.orgId);
    await setPlan(org.orgId, "free");
    const campaignOrgShape = { orgId: org.orgId, adminToken: org.token, memberToken: org.token, agentId: agent.id, phoneNumberId } satisfies CampaignOrg;
    const campaign = await createCampaign(app, org.token, campaignBody(campaignOrgShape));
    const contacts = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ number: `+1212555${String(from + i).padStart(4, "0")}` }));

    const ok = await api(app, org.token, "POST", `/campaign/${campaign.id}/contacts`, { contacts: contacts(0, 40) });
    expect(ok.statusCode, ok.body).toBe(200);
    const over = await api(app, org.token, "POST", `/campaign/${campaign.id}/contacts`, { contacts: contacts(100, 11) });
    expectPlanLimit(over, "campaign_contacts", "free");
    // Two imports of 10 at once: exactly one fits (40 + 10 = 50).
    const both = await Promise.all([200, 300].map((from) => api(app, org.token, "POST", `/campaign/${campaign.id}/contacts`, { contacts: contacts(from, 10) })));
    expect(both.map((a) => a.statusCode).sort()).toEqual([200, 403]);
    const stored = await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaign.id));
    expect(stored).toHaveLength(50);
  });

  it("concurrent calls: calls at once let exactly the plan's limit through (Starter: 5); a refused call writes nothing", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    const agent = await createAgent(app, org.token, { agent_name: "Dialler" });
    const phoneNumberId = await addPhoneNumber(database.db, org.orgId);
    const place = (i: number) =>
      app.inject({ method: "POST", url: "/api/call/", headers: bearer(org.token), payload: { agent_id: agent.id, phone_number_id: phoneNumberId, customer_number: `+1415555${3000 + i}` } });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => place(i)));
    const placed = answers.filter((a) => a.statusCode < 300);
    expect(placed, answers.map((a) => a.body).join("\n")).toHaveLength(5);
    for (const refused of answers.filter((a) => a.statusCode >= 300)) expectPlanLimit(refused, "concurrent_calls", "starter");
    expect(await database.db.select().from(calls).where(eq(calls.orgId, org.orgId))).toHaveLength(5);

    // A call left unended beyond the hold window stops counting; an ended one never counts.
    // The organisation's row first, as every writer of calls takes it (lockOrganisationForCalls): the sandbox's
    // webhooks for these calls take it and then a call's row, so taking the calls' rows first deadlocked with them on PostgreSQL.
    await database.db.transaction(async (tx) => {
      await lockOrganisationForCalls(tx, org.orgId);
      await tx.update(calls).set({ status: "ended", endedAt: new Date() }).where(eq(calls.orgId, org.orgId));
    });
    expect((await place(99)).statusCode).toBeLessThan(300);
  });

  it("enterprise has no plan limit on calls or agents", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "enterprise");
    for (let i = 0; i < 4; i++) await createAgent(app, org.token, { agent_name: `E${i}` });
    expect(await countRows(agents, org.orgId)).toBe(4);
  });

  it("a downgrade keeps what exists and refuses new things; the subscription lists what is over", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    for (let i = 0; i < 4; i++) await createAgent(app, org.token, { agent_name: `D${i}` });
    await setPlan(org.orgId, "free");
    expect(await countRows(agents, org.orgId)).toBe(4);
    const list = await app.inject({ method: "GET", url: "/api/agent/", headers: bearer(org.token) });
    expect(list.json().total).toBe(4);
    expectPlanLimit(await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(org.token), payload: { agent_name: "New" } }), "agents", "free");
    const subscription = await app.inject({ method: "GET", url: "/api/subscription/", headers: bearer(org.token) });
    expect(subscription.statusCode, subscription.body).toBe(200);
    expect(subscription.json().data.over_limits).toEqual([{ limit: "agents", usage: 4, allowed: 2 }]);
    // Editing what exists still works.
    const first = list.json().data[0];
    const edit = await app.inject({ method: "PUT", url: `/api/agent/${first.id}`, headers: bearer(org.token), payload: { agent_name: "Renamed" } });
    expect(edit.statusCode, edit.body).toBe(200);
  });

  it("a past-due subscription keeps its plan during the grace days, then counts as Free", async () => {
    const org = await newOrganisation(app);
    await database.db.insert(billingAccounts).values({ orgId: org.orgId, plan: "starter", subscriptionStatus: "past_due", pastDueSince: new Date(Date.now() - 2 * 86_400_000), subscriptionId: `sub_${randomUUID()}` });
    for (let i = 0; i < 3; i++) await createAgent(app, org.token, { agent_name: `G${i}` });
    await database.db.update(billingAccounts).set({ pastDueSince: new Date(Date.now() - 8 * 86_400_000) }).where(eq(billingAccounts.orgId, org.orgId));
    expectPlanLimit(await app.inject({ method: "POST", url: "/api/agent/", headers: bearer(org.token), payload: { agent_name: "Late" } }), "agents", "free");
  });
});

describe("the campaign dialler and max_concurrency follow the plan", () => {
  it("a Starter organisation's campaign may not ask for more than 5 at once; enterprise's for up to ORG_CONCURRENT_CALLS", async () => {
    const org = await newOrganisation(app);
    await setPlan(org.orgId, "starter");
    const agent = await createAgent(app, org.token, { agent_name: "Caller" });
    const phoneNumberId = await addPhoneNumber(database.db, org.orgId);
    const shape = { orgId: org.orgId, adminToken: org.token, memberToken: org.token, agentId: agent.id, phoneNumberId } satisfies CampaignOrg;
    const refused = await api(app, org.token, "POST", "/campaign/", { ...campaignBody(shape), max_concurrency: 6 });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().detail).toMatch(/max_concurrency: may be at most 5/);
    const campaign = await createCampaign(app, org.token, { ...campaignBody(shape), max_concurrency: 5 });
    expect(campaign.concurrency_limit).toBe(5);
  });

  it("only fills the plan's free places: a Free organisation with a call on the line places none, then one", async () => {
    const { campaignWorld, createCampaign: runningCampaign, addContacts, numbers, diallerFor, callsOf } = await import("./dialler-fixtures");
    const world = await campaignWorld(app, database.db, "Free dialler");
    // One call already on the line (Free allows 1 at once).
    await database.db.insert(calls).values({ id: randomUUID(), orgId: world.org.orgId, type: "outbound", status: "in-progress", startedAt: new Date() });
    const campaignId = await runningCampaign(world, { maxConcurrency: 3 });
    await addContacts(world, campaignId, numbers(4, "77"));
    const dialler = diallerFor(app);
    try {
      await dialler.tick();
      expect(await callsOf(database.db, campaignId)).toHaveLength(0);
      await database.db.update(calls).set({ status: "ended", endedAt: new Date() }).where(eq(calls.orgId, world.org.orgId));
      await dialler.tick();
      expect(await callsOf(database.db, campaignId)).toHaveLength(1);
    } finally {
      await dialler.stop();
    }
  });
});

describe("better-auth's own invitation endpoint", () => {
  it("is closed: invitations go through POST /organization/{id}/invite, which counts seats", async () => {
    const org = await newOrganisation(app);
    const response = await app.inject({
      method: "POST",
      url: "/api/auth/organization/invite-member",
      headers: bearer(org.token),
      payload: { email: uniqueEmail("bypass"), role: "member", organizationId: org.orgId },
    });
    expect(response.statusCode).toBe(404);
    expect(await database.db.select().from(invitations).where(eq(invitations.orgId, org.orgId))).toHaveLength(0);
  });
});

describe("the sandbox web call passes the call gate", () => {
  it("a Free organisation with a call on the line is refused (403 plan_limit_reached) and nothing is recorded", async () => {
    const org = await newOrganisation(app);
    const agent = await createAgent(app, org.token, { agent_name: "Web" });
    const made = await app.inject({ method: "POST", url: "/api/webcall/", headers: bearer(org.token), payload: { agent_id: agent.id, call_title: "Hello", recipient_name: "Ada" } });
    expect(made.statusCode, made.body).toBe(201);
    const slug = (made.json().data as { slug: string }).slug;
    await database.db.insert(calls).values({ id: randomUUID(), orgId: org.orgId, type: "outbound", status: "in-progress", startedAt: new Date() });
    const refused = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} });
    expectPlanLimit(refused, "concurrent_calls", "free");
    expect(await database.db.select().from(calls).where(eq(calls.orgId, org.orgId))).toHaveLength(1);
  });
});
