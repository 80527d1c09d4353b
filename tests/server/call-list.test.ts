/**
 * GET /api/call/ (the call log) and GET /api/call/export: every filter and sort, date validation, the
 * search in its spellings, the capped total, the organisation boundary, and the CSV (same rows in the
 * same order as the list, escaping, formula guard, streamed in keyset batches). Calls are inserted
 * straight into the database.
 */
import { parseCsv } from "./csv";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_EXPORT_COLUMNS, type CallListItem, type CallListResponse } from "../../contract";
import { callBatches, callQuery, CompiledStatements, compiledStatementCount, countCalls, listCalls } from "../../server/calls/list";
import { csvCell } from "../../server/calls/export";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { createAgent, newOrganisation, type TestOrg } from "./calls-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: TestOrg;
let other: TestOrg;
let salesAgent: string;
let supportAgent: string;
const ids: Record<string, string> = {};
const CAMPAIGN = randomUUID();

type NewCall = Partial<typeof calls.$inferInsert> & { key: string; startedAt: Date };

async function insertCall(orgId: string, call: NewCall): Promise<string> {
  const { key, ...values } = call;
  const id = randomUUID();
  await orgScope(database.db, orgId).insert(calls, { id, type: "outbound", status: "ended", ...values });
  ids[key] = id;
  return id;
}

const day = (iso: string) => new Date(iso);

