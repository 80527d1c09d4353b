/**
 * What migration 0007 keeps in the database: the calls.outcome generated column (contract/call-outcome.ts
 * in SQL), call_success_outcome (contract/success-outcome.ts in SQL, for the backfill), and
 * call_daily_stats, which must always equal a fresh GROUP BY of the calls it summarises (compared with
 * expectRollupMatchesCalls after every kind of write the product makes: inserts single and bulk,
 * webhook-style updates arriving late, a start time corrected across midnight, deletions of a call, of
 * an agent and of an organisation, a change of time zone, concurrent transactions, TRUNCATE).
 */
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, inArray } from "drizzle-orm";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_STATUSES } from "../../contract/call";
import { callOutcome } from "../../contract/call-outcome";
import { successOutcome, type SuccessRubricName } from "../../contract/success-outcome";
import { SUCCESS_EVALUATION_RUBRICS } from "../../contract/agent";
import { orgScope } from "../../server/data/orgScope";
import { openDatabase, type Database, type Db } from "../../server/db/client";
import { MIGRATIONS_FOLDER, runMigrations } from "../../server/db/migrate";
import { NO_AGENT_KEY, agents, calls, organizations } from "../../server/db/schema";
import { templateConfig } from "../../server/agents/templates";
import { expectRollupMatchesCalls, rollupAndCalls, sqlRows } from "./calls-fixtures";
import { VAPI_OPENAPI_PATH } from "./fakes/vapi-openapi";
import { migratedDatabase } from "./helpers";

let database: Database;
let db: Db;

beforeAll(async () => {
  database = await migratedDatabase();
  db = database.db;
});
afterAll(() => database?.close());

async function newOrg(timezone = "UTC"): Promise<string> {
  const id = `org-${randomUUID()}`;
  await db.insert(organizations).values({ id, name: "Rollup", slug: id, timezone });
  return id;
}

async function newAgent(orgId: string, rubric: SuccessRubricName = "PercentageScale"): Promise<string> {
  const id = randomUUID();
  const config = templateConfig("blank");
  await db.insert(agents).values({ id, orgId, name: "Agent", config: { ...config, analysis_plan: { ...config.analysis_plan, success_evaluation_rubric: rubric } } });
  return id;
}

/** The organisation's rollup row for (day, agent), or undefined. */
async function rollupRow(orgId: string, day: string, agentId: string | null) {
  const rows = await sqlRows<Record<string, unknown>>(db, "select * from call_daily_stats where org_id = $1 and day = $2 and agent_key = $3", [orgId, day, agentId ?? NO_AGENT_KEY]);
  // node-postgres answers bigint as text, PGlite as a number: the sums as numbers either way.
  return rows[0] && Object.fromEntries(Object.entries(rows[0]).map(([key, value]) => [key, typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value]));
}

describe("calls.outcome (generated column)", () => {
  it("equals contract callOutcome() for every Vapi endedReason and every status", async () => {
    const document = JSON.parse(readFileSync(VAPI_OPENAPI_PATH, "utf8")) as { components: { schemas: { Call: { properties: { endedReason: { enum: string[] } } } } } };
    const reasons = document.components.schemas.Call.properties.endedReason.enum;
    expect(reasons.length).toBeGreaterThan(500);
    const statuses = [...CALL_STATUSES, "failed"];
    const orgId = await newOrg();
    const rows = await sqlRows<{ status: string; ended_reason: string | null; outcome: string }>(
      db,
      `insert into calls (id, org_id, type, status, ended_reason)
         select gen_random_uuid(), $1, 'web', s, r from unnest($2::text[]) as s cross join unnest($3::text[]) as r
       returning status, ended_reason, outcome`,
      [orgId, statuses, [...reasons, null]],
    );
    expect(rows).toHaveLength(statuses.length * (reasons.length + 1));
    const wrong = rows.filter((row) => row.outcome !== callOutcome(row.status, row.ended_reason));
    expect(wrong).toEqual([]);
    // Every outcome occurs (the mapping is not, say, all "answered").
    expect(new Set(rows.map((row) => row.outcome))).toEqual(new Set(["answered", "busy", "no_answer", "voicemail", "failed", "in_progress"]));
    await expectRollupMatchesCalls(db, orgId);
  });
});

