/**
 * GET /api/call/ answers kept in memory (CallListAnswers, server/calls/list-cache.ts) under the
 * organisation's call-list version (call_list_versions, bumped by the triggers of migration 0006): a
 * repeated request reads only the version; any insert, update or delete of the organisation's calls
 * (through the API, a webhook, straight in SQL, or through another app instance on the same database)
 * and any rename of its agents is in the very next answer; another organisation never gets the first
 * one's answer; the memory is bounded; a bulk statement bumps the version once.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallListResponse } from "../../contract";
import { CallListAnswers, callListVersion } from "../../server/calls/list-cache";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { WEBHOOK_SECRET, addPhoneNumber, createAgent, endOfCallReport, newOrganisation, postWebhook, type TestOrg } from "./calls-fixtures";
import { TEST_DATABASE_URL, bearer, buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
/** A second API instance on the same database (as a second process would be). */
let otherApp: FastifyInstance;
let org: TestOrg;
let other: TestOrg;
let agentId: string;
let phoneNumberId: string;

const env = { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET, STARTING_CREDIT_USD: "10" };

async function list(query = "page=1&limit=20", token = org.token, instance = app): Promise<CallListResponse> {
  const response = await instance.inject({ method: "GET", url: `/api/call/?${query}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
  return response.json() as CallListResponse;
}

/** The SQL texts sent to the database while `work` runs (both drivers take query(text | {text}, …)). */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const client = (database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const original = client.query;
  const seen: string[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    seen.push(typeof first === "string" ? first : String((first as { text?: string }).text));
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    client.query = original;
  }
  return seen;
}

const readsCalls = (statements: string[]) => statements.filter((text) => /"calls"/.test(text));

async function insertCall(orgId: string, values: Partial<typeof calls.$inferInsert> = {}): Promise<string> {
  const id = randomUUID();
  await orgScope(database.db, orgId).insert(calls, { id, type: "outbound", status: "ended", agentId, customerName: "Listed", ...values });
  return id;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, env));
  ({ app: otherApp } = await buildTestApp(database, env));
  org = await newOrganisation(app, "Cached Calls Ltd");
  other = await newOrganisation(app, "Other Calls Ltd");
  agentId = (await createAgent(app, org.token, { agent_name: "Reception" })).id;
  phoneNumberId = await addPhoneNumber(database.db, org.orgId);
  await insertCall(org.orgId, { startedAt: new Date("2026-03-01T12:00:00Z") });
});

afterAll(async () => {
  await otherApp?.close();
  await app?.close();
  await database?.close();
});

describe("GET /api/call/ from memory", () => {
  it("answers a repeated request from memory: the version is read, no statement touches the calls", async () => {
    const query = "page=1&limit=20&sortBy=startedAt&sortOrder=desc";
    let first: CallListResponse | undefined;
    const firstStatements = await statementsDuring(async () => (first = await list(query)));
    expect(readsCalls(firstStatements).length).toBeGreaterThan(0);

    let again: CallListResponse | undefined;
    const againStatements = await statementsDuring(async () => (again = await list(query)));
    expect(readsCalls(againStatements)).toEqual([]);
    expect(againStatements.filter((text) => text.includes("call_list_versions"))).toHaveLength(1);
    expect(again).toEqual(first);
    expect(again!.data.length).toBeGreaterThan(0);
  });

  it("answers an insert, an update and a delete made straight in SQL at once", async () => {
    const query = "page=1&limit=50&search=Direct";
    expect((await list(query)).data).toEqual([]);
    expect((await list(query)).data).toEqual([]);

    const id = randomUUID();
    await database.db.execute(sql`insert into calls (id, org_id, type, status, customer_name) values (${id}, ${org.orgId}, 'web', 'queued', 'Direct Dora')`);
    expect((await list(query)).data.map((call) => [call.id, call.status])).toEqual([[id, "queued"]]);

    await database.db.execute(sql`update calls set status = 'in-progress' where id = ${id}`);
    expect((await list(query)).data.map((call) => [call.id, call.status])).toEqual([[id, "in-progress"]]);

    await database.db.execute(sql`delete from calls where id = ${id}`);
    expect((await list(query)).data).toEqual([]);
  });

  it("answers a webhook ending a call at once, on this instance and on another sharing the database", async () => {
    const callId = await insertCall(org.orgId, { status: "queued", customerName: "Webhook Wes" });
    const query = "page=1&limit=20&search=Webhook";
    for (const instance of [app, otherApp]) {
      expect((await list(query, org.token, instance)).data.map((call) => call.status)).toEqual(["queued"]);
      expect((await list(query, org.token, instance)).data.map((call) => call.status)).toEqual(["queued"]);
    }

    const report = endOfCallReport({ providerCallId: `vapi-${randomUUID()}`, callId, orgId: org.orgId }, { cost: 0.05 });
    expect((await postWebhook(app, report)).statusCode).toBe(200);
    for (const instance of [app, otherApp]) {
      expect((await list(query, org.token, instance)).data.map((call) => [call.status, call.cost])).toEqual([["ended", 0.05]]);
    }

    // A change through the second instance's API (a call placed there) is in the first one's next answer.
    const all = "page=1&limit=100";
    const before = (await list(all)).total;
    await list(all);
    const placed = await otherApp.inject({ method: "POST", url: "/api/call/", headers: bearer(org.token), payload: { agent_id: agentId, phone_number_id: phoneNumberId, customer_number: "+14155550123" } });
    expect(placed.statusCode, placed.body).toBe(201);
    const placedId = (placed.json() as { data: { id: string } }).data.id;
    const after = await list(all);
    expect(after.total).toBe(before + 1);
    expect(after.data.map((call) => call.id)).toContain(placedId);
  });

  it("shows an agent's new name in the next answer", async () => {
    const query = "page=1&limit=5";
    expect((await list(query)).data[0]?.agent_name).toBe("Reception");
    await list(query);
    const put = await app.inject({ method: "PUT", url: `/api/agent/${agentId}`, headers: bearer(org.token), payload: { agent_name: "Front Desk" } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await list(query)).data[0]?.agent_name).toBe("Front Desk");
    expect((await list("page=1&limit=5&search=Front%20Desk")).data.length).toBeGreaterThan(0);
  });

  it("never answers another organisation with the first one's answer", async () => {
    const query = "page=1&limit=20";
    const mine = await list(query);
    expect(mine.data.length).toBeGreaterThan(0);
    expect(await list(query)).toEqual(mine);
    const theirs = await list(query, other.token);
    expect(theirs).toMatchObject({ data: [], total: 0 });

    const theirCall = await insertCall(other.orgId, { agentId: null, customerName: "Theirs" });
    expect((await list(query, other.token)).data.map((call) => call.id)).toEqual([theirCall]);
    // The other organisation's change leaves the first one's version (and its kept answer) alone.
    expect((await list(query)).data.map((call) => call.id)).not.toContain(theirCall);
  });
});

describe("CallListAnswers", () => {
  it("keeps at most its limit of answers, the least recently used dropped first", async () => {
    const answers = new CallListAnswers(3);
    const scope = orgScope(database.db, org.orgId);
    let reads = 0;
    const read = async () => `{"read":${++reads}}`;
    for (const page of [1, 2, 3]) await answers.answer(database.db, scope, { page }, read);
    expect(await answers.answer(database.db, scope, { page: 1 }, read)).toBe('{"read":1}');
    await answers.answer(database.db, scope, { page: 4 }, read);
    expect(answers.size).toBe(3);
    expect(reads).toBe(4);
    // Page 2 was the least recently used: read again; page 1 was kept.
    expect(await answers.answer(database.db, scope, { page: 2 }, read)).toBe('{"read":5}');
    expect(await answers.answer(database.db, scope, { page: 1 }, read)).toBe('{"read":1}');
    for (let page = 10; page < 100; page++) await answers.answer(database.db, scope, { page }, read);
    expect(answers.size).toBe(3);
    expect(answers.hits).toBe(2);
  });

  it("keeps at most its limit of characters in all; an answer larger than that is sent, not kept", async () => {
    const answers = new CallListAnswers(500, 1000);
    const scope = orgScope(database.db, org.orgId);
    for (let page = 1; page <= 50; page++) await answers.answer(database.db, scope, { page }, async () => "x".repeat(300));
    expect(answers.size).toBe(3);
    expect(answers.keptChars).toBe(900);
    expect(await answers.answer(database.db, scope, { page: 99 }, async () => "y".repeat(1001))).toHaveLength(1001);
    expect(answers.keptChars).toBe(900);
    let reads = 0;
    await answers.answer(database.db, scope, { page: 99 }, async () => (reads++, "y".repeat(1001)));
    expect(reads).toBe(1);
    // Page 50 was kept (the most recent), page 1 was dropped long ago.
    await answers.answer(database.db, scope, { page: 50 }, async () => (reads++, "z"));
    await answers.answer(database.db, scope, { page: 1 }, async () => (reads++, "z"));
    expect(reads).toBe(2);
  });
});

describe("call_list_versions", () => {
  it("is bumped once per statement and organisation, however many rows: a bulk insert, an update, a delete", async () => {
    // Organisations of this test's own: a call placed earlier in the file (the sandbox plays it for seconds) would
    // bump the shared ones' versions while this runs.
    const org = await newOrganisation(app, "Bulk Mine");
    const other = await newOrganisation(app, "Bulk Theirs");
    const mine = await callListVersion(database.db, org.orgId);
    const theirs = await callListVersion(database.db, other.orgId);
    const row = (orgId: string) => ({ id: randomUUID(), orgId, type: "outbound", status: "ended", customerName: "Bulk" });

    await database.db.insert(calls).values(Array.from({ length: 500 }, () => row(org.orgId)));
    expect(await callListVersion(database.db, org.orgId)).toBe(mine + 1);
    expect(await callListVersion(database.db, other.orgId)).toBe(theirs);

    await database.db.insert(calls).values([...Array.from({ length: 20 }, () => row(org.orgId)), ...Array.from({ length: 20 }, () => row(other.orgId))]);
    expect(await callListVersion(database.db, org.orgId)).toBe(mine + 2);
    expect(await callListVersion(database.db, other.orgId)).toBe(theirs + 1);

    await database.db.execute(sql`update calls set status = 'queued' where customer_name = 'Bulk' and org_id = ${org.orgId}`);
    expect(await callListVersion(database.db, org.orgId)).toBe(mine + 3);
    expect(await callListVersion(database.db, other.orgId)).toBe(theirs + 1);

    // A statement that changes no row changes no version.
    await database.db.execute(sql`update calls set status = 'queued' where customer_name = 'Nobody'`);
    expect(await callListVersion(database.db, org.orgId)).toBe(mine + 3);

    await database.db.execute(sql`delete from calls where customer_name = 'Bulk'`);
    expect(await callListVersion(database.db, org.orgId)).toBe(mine + 4);
    expect(await callListVersion(database.db, other.orgId)).toBe(theirs + 2);
  });

  it("starts at 0 for an organisation whose calls never changed", async () => {
    const fresh = await newOrganisation(app, "No Calls Yet");
    expect(await callListVersion(database.db, fresh.orgId)).toBe(0);
  });
});

describe.runIf(TEST_DATABASE_URL)("call_list_versions on PostgreSQL (TEST_DATABASE_URL)", () => {
  it("does not deadlock a webhook ending a call with a call being placed in the same organisation", async () => {
    if (database.driver.kind !== "postgres") throw new Error("expected PostgreSQL");
    const callId = await insertCall(org.orgId, { status: "queued" });
    const placing = await database.driver.pool.connect();
    const ending = await database.driver.pool.connect();
    try {
      // reserveCall (server/wallet/wallet.ts): the organisation's row locked first, the call inserted after.
      await placing.query("begin");
      await placing.query("select id from organizations where id = $1 for update", [org.orgId]);
      // A webhook ending a call: the call updated, then a ledger entry (its foreign key reads the organisation).
      await ending.query("begin");
      const ended = (async () => {
        await ending.query("update calls set status = 'ended' where id = $1", [callId]);
        await ending.query("insert into wallet_ledger (id, org_id, amount_micros, kind, description, balance_after_micros) values ($1, $2, -1, 'adjustment', 'test', -1)", [randomUUID(), org.orgId]);
        // Kept in step, as appendLedgerEntry does (every suite database is checked for balance = sum(ledger) when it closes).
        await ending.query("insert into wallets (org_id, balance_micros) values ($1, -1) on conflict (org_id) do update set balance_micros = wallets.balance_micros - 1", [org.orgId]);
        await ending.query("commit");
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const version = await callListVersion(database.db, org.orgId);
      await placing.query("insert into calls (id, org_id, type, status) values ($1, $2, 'outbound', 'queued')", [randomUUID(), org.orgId]);
      await placing.query("commit");
      await ended;
      expect(await callListVersion(database.db, org.orgId)).toBe(version + 2);
    } finally {
      placing.release();
      ending.release();
    }
  });
});
if (!TEST_DATABASE_URL) {
  describe("call_list_versions on PostgreSQL", () => {
    it.skip("skipped because TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)", () => {});
  });
}