async function list(query: string, token = org.token): Promise<CallListResponse> {
  const response = await app.inject({ method: "GET", url: `/api/call/?${query}`, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as CallListResponse;
}

const keysOf = (items: CallListItem[]) => items.map((item) => Object.entries(ids).find(([, id]) => id === item.id)?.[0] ?? "?");

async function keys(query: string, token?: string): Promise<string[]> {
  return keysOf((await list(query, token)).data);
}

async function status(url: string): Promise<{ code: number; detail: string }> {
  const response = await app.inject({ method: "GET", url, headers: bearer(org.token) });
  return { code: response.statusCode, detail: (response.json() as { detail?: string }).detail ?? "" };
}


beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  org = await newOrganisation(app);
  other = await newOrganisation(app);
  salesAgent = (await createAgent(app, org.token, { agent_name: "Sales Sam" })).id;
  supportAgent = (await createAgent(app, org.token, { agent_name: "Support Sue" })).id;
  const otherAgent = (await createAgent(app, other.token, { agent_name: "Sales Sam" })).id;

  // started_at descending: grace, alan, ada, linus, margaret, web, queued
  await insertCall(org.orgId, {
    key: "ada",
    startedAt: day("2026-03-05T10:00:00Z"),
    agentId: salesAgent,
    customerNumber: "+14155550123",
    customerName: "Ada Lovelace",
    durationSeconds: 120,
    costMicros: 250_000,
    endedReason: "customer-ended-call",
    successEvaluation: "true",
    transcript: "AI: Hello Ada. User: I would like a refund for my order.",
    summary: "Customer asked for a refund.",
    messages: [{ role: "user", message: "hi", time: 1, secondsFromStart: 0 }],
    costBreakdown: { total: 0.25 },
    structuredData: { mood: "ok" },
  });
  await insertCall(org.orgId, {
    key: "alan",
    startedAt: day("2026-03-06T23:59:59.999Z"),
    agentId: supportAgent,
    type: "inbound",
    customerNumber: "+442071838750",
    customerName: "Alan Turing",
    durationSeconds: 30,
    costMicros: 50_000,
    endedReason: "assistant-ended-call",
    successEvaluation: "false",
    transcript: "AI: Support here. User: My invoice is wrong.",
    summary: "Billing question about an invoice.",
    campaignId: CAMPAIGN,
  });
  await insertCall(org.orgId, {
    key: "grace",
    startedAt: day("2026-03-07T00:00:00Z"),
    agentId: salesAgent,
    customerNumber: "+14155559999",
    customerName: 'Grace "Amazing" Hopper, Jr.\nNavy',
    durationSeconds: 600,
    costMicros: 1_200_000,
    endedReason: "customer-ended-call",
    successEvaluation: "true",
    transcript: "AI: Good morning. User: Let us talk about compilers.",
    summary: "=HYPERLINK(\"http://evil\")",
    campaignId: CAMPAIGN,
  });
  await insertCall(org.orgId, {
    key: "linus",
    startedAt: day("2026-03-04T12:00:00Z"),
    agentId: supportAgent,
    customerNumber: "+358401234567",
    customerName: "@linus",
    durationSeconds: 45,
    costMicros: 90_000,
    endedReason: "silence-timed-out",
    transcript: "User: hello? AI: Hello, are you there?",
  });
  await insertCall(org.orgId, {
    key: "margaret",
    startedAt: day("2026-03-03T08:00:00Z"),
    agentId: null,
    customerNumber: "+16175550000",
    customerName: "-Margaret Hamilton",
    durationSeconds: 300,
    costMicros: 600_000,
    endedReason: "customer-ended-call",
    transcript: "AI: Apollo guidance. User: all good.",
  });
  await insertCall(org.orgId, { key: "web", startedAt: day("2026-03-02T09:00:00Z"), type: "web", agentId: salesAgent, durationSeconds: 10, costMicros: 10_000 });
  await insertCall(org.orgId, { key: "queued", startedAt: day("2026-03-01T09:00:00Z"), status: "queued", agentId: salesAgent, customerNumber: "+14155550188" });

  // Another organisation with the same number, name, agent name and words.
  await insertCall(other.orgId, {
    key: "foreign",
    startedAt: day("2026-03-05T11:00:00Z"),
    agentId: otherAgent,
    customerNumber: "+14155550123",
    customerName: "Ada Lovelace",
    durationSeconds: 100,
    costMicros: 200_000,
    transcript: "I would like a refund.",
    summary: "refund",
    successEvaluation: "true",
    endedReason: "customer-ended-call",
  });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe("GET /call/", () => {
  it("answers the organisation's calls newest first, without the heavy fields, with the agent's name", async () => {
    const body = await list("page=1&limit=20");
    expect(keysOf(body.data)).toEqual(["grace", "alan", "ada", "linus", "margaret", "web", "queued"]);
    expect(body).toMatchObject({ total: 7, page: 1, limit: 20, total_is_estimate: false });
    const ada = body.data.find((item) => item.id === ids.ada)!;
    expect(ada).toMatchObject({ agent_name: "Sales Sam", customer_number: "+14155550123", cost: 0.25, duration_seconds: 120, summary: "Customer asked for a refund." });
    for (const field of ["messages", "transcript", "cost_breakdown", "structured_data"]) expect(ada).not.toHaveProperty(field);
    expect(body.data.find((item) => item.id === ids.margaret)?.agent_name).toBeNull();
  });

  it("defaults to page 1 of 20 and pages", async () => {
    expect(await list("")).toMatchObject({ page: 1, limit: 20, total: 7 });
    const second = await list("page=2&limit=3");
    expect(keysOf(second.data)).toEqual(["linus", "margaret", "web"]);
    expect(second.total).toBe(7);
    expect((await list("page=9&limit=3")).data).toEqual([]);
  });

  it("filters by date: endDate includes its whole UTC day", async () => {
    expect(await keys("startDate=2026-03-05&endDate=2026-03-06")).toEqual(["alan", "ada"]);
    expect(await keys("startDate=2026-03-07")).toEqual(["grace"]);
    expect(await keys("endDate=2026-03-02")).toEqual(["web", "queued"]);
    expect(await keys("startDate=2026-03-06&endDate=2026-03-06")).toEqual(["alan"]);
  });

  it("refuses malformed dates, dates that do not exist, and an end before the start", async () => {
    for (const query of ["startDate=2026-3-05", "endDate=05/03/2026", "startDate=2026-02-30", "endDate=2026-03-05T00:00:00Z", "startDate=yesterday"]) {
      const { code, detail } = await status(`/api/call/?${query}`);
      expect(code, query).toBe(400);
      expect(detail).toMatch(/startDate|endDate/);
    }
    const { code, detail } = await status("/api/call/?startDate=2026-03-07&endDate=2026-03-06");
    expect(code).toBe(400);
    expect(detail).toContain("endDate");
  });

  it("filters by agent, status, type, ended reason, campaign and success evaluation", async () => {
    expect(await keys(`agentId=${supportAgent}`)).toEqual(["alan", "linus"]);
    expect(await keys("status=queued")).toEqual(["queued"]);
    expect(await keys("status=queued,ended&type=web")).toEqual(["web"]);
    expect(await keys("type=inbound")).toEqual(["alan"]);
    expect(await keys("endedReason=silence-timed-out,assistant-ended-call")).toEqual(["alan", "linus"]);
    expect(await keys(`campaignId=${CAMPAIGN}`)).toEqual(["grace", "alan"]);
    expect(await keys("successEvaluation=true")).toEqual(["grace", "ada"]);
    expect((await status("/api/call/?status=done")).code).toBe(400);
    expect((await status("/api/call/?agentId=nope")).code).toBe(400);
  });

  it("filters by duration and cost ranges (inclusive)", async () => {
    expect(await keys("durationMin=45&durationMax=300")).toEqual(["ada", "linus", "margaret"]);
    expect(await keys("durationMin=301")).toEqual(["grace"]);
    expect(await keys("costMin=0.09&costMax=0.6")).toEqual(["ada", "linus", "margaret"]);
    expect(await keys("costMax=0.01")).toEqual(["web"]);
    expect((await status("/api/call/?durationMin=10&durationMax=5")).code).toBe(400);
    expect((await status("/api/call/?costMin=-1")).code).toBe(400);
    expect((await status("/api/call/?durationMin=abc")).code).toBe(400);
  });

  it("sorts by start time, duration or cost, either way (no duration/cost counts as smallest)", async () => {
    expect(await keys("sortOrder=asc")).toEqual(["queued", "web", "margaret", "linus", "ada", "alan", "grace"]);
    expect(await keys("sortBy=duration")).toEqual(["grace", "margaret", "ada", "linus", "alan", "web", "queued"]);
    expect(await keys("sortBy=duration&sortOrder=asc")).toEqual(["queued", "web", "alan", "linus", "ada", "margaret", "grace"]);
    expect(await keys("sortBy=cost&sortOrder=desc")).toEqual(["grace", "margaret", "ada", "linus", "alan", "web", "queued"]);
    expect(await keys("sortBy=cost&sortOrder=asc&limit=2&page=2")).toEqual(["alan", "linus"]);
    expect((await status("/api/call/?sortBy=name")).code).toBe(400);
  });

  it("searches the customer number in any spelling, or a part of it", async () => {
    for (const search of ["+1 415 555 0123", "14155550123", "415-555-0123", "(415) 555-0123", "5550123"]) {
      expect(await keys(`search=${encodeURIComponent(search)}`), search).toEqual(["ada"]);
    }
    expect(await keys(`search=${encodeURIComponent("+1 415 555")}`)).toEqual(["grace", "ada", "queued"]);
    expect(await keys("search=2071838750")).toEqual(["alan"]);
  });

  it("searches the customer name, the agent name, the call id, and transcript and summary words", async () => {
    expect(await keys("search=lovelace")).toEqual(["ada"]);
    expect(await keys("search=ALAN%20TUR")).toEqual(["alan"]);
    expect(await keys("search=support%20sue")).toEqual(["alan", "linus"]);
    expect(await keys(`search=${ids.margaret}`)).toEqual(["margaret"]);
    expect(await keys(`search=${ids.margaret!.toUpperCase()}`)).toEqual(["margaret"]);
    expect(await keys("search=refund")).toEqual(["ada"]);
    expect(await keys("search=invoice")).toEqual(["alan"]);
    expect(await keys("search=compilers")).toEqual(["grace"]);
    expect(await keys("search=Apollo%20guidance")).toEqual(["margaret"]);
    expect(await keys("search=100%25_")).toEqual([]);
    expect(await keys("search=zzzz-nothing")).toEqual([]);
    expect(await keys("search=refund&startDate=2026-03-06")).toEqual([]);
    // A blank search is no search.
    expect((await list("search=%20")).total).toBe(7);
  });

  it("never shows another organisation's calls (list, filters, search)", async () => {
    expect(await keys("")).not.toContain("foreign");
    for (const query of ["search=14155550123", "search=Ada", "search=refund", "search=Sales%20Sam", `search=${ids.foreign}`, "successEvaluation=true"]) {
      expect(await keys(query), query).not.toContain("foreign");
    }
    expect(await keys("", other.token)).toEqual(["foreign"]);
    expect(await keys(`search=${ids.ada}`, other.token)).toEqual([]);
  });

  it("refuses limit above 100, page 0 and unknown parameters (naming them)", async () => {
    expect((await status("/api/call/?limit=101")).code).toBe(400);
    expect((await status("/api/call/?page=0")).code).toBe(400);
    expect(await list("limit=100")).toMatchObject({ limit: 100 });
    const unknown = await status("/api/call/?page=1&agent=x&sort=cost");
    expect(unknown.code).toBe(400);
    expect(unknown.detail).toContain("agent");
    expect(unknown.detail).toContain("sort");
  });

  it("is in the OpenAPI document with its query parameters", async () => {
    const doc = (await app.inject({ method: "GET", url: "/api/docs/json" })).json() as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> };
    const names = doc.paths["/api/call/"]?.get?.parameters?.map((parameter) => parameter.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(["page", "limit", "startDate", "endDate", "search", "agentId", "status", "type", "endedReason", "campaignId", "successEvaluation", "durationMin", "durationMax", "costMin", "costMax", "sortBy", "sortOrder"]));
    expect(doc.paths["/api/call/export"]?.get?.parameters?.map((parameter) => parameter.name)).not.toContain("page");
  });

  it("needs a signed-in member", async () => {
    const response = await app.inject({ method: "GET", url: "/api/call/" });
    expect(response.statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: "/api/call/export" })).statusCode).toBe(401);
  });

  it("builds each query shape's statements once, then runs them with each request's values", async () => {
    await list("status=queued&startDate=2026-03-01");
    const compiled = compiledStatementCount(database.db);
    // Same shape (one status, a start date), other values: nothing new is built, and the answer is the new values'.
    expect(await keys("status=ended&startDate=2026-03-06")).toEqual(["grace", "alan"]);
    expect(await keys("status=queued&startDate=2026-03-01")).toEqual(["queued"]);
    expect(await keys("status=queued&startDate=2026-03-02")).toEqual([]);
    expect(await keys("status=ended&startDate=2026-03-06", other.token)).toEqual([]);
    expect(compiledStatementCount(database.db)).toBe(compiled);
    // Two statuses is another shape.
    expect(await keys("status=queued,in-progress&startDate=2026-03-01")).toEqual(["queued"]);
    expect(compiledStatementCount(database.db)).toBeGreaterThan(compiled);
  });

  it("keeps a bounded number of compiled statements, dropping the least recently used", () => {
    const statements = new CompiledStatements(2);
    const built: string[] = [];
    const get = (key: string) => statements.get(key, () => (built.push(key), `statement ${key}`));
    expect([get("a"), get("b"), get("a")]).toEqual(["statement a", "statement b", "statement a"]);
    get("c"); // drops b, the least recently used
    expect(statements.size).toBe(2);
    get("a");
    get("b");
    expect(built).toEqual(["a", "b", "c", "b"]);
  });

  it("counts exactly up to the limit, then says the total is an estimate", async () => {
    const scope = orgScope(database.db, org.orgId);
    const filters = { sortBy: "startedAt", sortOrder: "desc" } as const;
    const query = await callQuery(database.db, scope, filters);
    // Counted: exact up to the limit, then flagged as an estimate (at least limit + 1).
    expect(await countCalls(database.db, query, 7, 1_000_000)).toEqual({ total: 7, isEstimate: false });
    const capped = await countCalls(database.db, query, 3, 1_000_000);
    expect(capped.isEstimate).toBe(true);
    expect(capped.total).toBeGreaterThanOrEqual(4);
    // The planner expects more than the threshold: its estimate, not counted.
    const estimated = await countCalls(database.db, query, 10_000, 0);
    expect(estimated.isEstimate).toBe(true);
    expect(estimated.total).toBeGreaterThan(0);
  });
});

