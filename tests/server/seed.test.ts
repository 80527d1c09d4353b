import { randomBytes } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { agents, calls, campaignContacts, campaignEvents, campaigns, dncNumbers, orderEvents, orderFollowUps, orders, organizations, phoneNumbers, storeIntegrations, storeWebhookDeliveries, walletLedger, wallets } from "../../server/db/schema";
import { ORDER_STATUSES } from "../../contract/order-shared";
import { openStoreSecret } from "../../server/orders/integrations";
import { generateDemoCampaigns } from "../../server/seed/demo-campaigns";
import { FINAL_CONTACT_STATUSES, type Campaign } from "../../contract/campaign";
import { seedDemo } from "../../server/seed/demo";
import { createSecretBox } from "../../server/crypto/credentials";
import { DEMO_CALL_COUNT, UNANSWERED_REASONS, generateDemoData, type DemoDataSummary } from "../../server/seed/demo-calls";
import { successOutcome } from "../../contract/success-outcome";
import { storedConfig } from "../../server/agents/repository";
import { expectRollupMatchesCalls } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase, signIn, testConfig } from "./helpers";

const NOW = new Date("2026-06-15T18:00:00.000Z");
/** The app's secret box stands in here: the demo store's secret is sealed with it. */
const box = createSecretBox(randomBytes(32));
const DAY = 86_400_000;

