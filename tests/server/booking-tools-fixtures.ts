/**
 * What the booking-tool tests share: an organisation with a booking agent, its availability and a call
 * in progress; Vapi `tool-calls` messages (arguments as Vapi sends them, a JSON string, or as an object);
 * posting them signed to the webhook route and reading the answers.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { availabilityInputSchema } from "../../contract/calendar";
import { saveAvailability } from "../../server/calendar/calendars";
import { orgScope } from "../../server/data/orgScope";
import type { Db } from "../../server/db/client";
import { appointments, calls } from "../../server/db/schema";
import { createAgent, newOrganisation, postWebhook, serverMessage, vapiCall, type TestOrg } from "./calls-fixtures";

export const EVERY_DAY = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

export interface BookingSetup extends TestOrg {
  agentId: string;
  /** Our call in progress, and its provider id. */
  callId: string;
  providerCallId: string;
  customerNumber: string;
}

export interface BookingOptions {
  timezone?: string;
  /** Default 09:00–17:00 every day. */
  weekly?: { day: string; start: string; end: string }[];
  slot_minutes?: number;
  min_notice_minutes?: number;
  max_days_ahead?: number;
  closed_dates?: string[];
  /** The caller's number (default a New York number, whose one zone is America/New_York). */
  customerNumber?: string;
  customerName?: string | null;
  appointmentEnable?: boolean;
}

/** An organisation with a booking agent (appointment_enable), its calendar's rules, and a call of that agent in progress. */
export async function bookingSetup(app: FastifyInstance, db: Db, options: BookingOptions = {}): Promise<BookingSetup> {
  const org = await newOrganisation(app, `Bookings ${randomUUID().slice(0, 6)}`);
  const agent = await createAgent(app, org.token, { agent_name: "Booking desk", appointment_enable: options.appointmentEnable ?? true });
  await saveAvailability(
    db,
    org.orgId,
    availabilityInputSchema.parse({
      timezone: options.timezone ?? "America/New_York",
      weekly: options.weekly ?? EVERY_DAY.map((day) => ({ day, start: "09:00", end: "17:00" })),
      slot_minutes: options.slot_minutes ?? 30,
      min_notice_minutes: options.min_notice_minutes ?? 0,
      max_days_ahead: options.max_days_ahead ?? 60,
      closed_dates: options.closed_dates ?? [],
    }),
  );
  const call = await newCall(db, org.orgId, agent.id, options.customerNumber ?? "+12125550100", options.customerName === undefined ? "Ada Lovelace" : options.customerName);
  return { ...org, agentId: agent.id, ...call };
}

/** Another call of the agent in progress (another caller, or the same one calling again). */
export async function newCall(db: Db, orgId: string, agentId: string, customerNumber: string, customerName: string | null = null) {
  const callId = randomUUID();
  const providerCallId = `vapi-${randomUUID()}`;
  await orgScope(db, orgId).insert(calls, { id: callId, type: "outbound", status: "in-progress", agentId, customerNumber, customerName, providerCallId });
  return { callId, providerCallId, customerNumber };
}

export interface ToolCallSpec {
  id?: string;
  name: string;
  /** Sent as Vapi sends them (a JSON string) unless `asObject`. */
  args?: Record<string, unknown>;
  asObject?: boolean;
}

/** Which call the message is about: ours (metadata callId/orgId), or only the assistant's metadata. */
export interface CallRef {
  providerCallId: string;
  callId?: string;
  orgId?: string;
  customerNumber?: string;
  /** The assistant's metadata (our assistants carry {agentId, orgId}). */
  assistant?: { agentId: string; orgId: string };
}

export const callRefOf = (setup: BookingSetup): CallRef => ({ providerCallId: setup.providerCallId, callId: setup.callId, orgId: setup.orgId, customerNumber: setup.customerNumber });

/** Vapi's ServerMessageToolCalls (checked against Vapi's schema when every argument is a string, as Vapi sends it). */
export function toolCallsMessage(ref: CallRef, specs: ToolCallSpec[]): { message: Record<string, unknown> } {
  const toolCalls = specs.map((spec) => ({
    id: spec.id ?? `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
    type: "function",
    function: { name: spec.name, arguments: spec.asObject ? (spec.args ?? {}) : JSON.stringify(spec.args ?? {}) },
  }));
  const message = {
    type: "tool-calls",
    timestamp: Date.now(),
    toolCallList: toolCalls,
    toolWithToolCallList: toolCalls.map((toolCall) => ({ type: "function", toolCall })),
    call: vapiCall({ providerCallId: ref.providerCallId, ...(ref.callId ? { callId: ref.callId } : {}), ...(ref.orgId ? { orgId: ref.orgId } : {}), ...(ref.customerNumber ? { customerNumber: ref.customerNumber } : {}) }),
    ...(ref.assistant ? { assistant: { name: "Booking desk", metadata: ref.assistant } } : {}),
  };
  return specs.some((spec) => spec.asObject) ? { message } : serverMessage(message);
}

export interface ToolAnswer {
  toolCallId: string;
  name: string;
  result?: string;
  error?: string;
}

/** Posts a tool-calls message signed to the webhook route; answers its results. */
export async function postToolCalls(app: FastifyInstance, body: { message: Record<string, unknown> }): Promise<ToolAnswer[]> {
  const response = await postWebhook(app, body);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { results: ToolAnswer[] }).results;
}

/** One tool call on the setup's call; answers its one result. */
export async function callTool(app: FastifyInstance, ref: CallRef, name: string, args: Record<string, unknown> = {}, options: { id?: string; asObject?: boolean } = {}): Promise<ToolAnswer> {
  const [answer] = await postToolCalls(app, toolCallsMessage(ref, [{ name, args, ...options }]));
  return answer!;
}

/** The organisation's appointments, soonest first. */
export async function appointmentsOf(db: Db, orgId: string) {
  return orgScope(db, orgId).select(appointments, { orderBy: appointments.startAt });
}

export async function appointmentRow(db: Db, id: string) {
  return (await db.select().from(appointments).where(eq(appointments.id, id)))[0];
}

/** The appointment id a book_appointment answer names. */
export function bookedId(answer: ToolAnswer): string {
  const id = /Appointment id: ([0-9a-f-]{36})/.exec(answer.result ?? "")?.[1];
  expect(id, JSON.stringify(answer)).toBeTruthy();
  return id!;
}

/** Every `start: …` instant an answer lists, in order. */
export const listedStarts = (text: string | undefined) => [...(text ?? "").matchAll(/start: ([^)\s,]+)\)/g)].map((match) => match[1]!);