describe("the unfiltered list's page with its count in one statement", () => {
  const sort = { sortBy: "startedAt", sortOrder: "desc" } as const;
  const everyOrder = ["grace", "alan", "ada", "linus", "margaret", "web", "queued"];

  it("answers every page with the exact total, the first page, a later one and one past the end", async () => {
    for (const [query, expected] of [
      ["page=1&limit=20", everyOrder],
      ["page=1&limit=3", everyOrder.slice(0, 3)],
      ["page=2&limit=3", everyOrder.slice(3, 6)],
      ["page=3&limit=3", everyOrder.slice(6)],
      ["page=4&limit=3", []],
      ["page=9&limit=100", []],
    ] as const) {
      const body = await list(query);
      expect(keysOf(body.data), query).toEqual(expected);
      expect(body, query).toMatchObject({ total: 7, total_is_estimate: false });
    }
    // Sorted by duration or cost, and for the other organisation, the same holds.
    expect(await list("page=2&limit=5&sortBy=duration&sortOrder=asc")).toMatchObject({ total: 7, total_is_estimate: false });
    const theirs = await list("page=1&limit=20", other.token);
    expect(theirs).toMatchObject({ total: 1, total_is_estimate: false });
    expect(theirs.data.map((item) => item.id)).toEqual([ids.foreign]);
    expect(await list("page=2&limit=20", other.token)).toMatchObject({ data: [], total: 1 });
  });

  it("answers 0 for an organisation without calls", async () => {
    const empty = await newOrganisation(app);
    for (const page of [1, 2]) expect(await list(`page=${page}&limit=20`, empty.token)).toMatchObject({ data: [], total: 0, total_is_estimate: false });
  });

  it("gives the total countCalls gives, at and above the exact limit, on every page", async () => {
    const scope = orgScope(database.db, org.orgId);
    const query = await callQuery(database.db, scope, sort);
    for (const [exactLimit, estimateOnlyAbove] of [
      [10_000, 1_000_000],
      [7, 1_000_000],
      [6, 1_000_000],
      [3, 1_000_000],
      [10_000, 0],
    ] as const) {
      const expected = await countCalls(database.db, query, exactLimit, estimateOnlyAbove);
      for (const [page, limit] of [
        [1, 20],
        [1, 2],
        [2, 2],
        [5, 2],
      ] as const) {
        const result = await listCalls(database.db, scope, sort, page, limit, exactLimit, estimateOnlyAbove);
        const label = `limit ${exactLimit}, estimate above ${estimateOnlyAbove}, page ${page} of ${limit}`;
        expect({ total: result.total, isEstimate: result.totalIsEstimate }, label).toEqual(expected);
        expect(result.rows.map((row) => row.id), label).toEqual(everyOrder.slice((page - 1) * limit, page * limit).map((key) => ids[key]));
      }
    }
    // Counted above the exact limit: flagged, and never less than what was counted.
    const capped = await listCalls(database.db, scope, sort, 1, 20, 3, 1_000_000);
    expect(capped.totalIsEstimate).toBe(true);
    expect(capped.total).toBeGreaterThanOrEqual(4);
  });

  it("counts a call added or removed since the last request", async () => {
    const id = await insertCall(org.orgId, { key: "extra", startedAt: day("2026-01-01T00:00:00Z") });
    try {
      expect(await list("page=1&limit=20")).toMatchObject({ total: 8 });
      expect(await list("page=3&limit=3")).toMatchObject({ total: 8 });
    } finally {
      await orgScope(database.db, org.orgId).delete(calls, eq(calls.id, id));
      delete ids.extra;
    }
    expect(await list("page=1&limit=20")).toMatchObject({ total: 7 });
  });
});