describe("call_success_outcome (the backfill's SQL mirror of successOutcome)", () => {
  it("agrees with contract successOutcome() on a table of answers × rubrics", async () => {
    const answers = [
      null, "", "   ", "true", "TRUE", " True. ", "false", "pass", "Passed!", "fail", "FAILED", "yes", "no",
      "0", "6", "6.99", "7", "7.0", "8", "10", "10.5", "11", "69", "69.9", "70", "100", "150", "-5", "+8", "08",
      "80%", "80 %", "69%", "7%", "100%", "8/10", "8.", "1e2", "7 out of 10", "Excellent", "good", "Good!", "fair", "Poor",
      "Strongly agree", "strongly  AGREE", "Agree", "Neutral", "Disagree", "Strongly disagree", "neutral.", "agree!!",
      "All checklist items were completed.", "The customer was satisfied.", "N/A",
    ];
    const rubrics: (SuccessRubricName | null)[] = [...SUCCESS_EVALUATION_RUBRICS, null];
    const pairs = answers.flatMap((answer) => rubrics.map((rubric) => [answer, rubric] as const));
    const rows = await sqlRows<{ i: number; outcome: string | null }>(
      db,
      "select i::int, call_success_outcome(a, r) as outcome from unnest($1::text[], $2::text[]) with ordinality as t(a, r, i)",
      [pairs.map(([answer]) => answer), pairs.map(([, rubric]) => rubric)],
    );
    const disagreements = rows
      .map((row) => ({ answer: pairs[row.i - 1]![0], rubric: pairs[row.i - 1]![1], sql: row.outcome, contract: successOutcome(pairs[row.i - 1]![0], pairs[row.i - 1]![1]) }))
      .filter((row) => row.sql !== row.contract);
    expect(disagreements).toEqual([]);
    // The table exercises every result: pass, fail and not counted.
    expect(new Set(rows.map((row) => row.outcome))).toEqual(new Set(["pass", "fail", null]));
  });
});