describe("demo data", () => {
  let database: Database;
  let orgId: string;
  let summary: DemoDataSummary | null = null;
  const printed: string[] = [];

  beforeAll(async () => {
    database = await migratedDatabase();
    const config = testConfig({ SEED_DEMO: "true" });
    const seeded = await seedDemo(database.db, config, { now: NOW, box, print: (line) => printed.push(line), onDemoData: (value) => (summary = value) });
    expect(seeded).not.toBeNull();
    const [org] = await database.db.select().from(organizations);
    orgId = org!.id;
  }, 60_000);

  afterAll(async () => {
    await database?.close();
  });

  it("gives the demo organisation 3 agents, 3 numbers (one default, each answered) and 2,000 calls over 90 days", async () => {
    const db = database.db;
    const agentRows = await db.select().from(agents).where(eq(agents.orgId, orgId));
    expect(agentRows.map((row) => row.name).sort()).toEqual(["Appointment Setter", "Customer Support Agent", "Purchase Completion Agent"]);
    expect(agentRows.every((row) => row.providerAssistantId === null)).toBe(true);

    const numbers = await db.select().from(phoneNumbers).where(eq(phoneNumbers.orgId, orgId));
    expect(numbers).toHaveLength(3);
    expect(numbers.filter((row) => row.isDefault)).toHaveLength(1);
    expect(numbers.every((row) => row.agentId !== null && row.providerNumberId === null)).toBe(true);

    const callRows = await db.select().from(calls).where(eq(calls.orgId, orgId));
    expect(callRows).toHaveLength(DEMO_CALL_COUNT);
    expect(callRows.every((row) => row.isSandbox)).toBe(true);
    expect(callRows.every((row) => row.startedAt.getTime() >= NOW.getTime() - 90 * DAY && row.startedAt.getTime() <= NOW.getTime())).toBe(true);
    expect(new Set(callRows.map((row) => row.type))).toEqual(new Set(["outbound", "inbound", "web"]));
    const inProgress = callRows.filter((row) => row.status === "in-progress");
    expect(inProgress.length).toBeGreaterThan(0);
    expect(inProgress.every((row) => row.endedAt === null && row.costMicros === null && NOW.getTime() - row.startedAt.getTime() < DAY)).toBe(true);
    const reasons = new Set(callRows.map((row) => row.endedReason));
    for (const reason of ["customer-ended-call", "assistant-ended-call", "customer-did-not-answer", "customer-busy", "voicemail", "silence-timed-out", "exceeded-max-duration"]) {
      expect(reasons).toContain(reason);
    }
    expect([...reasons].some((reason) => reason?.startsWith("pipeline-error-"))).toBe(true);

    expect(summary).toMatchObject({ agents: 3, numbers: 3, calls: DEMO_CALL_COUNT });
    expect(printed).toEqual([expect.stringMatching(/^demo data: 3 agents, 3 numbers, 2,000 calls/)]);
  });

  it("keeps calls consistent: unanswered calls cost nothing and have no transcript; answered ones have all parts", async () => {
    const callRows = await database.db.select().from(calls).where(eq(calls.orgId, orgId));
    for (const row of callRows.filter((call) => call.status === "ended")) {
      if ((UNANSWERED_REASONS as readonly string[]).includes(row.endedReason ?? "")) {
        expect(row).toMatchObject({ costMicros: 0, transcript: null, summary: null, messages: [] });
        expect(row.type).toBe("outbound");
      } else {
        expect(row.costMicros).toBeGreaterThan(0);
        expect(row.transcript).toBeTruthy();
        expect(row.summary).toBeTruthy();
        expect(row.successEvaluation).toBeTruthy();
        expect((row.messages ?? []).length).toBeGreaterThan(0);
        expect((row.costBreakdown as { total: number }).total).toBeCloseTo((row.costMicros ?? 0) / 1_000_000, 6);
        expect(row.durationSeconds).toBeGreaterThan(0);
        expect(row.endedAt!.getTime()).toBeGreaterThan(row.startedAt.getTime());
      }
      if (row.type === "web") expect(row.customerNumber).toBeNull();
      else expect(row.customerNumber).toMatch(/^\+[1-9]\d{7,14}$/);
    }
  });

  it("counts each evaluation as pass or fail under its agent's rubric, and keeps call_daily_stats equal to the calls", async () => {
    const db = database.db;
    const rubrics = new Map((await db.select().from(agents).where(eq(agents.orgId, orgId))).map((row) => [row.id, storedConfig(row).analysis_plan.success_evaluation_rubric]));
    const callRows = await db.select().from(calls).where(eq(calls.orgId, orgId));
    for (const row of callRows) expect(row.successOutcome).toBe(successOutcome(row.successEvaluation, rubrics.get(row.agentId ?? "") ?? null));
    const counted = callRows.map((row) => row.successOutcome);
    expect(counted).toContain("pass");
    expect(counted).toContain("fail");
    const rollup = await expectRollupMatchesCalls(db, orgId);
    expect(rollup.length).toBeGreaterThan(90);
  });

  it("debits every paid call once; the balance is the ledger's sum and stays positive", async () => {
    const db = database.db;
    const ledger = await db.select().from(walletLedger).where(eq(walletLedger.orgId, orgId)).orderBy(asc(walletLedger.createdAt));
    const [wallet] = await db.select().from(wallets).where(eq(wallets.orgId, orgId));
    const sum = ledger.reduce((total, entry) => total + entry.amountMicros, 0);
    expect(wallet!.balanceMicros).toBe(sum);
    expect(sum).toBeGreaterThan(0);
    let running = 0;
    for (const entry of ledger) {
      running += entry.amountMicros;
      expect(running).toBeGreaterThanOrEqual(0);
    }
    const [paid] = await db.select({ n: sql<number>`count(*)::int`, total: sql<number>`coalesce(sum(${calls.costMicros}), 0)::bigint` }).from(calls).where(sql`${calls.orgId} = ${orgId} and ${calls.costMicros} > 0`);
    const debits = ledger.filter((entry) => entry.kind === "call");
    expect(debits).toHaveLength(paid!.n);
    expect(-debits.reduce((total, entry) => total + entry.amountMicros, 0)).toBe(Number(paid!.total));
  });

  it("is reproducible: the same seed and clock give the same rows, ids included", async () => {
    const input = { orgId, createdBy: "user", now: NOW, startingCreditMicros: 10_000_000 };
    const first = generateDemoData(input);
    const second = generateDemoData(input);
    expect(second).toEqual(first);
    const stored = await database.db.select({ id: calls.id }).from(calls).where(eq(calls.orgId, orgId)).orderBy(asc(calls.id));
    expect(stored.map((row) => row.id)).toEqual(first.calls.map((row) => row.id).sort());
    expect(generateDemoData({ ...input, seed: 7 }).calls[0]!.id).not.toBe(first.calls[0]!.id);
  });

  it("leaves the planner fresh statistics, so the call list plans for 2,000 calls, not a guess", async () => {
    const result = (await database.db.execute("select reltuples::int as n from pg_class where relname = 'calls'")) as unknown as { rows: { n: number }[] };
    expect(result.rows[0]?.n).toBe(2000);
  });

  it("runs once: a second start-up seeds nothing", async () => {
    expect(await seedDemo(database.db, testConfig({ SEED_DEMO: "true" }))).toBeNull();
    const [count] = await database.db.select({ n: sql<number>`count(*)::int` }).from(calls);
    expect(count!.n).toBe(DEMO_CALL_COUNT);
  });

  it("gives the demo one completed and one paused campaign made of its own outbound calls, contacts matching their calls", async () => {
    const db = database.db;
    // The campaigns people made (the order follow-up is a campaign of another kind: see "the demo store" below).
    const campaignRows = await db.select().from(campaigns).where(and(eq(campaigns.orgId, orgId), eq(campaigns.kind, "campaign"))).orderBy(asc(campaigns.createdAt));
    expect(campaignRows.map((row) => [row.name, row.status, row.pauseCode])).toEqual([
      ["Autumn cart recovery", "completed", null],
      ["Holiday offers follow-up", "paused", "manual"],
    ]);
    expect(campaignRows[1]!.pauseReason).toBe("Paused by Demo Admin");
    const [sales] = await db.select().from(agents).where(sql`${agents.orgId} = ${orgId} and ${agents.name} = 'Purchase Completion Agent'`);
    const ids = new Set(campaignRows.map((row) => row.id));
    const contacts = (await db.select().from(campaignContacts).where(eq(campaignContacts.orgId, orgId))).filter((contact) => ids.has(contact.campaignId));
    const campaignCalls = (await db.select().from(calls).where(sql`${calls.orgId} = ${orgId} and ${calls.campaignId} is not null`).orderBy(asc(calls.startedAt))).filter((call) => ids.has(call.campaignId!));
    expect(campaignCalls.length).toBeGreaterThan(10);
    for (const row of campaignRows) {
      const own = contacts.filter((contact) => contact.campaignId === row.id);
      expect(own.length, row.name).toBeGreaterThan(5);
      expect(own.map((contact) => contact.position).sort((a, b) => a - b)).toEqual(own.map((_, index) => index + 1));
      expect(new Set(own.map((contact) => contact.number)).size).toBe(own.length);
      if (row.status === "completed") expect(own.every((contact) => FINAL_CONTACT_STATUSES.includes(contact.status as never))).toBe(true);
      else expect(own.filter((contact) => contact.status === "queued").length).toBeGreaterThan(10);
    }
    const retrying = (outcome: string | null, attempts: number) => ["busy", "no_answer", "voicemail"].includes(outcome ?? "") && attempts < 3;
    for (const contact of contacts) {
      const own = campaignCalls.filter((call) => call.campaignContactId === contact.id);
      if (contact.status === "queued" && contact.attempts === 0) {
        expect(own).toEqual([]);
        continue;
      }
      const last = own.at(-1)!;
      expect(own.every((call) => call.campaignId === contact.campaignId && call.status === "ended" && call.customerNumber === contact.number && call.type === "outbound" && call.agentId === sales!.id)).toBe(true);
      expect({ attempts: contact.attempts, lastCallId: contact.lastCallId, outcome: contact.outcome, status: contact.status, lastEndedReason: contact.lastEndedReason }).toEqual({
        attempts: own.length,
        lastCallId: last.id,
        outcome: last.outcome,
        // A retry still owed waits in the paused campaign and was cut off by the completed one's stop time.
        status: retrying(last.outcome, own.length) ? (campaignRows.find((row) => row.id === contact.campaignId)!.status === "paused" ? "queued" : "cancelled") : last.outcome,
        lastEndedReason: last.endedReason,
      });
      if (contact.status === "queued") expect(contact.notBefore!.getTime()).toBe(last.endedAt!.getTime() + 60 * 60_000);
      // Every attempt but the last ended in an outcome the campaign retries.
      expect(own.slice(0, -1).every((call) => ["busy", "no_answer", "voicemail"].includes(call.outcome ?? ""))).toBe(true);
    }
    expect(contacts.some((contact) => contact.attempts > 1)).toBe(true);
    // Every campaign call belongs to a contact of its campaign.
    const contactIds = new Set(contacts.map((contact) => contact.id));
    expect(campaignCalls.every((call) => contactIds.has(call.campaignContactId!))).toBe(true);
    const events = await db.select().from(campaignEvents).where(eq(campaignEvents.orgId, orgId));
    expect(events.filter((event) => event.campaignId === campaignRows[0]!.id).map((event) => event.kind).sort()).toEqual(["completed", "created", "imported", "started"]);
    const dnc = (await db.select().from(dncNumbers).where(eq(dncNumbers.orgId, orgId))).filter((entry) => campaignCalls.some((call) => call.id === entry.callId));
    for (const entry of dnc) expect(campaignCalls.find((call) => call.id === entry.callId)?.customerNumber).toBe(entry.number);
    const again = generateDemoCampaigns(generateDemoData({ orgId, createdBy: "user", now: NOW, startingCreditMicros: 10_000_000 }), { orgId, createdBy: "user", createdByName: "Demo Admin", now: NOW });
    expect(again.campaigns.map((row) => row.id).sort()).toEqual(campaignRows.map((row) => row.id).sort());
  });

  it("answers the seeded numbers and calls through the API", async () => {
    const { app } = await buildTestApp(database, { SEED_DEMO: "true" });
    try {
      const token = await signIn(app, "demo@example.com", "demo-password");
      const numbers = await app.inject({ method: "GET", url: "/api/phonenumber/", headers: bearer(token) });
      expect(numbers.statusCode).toBe(200);
      const body = numbers.json() as { data: Array<{ isDefault: boolean; is_sandbox: boolean; agent_id: string | null }>; total: number };
      expect(body.total).toBe(3);
      expect(body.data[0]).toMatchObject({ isDefault: true, is_sandbox: true });
      const list = await app.inject({ method: "GET", url: "/api/call/?page=1&limit=5", headers: bearer(token) });
      expect(list.statusCode).toBe(200);
      expect((list.json() as { total: number }).total).toBe(DEMO_CALL_COUNT);
      const campaignList = (await app.inject({ method: "GET", url: "/api/campaign/", headers: bearer(token) })).json() as { data: Campaign[]; total: number };
      expect(campaignList.data.map((campaign) => [campaign.name, campaign.status, campaign.agent_name, campaign.phone_number])).toEqual([
        ["Holiday offers follow-up", "paused", "Purchase Completion Agent", "+17735550121"],
        ["Autumn cart recovery", "completed", "Purchase Completion Agent", "+17735550121"],
      ]);
      const [paused, completed] = campaignList.data;
      expect(completed!.counts.queued + completed!.counts.in_progress).toBe(0);
      expect(paused!.counts.queued).toBeGreaterThan(10);
      expect(paused!.next_window_at).toBeNull();
    } finally {
      await app.close();
    }
  });

  describe("the demo store", () => {
    const storeOf = async () => {
      const [integration] = await database.db.select().from(storeIntegrations).where(eq(storeIntegrations.orgId, orgId));
      const orderRows = await database.db.select().from(orders).where(eq(orders.orgId, orgId)).orderBy(asc(orders.abandonedAt));
      return { integration: integration!, orderRows };
    };

    it("is a generic integration marked is_demo, its secret sealed with the app's key, with orders in every status", async () => {
      const { integration, orderRows } = await storeOf();
      expect(integration).toMatchObject({ kind: "generic", name: "Demo store", isDemo: true, lastDeliveryAt: expect.any(Date) });
      const secret = openStoreSecret(box, integration);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(integration.secretHint).toBe(secret.slice(-4));
      expect(new Set(orderRows.map((row) => row.status))).toEqual(new Set(ORDER_STATUSES));
      for (const row of orderRows) {
        expect(row).toMatchObject({ integrationId: integration.id, source: "generic", currency: "USD", storeName: "Demo store", customerNumber: expect.stringMatching(/^\+1\d{10}$/) });
        expect(row.totalMinor).toBe(row.items.reduce((sum, item) => sum + item.quantity * item.price_minor, 0));
        expect(row.statusDetail).toBeTruthy();
        expect(row.consentGiven).toBe(row.status !== "no_consent");
      }
      expect(new Set(orderRows.map((row) => row.customerNumber)).size).toBe(orderRows.length);
      expect(new Set(orderRows.map((row) => row.reference)).size).toBe(orderRows.length);
      const recovered = orderRows.filter((row) => row.status === "recovered");
      expect(recovered.length).toBeGreaterThanOrEqual(3);
      for (const row of recovered) expect(row).toMatchObject({ paidMinor: row.totalMinor, recoveredMinor: row.totalMinor, callOutcome: "completed" });
    });

    it("its called orders are made of the demo's own calls, whose numbers end in the sandbox's digits for what happened and whose conversation names the order's item", async () => {
      const { orderRows } = await storeOf();
      const [followUp] = await database.db.select().from(campaigns).where(and(eq(campaigns.orgId, orgId), eq(campaigns.kind, "order_follow_up")));
      expect(followUp).toMatchObject({ name: "Order follow-up", status: "running" });
      const [settings] = await database.db.select().from(orderFollowUps).where(eq(orderFollowUps.campaignId, followUp!.id));
      expect(settings).toMatchObject({ enabled: true, integrationId: null, delayMinutes: 30, attributionDays: 7 });
      const contacts = await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, followUp!.id));
      const followUpCalls = await database.db.select().from(calls).where(eq(calls.campaignId, followUp!.id)).orderBy(asc(calls.startedAt));
      const ledger = await database.db.select().from(walletLedger).where(eq(walletLedger.orgId, orgId));
      const suffix: Record<string, string> = { recovered: "00", calling: "00", declined: "05", opted_out: "04", unreachable: "02", open: "00" };
      for (const row of orderRows) {
        const contact = contacts.find((one) => one.orderId === row.id);
        if (row.status === "no_consent") {
          expect(contact).toBeUndefined();
          continue;
        }
        expect(contact).toMatchObject({ number: row.customerNumber, name: row.customerName, variables: expect.objectContaining({ checkout_link: row.checkoutUrl, store_name: "Demo store" }) });
        const own = followUpCalls.filter((call) => call.campaignContactId === contact!.id);
        expect(own.length).toBe(contact!.attempts);
        const digits = row.status === "calling" && row.callOutcome === null ? "02" : suffix[row.status];
        if (digits && own.length > 0) expect(row.customerNumber.slice(-2), row.status).toBe(digits);
        for (const call of own) {
          expect(call).toMatchObject({ customerNumber: row.customerNumber, customerName: row.customerName, type: "outbound", status: "ended", isSandbox: true });
          expect(call.startedAt.getTime()).toBeGreaterThan(row.abandonedAt.getTime() + 30 * 60_000);
          const line = ledger.find((entry) => entry.callId === call.id);
          if (line) expect(line.description).toContain(row.customerNumber);
        }
        const last = own.at(-1);
        if (last?.outcome === "answered") {
          expect(last.transcript).toContain(row.items[0]!.name.toLowerCase());
          expect(last.transcript).toContain(`$${row.totalMinor / 100}`);
          expect((last.structuredData as { order_outcome?: string }).order_outcome).toBe(row.callOutcome);
          expect(row).toMatchObject({ reachedCallId: last.id, reachedAt: last.endedAt });
        }
        if (row.status === "unreachable") expect(own.map((call) => call.outcome)).toEqual(["no_answer", "no_answer", "no_answer"]);
        if (["open", "paid_without_call", "cancelled"].includes(row.status)) expect(own).toEqual([]);
      }
      const opted = orderRows.find((row) => row.status === "opted_out")!;
      const [listed] = await database.db.select().from(dncNumbers).where(and(eq(dncNumbers.orgId, orgId), eq(dncNumbers.number, opted.customerNumber)));
      expect(listed).toMatchObject({ source: "call", callId: opted.reachedCallId });
      const open = contacts.filter((contact) => orderRows.find((row) => row.id === contact.orderId)?.status === "open");
      expect(open.length).toBe(2);
      for (const contact of open) expect(contact).toMatchObject({ status: "queued", attempts: 0, readyAt: expect.any(Date) });
    });

    it("every order has its timeline and the deliveries the store sent, the paid ones under the ids the demo store's sweep would use", async () => {
      const { integration, orderRows } = await storeOf();
      const events = await database.db.select().from(orderEvents).where(eq(orderEvents.orgId, orgId));
      const deliveries = await database.db.select().from(storeWebhookDeliveries).where(eq(storeWebhookDeliveries.integrationId, integration.id));
      for (const row of orderRows) {
        const own = events.filter((event) => event.orderId === row.id).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
        expect(own[0]).toMatchObject({ kind: "abandoned", createdAt: row.abandonedAt });
        expect(deliveries.some((delivery) => delivery.deliveryId === `demo-abandoned-${row.id}`)).toBe(true);
        if (row.paidAt) {
          expect(own.some((event) => event.kind === "paid")).toBe(true);
          expect(deliveries.find((delivery) => delivery.deliveryId === `demo-paid-${row.id}`)).toMatchObject({ topic: "order.paid", receivedAt: row.paidAt });
        }
      }
      expect(integration.lastDeliveryAt!.getTime()).toBe(Math.max(...deliveries.map((delivery) => delivery.receivedAt.getTime())));
    });

    it("is shown by the API: the integration with its orders, and the orders with their calls", async () => {
      const { app } = await buildTestApp(database, { SEED_DEMO: "true" });
      try {
        const token = await signIn(app, "demo@example.com", "demo-password");
        const integrations = (await app.inject({ method: "GET", url: "/api/integration/", headers: bearer(token) })).json() as { data: Array<{ name: string; is_demo: boolean; orders: number; webhook_url: string }> };
        const { orderRows } = await storeOf();
        expect(integrations.data).toEqual([expect.objectContaining({ name: "Demo store", is_demo: true, orders: orderRows.length, webhook_url: expect.stringMatching(/\/api\/webhooks\/store\//) })]);
        const list = await app.inject({ method: "GET", url: "/api/order/?limit=100", headers: bearer(token) });
        expect(list.statusCode, list.body).toBe(200);
        const body = list.json() as { total: number; data: Array<{ status: string; attempts: number; last_call_id: string | null; recovered_amount: number }> };
        expect(body.total).toBe(orderRows.length);
        expect(body.data.filter((order) => order.status === "recovered").every((order) => order.attempts === 1 && order.last_call_id && order.recovered_amount > 0)).toBe(true);
      } finally {
        await app.close();
      }
    });

    it("is seeded only with the app's secret box, and only in sandbox voice mode", async () => {
      const own = await migratedDatabase();
      try {
        await seedDemo(own.db, testConfig({ SEED_DEMO: "true", VAPI_PRIVATE_KEY: "vapi-key", VAPI_PUBLIC_KEY: "vapi-public" }), { now: NOW, box });
        expect(await own.db.select().from(storeIntegrations)).toEqual([]);
        expect(await own.db.select().from(orders)).toEqual([]);
      } finally {
        await own.close();
      }
    });
  });
});