describe("GET /call/export", () => {
  async function exported(query: string, token = org.token) {
    const response = await app.inject({ method: "GET", url: `/api/call/export?${query}`, headers: bearer(token) });
    expect(response.statusCode, response.body).toBe(200);
    return { response, rows: parseCsv(response.body) };
  }

  it("answers CSV with a header row, a dated attachment name and the row count", async () => {
    const { response, rows } = await exported("");
    expect(response.headers["content-type"]).toMatch(/^text\/csv/);
    expect(response.headers["content-disposition"]).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers["x-total-count"]).toBe("7");
    expect(rows[0]).toEqual([...CALL_EXPORT_COLUMNS]);
    expect(rows).toHaveLength(8);
  });

  it("has the filtered list's rows, in the same order, for every sort", async () => {
    for (const query of ["", "sortBy=duration", "sortBy=cost&sortOrder=asc", "search=415", "agentId=" + salesAgent, "startDate=2026-03-03&endDate=2026-03-06&sortOrder=asc"]) {
      const listed = (await list(`limit=100&${query}`)).data.map((item) => item.id);
      const { rows, response } = await exported(query);
      expect(rows.slice(1).map((row) => row[0]), query).toEqual(listed);
      expect(response.headers["x-total-count"]).toBe(String(listed.length));
    }
  });

  it("walks keyset batches in the list's order, ties and nulls included", async () => {
    const scope = orgScope(database.db, org.orgId);
    for (const sort of [
      { sortBy: "startedAt", sortOrder: "desc" },
      { sortBy: "startedAt", sortOrder: "asc" },
      { sortBy: "duration", sortOrder: "desc" },
      { sortBy: "duration", sortOrder: "asc" },
      { sortBy: "cost", sortOrder: "desc" },
      { sortBy: "cost", sortOrder: "asc" },
    ] as const) {
      const query = await callQuery(database.db, scope, sort);
      const batched: string[] = [];
      for await (const batch of callBatches(database.db, query, sort, 2)) batched.push(...batch.map((row) => row.id));
      const listed = (await list(`limit=100&sortBy=${sort.sortBy}&sortOrder=${sort.sortOrder}`)).data.map((item) => item.id);
      expect(batched, JSON.stringify(sort)).toEqual(listed);
    }
  });

  it("escapes quotes, commas and line breaks, and guards cells that could start a formula", async () => {
    const { rows } = await exported("search=grace");
    const header = rows[0]!;
    const grace = rows[1]!;
    const cell = (name: string) => grace[header.indexOf(name)];
    expect(cell("customer_name")).toBe('Grace "Amazing" Hopper, Jr.\nNavy');
    expect(cell("summary")).toBe("'=HYPERLINK(\"http://evil\")");
    expect(cell("customer_number")).toBe("'+14155559999");
    expect(cell("cost_usd")).toBe("1.2");
    expect(cell("agent_name")).toBe("Sales Sam");
    const names = (await exported("sortOrder=asc")).rows.map((row) => row[header.indexOf("customer_name")]);
    expect(names).toContain("'@linus");
    expect(names).toContain("'-Margaret Hamilton");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("line\r\nbreak")).toBe('"line\r\nbreak"');
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell(-5)).toBe("-5");
  });

  it("never exports another organisation's calls, and validates like the list", async () => {
    const { rows } = await exported("search=refund");
    expect(rows.slice(1).map((row) => row[0])).toEqual([ids.ada]);
    const all = (await exported("")).rows.map((row) => row[0]);
    expect(all).not.toContain(ids.foreign);
    expect((await exported("", other.token)).rows.slice(1).map((row) => row[0])).toEqual([ids.foreign]);
    expect((await status("/api/call/export?page=1")).code).toBe(400);
    expect((await status("/api/call/export?startDate=2026-03-07&endDate=2026-03-01")).code).toBe(400);
  });
});