describe("call_daily_stats equals the calls", () => {
  it("after single and bulk inserts, in the organisation's zone, per agent and without one", async () => {
    const orgId = await newOrg("Europe/Berlin");
    const agentId = await newAgent(orgId);
    await db.insert(calls).values({ id: randomUUID(), orgId, type: "web", status: "queued", agentId, startedAt: new Date("2026-03-01T23:30:00Z") });
    // 00:30 in Berlin on 2 March, in progress, no duration or cost yet.
    expect(await rollupRow(orgId, "2026-03-02", agentId)).toMatchObject({ calls: 1, ended: 0, in_progress: 1, with_duration: 0 });
    await db.insert(calls).values(
      Array.from({ length: 300 }, (_, index) => ({
        id: randomUUID(),
        orgId,
        type: "outbound",
        status: index % 7 === 0 ? "in-progress" : "ended",
        agentId: index % 3 === 0 ? null : agentId,
        startedAt: new Date(Date.parse("2026-03-01T00:00:00Z") + index * 37 * 60_000),
        endedReason: ["customer-ended-call", "customer-busy", "customer-did-not-answer", "voicemail", "pipeline-error-openai-llm-failed", null][index % 6],
        durationSeconds: index % 5 === 0 ? null : index,
        costMicros: index % 4 === 0 ? null : index * 1_001,
        successOutcome: [null, "pass", "fail"][index % 3],
      })),
    );
    const rows = await expectRollupMatchesCalls(db, orgId);
    expect(rows.length).toBeGreaterThan(10);
    expect(await rollupRow(orgId, "2026-03-01", null)).toBeDefined();
  });

  it("after webhook-style updates: status to ended, then the ended reason, duration, cost and evaluation arriving later", async () => {
    const orgId = await newOrg("America/New_York");
    const agentId = await newAgent(orgId);
    const id = randomUUID();
    const scope = orgScope(db, orgId);
    await scope.insert(calls, { id, type: "outbound", status: "queued", agentId, startedAt: new Date("2026-06-10T15:00:00Z") });
    for (const status of ["ringing", "in-progress"] as const) {
      await scope.update(calls, { status }, eq(calls.id, id));
      await expectRollupMatchesCalls(db, orgId);
    }
    await scope.update(calls, { status: "ended", endedAt: new Date("2026-06-10T15:05:00Z") }, eq(calls.id, id));
    expect(await rollupRow(orgId, "2026-06-10", agentId)).toMatchObject({ calls: 1, ended: 1, answered: 1, in_progress: 0, with_duration: 0 });
    await expectRollupMatchesCalls(db, orgId);
    // The report arrives: it was voicemail after all, with a duration, a cost and an evaluation.
    await scope.update(calls, { endedReason: "voicemail", durationSeconds: 31, costMicros: 42_000, successEvaluation: "false", successOutcome: "fail" }, eq(calls.id, id));
    expect(await rollupRow(orgId, "2026-06-10", agentId)).toMatchObject({
      calls: 1, ended: 1, answered: 0, voicemail: 1, with_duration: 1, duration_seconds: 31, cost_micros: 42_000, success_pass: 0, success_fail: 1,
    });
    // An update that moves no measure (a transcript) leaves the row as it is; a re-evaluation moves fail to pass.
    await scope.update(calls, { transcript: "AI: Hello" }, eq(calls.id, id));
    await scope.update(calls, { successOutcome: "pass", costMicros: 50_000 }, eq(calls.id, id));
    expect(await rollupRow(orgId, "2026-06-10", agentId)).toMatchObject({ cost_micros: 50_000, success_pass: 1, success_fail: 0 });
    await expectRollupMatchesCalls(db, orgId);
  });

  it("after a start time corrected across midnight: the call moves to its day, an emptied day's row goes", async () => {
    const orgId = await newOrg("UTC");
    const agentId = await newAgent(orgId);
    const id = randomUUID();
    await db.insert(calls).values({ id, orgId, type: "web", status: "ended", agentId, startedAt: new Date("2026-04-01T23:59:30Z"), durationSeconds: 60, costMicros: 1_000 });
    expect(await rollupRow(orgId, "2026-04-01", agentId)).toMatchObject({ calls: 1, duration_seconds: 60 });
    await db.update(calls).set({ startedAt: new Date("2026-04-02T00:00:10Z") }).where(eq(calls.id, id));
    expect(await rollupRow(orgId, "2026-04-01", agentId)).toBeUndefined();
    expect(await rollupRow(orgId, "2026-04-02", agentId)).toMatchObject({ calls: 1, duration_seconds: 60, cost_micros: 1_000 });
    await expectRollupMatchesCalls(db, orgId);
  });

  it("after a deleted call, a deleted agent (its calls keep counting, without an agent) and a deleted organisation", async () => {
    const orgId = await newOrg("Asia/Tokyo");
    const [keep, gone] = [await newAgent(orgId), await newAgent(orgId)];
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await db.insert(calls).values(ids.map((id, index) => ({ id, orgId, type: "web", status: "ended", agentId: index < 3 ? keep : gone, startedAt: new Date("2026-05-05T03:00:00Z"), durationSeconds: 10 })));
    await db.delete(calls).where(eq(calls.id, ids[0]!));
    expect(await rollupRow(orgId, "2026-05-05", keep)).toMatchObject({ calls: 2, duration_seconds: 20 });
    await expectRollupMatchesCalls(db, orgId);
    // ON DELETE SET NULL: the agent's three calls move to the NO_AGENT_KEY row.
    await db.delete(agents).where(eq(agents.id, gone));
    expect(await rollupRow(orgId, "2026-05-05", gone)).toBeUndefined();
    expect(await rollupRow(orgId, "2026-05-05", null)).toMatchObject({ calls: 3, duration_seconds: 30 });
    await expectRollupMatchesCalls(db, orgId);
    // Several deleted in one statement, then the organisation itself (its rows go with it).
    await db.delete(calls).where(inArray(calls.id, ids.slice(1, 3)));
    expect(await rollupRow(orgId, "2026-05-05", keep)).toBeUndefined();
    await expectRollupMatchesCalls(db, orgId);
    await db.delete(organizations).where(eq(organizations.id, orgId));
    expect(await sqlRows(db, "select * from call_daily_stats where org_id = $1", [orgId])).toEqual([]);
  });

  it("after the organisation's time zone changes: call_daily_stats_rebuild cuts its days again, other organisations untouched", async () => {
    const orgId = await newOrg("UTC");
    const other = await newOrg("UTC");
    for (const id of [orgId, other]) {
      await db.insert(calls).values(["2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T22:30:00Z"].map((at) => ({ id: randomUUID(), orgId: id, type: "web", status: "ended", startedAt: new Date(at) })));
    }
    const otherBefore = await expectRollupMatchesCalls(db, other);
    // Without the rebuild the rollup is stale (the test's fresh GROUP BY reads the new zone)…
    await db.update(organizations).set({ timezone: "Europe/Berlin" }).where(eq(organizations.id, orgId));
    const stale = await rollupAndCalls(db, orgId);
    expect(stale.stored).not.toEqual(stale.fresh);
    // …with it, equal again: in Berlin 23:30Z on the 24th is the 25th, 22:30Z on the 25th (after the change to CET) is the 25th too.
    await sqlRows(db, "select call_daily_stats_rebuild($1)", [orgId]);
    await expectRollupMatchesCalls(db, orgId);
    expect(await rollupRow(orgId, "2026-10-25", null)).toMatchObject({ calls: 3 });
    expect(await expectRollupMatchesCalls(db, other)).toEqual(otherBefore);
  });

  // On PostgreSQL (TEST_DATABASE_URL) each transaction has its own pooled connection, so these truly run
  // at once (the triggers' organisation lock and key-ordered upserts keep them from deadlocking); on
  // PGlite, one connection, they take turns.
  it("after concurrent transactions inserting, updating and deleting calls of the same organisation and day", async () => {
    const orgId = await newOrg("America/Santiago");
    const agentId = await newAgent(orgId);
    const day = "2026-09-05T18:00:00Z";
    const writers = Array.from({ length: 8 }, (_, writer) =>
      db.transaction(async (tx) => {
        const scope = orgScope(tx as unknown as Db, orgId);
        const ids = Array.from({ length: 5 }, () => randomUUID());
        await tx.insert(calls).values(ids.map((id, index) => ({ id, orgId, type: "outbound", status: "queued", agentId: index % 2 ? agentId : null, startedAt: new Date(Date.parse(day) + writer * 60_000 + index) })));
        await scope.update(calls, { status: "ended", endedReason: writer % 2 ? "customer-busy" : "customer-ended-call", durationSeconds: writer + 1, costMicros: 1_000 * writer }, inArray(calls.id, ids.slice(0, 3)));
        await scope.delete(calls, eq(calls.id, ids[4]!));
      }),
    );
    await Promise.all(writers);
    const rows = await expectRollupMatchesCalls(db, orgId);
    expect(rows.reduce((sum: number, row) => sum + (row as { calls: number }).calls, 0)).toBe(8 * 4);
  });

  it("every organisation written by this file still matches (nothing drifted across tests)", async () => {
    await expectRollupMatchesCalls(db);
  });
});

