/**
 * The sandbox books (issue 14 §3): a sandbox phone call to an agent with appointment booking on, when
 * answered, asks check_availability and books the first open time through the same signed webhook
 * route and tool handlers as Vapi's calls, reading each answer from the route's response; the
 * appointment links to the call and the transcript and summary say when it is. Other outcomes, and
 * agents without booking, play as before.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentConfigSchema } from "../../contract";
import { localIso } from "../../server/calendar/spoken-time";
import type { Database } from "../../server/db/client";
import { sandboxCallScript, type SandboxEvent } from "../../server/voice/sandbox-calls";
import type { PhoneCallRequest } from "../../server/voice/types";
import { appointmentsOf } from "./booking-tools-fixtures";
import { addPhoneNumber, createAgent, newOrganisation, waitForEndedCall, type TestOrg } from "./calls-fixtures";
import { loadVapiOpenApi } from "./fakes/vapi-openapi";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

const vapi = loadVapiOpenApi();

function request(number: string, configOverrides: Record<string, unknown> = {}): PhoneCallRequest {
  const config = agentConfigSchema.parse({ agent_name: "Booking desk", appointment_enable: true, analysis_plan: { structured_data_prompt: "Extract the booking." }, ...configOverrides });
  return {
    callId: randomUUID(),
    orgId: "org_sandbox",
    agent: { id: randomUUID(), orgId: "org_sandbox", config, knowledgeBase: [] },
    assistantId: null,
    phoneNumber: { id: randomUUID(), number: "+14155550000", providerNumberId: null },
    customer: { number, name: "Grace Hopper" },
    variableValues: { name: "Grace Hopper" },
  };
}

const kinds = (events: SandboxEvent[]) => events.map((event) => (event.message.type === "tool-calls" ? `tool:${toolName(event)}` : String(event.message.status ?? event.message.type)));
const toolName = (event: SandboxEvent) => ((event.message.toolCallList as { function: { name: string } }[])[0]!).function.name;
const toolArgs = (event: SandboxEvent) => JSON.parse(((event.message.toolCallList as { function: { arguments: string } }[])[0]!).function.arguments) as Record<string, unknown>;
const answered = (result: string) => ({ statusCode: 200, body: JSON.stringify({ results: [{ toolCallId: "x", name: "x", result }] }) });
const reportOf = (events: SandboxEvent[]) => events.at(-1)!.message as Record<string, any>;

const CHECK_ANSWER = [
  "Today is Monday, November 30, 2026. Times are in Eastern Time (the caller's time zone).",
  "The next open times:",
  "- Tuesday, December 1: 9:00 AM (start: 2026-12-01T09:00:00-05:00), 9:30 AM (start: 2026-12-01T09:30:00-05:00)",
  "Each appointment lasts 30 minutes.",
].join("\n");
const BOOK_ANSWER = "Booked: Tuesday, December 1 at 9:00 AM Eastern Time, for 30 minutes, for Grace Hopper (Appointment with Grace Hopper).\nAppointment id: 6d7c1b5e-0000-4000-8000-000000000001.";

describe("the script of a sandbox call to an agent that books", () => {
  it("answered: check_availability as the caller asks, then (from its answer) book_appointment for the first open time; each a valid ServerMessage", () => {
    const placedAt = Date.now();
    const events = sandboxCallScript(request("+14155550100"), "sandbox-b1", placedAt, 6);
    // As written (no answers): the call still ends, saying the calendar could not be reached.
    expect(kinds(events)).toEqual(["queued", "ringing", "in-progress", "tool:check_availability", "ended", "end-of-call-report"]);
    expect(reportOf(events).artifact.transcript).toContain("I can't reach the calendar right now.");
    const check = events[3]!;
    expect(toolArgs(check)).toEqual({});
    expect(vapi.problems("ServerMessage", { message: check.message })).toEqual([]);
    expect(check.at).toBeGreaterThan(events[2]!.at);

    const afterCheck = check.then!(answered(CHECK_ANSWER))!;
    expect(kinds(afterCheck)).toEqual(["tool:book_appointment", "ended", "end-of-call-report"]);
    const book = afterCheck[0]!;
    expect(toolArgs(book)).toEqual({ start: "2026-12-01T09:00:00-05:00", customer_name: "Grace Hopper" });
    expect(vapi.problems("ServerMessage", { message: book.message })).toEqual([]);
    expect(book.at).toBeGreaterThan(check.at);
    expect(book.at).toBeLessThan(afterCheck[1]!.at);

    const end = book.then!(answered(BOOK_ANSWER))!;
    expect(kinds(end)).toEqual(["ended", "end-of-call-report"]);
    const report = reportOf(end);
    expect(report.artifact.transcript).toContain("AI: The next open time is Tuesday, December 1 at 9:00 AM Eastern Time. Shall I book it for you?");
    expect(report.artifact.transcript).toContain("AI: You're booked for Tuesday, December 1 at 9:00 AM Eastern Time.");
    expect(report.analysis).toMatchObject({
      summary: expect.stringContaining("booked an appointment for Tuesday, December 1 at 9:00 AM Eastern Time"),
      structuredData: { booked: true, appointmentStart: "2026-12-01T09:00:00-05:00" },
    });
    expect(vapi.problems("ServerMessageEndOfCallReport", report)).toEqual([]);
  });

  it("no open times, a refused booking, or no answer: the call ends saying so, with nothing booked", () => {
    const events = sandboxCallScript(request("+14155550100"), "sandbox-b2", Date.now(), 6);
    const none = events[3]!.then!(answered("Today is Monday, November 30, 2026. Times are in Eastern Time (the caller's time zone).\nNo open times in the next 60 days."))!;
    expect(kinds(none)).toEqual(["ended", "end-of-call-report"]);
    expect(reportOf(none).artifact.transcript).toContain("there are no open times in the coming days");
    expect(reportOf(none).analysis.structuredData).toMatchObject({ booked: false });

    const afterCheck = events[3]!.then!(answered(CHECK_ANSWER))!;
    const book = afterCheck[0]!;
    // Refused: the rest as written after the booking, which says it could not be booked.
    expect(book.then!(answered("Not booked: that time was just taken.\nThe nearest open times instead:"))).toBeNull();
    expect(reportOf(afterCheck).artifact.transcript).toContain("I couldn't book that time just now");
    expect(reportOf(afterCheck).analysis.structuredData).toMatchObject({ booked: false });
    // Not delivered (or answered with an error): the rest as written.
    expect(events[3]!.then!(null)).toBeNull();
    expect(book.then!({ statusCode: 500, body: "{}" })).toBeNull();
  });

  it("only answered calls book: busy, no answer, voicemail and opt-out play as before; an agent without booking never books", () => {
    for (const number of ["+14155550101", "+14155550102", "+14155550103", "+14155550104"]) {
      expect(kinds(sandboxCallScript(request(number), "s", Date.now(), 6)).some((kind) => kind.startsWith("tool:check"))).toBe(false);
    }
    const plain = sandboxCallScript(request("+14155550100", { appointment_enable: false }), "s", Date.now(), 6);
    expect(kinds(plain)).toEqual(["queued", "ringing", "in-progress", "ended", "end-of-call-report"]);
  });
});

describe("through the app: POST /call/ to a booking agent books the first open time", () => {
  let database: Database;
  let app: FastifyInstance;
  let org: TestOrg;
  let phoneNumberId: string;

  beforeAll(async () => {
    database = await migratedDatabase();
    ({ app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.6", STARTING_CREDIT_USD: "10" }));
    org = await newOrganisation(app, "Sandbox Bookings");
    phoneNumberId = await addPhoneNumber(database.db, org.orgId);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const place = async (agentId: string, number: string) => {
    const response = await app.inject({
      method: "POST",
      url: "/api/call/",
      headers: bearer(org.token),
      payload: { agent_id: agentId, phone_number_id: phoneNumberId, customer_number: number, customer_name: "Grace Hopper" },
    });
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: { id: string } }).data.id;
  };

  it("an answered call: an appointment with source agent and the call's id, in the call's detail, the transcript and the summary", async () => {
    const agent = await createAgent(app, org.token, { agent_name: "Booking desk", appointment_enable: true });
    const callId = await place(agent.id, "+12125550100");
    const call = await waitForEndedCall(app, org.token, callId);

    const booked = (await appointmentsOf(database.db, org.orgId)).filter((row) => row.callId === callId);
    expect(booked).toHaveLength(1);
    const appointment = booked[0]!;
    expect(appointment).toMatchObject({ source: "agent", status: "booked", agentId: agent.id, customerNumber: "+12125550100", customerName: "Grace Hopper" });
    // The first open time from now under the default rules (weekdays 9–5, an hour's notice).
    expect(appointment.startAt.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    const detail = (await app.inject({ method: "GET", url: `/api/call/${callId}`, headers: bearer(org.token) })).json().data as { appointment_ids?: string[] };
    expect(detail.appointment_ids).toEqual([appointment.id]);
    expect(call.transcript).toMatch(/AI: You're booked for \w+day, \w+ \d+(, \d{4})? at \d{1,2}:\d{2} [AP]M [\w ]+\./);
    expect(call.summary).toMatch(/booked an appointment for \w+day/);
    // The time said is the time booked: its exact start was passed from check_availability's answer.
    const when = /You're booked for (.+)\./.exec(call.transcript ?? "")![1]!;
    expect(call.transcript).toContain(`The next open time is ${when}.`);
    expect(localIso(appointment.startAt, "America/New_York")).toMatch(/T\d{2}:\d{2}:00-0[45]:00$/);
  });

  it("a busy number and an agent without booking book nothing", async () => {
    const booking = await createAgent(app, org.token, { agent_name: "Booking desk 2", appointment_enable: true });
    const plain = await createAgent(app, org.token, { agent_name: "Plain desk" });
    const busy = await place(booking.id, "+12125550101");
    const notBooking = await place(plain.id, "+12125550100");
    await waitForEndedCall(app, org.token, busy);
    const plainCall = await waitForEndedCall(app, org.token, notBooking);
    const rows = await appointmentsOf(database.db, org.orgId);
    expect(rows.filter((row) => row.callId === busy || row.callId === notBooking)).toEqual([]);
    expect(plainCall.transcript).not.toContain("appointment");
  });
});