describe("GET /call/ and its export: outcome and success", () => {
  let outcomes: TestOrg;

  beforeAll(async () => {
    outcomes = await newOrganisation(app, "Outcomes Ltd");
    const at = (minute: number) => new Date(Date.UTC(2026, 2, 10, 12, minute));
    const rows: [string, Partial<NewCall>][] = [
      ["o-answered", { endedReason: "customer-ended-call", successOutcome: "pass", successEvaluation: "true" }],
      ["o-answered-fail", { endedReason: "assistant-ended-call", successOutcome: "fail", successEvaluation: "Poor" }],
      ["o-busy", { endedReason: "customer-busy" }],
      ["o-no-answer", { endedReason: "customer-did-not-answer" }],
      ["o-voicemail", { endedReason: "voicemail", successOutcome: "fail", successEvaluation: "false" }],
      ["o-failed", { endedReason: "pipeline-error-openai-llm-failed" }],
      ["o-failed-status", { status: "failed" }],
      ["o-ringing", { status: "ringing" }],
      ["o-unknown-evaluation", { endedReason: "customer-ended-call", successEvaluation: "All items covered" }],
    ];
    for (const [index, [key, values]] of rows.entries()) await insertCall(outcomes.orgId, { key, startedAt: at(index), ...values });
  });

  it("answers each call's outcome (contract/call-outcome.ts) and success, in the list and in GET /call/{id}", async () => {
    const body = await list("limit=100", outcomes.token);
    const byKey = Object.fromEntries(body.data.map((item) => [keysOf([item])[0], { outcome: item.outcome, success: item.success }]));
    expect(byKey).toEqual({
      "o-answered": { outcome: "answered", success: "pass" },
      "o-answered-fail": { outcome: "answered", success: "fail" },
      "o-busy": { outcome: "busy", success: null },
      "o-no-answer": { outcome: "no_answer", success: null },
      "o-voicemail": { outcome: "voicemail", success: "fail" },
      "o-failed": { outcome: "failed", success: null },
      "o-failed-status": { outcome: "failed", success: null },
      "o-ringing": { outcome: "in_progress", success: null },
      "o-unknown-evaluation": { outcome: "answered", success: null },
    });
    const one = await app.inject({ method: "GET", url: `/api/call/${ids["o-busy"]}`, headers: bearer(outcomes.token) });
    expect(one.json().data).toMatchObject({ outcome: "busy", success: null });
  });

  it("filters by outcome and success, one value or several, with the other filters", async () => {
    expect(await keys("outcome=busy", outcomes.token)).toEqual(["o-busy"]);
    expect(await keys("outcome=failed,no_answer", outcomes.token)).toEqual(["o-failed-status", "o-failed", "o-no-answer"]);
    expect(await keys("outcome=in_progress", outcomes.token)).toEqual(["o-ringing"]);
    expect(await keys("outcome=answered", outcomes.token)).toEqual(["o-unknown-evaluation", "o-answered-fail", "o-answered"]);
    expect(await keys("success=pass", outcomes.token)).toEqual(["o-answered"]);
    expect(await keys("success=fail", outcomes.token)).toEqual(["o-voicemail", "o-answered-fail"]);
    expect(await keys("success=pass,fail&outcome=answered", outcomes.token)).toEqual(["o-answered-fail", "o-answered"]);
    expect((await list("outcome=voicemail,busy", outcomes.token)).total).toBe(2);
    // The first organisation's calls are all answered or in progress; none of this one's show there.
    expect(await keys("outcome=busy")).toEqual([]);
    expect(await keys("outcome=in_progress")).toEqual(["queued"]);
    for (const query of ["outcome=reached", "success=maybe", "outcome=", "success=pass,yes"]) {
      const { code, detail } = await status(`/api/call/?${query}`);
      expect(code, query).toBe(400);
      expect(detail, query).toMatch(/outcome|success/);
    }
  });

  it("exports outcome and success columns, and filters the export the same way", async () => {
    const response = await app.inject({ method: "GET", url: "/api/call/export?outcome=answered,voicemail&sortOrder=asc", headers: bearer(outcomes.token) });
    expect(response.statusCode, response.body).toBe(200);
    const [header, ...rows] = parseCsv(response.body);
    expect(header).toEqual(expect.arrayContaining(["outcome", "success"]));
    const cells = rows.map((row) => [keysOf([{ id: row[0] } as CallListItem])[0], row[header!.indexOf("outcome")], row[header!.indexOf("success")]]);
    expect(cells).toEqual([
      ["o-answered", "answered", "pass"],
      ["o-answered-fail", "answered", "fail"],
      ["o-voicemail", "voicemail", "fail"],
      ["o-unknown-evaluation", "answered", ""],
    ]);
    expect(response.headers["x-total-count"]).toBe("4");
  });

  it("is in the OpenAPI document", async () => {
    const doc = (await app.inject({ method: "GET", url: "/api/docs/json" })).json() as { paths: Record<string, { get?: { parameters?: { name: string }[]; description?: string } }> };
    for (const path of ["/api/call/", "/api/call/export"]) {
      expect(doc.paths[path]?.get?.parameters?.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(["timezone", "outcome", "success"]));
      expect(doc.paths[path]?.get?.description).toMatch(/timezone/);
    }
  });
});