describe("migration 0007 on a database with calls already", () => {
  it("backfills success_outcome under each call's agent's rubric and fills call_daily_stats", async () => {
    // The migrations up to 0006 alone, from a copy of the folder with the journal cut there.
    const folder = mkdtempSync(join(tmpdir(), "vap-migrations-0006-"));
    const old = await openDatabase({ kind: "pglite-memory" });
    try {
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalPath = join(folder, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
      journal.entries = journal.entries.filter((entry) => entry.tag < "0007");
      writeFileSync(journalPath, JSON.stringify(journal));
      if (old.driver.kind !== "pglite") throw new Error("expected PGlite");
      await migratePglite(old.driver.db, { migrationsFolder: folder });
      const run = (text: string, values: unknown[] = []) => sqlRows(old.db, text, values);
      expect(await run("select column_name from information_schema.columns where table_name = 'calls' and column_name = 'success_outcome'")).toEqual([]);

      await run("insert into organizations (id, name, slug) values ('o-old', 'Old', 'old')");
      const numeric = randomUUID();
      const percentage = randomUUID();
      const unset = randomUUID();
      await run("insert into agents (id, org_id, name, config) values ($1, 'o-old', 'N', $2), ($3, 'o-old', 'P', $4), ($5, 'o-old', 'U', '{}')", [
        numeric, JSON.stringify({ analysis_plan: { success_evaluation_rubric: "NumericScale" } }),
        percentage, JSON.stringify({ analysis_plan: { success_evaluation_rubric: "PercentageScale" } }),
        unset,
      ]);
      const calls0006: [string | null, string | null, string][] = [
        [numeric, "8", "2026-01-01T10:00:00Z"],
        [percentage, "8", "2026-01-01T11:00:00Z"],
        [unset, "8", "2026-01-02T10:00:00Z"],
        [null, "8", "2026-01-02T11:00:00Z"],
        [numeric, "Good", "2026-01-03T10:00:00Z"],
        [numeric, null, "2026-01-03T11:00:00Z"],
        [percentage, "whatever", "2026-01-03T12:00:00Z"],
      ];
      for (const [agentId, evaluation, startedAt] of calls0006) {
        await run("insert into calls (id, org_id, type, status, agent_id, success_evaluation, started_at, ended_reason, duration_seconds) values ($1, 'o-old', 'web', 'ended', $2, $3, $4, 'customer-busy', 5)", [randomUUID(), agentId, evaluation, startedAt]);
      }

      await runMigrations(old);
      const backfilled = await run("select a.name, c.success_evaluation, c.success_outcome from calls c left join agents a on a.id = c.agent_id order by c.started_at");
      expect(backfilled).toEqual([
        { name: "N", success_evaluation: "8", success_outcome: "pass" },
        { name: "P", success_evaluation: "8", success_outcome: "fail" },
        // No rubric stored: the default, PercentageScale.
        { name: "U", success_evaluation: "8", success_outcome: "fail" },
        // No agent: no rubric, a 10-point score.
        { name: null, success_evaluation: "8", success_outcome: "pass" },
        { name: "N", success_evaluation: "Good", success_outcome: "pass" },
        { name: "N", success_evaluation: null, success_outcome: null },
        { name: "P", success_evaluation: "whatever", success_outcome: null },
      ]);
      const rollup = await expectRollupMatchesCalls(old.db);
      expect(rollup).toHaveLength(6);
      expect(await run("select sum(calls)::int as calls, sum(busy)::int as busy, sum(success_pass)::int as pass from call_daily_stats")).toEqual([{ calls: 7, busy: 7, pass: 3 }]);
      // TRUNCATE (no row triggers fire) empties the rollup with the calls.
      await run("truncate calls cascade");
      expect(await run("select * from call_daily_stats")).toEqual([]);
    } finally {
      await old.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
