/**
 * What must happen once happens once, with two real API processes (`server/index.ts`, as production runs
 * it) on one PostgreSQL database and one Redis, in Vapi mode and Stripe mode against the local stand-ins
 * (tests/server/fakes): the guarantees are each process's and the database's, not one process taking turns.
 *
 * "At once" is made certain, not hoped for: a third connection (this test's) holds an EXCLUSIVE lock on the
 * table every racer must write, the racers are sent, and the lock is released only when PostgreSQL shows
 * every racer's connection waiting on a lock at the same time (pg_stat_activity). So each racer has read
 * what it read before any of them wrote: a check made without the row lock or without the constraint then
 * lets more than one through, and the test fails (see the mutations in README's CI section).
 *
 * - double booking: ten console bookings of one slot, five through each process → exactly one 201;
 * - the per-day limit: an agent's bookings of eight slots of one day through the booking tool, four
 *   through each process, with max_per_day 3 → exactly three appointments;
 * - a top-up credited once: Stripe's paid event delivered to both processes at once, three times each,
 *   with the member's return to /billing on both and the reconciliation sweep → one ledger credit, one
 *   receipt;
 * - a call debited once: its end reported to both processes at once → one debit; and a campaign call
 *   whose end never came is reconciled by the reaper from Vapi's record, then Vapi's own late report
 *   arrives at both processes → still one debit, and the call's record is what the provider said.
 *
 * Needs PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL): `npm run test:engines`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileTopUps } from "../../server/billing/reconcile";
import type { Database } from "../../server/db/client";
import { appointments, billingDocuments, calendars, calls, campaignContacts, phoneNumbers, walletLedger } from "../../server/db/schema";
import { ledgerRows } from "./billing-pay-fixtures";
import { newCall, toolCallsMessage } from "./booking-tools-fixtures";
import { calendarOrg, nextWeekday, at, plusMinutes, type CalendarOrg } from "./calendar-fixtures";
import { addPhoneNumber, createAgent, endOfCallReport, newOrganisation, serverMessage, statusUpdate, vapiCall, type TestOrg } from "./calls-fixtures";
import { addContacts, campaignWorld, createCampaign, type CampaignWorld } from "./dialler-fixtures";
import { postgresUnavailable, redisUnavailable, skippedBecause, TEST_DATABASE_URL, TEST_REDIS_URL } from "./engines";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { assertWalletsEqualLedgers, bearer, buildTestApp, postgresDatabase } from "./helpers";
import { freePort, startServer, waitForOutput, type ServerProcess } from "./server-process";
import { signWebhook } from "../../server/webhooks/signature";

const unavailable = (await postgresUnavailable()) ?? (await redisUnavailable());

const VAPI_SECRET = `races-vapi-${randomBytes(16).toString("hex")}`;
const STRIPE_WEBHOOK_SECRET = `whsec_races_${randomBytes(16).toString("hex")}`;
const AUTH_SECRET = randomBytes(32).toString("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe.skipIf(unavailable !== null)("two API processes on PostgreSQL and Redis: what must happen once happens once", () => {
  let database: Database;
  let url: string;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let config: Awaited<ReturnType<typeof buildTestApp>>["config"];
  let vapi: FakeVapi;
  let stripe: FakeStripe;
  let dataDir: string;
  let watcher: pg.Client;
  const servers: ServerProcess[] = [];
  const bases: string[] = [];

  /** The environment both processes (and this file's own app, which sets up the data) share. */
  const shared = (): Record<string, string> => ({
    BETTER_AUTH_SECRET: AUTH_SECRET,
    VAPI_PRIVATE_KEY: FAKE_VAPI_KEY,
    VAPI_API_URL: vapi.url,
    VAPI_WEBHOOK_SECRET: VAPI_SECRET,
    VAPI_WEBHOOK_CREDENTIAL_ID: "cred-races",
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
    DEFAULT_PLAN: "enterprise",
    STARTING_CREDIT_USD: "100",
    DIALLER_INTERVAL_MS: "100",
    DIALLER_LEASE_SECONDS: "5",
    // The sweep races below as a third participant (this file calls it at the moment it chooses).
    BILLING_SWEEP_SECONDS: "3600",
    SESSION_CACHE_SECONDS: "0",
  });

  beforeAll(async () => {
    vapi = await startFakeVapi();
    stripe = await startFakeStripe({ secretKey: "sk_test_races_fake" });
    ({ database, url, drop } = await postgresDatabase(TEST_DATABASE_URL!));
    ({ app, config } = await buildTestApp(database, shared()));
    dataDir = mkdtempSync(join(tmpdir(), "vap-races-"));
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      servers.push(startServer({ ...shared(), DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL!, PORT: String(port), DATA_DIR: dataDir, SEED_DEMO: "false" }));
      bases.push(`http://127.0.0.1:${port}`);
    }
    await Promise.all(servers.map((server) => waitForOutput(server, "Open ", 60_000)));
    watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
    await watcher?.end();
    await app?.close();
    if (database) await assertWalletsEqualLedgers(database);
    await drop?.();
    await vapi?.close();
    await stripe?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A request to process `index` (0 or 1) over HTTP. */
  async function request(index: number, method: string, path: string, token: string | null, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${bases[index]}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(payload === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(payload === undefined ? {} : { body: typeof payload === "string" ? payload : JSON.stringify(payload) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** A Vapi server message, signed as Vapi signs it, to process `index`'s webhook. */
  function vapiWebhook(index: number, body: unknown): Promise<Answer> {
    const text = JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return request(index, "POST", "/api/webhooks/vapi", null, text, { "x-timestamp": timestamp, "x-signature": signWebhook(VAPI_SECRET, timestamp, text) });
  }

  const stripeSigner = new Stripe("sk_test_signer_only");
  /** A Stripe event, signed as Stripe signs it, to process `index`'s webhook. */
  function stripeWebhook(index: number, event: Record<string, unknown>): Promise<Answer> {
    const payload = JSON.stringify(event, null, 2);
    return request(index, "POST", "/api/webhooks/stripe", null, payload, { "stripe-signature": stripeSigner.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET }) });
  }

  /**
   * Sends the racers while `table` is locked against writes, and releases it once `waiting` connections of
   * the test database wait on a lock at once (each racer has then done its reads); answers the racers'
   * results and the most connections seen waiting together. The waits are counted from another connection:
   * pg_stat_activity keeps one snapshot for a whole transaction.
   */
  async function atOnce<T>(table: string, waiting: number, racers: () => Promise<T>[]): Promise<{ results: T[]; together: number }> {
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    let together = 0;
    try {
      await blocker.query("begin");
      await blocker.query(`lock table ${table} in exclusive mode`);
      const settled = Promise.allSettled(racers());
      const deadline = Date.now() + 30_000;
      while (together < waiting && Date.now() < deadline) {
        const { rows } = await watcher.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> $1",
          [(blocker as unknown as { processID: number }).processID],
        );
        together = Math.max(together, rows[0]!.n);
        if (together < waiting) await sleep(20);
      }
      await blocker.query("commit");
      const outcomes = await settled;
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      if (failed) throw failed.reason;
      return { results: outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value), together };
    } finally {
      await blocker.end();
    }
  }

  describe("appointments", () => {
    let org: CalendarOrg;
    const zone = "America/New_York";
    beforeAll(async () => {
      org = await calendarOrg(app, zone);
      // The calendar's row exists, as it does once rules are saved: the first booking does not create it (two
      // creations at once would take turns on its unique index, which would hide a missing row lock).
      const saved = await request(0, "PUT", "/api/availability/", org.adminToken, {
        timezone: zone,
        weekly: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => ({ day, start: "08:00", end: "18:00" })),
        slot_minutes: 30,
        max_days_ahead: 60,
        max_per_day: 3,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    });

    it("ten bookings of one slot at once, five through each process: exactly one 201, nine 409 slot_taken, one appointment", async () => {
      const start = at(zone, nextWeekday(zone, "wed", 3), "14:00");
      const { results, together } = await atOnce("appointments", 10, () =>
        Array.from({ length: 10 }, (_, index) =>
          request(index % 2, "POST", "/api/appointment/", index % 4 < 2 ? org.adminToken : org.memberToken, { title: `Race ${index}`, start, end: plusMinutes(start, 30) }),
        ),
      );
      expect(together).toBe(10);
      expect(results.map((answer) => answer.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      for (const refused of results.filter((answer) => answer.status === 409)) expect(refused.body.code).toBe("slot_taken");
      const rows = await database.db.select().from(appointments).where(and(eq(appointments.orgId, org.orgId), eq(appointments.startAt, new Date(start))));
      expect(rows).toHaveLength(1);
    });

    it("the database itself refuses overlapping appointments of one calendar, whatever writes them (the exclusion constraint)", async () => {
      // Two writers that take no lock (a sync, a script, a future path): the second waits for the first, then is refused.
      const start = new Date(at(zone, nextWeekday(zone, "fri", 3), "10:00"));
      const [calendar] = await database.db.select().from(calendars).where(and(eq(calendars.orgId, org.orgId), isNull(calendars.agentId)));
      const row = (title: string, from: Date) => ({
        text: `insert into appointments (id, org_id, calendar_id, title, start_at, end_at, blocked_start, blocked_end, status, source, updated_at)
               values ($1, $2, $3, $4, $5, $6, $5, $6, 'booked', 'calendar_sync', now())`,
        values: [randomUUID(), org.orgId, calendar!.id, title, from, new Date(from.getTime() + 30 * 60_000)],
      });
      const first = new pg.Client({ connectionString: url });
      const second = new pg.Client({ connectionString: url });
      await Promise.all([first.connect(), second.connect()]);
      try {
        await first.query("begin");
        await first.query(row("First", start));
        const later = second.query(row("Overlapping", new Date(start.getTime() + 15 * 60_000))).then(
          () => "inserted",
          (error: { code?: string }) => error.code ?? "error",
        );
        await sleep(200);
        await first.query("commit");
        expect(await later).toBe("23P01");
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
    });

    it("max_per_day 3: an agent's eight bookings of one day at once, four through each process, book exactly three", async () => {
      const date = nextWeekday(zone, "thu", 3);
      const starts = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"].map((time) => at(zone, date, time));
      const agent = await createAgent(app, org.adminToken, { agent_name: "Booking desk", appointment_enable: true });
      const call = await newCall(database.db, org.orgId, agent.id, "+12125550100", "Ada Lovelace");
      const ref = { providerCallId: call.providerCallId, callId: call.callId, orgId: org.orgId, customerNumber: call.customerNumber };
      const { results, together } = await atOnce("appointments", 8, () =>
        starts.map((start, index) => vapiWebhook(index % 2, toolCallsMessage(ref, [{ name: "book_appointment", args: { start, customer_name: "Ada Lovelace" } }]))),
      );
      expect(together, JSON.stringify(results.map((answer) => answer.body)).slice(0, 1500)).toBe(8);
      for (const answer of results) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const booked = await database.db
        .select()
        .from(appointments)
        .where(and(eq(appointments.orgId, org.orgId), eq(appointments.source, "agent")));
      expect(booked).toHaveLength(3);
      const answers = results.map((answer) => String((answer.body.results as { result?: string; error?: string }[])[0]!.result ?? ""));
      expect(answers.filter((text) => /Appointment id:/.test(text))).toHaveLength(3);
    });
  });

  describe("money", () => {
    let org: TestOrg;
    beforeAll(async () => {
      org = await newOrganisation(app);
    });

    it("a top-up's paid event delivered to both processes at once (three times each), the return to /billing on both and the sweep: one credit, one receipt", async () => {
      const started = await request(0, "POST", "/api/billing/top-up", org.token, { amount_usd: 30, save_card: true });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const { top_up_id: topUpId, url: checkoutUrl } = started.body.data as { top_up_id: string; url: string };
      const sessionId = /(cs_test_\w+)$/.exec(checkoutUrl)![1]!;
      stripe.completeCheckout(sessionId);
      const event = {
        id: `evt_${randomBytes(12).toString("hex")}`,
        object: "event",
        api_version: "2025-08-27.basil",
        created: Math.floor(Date.now() / 1000),
        data: { object: stripe.checkoutSessions.get(sessionId)! },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: "checkout.session.completed",
      };
      const deps = { db: database.db, config, payments: app.payments };
      const before = await balance(org.orgId);
      // Six deliveries, two returns and the sweep: nine racers, each on a connection of its own.
      const { results, together } = await atOnce("top_ups", 9, () => [
        ...Array.from({ length: 6 }, (_, index) => stripeWebhook(index % 2, event)),
        request(0, "GET", `/api/billing/top-up/${topUpId}`, org.token),
        request(1, "GET", `/api/billing/top-up/${topUpId}`, org.token),
        reconcileTopUps(deps, { minAgeMs: 0 }).then((result) => ({ status: 200, body: result as unknown as Record<string, unknown> })),
      ]);
      expect(together).toBe(9);
      for (const answer of results) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const credits = (await ledgerRows(database.db, org.orgId)).filter((row) => row.topUpId === topUpId);
      expect(credits).toEqual([expect.objectContaining({ kind: "top-up", amount: 30_000_000, reference: `top-up:${topUpId}` })]);
      expect((await balance(org.orgId)) - before).toBe(30_000_000);
      const receipts = await database.db.select().from(billingDocuments).where(and(eq(billingDocuments.orgId, org.orgId), eq(billingDocuments.topUpId, topUpId)));
      expect(receipts).toHaveLength(1);
      const shown = await request(1, "GET", `/api/billing/top-up/${topUpId}`, org.token);
      expect(shown.body.data).toMatchObject({ status: "paid", amount_usd: 30 });
    });

    it("a call's end reported to both processes at once (status and report, three times each): one debit of the reported cost", async () => {
      const agent = await createAgent(app, org.token, { agent_name: "Races desk" });
      const phoneNumberId = await addPhoneNumber(database.db, org.orgId, { providerNumberId: `vapi-number-${randomUUID().slice(0, 8)}` });
      const placed = await request(0, "POST", "/api/call/", org.token, { agent_id: agent.id, phone_number_id: phoneNumberId, customer_number: "+14155550123", customer_name: "Ada" });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      const call = placed.body.data as { id: string; provider_call_id: string };
      const fields = { providerCallId: call.provider_call_id, callId: call.id, orgId: org.orgId, customerNumber: "+14155550123" };
      const report = endOfCallReport(fields, { cost: 0.37 });
      const ended = statusUpdate(fields, "ended", { endedReason: "customer-ended-call" });
      const before = await balance(org.orgId);
      // Each process ingests one event of an organisation at a time, so two wait in the database together.
      const { results, together } = await atOnce("wallet_ledger", 2, () => [0, 1, 0, 1, 0, 1].map((index, n) => vapiWebhook(index, n < 2 ? report : n < 4 ? ended : report)));
      expect(together).toBe(2);
      for (const answer of results) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const debits = await database.db.select().from(walletLedger).where(eq(walletLedger.callId, call.id));
      expect(debits.map((row) => row.amountMicros)).toEqual([-370_000]);
      expect(before - (await balance(org.orgId))).toBe(370_000);
      const [row] = await database.db.select().from(calls).where(eq(calls.id, call.id));
      expect(row).toMatchObject({ status: "ended", endedReason: "customer-ended-call", costMicros: 370_000, durationSeconds: 42 });
    });
  });

  describe("the reaper, then the provider's late report", () => {
    let world: CampaignWorld;
    beforeAll(async () => {
      world = await campaignWorld(app, database.db, "Late Report Ltd");
    });

    it("a campaign call whose end never came is reconciled from Vapi's record; Vapi's report arriving late at both processes debits nothing more", async () => {
      const campaignId = await createCampaign(world);
      // The world's number exists at Vapi.
      await database.db.update(phoneNumbers).set({ providerNumberId: "vapi-number-late" }).where(eq(phoneNumbers.id, world.phoneNumberId));
      const [contactId] = await addContacts(world, campaignId, ["+14155556100"]);
      // A process dials it: Vapi has the call, and sends nothing (its webhooks are lost).
      const placed = await waitUntil(async () => {
        const [row] = await database.db.select().from(calls).where(eq(calls.campaignContactId, contactId!));
        return row?.providerCallId ? row : null;
      });
      const providerCallId = placed.providerCallId!;
      const startedAt = new Date(Date.now() - 95_000).toISOString();
      const endedAt = new Date().toISOString();
      // The call ends at Vapi; its record there is the provider's word.
      const report = endOfCallReport({ providerCallId, callId: placed.id, orgId: world.org.orgId, customerNumber: "+14155556100" }, { cost: 0.58, startedAt, endedAt }).message;
      vapi.calls.set(providerCallId, {
        ...vapi.calls.get(providerCallId)!,
        status: "ended",
        endedReason: "customer-ended-call",
        startedAt,
        endedAt,
        cost: 0.58,
        costBreakdown: (report.call as { costBreakdown: unknown }).costBreakdown,
        artifact: report.artifact,
        analysis: report.analysis,
      });
      // The lease runs out (5 s) and a reaper asks Vapi, which says ended: the call is completed from Vapi's record and debited.
      const debitsAfterReaper = await waitUntil(async () => {
        const rows = await database.db.select().from(walletLedger).where(eq(walletLedger.callId, placed.id));
        return rows.length > 0 ? rows : null;
      }, 30_000);
      expect(debitsAfterReaper.map((row) => row.amountMicros)).toEqual([-580_000]);
      const [contact] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.id, contactId!));
      expect(contact).toMatchObject({ status: "answered", attempts: 1 });

      // Vapi's own report comes late, to both processes at once, twice each.
      const late = serverMessage({ ...report, call: vapiCall({ providerCallId, callId: placed.id, orgId: world.org.orgId, customerNumber: "+14155556100" }, { status: "ended", costBreakdown: (report.call as { costBreakdown: unknown }).costBreakdown }) });
      const answers = await Promise.all([0, 1, 0, 1].map((index) => vapiWebhook(index, late)));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const debits = await database.db.select().from(walletLedger).where(eq(walletLedger.callId, placed.id));
      expect(debits.map((row) => row.amountMicros)).toEqual([-580_000]);
      const [final] = await database.db.select().from(calls).where(eq(calls.id, placed.id));
      expect(final).toMatchObject({
        status: "ended",
        endedReason: "customer-ended-call",
        costMicros: 580_000,
        durationSeconds: 95,
        transcript: (report.artifact as { transcript: string }).transcript,
        summary: (report.analysis as { summary: string }).summary,
        startedAt: new Date(startedAt),
        endedAt: new Date(endedAt),
      });
    }, 90_000);
  });

  async function balance(orgId: string): Promise<number> {
    const { rows } = await watcher.query<{ balance: string }>("select balance_micros::text as balance from wallets where org_id = $1", [orgId]);
    // No wallet row yet: the starting credit (STARTING_CREDIT_USD, 100).
    return rows[0] ? Number(rows[0].balance) : 100_000_000;
  }
});

async function waitUntil<T>(check: () => Promise<T | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("the condition did not come true in time");
    await sleep(50);
  }
}

if (unavailable !== null) {
  describe("two API processes on PostgreSQL and Redis", () => {
    it.skip(skippedBecause(unavailable), () => {});
  });
}