describe("GET /call/: days cut in `timezone`", () => {
  let zones: TestOrg;
  /** Every call's instant: around each zone's daylight-saving changes of 2026. */
  const instants: Date[] = [];
  const TRANSITIONS: Record<string, string[]> = {
    // Spring forward at 02:00 local (07:00Z); fall back at 02:00 local (06:00Z).
    "America/New_York": ["2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z"],
    // 01:00Z both ways.
    "Europe/Berlin": ["2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z"],
    // Chile: back at midnight -03 (03:00Z, 23:00 the day before again); forward at midnight -04
    // (04:00Z): 6 September starts at 01:00, its midnight never happens.
    "America/Santiago": ["2026-04-05T03:00:00Z", "2026-09-06T04:00:00Z"],
  };
  const localDay = (instant: Date, timeZone: string) =>
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(instant);
  const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    zones = await newOrganisation(app, "Zones Ltd");
    for (const transitions of Object.values(TRANSITIONS)) {
      for (const transition of transitions) {
        const t0 = Date.parse(transition);
        // Every half hour for 30 hours either side, and the millisecond before each whole hour.
        for (let minutes = -30 * 60; minutes <= 30 * 60; minutes += 30) {
          instants.push(new Date(t0 + minutes * 60_000));
          if (minutes % 60 === 0) instants.push(new Date(t0 + minutes * 60_000 - 1));
        }
      }
    }
    await database.db.insert(calls).values(instants.map((startedAt) => ({ id: randomUUID(), orgId: zones.orgId, type: "web", status: "ended", startedAt })));
  });

  it("counts a call on the day it started in that zone, around every change of daylight saving", async () => {
    for (const [timeZone, transitions] of Object.entries(TRANSITIONS)) {
      for (const transition of transitions) {
        const middle = localDay(new Date(transition), timeZone);
        for (const day of [addDays(middle, -1), middle, addDays(middle, 1)]) {
          const expected = instants.filter((instant) => localDay(instant, timeZone) === day).map((instant) => instant.toISOString()).sort().reverse();
          const body = await list(`limit=100&startDate=${day}&endDate=${day}&timezone=${encodeURIComponent(timeZone)}`, zones.token);
          expect(body.data.map((item) => item.started_at), `${timeZone} ${day}`).toEqual(expected);
        }
        // A range of days: the first day's first instant to the last day's last.
        const [from, until] = [addDays(middle, -1), addDays(middle, 1)];
        const inRange = instants.filter((instant) => localDay(instant, timeZone) >= from && localDay(instant, timeZone) <= until).length;
        expect((await list(`limit=1&startDate=${from}&endDate=${until}&timezone=${encodeURIComponent(timeZone)}`, zones.token)).total, `${timeZone} ${from}..${until}`).toBe(inRange);
        // startDate alone and endDate alone.
        const onOrAfter = instants.filter((instant) => localDay(instant, timeZone) >= middle).length;
        const onOrBefore = instants.filter((instant) => localDay(instant, timeZone) <= middle).length;
        expect((await list(`limit=1&startDate=${middle}&timezone=${encodeURIComponent(timeZone)}`, zones.token)).total).toBe(onOrAfter);
        expect((await list(`limit=1&endDate=${middle}&timezone=${encodeURIComponent(timeZone)}`, zones.token)).total).toBe(onOrBefore);
      }
    }
  });

  it("the day of a spring-forward change is 23 hours long, the day of a fall-back change 25 (New York)", async () => {
    const hours = async (day: string) => {
      const body = await list(`limit=100&startDate=${day}&endDate=${day}&timezone=America/New_York`, zones.token);
      const times = body.data.map((item) => Date.parse(item.started_at));
      return (Math.max(...times) - Math.min(...times) + 1) / 3_600_000;
    };
    expect(await hours("2026-03-08")).toBe(23);
    expect(await hours("2026-11-01")).toBe(25);
  });

  it("without timezone, days are UTC days, as before; the export cuts days the same way", async () => {
    const day = "2026-03-08";
    const utc = instants.filter((instant) => instant.toISOString().slice(0, 10) === day).length;
    expect((await list(`limit=1&startDate=${day}&endDate=${day}`, zones.token)).total).toBe(utc);
    expect((await list(`limit=1&startDate=${day}&endDate=${day}&timezone=UTC`, zones.token)).total).toBe(utc);
    const newYork = instants.filter((instant) => localDay(instant, "America/New_York") === day).length;
    expect(newYork).not.toBe(utc);
    const exported = await app.inject({ method: "GET", url: `/api/call/export?startDate=${day}&endDate=${day}&timezone=America/New_York`, headers: bearer(zones.token) });
    expect(exported.headers["x-total-count"]).toBe(String(newYork));
    expect(parseCsv(exported.body)).toHaveLength(newYork + 1);
  });

  it("refuses a time zone that is not a zone name (an offset, an unknown name)", async () => {
    for (const zone of ["Mars/Olympus_Mons", "+02:00", "GMT+2 ", "'; drop table calls; --", ""]) {
      const { code, detail } = await status(`/api/call/?startDate=2026-03-08&timezone=${encodeURIComponent(zone)}`);
      expect(code, zone).toBe(400);
      expect(detail, zone).toContain("timezone");
    }
  });

  it("one compiled statement serves every zone", async () => {
    await list("startDate=2026-03-08&endDate=2026-03-09&timezone=Europe/Berlin", zones.token);
    const compiled = compiledStatementCount(database.db);
    await list("startDate=2026-03-08&endDate=2026-03-09&timezone=America/Santiago", zones.token);
    await list("startDate=2026-03-08&endDate=2026-03-09", zones.token);
    expect(compiledStatementCount(database.db)).toBe(compiled);
  });
});
