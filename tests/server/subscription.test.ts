/**
 * /subscription routes and subscription events (issue 15), with a small fake payment provider that,
 * like the sandbox, delivers customer.subscription.updated before updateSubscription answers.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAN_ORDER, PLANS } from "../../contract/plans";
import { buildApp } from "../../server/app";
import type { PaymentEvent, PaymentProvider } from "../../server/billing/payments/types";
import { planSettings } from "../../server/billing/plan-limits";
import { applySubscriptionEvent } from "../../server/billing/subscription-events";
import type { Database } from "../../server/db/client";
import { billingAccounts, billingDocuments } from "../../server/db/schema";
import fixtures from "../../../shared/vendor/stripe/fixtures3.json" with { type: "json" };
import { createAgent, newOrganisation } from "./calls-fixtures";
import { addMember, bearer, migratedDatabase, testConfig } from "./helpers";

const fixtureSubscription = (fixtures as { resources: Record<string, Record<string, unknown>> }).resources.subscription!;
const fixtureInvoice = (fixtures as { resources: Record<string, Record<string, unknown>> }).resources.invoice!;

let database: Database;
let app: FastifyInstance;
const config = testConfig({ DEFAULT_PLAN: "free" });
const settings = planSettings(config);
const asked: Array<{ method: string; input: Record<string, unknown> }> = [];

function event(type: string, object: Record<string, unknown>): PaymentEvent {
  return { id: `evt_${randomUUID()}`, type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } };
}

function subscriptionObject(id: string, orgId: string, plan: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(fixtureSubscription), id, customer: `cus_${orgId.slice(0, 8)}`, status: "active", cancel_at_period_end: false, metadata: { org_id: orgId, plan }, current_period_end: 1_900_000_000, ...extra };
}

const apply = (e: PaymentEvent) => database.db.transaction((tx) => applySubscriptionEvent(tx, e, settings));

const fake: PaymentProvider = {
  mode: "sandbox",
  async createCustomer(input) {
    asked.push({ method: "createCustomer", input });
    return { customerId: `cus_${input.orgId.slice(0, 8)}` };
  },
  async createTopUpCheckout() {
    throw new Error("not used");
  },
  async getCheckoutSession() {
    throw new Error("not used");
  },
  async chargeOffSession() {
    throw new Error("not used");
  },
  async refund() {
    throw new Error("not used");
  },
  async createSubscriptionCheckout(input) {
    asked.push({ method: "createSubscriptionCheckout", input });
    return { sessionId: `cs_${input.nonce}`, url: `https://pay.example/cs_${input.nonce}` };
  },
  async updateSubscription(input) {
    asked.push({ method: "updateSubscription", input });
    const [row] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.subscriptionId, input.subscriptionId));
    await apply(event("customer.subscription.updated", subscriptionObject(input.subscriptionId, row!.orgId, input.plan)));
  },
  async cancelSubscription(input) {
    asked.push({ method: "cancelSubscription", input });
    const [row] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.subscriptionId, input.subscriptionId));
    await apply(event("customer.subscription.updated", subscriptionObject(input.subscriptionId, row!.orgId, row!.plan, { cancel_at_period_end: true })));
  },
  async createPortalSession(input) {
    asked.push({ method: "createPortalSession", input });
    return { url: `https://portal.example/${input.customerId}` };
  },
  verifyWebhook() {
    throw new Error("not used");
  },
};

beforeAll(async () => {
  database = await migratedDatabase();
  app = await buildApp({ config, database, logger: false, paymentProvider: fake });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

const get = (token: string, url: string) => app.inject({ method: "GET", url: `/api${url}`, headers: bearer(token) });
const post = (token: string, url: string, payload?: object) => app.inject({ method: "POST", url: `/api${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

describe("GET /subscription/plans and /subscription/", () => {
  it("lists the plans cheapest first, and a new organisation is on DEFAULT_PLAN with its usage, writing nothing", async () => {
    const org = await newOrganisation(app);
    const plans = await get(org.token, "/subscription/plans");
    expect(plans.statusCode).toBe(200);
    expect(plans.json().data.map((p: { id: string }) => p.id)).toEqual([...PLAN_ORDER]);
    await createAgent(app, org.token, { agent_name: "One" });
    const subscription = await get(org.token, "/subscription/");
    expect(subscription.statusCode, subscription.body).toBe(200);
    const data = subscription.json().data;
    expect(data.plan.id).toBe("free");
    expect(data.status).toBe("active");
    expect(data.limits).toEqual(PLANS.free.limits);
    expect(data.usage).toEqual({ concurrent_calls: 0, agents: 1, phone_numbers: 0, campaign_contacts: 0, seats: 1 });
    expect(data.over_limits).toEqual([]);
    expect(data.grace_ends_at).toBeNull();
    expect(await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId))).toHaveLength(0);
  });
});

describe("GET /subscription/preview", () => {
  it("shows the limits that change, the price difference and what would be over", async () => {
    const org = await newOrganisation(app);
    await database.db.insert(billingAccounts).values({ orgId: org.orgId, plan: "starter" });
    for (let i = 0; i < 3; i++) await createAgent(app, org.token, { agent_name: `P${i}` });
    const down = (await get(org.token, "/subscription/preview?plan=free")).json().data;
    expect(down).toMatchObject({ from: "starter", to: "free", direction: "downgrade", price_change_usd: -49, contact_sales: false });
    expect(down.changes).toContainEqual({ limit: "agents", from: 10, to: 2 });
    expect(down.over_limits).toEqual([{ limit: "agents", usage: 3, allowed: 2 }]);
    const up = (await get(org.token, "/subscription/preview?plan=enterprise")).json().data;
    expect(up).toMatchObject({ direction: "upgrade", price_change_usd: null, contact_sales: true, over_limits: [] });
    expect((await get(org.token, "/subscription/preview?plan=gold")).statusCode).toBe(400);
  });
});

describe("POST /subscription/change", () => {
  it("enterprise and the same plan are 409; members may not change", async () => {
    const org = await newOrganisation(app);
    const enterprise = await post(org.token, "/subscription/change", { plan: "enterprise" });
    expect(enterprise.statusCode).toBe(409);
    expect(enterprise.json().detail).toMatch(/sales/);
    expect((await post(org.token, "/subscription/change", { plan: "free" })).statusCode).toBe(409);
    const member = await addMember(app, org.token, org.orgId);
    const refused = await post(member.token, "/subscription/change", { plan: "starter" });
    expect(refused.statusCode).toBe(403);
    expect((await get(member.token, "/subscription/")).statusCode).toBe(200);
    expect((await post(member.token, "/subscription/portal", {})).statusCode).toBe(403);
  });

  it("a first paid plan goes through checkout; the plan changes when the events arrive; then updates and cancellation go through the provider", async () => {
    const org = await newOrganisation(app);
    const first = await post(org.token, "/subscription/change", { plan: "starter" });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data.url).toMatch(/^https:\/\/pay\.example\/cs_/);
    expect(first.json().data.subscription.plan.id).toBe("free");
    const checkout = asked.find((a) => a.method === "createSubscriptionCheckout" && a.input.orgId === org.orgId)!;
    expect(checkout.input).toMatchObject({ plan: "starter", customerId: `cus_${org.orgId.slice(0, 8)}` });

    // The checkout is paid: checkout.session.completed, then customer.subscription.created.
    const subscriptionId = `sub_${randomUUID().slice(0, 12)}`;
    expect(await apply(event("checkout.session.completed", { id: "cs_1", mode: "subscription", customer: checkout.input.customerId, subscription: subscriptionId, metadata: { org_id: org.orgId, plan: "starter" } }))).toBe(true);
    expect(await apply(event("customer.subscription.created", subscriptionObject(subscriptionId, org.orgId, "starter")))).toBe(true);
    let now = (await get(org.token, "/subscription/")).json().data;
    expect(now.plan.id).toBe("starter");
    expect(now.current_period_end).toBe(new Date(1_900_000_000_000).toISOString());

    // With a subscription: updated at the provider; the answer already shows the plan (the event came first).
    const up = await post(org.token, "/subscription/change", { plan: "pro" });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().data).toMatchObject({ url: null, subscription: { plan: { id: "pro" } } });

    // To free: cancelled at the period's end; the plan stays until the subscription is deleted.
    const down = await post(org.token, "/subscription/change", { plan: "free" });
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json().data.subscription).toMatchObject({ plan: { id: "pro" }, cancel_at_period_end: true });
    expect(asked.filter((a) => a.method === "cancelSubscription").at(-1)!.input).toMatchObject({ subscriptionId, atPeriodEnd: true });
    await apply(event("customer.subscription.deleted", subscriptionObject(subscriptionId, org.orgId, "pro", { status: "canceled" })));
    now = (await get(org.token, "/subscription/")).json().data;
    expect(now).toMatchObject({ plan: { id: "free" }, status: "canceled" });

    const portal = await post(org.token, "/subscription/portal", {});
    expect(portal.statusCode, portal.body).toBe(200);
    expect(portal.json().data.url).toBe(`https://portal.example/cus_${org.orgId.slice(0, 8)}`);
  });
});

describe("applySubscriptionEvent", () => {
  it("reads the plan from the price id when metadata has none, and past_due keeps the plan with a grace end", async () => {
    const org = await newOrganisation(app);
    const subscriptionId = `sub_${randomUUID().slice(0, 12)}`;
    await database.db.insert(billingAccounts).values({ orgId: org.orgId, plan: "free", customerId: "cus_fixture_" + org.orgId.slice(0, 6) });
    const priced = { ...settings, prices: { starter: "price_1PgafmB7WZ01zgkW6dKueIc5", pro: null } };
    const created = { ...structuredClone(fixtureSubscription), id: subscriptionId, status: "active", customer: "cus_fixture_" + org.orgId.slice(0, 6), metadata: {} };
    expect(await database.db.transaction((tx) => applySubscriptionEvent(tx, event("customer.subscription.created", created), priced))).toBe(true);
    // The fixture's period end is on its item (newer API versions).
    let [row] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId));
    expect(row).toMatchObject({ plan: "starter", subscriptionId, subscriptionStatus: "active", currentPeriodEnd: new Date(976287773 * 1000) });

    const failed = { ...structuredClone(fixtureInvoice), id: `in_${randomUUID().slice(0, 10)}`, customer: "cus_fixture_" + org.orgId.slice(0, 6), subscription: subscriptionId };
    expect(await apply(event("invoice.payment_failed", failed))).toBe(true);
    const subscription = (await get(org.token, "/subscription/")).json().data;
    expect(subscription).toMatchObject({ plan: { id: "starter" }, status: "past_due" });
    expect(Date.parse(subscription.grace_ends_at) - Date.parse(subscription.past_due_since)).toBe(7 * 86_400_000);

    // Paid: an invoice document once (the same event twice makes one), and active again.
    const paid = { ...failed, amount_paid: 4900, number: "INV-0001", hosted_invoice_url: "https://invoice.example/1" };
    expect(await apply(event("invoice.paid", paid))).toBe(true);
    expect(await apply(event("invoice.paid", paid))).toBe(true);
    const documents = await database.db.select().from(billingDocuments).where(eq(billingDocuments.orgId, org.orgId));
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ kind: "invoice", number: "INV-0001", amountMicros: 49_000_000, providerId: paid.id, url: "https://invoice.example/1" });
    [row] = await database.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.orgId));
    expect(row).toMatchObject({ subscriptionStatus: "active", pastDueSince: null });
  });

  it("does not handle events it does not know or for no organisation", async () => {
    expect(await apply(event("customer.created", { id: "cus_x" }))).toBe(false);
    expect(await apply(event("customer.subscription.updated", subscriptionObject("sub_nobody", "org_nobody", "pro", { customer: "cus_nobody" })))).toBe(false);
    expect(await apply(event("checkout.session.completed", { mode: "payment", metadata: {} }))).toBe(false);
  });
});

describe("GET /dashboard/ plan", () => {
  it("shows the plan, its status and the usage per limit", async () => {
    const org = await newOrganisation(app);
    await createAgent(app, org.token, { agent_name: "Dash" });
    const response = await get(org.token, "/dashboard/");
    expect(response.statusCode, response.body).toBe(200);
    const plan = response.json().data.plan;
    expect(plan).toMatchObject({ id: "free", name: "Free", status: "active" });
    expect(plan.usage).toContainEqual({ limit: "agents", used: 1, allowed: 2 });
    expect(plan.usage.map((u: { limit: string }) => u.limit)).not.toContain("retention_days");
  });
});

describe("the demo organisation's plan", () => {
  it("is Starter on a Free install (its data fits Starter), else DEFAULT_PLAN", async () => {
    const { seedDemo } = await import("../../server/seed/demo");
    const { overLimits, planUsage } = await import("../../server/billing/plan-limits");
    for (const [defaultPlan, expected] of [
      ["free", "starter"],
      ["pro", "pro"],
    ] as const) {
      const seeded = await migratedDatabase();
      try {
        await seedDemo(seeded.db, testConfig({ SEED_DEMO: "true", DEFAULT_PLAN: defaultPlan }));
        const [row] = await seeded.db.select().from(billingAccounts);
        expect(row).toMatchObject({ plan: expected, subscriptionStatus: "active" });
        expect(overLimits(expected, await planUsage(seeded.db, row!.orgId))).toEqual([]);
      } finally {
        await seeded.close();
      }
    }
  }, 120_000);
});
