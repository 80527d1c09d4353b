/**
 * A retried tool call (issue 18): the same toolCallId within the same provider call, e.g. after Vapi
 * timed out waiting, gets the first answer again and runs nothing more — never "that time was just
 * taken" for the caller's own booking, never a second appointment — whether the retry comes after the
 * first answer, at the same moment, or while another process still works on it (server/webhooks/tools.ts).
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localDate, localIso, startOfLocalDay, addDays } from "../../server/calendar/spoken-time";
import type { Database } from "../../server/db/client";
import { toolCallAnswers } from "../../server/db/schema";
import { TOOL_CLAIM_STALE_MS, TOOL_FAILED, ToolCallError, answerToolCalls, createToolRegistry } from "../../server/webhooks/tools";
import { WEBHOOK_SECRET, postWebhook } from "./calls-fixtures";
import { appointmentsOf, bookedId, bookingSetup, callRefOf, toolCallsMessage, type BookingSetup } from "./booking-tools-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

const NY = "America/New_York";
let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET }));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

const nineOn = (days: number) => localIso(new Date(startOfLocalDay(addDays(localDate(new Date(), NY), days), NY).getTime() + 9 * 60 * 60_000), NY);

function bookMessage(setup: BookingSetup, toolCallId: string, start = nineOn(2)) {
  return toolCallsMessage(callRefOf(setup), [{ id: toolCallId, name: "book_appointment", args: { start, customer_name: "Ada Lovelace" } }]);
}

const answersOf = (setup: BookingSetup) => database.db.select().from(toolCallAnswers).where(and(eq(toolCallAnswers.orgId, setup.orgId), eq(toolCallAnswers.providerCallId, setup.providerCallId)));

describe("the same tool-calls message delivered twice", () => {
  it("one after the other: the same answer, byte for byte, and one appointment", async () => {
    const setup = await bookingSetup(app, database.db);
    const message = bookMessage(setup, "call_retry_seq");
    const first = await postWebhook(app, message);
    const second = await postWebhook(app, message);
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(first.json().results[0].result).toMatch(/^Booked: /);
    expect(await appointmentsOf(database.db, setup.orgId)).toHaveLength(1);
    expect(await answersOf(setup)).toEqual([expect.objectContaining({ toolCallId: "call_retry_seq", name: "book_appointment", result: first.json().results[0].result, error: null })]);
  });

  it("at the same moment (four deliveries): one answer for all, one appointment", async () => {
    const setup = await bookingSetup(app, database.db);
    const message = bookMessage(setup, "call_retry_concurrent");
    const responses = await Promise.all([0, 1, 2, 3].map(() => postWebhook(app, message)));
    expect(new Set(responses.map((response) => response.body)).size).toBe(1);
    expect(responses[0]!.json().results[0].result).toMatch(/^Booked: /);
    expect(await appointmentsOf(database.db, setup.orgId)).toHaveLength(1);
  });

  it("a new tool call for the same time (not a retry) is told it was just taken", async () => {
    const setup = await bookingSetup(app, database.db);
    await postWebhook(app, bookMessage(setup, "call_first"));
    const other = (await postWebhook(app, bookMessage(setup, "call_second"))).json().results[0];
    expect(other.result).toMatch(/^Not booked: that time was just taken\./);
  });

  it("the kept answer lost (an answer that could not be written): the booking itself is idempotent and answers the same", async () => {
    const setup = await bookingSetup(app, database.db);
    const message = bookMessage(setup, "call_retry_lost");
    const first = await postWebhook(app, message);
    await database.db.delete(toolCallAnswers).where(eq(toolCallAnswers.orgId, setup.orgId));
    const second = await postWebhook(app, message);
    expect(second.body).toBe(first.body);
    expect(await appointmentsOf(database.db, setup.orgId)).toHaveLength(1);
  });

  it("while another process still works on it: waits for that answer and runs nothing", async () => {
    const setup = await bookingSetup(app, database.db);
    // The other process's claim, not answered yet.
    await database.db.insert(toolCallAnswers).values({ orgId: setup.orgId, providerCallId: setup.providerCallId, toolCallId: "call_elsewhere", name: "book_appointment" });
    const delivery = postWebhook(app, bookMessage(setup, "call_elsewhere"));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await database.db
      .update(toolCallAnswers)
      .set({ result: "Booked by the other process." })
      .where(and(eq(toolCallAnswers.orgId, setup.orgId), eq(toolCallAnswers.toolCallId, "call_elsewhere")));
    expect((await delivery).json().results).toEqual([{ toolCallId: "call_elsewhere", name: "book_appointment", result: "Booked by the other process." }]);
    expect(await appointmentsOf(database.db, setup.orgId)).toHaveLength(0);
  });

  it("a claim left by a process that died (stale): taken over, run once, answered", async () => {
    const setup = await bookingSetup(app, database.db);
    await database.db.insert(toolCallAnswers).values({
      orgId: setup.orgId,
      providerCallId: setup.providerCallId,
      toolCallId: "call_orphan",
      name: "book_appointment",
      createdAt: new Date(Date.now() - TOOL_CLAIM_STALE_MS - 5000),
    });
    const answer = (await postWebhook(app, bookMessage(setup, "call_orphan"))).json().results[0];
    expect(answer.result).toMatch(/^Booked: /);
    expect(await appointmentsOf(database.db, setup.orgId)).toHaveLength(1);
    expect((await answersOf(setup))[0]).toMatchObject({ toolCallId: "call_orphan", result: answer.result });
  });
});

describe("answerToolCalls: what is kept", () => {
  const message = (setup: BookingSetup, toolCallId: string) => toolCallsMessage(callRefOf(setup), [{ id: toolCallId, name: "probe" }]).message;

  it("a result and a ToolCallError are kept (the handler runs once); a failure is answered but not kept, so a retry runs again", async () => {
    const setup = await bookingSetup(app, database.db);
    let runs = 0;
    const outcomes: (() => string)[] = [
      () => {
        throw new TypeError("cannot read properties of undefined (reading 'rows')");
      },
      () => {
        throw new Error("The plain reason.");
      },
      () => "The result.",
    ];
    const registry = createToolRegistry({ probe: async () => outcomes[Math.min(runs++, outcomes.length - 1)]!() });
    const ask = async (id: string) => (await answerToolCalls(registry, message(setup, id), null, { db: database.db })).results[0];

    // Database-style failure: a sentence without internals, not kept.
    expect(await ask("call_probe")).toEqual({ toolCallId: "call_probe", name: "probe", error: TOOL_FAILED });
    // A plain Error's sentence is said, not kept either.
    expect(await ask("call_probe")).toEqual({ toolCallId: "call_probe", name: "probe", error: "The plain reason." });
    expect(await ask("call_probe")).toEqual({ toolCallId: "call_probe", name: "probe", result: "The result." });
    expect(await ask("call_probe")).toEqual({ toolCallId: "call_probe", name: "probe", result: "The result." });
    expect(runs).toBe(3);

    let refusals = 0;
    const refusing = createToolRegistry({
      probe: async () => {
        refusals++;
        throw new ToolCallError("Not allowed.");
      },
    });
    const first = await answerToolCalls(refusing, message(setup, "call_refused"), null, { db: database.db });
    const again = await answerToolCalls(refusing, message(setup, "call_refused"), null, { db: database.db });
    expect(again).toEqual(first);
    expect(first.results[0]).toEqual({ toolCallId: "call_refused", name: "probe", error: "Not allowed." });
    expect(refusals).toBe(1);
  });

  it("without a provider call id or an organisation nothing can be kept: each delivery runs", async () => {
    let runs = 0;
    const registry = createToolRegistry({ probe: async () => `run ${++runs}` });
    const bare = { type: "tool-calls", toolCallList: [{ id: "call_bare", type: "function", function: { name: "probe", arguments: "{}" } }] };
    await answerToolCalls(registry, bare, null, { db: database.db });
    const second = await answerToolCalls(registry, bare, null, { db: database.db });
    expect(second.results[0]).toEqual({ toolCallId: "call_bare", name: "probe", result: "run 2" });
    // An organisation that does not exist: answered, not kept.
    const ghost = { ...bare, call: { id: `vapi-${randomUUID()}`, assistantOverrides: { metadata: { orgId: "org_that_does_not_exist" } } } };
    expect((await answerToolCalls(registry, ghost, null, { db: database.db })).results[0]).toMatchObject({ result: "run 3" });
  });
});

describe("the answer itself", () => {
  it("a retried booking is kept under its tool call: the appointment carries the toolCallId", async () => {
    const setup = await bookingSetup(app, database.db);
    const answer = (await postWebhook(app, bookMessage(setup, "call_kept_id"))).json().results[0];
    const [row] = await appointmentsOf(database.db, setup.orgId);
    expect(row).toMatchObject({ id: bookedId(answer), toolCallId: "call_kept_id" });
  });
});
