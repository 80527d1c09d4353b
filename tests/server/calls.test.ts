/**
 * /api/call: GET /call/{id} within the organisation, POST /call/ for a member, and POST /call/public
 * with every refusal (404 private agent, 404 foreign number, 400 bad number, 400 tool, 403 wallet,
 * 429 per client, per number, per agent) writing nothing. Sandbox voice provider; the simulated calls
 * take a fraction of a second (SANDBOX_CALL_SECONDS).
 */
import { randomUUID } from "node:crypto";
import { and, count, eq, isNull, ne, or } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { INSUFFICIENT_BALANCE_DETAIL, type Call } from "../../contract";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { agents, calls } from "../../server/db/schema";
import { WEBHOOK_SECRET, addPhoneNumber, createAgent, getCall, newOrganisation, rowCounts, waitFor, waitForEndedCall, type TestOrg } from "./calls-fixtures";
import { addMember, bearer, buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: TestOrg;
let other: TestOrg;
let publicAgentId: string;
let privateAgentId: string;
let phoneNumberId: string;
let otherPhoneNumberId: string;

const BASE_ENV = {
  VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
  SANDBOX_CALL_SECONDS: "0.2",
  PUBLIC_CALL_PER_IP_PER_MINUTE: "1000",
  PUBLIC_CALL_PER_NUMBER_PER_HOUR: "1000",
  PUBLIC_CALL_PER_AGENT_PER_DAY: "1000",
};

const publicCall = (target: FastifyInstance, payload: unknown): Promise<LightMyRequestResponse> =>
  target.inject({ method: "POST", url: "/api/call/public", payload: payload as object });

function publicPayload(overrides: Record<string, unknown> = {}) {
  return {
    assistantId: publicAgentId,
    assistantOverrides: { variableValues: { name: "Grace" } },
    customer: { number: "+14155550100" },
    phoneNumberId,
    ...overrides,
  };
}

/** Until every call the sandbox placed has ended and been reported: nothing changes after this. */
function settled(): Promise<boolean> {
  return waitFor(
    async () => {
      const [row] = await database.db
        .select({ n: count() })
        .from(calls)
        .where(and(eq(calls.isSandbox, true), or(ne(calls.status, "ended"), isNull(calls.costMicros))));
      return row?.n === 0;
    },
    10_000,
    "the sandbox's calls to end",
  );
}

/** Asserts the response and that it wrote nothing anywhere. */
async function refusedWithoutWriting(request: () => Promise<LightMyRequestResponse>, status: number, body: Record<string, unknown>) {
  await settled();
  const before = await rowCounts(database.db);
  const response = await request();
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject(body);
  expect(await rowCounts(database.db)).toEqual(before);
  return response;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, BASE_ENV));
  org = await newOrganisation(app, "Calls Inc");
  other = await newOrganisation(app, "Other Calls");
  publicAgentId = (await createAgent(app, org.token, { agent_name: "Public desk", is_public: true })).id;
  privateAgentId = (await createAgent(app, org.token, { agent_name: "Private desk" })).id;
  phoneNumberId = await addPhoneNumber(database.db, org.orgId);
  otherPhoneNumberId = await addPhoneNumber(database.db, other.orgId);
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("POST /api/call/public: refusals write nothing", () => {
  it("404 for a private agent and for an agent that does not exist", async () => {
    const detail = { detail: "Agent not found or not accessible.", code: "not_found" };
    await refusedWithoutWriting(() => publicCall(app, publicPayload({ assistantId: privateAgentId })), 404, detail);
    await refusedWithoutWriting(() => publicCall(app, publicPayload({ assistantId: randomUUID() })), 404, detail);
  });

  it("404 for a phone number of another organisation (or none)", async () => {
    for (const id of [otherPhoneNumberId, randomUUID()]) {
      await refusedWithoutWriting(() => publicCall(app, publicPayload({ phoneNumberId: id })), 404, {
        code: "not_found",
        detail: expect.stringContaining("Phone number not found"),
      });
    }
  });

  it("400 for a number that is not E.164, a missing field or an unknown one", async () => {
    for (const number of ["4155550100", "+0415555010", "+1 415 abc", ""]) {
      await refusedWithoutWriting(() => publicCall(app, publicPayload({ customer: { number } })), 400, {
        code: "validation_error",
        detail: expect.stringContaining("customer.number"),
      });
    }
    await refusedWithoutWriting(() => publicCall(app, publicPayload({ phoneNumberId: undefined })), 400, { detail: expect.stringContaining("phoneNumberId") });
    await refusedWithoutWriting(() => publicCall(app, { ...publicPayload(), squadId: "x" }), 400, { detail: expect.stringContaining("squadId") });
    await refusedWithoutWriting(() => publicCall(app, publicPayload({ assistantId: "not-a-uuid" })), 400, { detail: expect.stringContaining("assistantId") });
  });

  it("400 naming the tool when the agent's model_tool_id holds an id that is not a tool id", async () => {
    // Saving refuses such an id now (tests/server/agents.test.ts): an agent stored before that check can still hold one.
    const withBadTool = await createAgent(app, org.token, { is_public: true });
    const stored = await database.db.select().from(agents).where(eq(agents.id, withBadTool.id));
    await database.db.update(agents).set({ config: { ...stored[0]!.config, model_tool_id: ["book-appointment"] } }).where(eq(agents.id, withBadTool.id));
    const response = await refusedWithoutWriting(() => publicCall(app, publicPayload({ assistantId: withBadTool.id })), 400, { code: "bad_request" });
    expect((response.json() as { detail: string }).detail).toMatch(/tool/);
    expect((response.json() as { detail: string }).detail).toContain('"book-appointment"');
  });

  it("403 with the spec's text when the wallet is below the minimum (no wallet is made for it)", async () => {
    const poorApp = (await buildTestApp(database, { ...BASE_ENV, STARTING_CREDIT_USD: "0.25", MIN_BALANCE_USD: "0.5" })).app;
    try {
      const poor = await newOrganisation(poorApp);
      const agent = await createAgent(poorApp, poor.token, { is_public: true });
      const number = await addPhoneNumber(database.db, poor.orgId);
      await refusedWithoutWriting(() => publicCall(poorApp, publicPayload({ assistantId: agent.id, phoneNumberId: number })), 403, {
        detail: INSUFFICIENT_BALANCE_DETAIL,
        code: "insufficient_balance",
      });
      const member = await poorApp.inject({
        method: "POST",
        url: "/api/call/",
        headers: bearer(poor.token),
        payload: { agent_id: agent.id, phone_number_id: number, customer_number: "+14155550100" },
      });
      expect(member.statusCode).toBe(403);
      expect(member.json()).toEqual({ detail: INSUFFICIENT_BALANCE_DETAIL, code: "insufficient_balance" });
    } finally {
      await poorApp.close();
    }
  });

  it("calls not ended yet hold CALL_HOLD_USD each: simultaneous calls cannot spend past the minimum balance", async () => {
    // $2.50 of credit, $0.50 minimum, $1 held per unfinished call: the 1st, 2nd and 3rd calls fit
    // (2.50 - 2 × 1 = 0.50), a 4th would not. Five requests arrive at once; the calls last long enough to overlap.
    const env = { ...BASE_ENV, STARTING_CREDIT_USD: "2.5", MIN_BALANCE_USD: "0.5", CALL_HOLD_USD: "1", SANDBOX_CALL_SECONDS: "3" };
    const heldApp = (await buildTestApp(database, env)).app;
    try {
      const held = await newOrganisation(heldApp);
      const agent = await createAgent(heldApp, held.token, { is_public: true });
      const number = await addPhoneNumber(database.db, held.orgId);
      const place = (i: number) => publicCall(heldApp, publicPayload({ assistantId: agent.id, phoneNumberId: number, customer: { number: `+1415555${i}100` } }));
      const answers = await Promise.all([0, 1, 2, 3, 4].map(place));
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([201, 201, 201, 403, 403]);
      for (const refused of answers.filter((answer) => answer.statusCode === 403)) {
        expect(refused.json()).toEqual({ detail: INSUFFICIENT_BALANCE_DETAIL, code: "insufficient_balance" });
      }
      expect(await orgScope(database.db, held.orgId).count(calls)).toBe(3);

      // When they have ended (and cost a few cents), their holds are gone: calls fit again.
      await settled();
      expect((await place(5)).statusCode).toBe(201);
    } finally {
      await settled();
      await heldApp.close();
    }
  });

  it("with CALL_HOLD_USD=0 only the balance itself counts", async () => {
    const env = { ...BASE_ENV, STARTING_CREDIT_USD: "1", MIN_BALANCE_USD: "0.5", CALL_HOLD_USD: "0", SANDBOX_CALL_SECONDS: "3" };
    const unheldApp = (await buildTestApp(database, env)).app;
    try {
      const unheld = await newOrganisation(unheldApp);
      const agent = await createAgent(unheldApp, unheld.token, { is_public: true });
      const number = await addPhoneNumber(database.db, unheld.orgId);
      const answers = await Promise.all([0, 1, 2].map((i) => publicCall(unheldApp, publicPayload({ assistantId: agent.id, phoneNumberId: number, customer: { number: `+1628555${i}100` } }))));
      expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 201]);
    } finally {
      await settled();
      await unheldApp.close();
    }
  });

  it("429 per client IP (every request counts)", async () => {
    const limited = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_IP_PER_MINUTE: "2" })).app;
    try {
      expect((await publicCall(limited, publicPayload({ assistantId: privateAgentId }))).statusCode).toBe(404);
      expect((await publicCall(limited, publicPayload({ assistantId: privateAgentId }))).statusCode).toBe(404);
      await refusedWithoutWriting(() => publicCall(limited, publicPayload()), 429, { code: "rate_limited", detail: expect.stringContaining("at most 2 a minute") });
      // Another client is not held back.
      const elsewhere = await limited.inject({ method: "POST", url: "/api/call/public", payload: publicPayload(), remoteAddress: "203.0.113.9" });
      expect(elsewhere.statusCode, elsewhere.body).toBe(201);
    } finally {
      await settled();
      await limited.close();
    }
  });

  it("429 per destination number, across agents; other numbers still go through", async () => {
    const limited = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_NUMBER_PER_HOUR: "2" })).app;
    const secondPublic = await createAgent(app, org.token, { is_public: true });
    try {
      const number = "+14155550199";
      expect((await publicCall(limited, publicPayload({ customer: { number } }))).statusCode).toBe(201);
      expect((await publicCall(limited, publicPayload({ customer: { number }, assistantId: secondPublic.id }))).statusCode).toBe(201);
      await refusedWithoutWriting(() => publicCall(limited, publicPayload({ customer: { number } })), 429, {
        code: "rate_limited",
        detail: "This number has already been called 2 times in the last hour: please try again later.",
      });
      expect((await publicCall(limited, publicPayload({ customer: { number: "+14155550198" } }))).statusCode).toBe(201);
    } finally {
      await settled();
      await limited.close();
    }
  });

  it("the per-number limit is counted in the database: other processes' public calls count, older ones and members' calls do not", async () => {
    const number = "+14155550177";
    const scope = orgScope(database.db, org.orgId);
    // One public call to the number 10 minutes ago (say from another server process), one 2 hours
    // ago, and two calls a member placed: only the first counts.
    const earlier = (minutesAgo: number, publicRequest: boolean) =>
      scope.insert(calls, { id: randomUUID(), type: "outbound", status: "ended", customerNumber: number, publicRequest, startedAt: new Date(Date.now() - minutesAgo * 60_000) });
    await earlier(10, true);
    await earlier(120, true);
    await earlier(5, false);
    await earlier(1, false);
    const limited = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_NUMBER_PER_HOUR: "2" })).app;
    try {
      expect((await publicCall(limited, publicPayload({ customer: { number } }))).statusCode).toBe(201);
      await refusedWithoutWriting(() => publicCall(limited, publicPayload({ customer: { number } })), 429, { code: "rate_limited", detail: expect.stringContaining("2 times in the last hour") });
    } finally {
      await settled();
      await limited.close();
    }
    // The limit holds in a freshly started process too (nothing kept in memory).
    const restarted = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_NUMBER_PER_HOUR: "2" })).app;
    try {
      expect((await publicCall(restarted, publicPayload({ customer: { number } }))).statusCode).toBe(429);
    } finally {
      await restarted.close();
    }
  });

  it("concurrent public calls to one number, from several organisations' agents, cannot pass its limit together", async () => {
    const number = "+14155550166";
    const limited = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_NUMBER_PER_HOUR: "2" })).app;
    const otherPublicAgent = await createAgent(app, other.token, { is_public: true });
    const fromOrg = publicPayload({ customer: { number } });
    const fromOther = publicPayload({ customer: { number }, assistantId: otherPublicAgent.id, phoneNumberId: otherPhoneNumberId });
    try {
      const answers = await Promise.all([fromOrg, fromOther, fromOrg, fromOther, fromOther].map((payload) => publicCall(limited, payload)));
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 201, 429, 429, 429]);
      const placed = await database.db.select({ id: calls.id }).from(calls).where(and(eq(calls.customerNumber, number), eq(calls.publicRequest, true)));
      expect(placed).toHaveLength(2);
    } finally {
      await settled();
      await limited.close();
    }
  });

  it("429 when the agent has placed its daily number of calls, counted in the database (so across processes)", async () => {
    const agent = await createAgent(app, org.token, { is_public: true });
    const scope = orgScope(database.db, org.orgId);
    // Two calls placed earlier today, e.g. by another server process; one from two days ago does not count.
    for (const startedAt of [new Date(), new Date(Date.now() - 3_600_000), new Date(Date.now() - 2 * 86_400_000)]) {
      await scope.insert(calls, { id: randomUUID(), type: "outbound", status: "ended", agentId: agent.id, customerNumber: "+14155550111", startedAt });
    }
    const capped = (await buildTestApp(database, { ...BASE_ENV, PUBLIC_CALL_PER_AGENT_PER_DAY: "2" })).app;
    try {
      await refusedWithoutWriting(() => publicCall(capped, publicPayload({ assistantId: agent.id })), 429, {
        code: "rate_limited",
        detail: "This agent has reached its limit of 2 calls a day: please try again tomorrow.",
      });
      // Another agent's count is its own.
      const fresh = await createAgent(app, org.token, { is_public: true });
      expect((await publicCall(capped, publicPayload({ assistantId: fresh.id }))).statusCode).toBe(201);
    } finally {
      await settled();
      await capped.close();
    }
  });
});

describe("POST /api/call/public: placing", () => {
  it("201 {data: {id, status}}; the recipient name falls back to 'Sir'", async () => {
    const response = await publicCall(app, publicPayload({ assistantOverrides: { variableValues: { name: "   " } } }));
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json() as { data: { id: string; status: string } };
    expect(data).toEqual({ id: expect.any(String), status: "queued" });
    const call = (await getCall(app, org.token, data.id)).json().data as Call;
    expect(call).toMatchObject({ type: "outbound", agent_id: publicAgentId, customer_name: "Sir", customer_number: "+14155550100", is_sandbox: true });
    expect(call.provider_call_id).toMatch(/^sandbox-/);
    const withoutOverrides = await publicCall(app, { assistantId: publicAgentId, customer: { number: "+14155550100" }, phoneNumberId });
    expect(withoutOverrides.statusCode).toBe(201);
    await settled();
  });
});

describe("POST /api/call/ (a member places a call)", () => {
  let memberToken: string;
  beforeAll(async () => {
    memberToken = (await addMember(app, org.token, org.orgId)).token;
  });
  beforeEach(() => settled());

  const place = (token: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url: "/api/call/", headers: bearer(token), payload });

  it("201 {data: call} for a member, queued, labelled sandbox; it then ends and is debited once", async () => {
    const response = await place(memberToken, { agent_id: privateAgentId, phone_number_id: phoneNumberId, customer_number: "+14155550100", customer_name: "Ada" });
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json() as { data: Call };
    expect(data).toMatchObject({
      type: "outbound",
      status: "queued",
      agent_id: privateAgentId,
      agent_name: "Private desk",
      phone_number_id: phoneNumberId,
      customer_number: "+14155550100",
      customer_name: "Ada",
      is_sandbox: true,
      ended_at: null,
      cost: null,
      messages: [],
    });
    const ended = await waitForEndedCall(app, memberToken, data.id);
    expect(ended.ended_reason).toBe("assistant-ended-call");
    const wallet = (await app.inject({ method: "GET", url: "/api/wallet/", headers: bearer(memberToken) })).json().data;
    expect(wallet.ledger.filter((entry: { call_id: string | null }) => entry.call_id === data.id)).toHaveLength(1);
  });

  it("404 for another organisation's agent or phone number; 400 for a bad number; 401 without a token", async () => {
    const body = { agent_id: privateAgentId, phone_number_id: phoneNumberId, customer_number: "+14155550100" };
    await refusedWithoutWriting(() => place(other.token, body), 404, { detail: "Agent not found" });
    await refusedWithoutWriting(() => place(org.token, { ...body, phone_number_id: otherPhoneNumberId }), 404, { detail: expect.stringContaining("Phone number not found") });
    await refusedWithoutWriting(() => place(org.token, { ...body, customer_number: "555-0100" }), 400, { detail: expect.stringContaining("customer_number") });
    await refusedWithoutWriting(() => app.inject({ method: "POST", url: "/api/call/", payload: body }), 401, { code: "unauthorized" });
  });
});

describe("GET /api/call/{id}", () => {
  it("answers the organisation's call; another organisation's is a 404, as is an unknown id", async () => {
    const id = randomUUID();
    await orgScope(database.db, org.orgId).insert(calls, { id, type: "inbound", status: "ringing", agentId: publicAgentId, customerNumber: "+442071838750" });
    const own = await getCall(app, org.token, id);
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toMatchObject({ id, type: "inbound", status: "ringing", agent_name: "Public desk", is_sandbox: false, cost: null });
    const foreign = await getCall(app, other.token, id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: "Call not found", code: "not_found" });
    expect((await getCall(app, org.token, randomUUID())).statusCode).toBe(404);
    expect((await getCall(app, org.token, "nope")).statusCode).toBe(400);
  });
});
