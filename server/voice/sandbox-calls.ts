/**
 * The sandbox's phone calls: what Vapi would do, in time, with nothing leaving the machine.
 *
 * A placed call answers at once (queued) and then lives through the same signed webhook events Vapi
 * sends — `status-update` (queued → ringing → in-progress → ended) and an `end-of-call-report` shaped
 * per Vapi's ServerMessage schemas — posted to the server's own webhook route, which verifies and
 * ingests them exactly as it does Vapi's. The whole call takes SANDBOX_CALL_SECONDS (default 6).
 *
 * Outcomes, deterministic so tests and demos can choose them by the customer number's last two digits:
 *   …00 answered · …01 busy (customer-busy) · …02 no answer (customer-did-not-answer) · …03 voicemail ·
 *   …04 answered, and the customer asks not to be called again: when the call carries an opt-out tool
 *   (campaign calls do), the sandbox sends a `tool-calls` message for it at that moment of the call ·
 *   …05 answered, and the customer declines (an order follow-up call reports "declined").
 * A call that carries the order-outcome tool (order follow-up calls) is a purchase-completion call: an
 * answered one (…00, or one drawn answered) ends with the customer agreeing to complete the purchase and
 * a `tool-calls` record_order_outcome "completed" (…05: "declined"), and its structured data carries
 * `order_outcome` when the agent asks for structured data. The sandbox never marks an order paid: that
 * is the store's paid event (issue 18).
 * Any other number: chosen from a hash of our call id (about 80 % answered, 10 % no answer, 5 % busy,
 * 5 % voicemail), so one call always plays out the same way.
 *
 * An answered call has a transcript built from the agent's own welcome and end-call messages (rendered
 * with the call's variables as Vapi renders them: server/voice/variables.ts) around a plausible customer
 * reply or two (with the customer's name when the call has one), with times; a summary, a success
 * evaluation in the agent's rubric, structured data when the agent asks for some, and a cost of $0.10 per
 * minute of talk (billed per started second; transport, stt, llm, tts and vapi parts).
 * Unanswered calls cost nothing. No recording is made (the sandbox has no audio).
 *
 * An answered call to an agent with appointment booking on books, through the same tools Vapi's calls
 * use: the caller asks for an appointment, the sandbox sends a `tool-calls` check_availability, reads
 * the answer from the webhook route's response (an event's continuation, `then`), offers the first open
 * time, and on the caller's yes sends book_appointment with its exact start and the caller's name; the
 * transcript and summary say when it was booked (or that no time was open, or the booking failed).
 */
import { createHash, randomUUID } from "node:crypto";
import type { AgentConfig } from "../../contract/agent";
import type { CallType } from "../../contract/call";
import { SANDBOX_WEB_CALL_END_MESSAGE, SANDBOX_WEB_CALL_MAX_SECONDS, sandboxLineMs, sandboxWebCallOpening } from "../../contract/web-call-sandbox";
import { BOOK_APPOINTMENT_TOOL, CHECK_AVAILABILITY_TOOL } from "../calendar/tools-definitions";
import { bookedWhen, firstOpenTime, type OpenTime } from "../calendar/tools-answers";
import { signedHeaders } from "../webhooks/signature";
import type { FunctionToolSpec, PhoneCallRequest, ProviderCallStatus, WebhookDelivery } from "./types";
import { renderVariables, type CallVariableContext } from "./variables";

/** The provider call id of a browser sandbox web call (POST /webcall/public/{slug}/call), which tells it from other sandbox calls. */
const SANDBOX_WEB_CALL_ID_PREFIX = "sandbox-web-";
export const sandboxWebProviderCallId = (callId: string): string => `${SANDBOX_WEB_CALL_ID_PREFIX}${callId}`;
export const isSandboxWebProviderCallId = (providerCallId: string | null): boolean => providerCallId?.startsWith(SANDBOX_WEB_CALL_ID_PREFIX) ?? false;

/** How long a browser sandbox web call may last: the agent's max_duration_seconds, at most SANDBOX_WEB_CALL_MAX_SECONDS. */
export const sandboxWebCallSeconds = (config: Pick<AgentConfig, "max_duration_seconds">): number =>
  Math.min(SANDBOX_WEB_CALL_MAX_SECONDS, config.max_duration_seconds);

/**
 * When a browser sandbox web call ends if its page never ends it (closed, offline), as Vapi would at the
 * call's limit: its length plus 10 s of grace (the page itself ends it on time).
 */
export const sandboxWebCallLatestEnd = (startedAt: number, config: Pick<AgentConfig, "max_duration_seconds">): number =>
  startedAt + sandboxWebCallSeconds(config) * 1000 + 10_000;

export type SandboxOutcome = "answered" | "busy" | "no-answer" | "voicemail" | "opt-out" | "declined";

/** Last two digits of the customer number → the outcome they force. */
export const SANDBOX_OUTCOME_BY_SUFFIX: Readonly<Record<string, SandboxOutcome>> = {
  "00": "answered",
  "01": "busy",
  "02": "no-answer",
  "03": "voicemail",
  "04": "opt-out",
  "05": "declined",
};

export const SANDBOX_ENDED_REASON: Readonly<Record<SandboxOutcome, string>> = {
  answered: "assistant-ended-call",
  busy: "customer-busy",
  "no-answer": "customer-did-not-answer",
  voicemail: "voicemail",
  "opt-out": "assistant-ended-call",
  declined: "assistant-ended-call",
};

/** USD per minute of talk, by Vapi's cost-breakdown part ($0.10 in all). */
export const SANDBOX_RATE_PER_MINUTE = { transport: 0.01, stt: 0.01, llm: 0.02, tts: 0.01, vapi: 0.05 } as const;

export const DEFAULT_SANDBOX_CALL_SECONDS = 6;

/** A byte of the call id's hash: stable choices per call. */
function hashByte(callId: string, salt: string): number {
  return createHash("sha256").update(`${salt}:${callId}`).digest()[0] ?? 0;
}

export function sandboxOutcome(callId: string, customerNumber: string): SandboxOutcome {
  const forced = SANDBOX_OUTCOME_BY_SUFFIX[customerNumber.slice(-2)];
  if (forced) return forced;
  const byte = hashByte(callId, "outcome");
  if (byte < 205) return "answered";
  if (byte < 230) return "no-answer";
  if (byte < 243) return "busy";
  return "voicemail";
}

/** The cost of `seconds` of talk, in micro-dollars per part and in all. */
export function sandboxCost(seconds: number): { parts: Record<keyof typeof SANDBOX_RATE_PER_MINUTE, number>; totalMicros: number } {
  const parts = Object.fromEntries(
    Object.entries(SANDBOX_RATE_PER_MINUTE).map(([part, perMinute]) => [part, Math.round((perMinute * 1_000_000 * seconds) / 60)]),
  ) as Record<keyof typeof SANDBOX_RATE_PER_MINUTE, number>;
  return { parts, totalMicros: Object.values(parts).reduce((sum, value) => sum + value, 0) };
}

/**
 * The sandbox's own lines (the customer's, and the agent's replies), by the customer's name: what a
 * person would say, with the name when the call has one ("Thanks, Ada.") and without when it has none
 * ("Thanks."). Plain functions: only the agent's own messages are templates (server/voice/variables.ts).
 */
type Said = (name: string) => string;
const comma = (name: string) => (name ? `, ${name}` : "");
const OPENERS: Said[] = [
  (name) => (name ? `Hi, yes, this is ${name} speaking.` : "Hi, yes, speaking."),
  (name) => (name ? `Hello? Yes, ${name} here.` : "Hello? Yes?"),
  (name) => `Hi there${name ? `, this is ${name}` : ""}. Who's calling?`,
];
const FOLLOW_UPS: Said[] = [
  (name) => `Thanks${comma(name)}. I'm calling to follow up and make sure you have everything you need. Is there anything I can help you with today?`,
  (name) => `Great to reach you${comma(name)}. I just wanted to check in and see whether you had any questions I can answer.`,
];
const OPT_OUT_REQUEST = "Please take my number off your list. I don't want to be called again.";
const OPT_OUT_ANSWER: Said = (name) => `Understood${comma(name)}. I've taken your number off our list, so you won't be called again. Goodbye.`;
const DECLINE = "Thanks, but I'm not interested.";
const DECLINE_ANSWER: Said = (name) => `No problem at all${comma(name)}. Thanks for your time, and have a good day.`;
/** A purchase-completion call (the order-outcome tool): the agent's pitch from the order's variables, the customer's answer, the agent's reply. */
function purchasePitch(values: Record<string, string>): string {
  const from = values.store_name ? `from ${values.store_name} ` : "";
  const order = values.order_reference ? ` ${values.order_reference}` : "";
  const cart = values.cart_items ? `you left ${values.cart_items} in your cart${values.cart_total ? `, ${values.cart_total} in all` : ""}. ` : "";
  return `I'm calling ${from}about your order${order}: ${cart}Would you like to complete the purchase?`;
}
const PURCHASE_YES = "Oh yes, I got distracted before paying. I'll finish it now.";
const PURCHASE_YES_ANSWER: Said = (name) => `Wonderful! Your cart is saved: the checkout link completes it in a minute. Thank you${comma(name)}!`;
const PURCHASE_NO = "No thanks, I've decided not to buy it after all.";
const PURCHASE_NO_ANSWER: Said = (name) => `I understand${comma(name)}. Thank you for letting me know, and have a good day.`;
const CLOSERS = ["No, I think that's everything for now. Thanks for calling.", "That's all, thank you. Have a good day.", "Not right now, but thanks for checking in."];

const pick = <T>(list: readonly T[], callId: string, salt: string): T => list[hashByte(callId, salt) % list.length]!;

type Json = Record<string, unknown>;

interface Line {
  role: "bot" | "user";
  text: string;
}

function successEvaluation(rubric: AgentConfig["analysis_plan"]["success_evaluation_rubric"], succeeded: boolean): string {
  const answers: Record<string, [string, string]> = {
    NumericScale: ["8", "3"],
    DescriptiveScale: ["Good", "Poor"],
    Checklist: ["All checklist items were completed.", "The checklist items were not completed."],
    Matrix: ["Good", "Poor"],
    PercentageScale: ["80", "20"],
    LikertScale: ["Agree", "Disagree"],
    AutomaticRubric: ["Good", "Poor"],
    PassFail: ["true", "false"],
  };
  const [yes, no] = answers[rubric] ?? ["true", "false"];
  return succeeded ? yes : no;
}

/** The events about a call's state that the sandbox sends again when they were lost, and the waits before each repeat. */
const REDELIVERED_TYPES = new Set(["status-update", "end-of-call-report"]);
export const SANDBOX_REDELIVERY_MS = [500, 2_000, 5_000] as const;

/** What our webhook route answered to a delivered event. */
export interface WebhookAnswer {
  statusCode: number;
  body: string;
}

/** One event of a simulated call: when (ms after placing) and the ServerMessage `message`. */
export interface SandboxEvent {
  at: number;
  message: Json;
  /**
   * A continuation: told what the webhook answered this event (null: not delivered), it may answer the
   * events that follow instead of the rest of the script (null: the rest as written). The sandbox's
   * booking calls read the tools' answers this way. The rest as written must still end the call: a
   * script replayed from the ledger (another process, a restart) has no continuations.
   */
  then?: (answer: WebhookAnswer | null) => SandboxEvent[] | null;
}

/** Vapi's end-of-call report for a sandbox call: its cost from the billed seconds, in dollars as Vapi sends them. */
function endOfCallReport(report: {
  at: number;
  timestamp: number;
  endedReason: string;
  startedAt: string;
  endedAt: string;
  billedSeconds: number;
  artifact: { transcript: string; messages: Json[] };
  analysis: Json;
  customer: Json;
  baseCall: Json;
}): SandboxEvent {
  const { parts, totalMicros } = sandboxCost(report.billedSeconds);
  const usd = (micros: number) => micros / 1_000_000;
  const cost = usd(totalMicros);
  const costBreakdown = { ...Object.fromEntries(Object.entries(parts).map(([part, micros]) => [part, usd(micros)])), total: cost };
  const { at, timestamp, endedReason, startedAt, endedAt, artifact, analysis, customer, baseCall } = report;
  return {
    at,
    message: {
      type: "end-of-call-report",
      timestamp,
      endedReason,
      cost,
      startedAt,
      endedAt,
      artifact,
      analysis,
      customer,
      call: { ...baseCall, status: "ended", endedReason, updatedAt: endedAt, startedAt, endedAt, cost, costBreakdown },
    },
  };
}

/**
 * The whole life of one simulated call as the events Vapi would send, in order. Pure: `placedAt` is
 * the clock at placing, `callSeconds` how long the call takes from queued to ended.
 */
export function sandboxCallScript(request: PhoneCallRequest, providerCallId: string, placedAt: number, callSeconds: number): SandboxEvent[] {
  const total = Math.max(0, callSeconds) * 1000;
  const outcome = sandboxOutcome(request.callId, request.customer.number);
  const config = request.agent.config;
  const values = request.variableValues;
  // The name the sandbox's own lines and summary use ("" when the call has none).
  const known = request.customer.name?.trim() || values.name?.trim() || "";
  const name = known || "the customer";
  const Name = known || "The customer";
  const endedReason = SANDBOX_ENDED_REASON[outcome];
  const answered = outcome === "answered" || outcome === "voicemail" || outcome === "opt-out" || outcome === "declined";

  const ringingAt = 0.1 * total;
  const inProgressAt = outcome === "voicemail" ? 0.3 * total : 0.25 * total;
  const endedAt = { answered: total, "opt-out": total, declined: total, voicemail: 0.7 * total, "no-answer": 0.8 * total, busy: 0.2 * total }[outcome];
  const iso = (offset: number) => new Date(placedAt + offset).toISOString();

  const customer = { number: request.customer.number, ...(request.customer.name?.trim() ? { name: Array.from(request.customer.name.trim()).slice(0, 40).join("") } : {}) };
  const baseCall = {
    id: providerCallId,
    orgId: "sandbox",
    type: "outboundPhoneCall",
    createdAt: iso(0),
    phoneNumberId: request.phoneNumber.id,
    customer,
    assistantOverrides: { variableValues: values, metadata: { callId: request.callId, orgId: request.orgId, agentId: request.agent.id } },
  };
  const status = (state: ProviderCallStatus, offset: number): SandboxEvent => ({
    at: offset,
    message: {
      type: "status-update",
      status: state,
      timestamp: placedAt + offset,
      ...(state === "ended" ? { endedReason } : {}),
      customer,
      call: { ...baseCall, status: state, updatedAt: iso(offset), ...(state === "ended" ? { endedReason } : {}) },
    },
  });

  const agentName = config.agent_name.trim() || "The assistant";
  // The agent's own messages, as Vapi would say them: with the variables the call was placed with.
  const variables: CallVariableContext = { now: placedAt, customer, phoneNumber: request.phoneNumber };
  const say = (template: string) => renderVariables(template, values, variables).trim();
  const line = (said: Said) => said(known);
  const welcome = say(config.agent_welcome_message);
  const endMessage = say(config.agent_end_call_message);
  const talkMs = answered ? endedAt - inProgressAt : 0;
  const callStartedAt = answered ? inProgressAt : ringingAt;
  /** The conversation's lines spread evenly over the time the call is in progress (times as Vapi's messages have them). */
  const spread = (lines: Line[]) => {
    const slot = lines.length > 0 ? talkMs / lines.length : 0;
    return lines.map((line, index) => {
      const time = placedAt + inProgressAt + index * slot;
      return { role: line.role, message: line.text, time, endTime: time + 0.8 * slot, secondsFromStart: (index * slot) / 1000, duration: 0.8 * slot };
    });
  };
  /** The call's end: its ended status and its end-of-call report with this conversation. */
  const ending = (lines: Line[], summary: string | null, succeeded: boolean, structured: Json = {}): SandboxEvent[] => {
    const messages = spread(lines);
    const transcript = lines.map((line) => `${line.role === "bot" ? "AI" : "User"}: ${line.text}`).join("\n");
    const analysis: Json = {};
    if (summary) analysis.summary = summary;
    if (answered) analysis.successEvaluation = successEvaluation(config.analysis_plan.success_evaluation_rubric, succeeded);
    if (answered && config.analysis_plan.structured_data_prompt.trim()) analysis.structuredData = { customerName: known || null, outcome, sandbox: true, ...structured };
    return [
      status("ended", endedAt),
      endOfCallReport({
        at: endedAt,
        timestamp: placedAt + endedAt,
        endedReason,
        startedAt: iso(callStartedAt),
        endedAt: iso(endedAt),
        // Billed per started second of talk; nothing when nobody answered.
        billedSeconds: answered ? Math.max(1, Math.ceil(talkMs / 1000)) : 0,
        artifact: { transcript, messages },
        analysis,
        customer,
        baseCall,
      }),
    ];
  };
  const opening: SandboxEvent[] = [status("queued", 0), status("ringing", ringingAt), ...(answered ? [status("in-progress", inProgressAt)] : [])];

  // An order follow-up call: a purchase-completion conversation, its outcome reported with the order-outcome tool.
  const orderTool = request.orderOutcomeTool;
  if (orderTool && (outcome === "answered" || outcome === "declined")) {
    const agrees = outcome === "answered";
    const lines: Line[] = [
      ...(welcome ? [{ role: "bot" as const, text: welcome }] : []),
      { role: "user", text: line(pick(OPENERS, request.callId, "opener")) },
      { role: "bot", text: purchasePitch(values) },
      { role: "user", text: agrees ? PURCHASE_YES : PURCHASE_NO },
      { role: "bot", text: line(agrees ? PURCHASE_YES_ANSWER : PURCHASE_NO_ANSWER) },
      ...(endMessage ? [{ role: "bot" as const, text: endMessage }] : []),
    ];
    const times = spread(lines);
    const decidedAt = times[lines.findIndex((line) => line.text === (agrees ? PURCHASE_YES : PURCHASE_NO))]!.endTime - placedAt;
    const reported = functionToolCall(
      orderTool,
      `${orderTool.name}:${request.callId}`,
      { outcome: agrees ? "completed" : "declined" },
      { ...baseCall, status: "in-progress", updatedAt: iso(decidedAt) },
      customer,
      placedAt + decidedAt,
      decidedAt,
    );
    const summary = agrees
      ? `${agentName} spoke with ${name} (${request.customer.number}) about the items left in the cart; ${name} agreed to complete the purchase with the checkout link. (Simulated by the sandbox: no real call was placed.)`
      : `${agentName} spoke with ${name} (${request.customer.number}) about the items left in the cart; ${name} declined to complete the purchase. (Simulated by the sandbox: no real call was placed.)`;
    return [...opening, reported, ...ending(lines, summary, agrees, { order_outcome: agrees ? "completed" : "declined" })];
  }

  // An agent that books: the caller asks for an appointment and takes the first open time.
  if (outcome === "answered" && config.appointment_enable) {
    const booking = bookingConversation({ request, known, agentName, welcome, endMessage });
    const times = spread(booking.plan);
    const inCall = (at: number) => ({ ...baseCall, status: "in-progress", updatedAt: iso(at) });
    const toolCall = (spec: FunctionToolSpec, args: Json, lineIndex: number, then: SandboxEvent["then"]): SandboxEvent => {
      const at = times[lineIndex]!.endTime - placedAt;
      return { ...functionToolCall(spec, `${spec.name}:${request.callId}`, args, inCall(at), customer, placedAt + at, at), then };
    };
    const book = (slot: OpenTime): SandboxEvent[] => [
      toolCall(BOOK_APPOINTMENT_TOOL, { start: slot.start, customer_name: booking.customerName }, booking.confirmIndex, (answer) => {
        const when = bookedWhen(toolResult(answer));
        return when ? ending(booking.booked(slot, when), booking.bookedSummary(when), true, { booked: true, appointmentStart: slot.start }) : null;
      }),
      ...ending(booking.notBooked(slot), booking.notBookedSummary, false, { booked: false }),
    ];
    return [
      ...opening,
      toolCall(CHECK_AVAILABILITY_TOOL, {}, booking.checkIndex, (answer) => {
        const result = toolResult(answer);
        if (result === null) return null;
        const slot = firstOpenTime(result);
        return slot ? book(slot) : ending(booking.noOpenTimes, booking.noOpenTimesSummary, false, { booked: false });
      }),
      // Played when no answer comes back (the calendar could not be reached, or the call is replayed elsewhere).
      ...ending(booking.unreachable, booking.unreachableSummary, false, { booked: false }),
    ];
  }

  // The conversation, spread over the time the call is in progress.
  const lines: Line[] = [];
  if (outcome === "answered") {
    if (welcome) lines.push({ role: "bot", text: welcome });
    lines.push({ role: "user", text: line(pick(OPENERS, request.callId, "opener")) });
    lines.push({ role: "bot", text: line(pick(FOLLOW_UPS, request.callId, "follow-up")) });
    lines.push({ role: "user", text: pick(CLOSERS, request.callId, "closer") });
    if (endMessage) lines.push({ role: "bot", text: endMessage });
  } else if (outcome === "opt-out") {
    if (welcome) lines.push({ role: "bot", text: welcome });
    lines.push({ role: "user", text: OPT_OUT_REQUEST });
    lines.push({ role: "bot", text: line(OPT_OUT_ANSWER) });
  } else if (outcome === "declined") {
    if (welcome) lines.push({ role: "bot", text: welcome });
    lines.push({ role: "user", text: line(pick(OPENERS, request.callId, "opener")) });
    lines.push({ role: "bot", text: line(pick(FOLLOW_UPS, request.callId, "follow-up")) });
    lines.push({ role: "user", text: DECLINE });
    lines.push({ role: "bot", text: line(DECLINE_ANSWER) });
  } else if (outcome === "voicemail") {
    const voicemail = say(config.voice.voice_mail ?? "");
    if (voicemail) lines.push({ role: "bot", text: voicemail });
  }

  const summary =
    outcome === "answered"
      ? `${agentName} spoke with ${name} (${request.customer.number}). ${Name} answered, listened and had nothing further to discuss; ` +
        "the call ended politely with the closing message. (Simulated by the sandbox: no real call was placed.)"
      : outcome === "opt-out"
        ? `${agentName} spoke with ${name} (${request.customer.number}). ${Name} asked not to be called again; the assistant confirmed ` +
          "and ended the call. (Simulated by the sandbox: no real call was placed.)"
      : outcome === "declined"
        ? `${agentName} spoke with ${name} (${request.customer.number}). ${Name} was not interested; the assistant thanked them and ended the call. (Simulated by the sandbox: no real call was placed.)`
      : outcome === "voicemail"
        ? `The call to ${name} (${request.customer.number}) reached voicemail${lines.length > 0 ? "; the assistant left a message" : ""}. (Simulated by the sandbox.)`
        : null;

  // The opt-out tool, called as the customer finishes asking (only when the call carries one).
  const messages = spread(lines);
  const optOutAt = outcome === "opt-out" && request.optOutTool ? (messages.find((line) => line.role === "user")?.endTime ?? placedAt + inProgressAt) - placedAt : null;
  const optOut: SandboxEvent[] =
    optOutAt !== null && request.optOutTool
      ? [functionToolCall(request.optOutTool, `opt-out:${request.callId}`, { reason: OPT_OUT_REQUEST }, { ...baseCall, status: "in-progress", updatedAt: iso(optOutAt) }, customer, placedAt + optOutAt, optOutAt)]
      : [];

  return [...opening, ...optOut, ...ending(lines, summary, outcome === "answered")];
}

/** What a booking tool answered, from our webhook's response (`{results: [{result | error}]}`); null when it answered nothing usable. */
function toolResult(answer: WebhookAnswer | null): string | null {
  if (!answer || answer.statusCode !== 200) return null;
  try {
    const body = JSON.parse(answer.body) as { results?: { result?: unknown }[] };
    const result = body.results?.[0]?.result;
    return typeof result === "string" ? result : null;
  } catch {
    return null;
  }
}

/**
 * The conversation of a sandbox call to an agent that books: the lines as planned (their count fixes
 * when each tool is called) and the variants once the calendar has answered.
 */
function bookingConversation(input: { request: PhoneCallRequest; known: string; agentName: string; welcome: string; endMessage: string }) {
  const { request, known, agentName, welcome, endMessage } = input;
  const who = `${known || "the customer"} (${request.customer.number})`;
  const customerName = request.customer.name?.trim() || request.variableValues.name?.trim() || "Sandbox caller";
  const before: Line[] = [
    ...(welcome ? [{ role: "bot" as const, text: welcome }] : []),
    { role: "user", text: known ? `Hi, this is ${known}. I'd like to book an appointment, please.` : "Hi, I'd like to book an appointment, please." },
    { role: "bot", text: "Of course. Let me check the calendar for the next open time." },
  ];
  const after: Line[] = [{ role: "user", text: pick(CLOSERS, request.callId, "closer") }, ...(endMessage ? [{ role: "bot" as const, text: endMessage }] : [])];
  const middle = (offer: string, reply: string, outcome: string): Line[] => [
    { role: "bot", text: offer },
    { role: "user", text: reply },
    { role: "bot", text: outcome },
  ];
  const conversation = (offer: string, reply: string, outcome: string) => [...before, ...middle(offer, reply, outcome), ...after];
  const plan = conversation("", "", "");
  const simulated = "(Simulated by the sandbox: no real call was placed.)";
  return {
    plan,
    customerName,
    /** The line after which the calendar is checked, and the caller's "yes" after which the time is booked. */
    checkIndex: before.length - 1,
    confirmIndex: before.length + 1,
    booked: (slot: OpenTime, when: string) =>
      conversation(`The next open time is ${slot.spoken}. Shall I book it for you?`, "Yes, please, that works for me.", `You're booked for ${when}.`),
    bookedSummary: (when: string) => `${agentName} spoke with ${who} and booked an appointment for ${when}. ${simulated}`,
    notBooked: (slot: OpenTime) =>
      conversation(`The next open time is ${slot.spoken}. Shall I book it for you?`, "Yes, please, that works for me.", "I'm sorry, I couldn't book that time just now. Please call again to book."),
    notBookedSummary: `${agentName} spoke with ${who}, who asked for an appointment; the time offered could not be booked. ${simulated}`,
    noOpenTimes: conversation("I'm sorry, there are no open times in the coming days.", "Oh, that's a pity. Okay.", "I'll let the team know you called."),
    noOpenTimesSummary: `${agentName} spoke with ${who}, who asked for an appointment; the calendar had no open times. ${simulated}`,
    unreachable: conversation("I'm sorry, I can't reach the calendar right now.", "Okay, no problem.", "Please call again later to book."),
    unreachableSummary: `${agentName} spoke with ${who}, who asked for an appointment; the calendar could not be reached, so none was booked. ${simulated}`,
  };
}

/** Vapi's `tool-calls` message for one function tool (ServerMessageToolCalls: both lists, arguments as a JSON string). */
function functionToolCall(tool: FunctionToolSpec, seed: string, args: Json, call: Json, customer: Json, timestamp: number, at: number): SandboxEvent {
  const toolCall = {
    id: `call_${createHash("sha256").update(seed).digest("hex").slice(0, 24)}`,
    type: "function",
    function: { name: tool.name, arguments: JSON.stringify(args) },
  };
  return {
    at,
    message: {
      type: "tool-calls",
      timestamp,
      toolCallList: [toolCall],
      toolWithToolCallList: [{ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters }, toolCall }],
      customer,
      call,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Ending a call that is already running: the browser's sandbox web calls, and the sandbox calls a
// restart (or the demo seed) left unfinished.
// ---------------------------------------------------------------------------------------------------

/** A call record the sandbox ends: who, with which agent, since when. */
export interface SandboxRunningCall {
  callId: string;
  orgId: string;
  agentId: string | null;
  config: AgentConfig;
  type: CallType;
  /** The provider call id the record already has (the sandbox's), or null (a seeded call). */
  providerCallId: string | null;
  phoneNumberId: string | null;
  customerNumber: string | null;
  customerName: string | null;
  variableValues: Record<string, string>;
  /** Epoch ms when the conversation started. */
  startedAt: number;
}

const VAPI_CALL_TYPE: Readonly<Record<CallType, string>> = { web: "webCall", inbound: "inboundPhoneCall", outbound: "outboundPhoneCall" };

/** What Vapi's default variables know of a running call: its start, and the customer of a phone call (a web call has none). */
const runningCallVariables = (call: SandboxRunningCall): CallVariableContext => ({
  now: call.startedAt,
  customer: call.type === "web" ? null : { number: call.customerNumber, name: call.customerName?.trim() || null },
});

/** The provider call id of a sandbox call: its own, or one derived from our id (the same on every restart). */
export const sandboxProviderCallId = (call: Pick<SandboxRunningCall, "callId" | "providerCallId">) => call.providerCallId ?? `sandbox-${call.callId}`;

/**
 * The `status-update` (ended) and `end-of-call-report` of a running call that ends at `endedAt`, with these
 * spoken lines (role and ms after the start). Cost: $0.10 a minute from the start to the end, per started
 * second, like every sandbox call.
 */
export function sandboxEndEvents(
  call: SandboxRunningCall,
  end: { endedAt: number; endedReason: string; lines: { role: "bot" | "user"; text: string; atMs: number }[]; summary: string },
): SandboxEvent[] {
  const providerCallId = sandboxProviderCallId(call);
  const iso = (ms: number) => new Date(ms).toISOString();
  const endedAt = Math.max(end.endedAt, call.startedAt);
  const customer = {
    ...(call.customerNumber ? { number: call.customerNumber } : {}),
    ...(call.customerName?.trim() ? { name: Array.from(call.customerName.trim()).slice(0, 40).join("") } : {}),
  };
  const baseCall = {
    id: providerCallId,
    orgId: "sandbox",
    type: VAPI_CALL_TYPE[call.type],
    createdAt: iso(call.startedAt),
    ...(call.phoneNumberId ? { phoneNumberId: call.phoneNumberId } : {}),
    customer,
    assistantOverrides: { variableValues: call.variableValues, metadata: { callId: call.callId, orgId: call.orgId, agentId: call.agentId } },
  };
  const talkMs = endedAt - call.startedAt;
  const spoken = end.lines.filter((line) => line.atMs <= talkMs);
  const messages = spoken.map((line, index) => {
    const next = spoken[index + 1]?.atMs ?? talkMs;
    const duration = Math.max(0, Math.min(next, talkMs) - line.atMs) * 0.8;
    return { role: line.role, message: line.text, time: call.startedAt + line.atMs, endTime: call.startedAt + line.atMs + duration, secondsFromStart: line.atMs / 1000, duration };
  });
  const transcript = spoken.map((line) => `${line.role === "bot" ? "AI" : "User"}: ${line.text}`).join("\n");
  const billedSeconds = Math.max(1, Math.ceil(talkMs / 1000));
  const analysis: Json = { summary: end.summary, successEvaluation: successEvaluation(call.config.analysis_plan.success_evaluation_rubric, true) };
  return [
    {
      at: endedAt,
      message: {
        type: "status-update",
        status: "ended",
        timestamp: endedAt,
        endedReason: end.endedReason,
        customer,
        call: { ...baseCall, status: "ended", updatedAt: iso(endedAt), endedReason: end.endedReason },
      },
    },
    endOfCallReport({
      at: endedAt,
      timestamp: endedAt,
      endedReason: end.endedReason,
      startedAt: iso(call.startedAt),
      endedAt: iso(endedAt),
      billedSeconds,
      artifact: { transcript, messages },
      analysis,
      customer,
      baseCall,
    }),
  ];
}

/** The `status-update` (in-progress) that creates a sandbox web call's life at the provider's side. */
export function sandboxInProgressEvent(call: SandboxRunningCall): Json {
  return {
    type: "status-update",
    status: "in-progress",
    timestamp: call.startedAt,
    call: {
      id: sandboxProviderCallId(call),
      orgId: "sandbox",
      type: VAPI_CALL_TYPE[call.type],
      status: "in-progress",
      createdAt: new Date(call.startedAt).toISOString(),
      updatedAt: new Date(call.startedAt).toISOString(),
      assistantOverrides: { variableValues: call.variableValues, metadata: { callId: call.callId, orgId: call.orgId, agentId: call.agentId } },
    },
  };
}

/**
 * How a browser sandbox web call ends: the agent's first message and the sandbox's lines, as far as the
 * call got (contract/web-call-sandbox.ts, the script the page plays), and the closing line when the
 * assistant ended it. `listeningAfterMs`: from the server's start to the page's 'listening' message.
 */
export function sandboxWebCallEnd(call: SandboxRunningCall, endedAt: number, endedReason: string, options: { title?: string; listeningAfterMs?: number } = {}) {
  const listening = options.listeningAfterMs ?? 1000;
  const welcome = renderVariables(call.config.agent_welcome_message, call.variableValues, runningCallVariables(call)).trim();
  const lines: { role: "bot" | "user"; text: string; atMs: number }[] = sandboxWebCallOpening(welcome).map((line) => ({ role: "bot", text: line.text, atMs: listening + line.startMs }));
  if (endedReason !== "customer-ended-call") lines.push({ role: "bot", text: SANDBOX_WEB_CALL_END_MESSAGE, atMs: Math.max(0, endedAt - call.startedAt - sandboxLineMs(SANDBOX_WEB_CALL_END_MESSAGE)) });
  const seconds = Math.max(1, Math.ceil((endedAt - call.startedAt) / 1000));
  const who = call.customerName?.trim() || "a visitor";
  const agentName = call.config.agent_name.trim() || "The assistant";
  const summary =
    `${agentName} held a web call with ${who}${options.title ? ` through the link "${options.title}"` : ""} for ${seconds} s; ` +
    `${endedReason === "customer-ended-call" ? "the visitor ended the call" : "the assistant closed the call"}. ` +
    "(Simulated by the sandbox in the browser: no audio was sent to a voice provider.)";
  return sandboxEndEvents(call, { endedAt, endedReason, lines, summary });
}

/**
 * How a sandbox call that was still running when the server (re)started ends, `seconds` from now: a
 * conversation like any answered sandbox call's, or, past the agent's max_duration_seconds, ended at
 * that limit ("exceeded-max-duration"). A call that was never answered (queued, ringing) ends unanswered.
 */
export function sandboxResumedEnd(call: SandboxRunningCall, status: ProviderCallStatus, now: number, seconds: number): SandboxEvent[] {
  const limit = call.startedAt + call.config.max_duration_seconds * 1000;
  if (status === "queued" || status === "ringing") {
    const at = Math.max(now, call.startedAt);
    const reason = SANDBOX_ENDED_REASON["no-answer"];
    const customer = call.customerNumber ? { number: call.customerNumber } : {};
    const baseCall = {
      id: sandboxProviderCallId(call),
      orgId: "sandbox",
      type: VAPI_CALL_TYPE[call.type],
      customer,
      assistantOverrides: { variableValues: call.variableValues, metadata: { callId: call.callId, orgId: call.orgId, agentId: call.agentId } },
    };
    return [
      { at, message: { type: "status-update", status: "ended", timestamp: at, endedReason: reason, customer, call: { ...baseCall, status: "ended", endedReason: reason } } },
      { at, message: { type: "end-of-call-report", timestamp: at, endedReason: reason, cost: 0, analysis: {}, customer, call: { ...baseCall, status: "ended", endedReason: reason, cost: 0 } } },
    ];
  }
  const wanted = now + Math.max(0, seconds) * 1000;
  const overLimit = wanted > limit;
  const endedAt = overLimit ? limit : wanted;
  const known = call.customerName?.trim().split(/\s+/)[0] || call.variableValues.name?.trim() || "";
  const name = known || "the customer";
  const variables = runningCallVariables(call);
  const texts: { role: "bot" | "user"; text: string }[] = [];
  const welcome = renderVariables(call.config.agent_welcome_message, call.variableValues, variables).trim();
  const endMessage = renderVariables(call.config.agent_end_call_message, call.variableValues, variables).trim();
  if (welcome) texts.push({ role: "bot", text: welcome });
  texts.push({ role: "user", text: pick(OPENERS, call.callId, "opener")(known) });
  texts.push({ role: "bot", text: pick(FOLLOW_UPS, call.callId, "follow-up")(known) });
  texts.push({ role: "user", text: pick(CLOSERS, call.callId, "closer") });
  if (endMessage && !overLimit) texts.push({ role: "bot", text: endMessage });
  const talkMs = endedAt - call.startedAt;
  const slot = texts.length > 0 ? talkMs / texts.length : 0;
  const lines = texts.map((line, index) => ({ ...line, atMs: index * slot }));
  const agentName = call.config.agent_name.trim() || "The assistant";
  const summary = overLimit
    ? `${agentName} spoke with ${name}; the call reached the agent's maximum duration (${call.config.max_duration_seconds} s) and was ended. (Simulated by the sandbox.)`
    : `${agentName} spoke with ${name}. ${known || "The customer"} had nothing further to discuss; the call ended politely with the closing message. (Simulated by the sandbox: no real call was placed.)`;
  return sandboxEndEvents(call, { endedAt, endedReason: overLimit ? "exceeded-max-duration" : SANDBOX_ENDED_REASON.answered, lines, summary });
}

export interface SandboxCalls {
  connect(delivery: WebhookDelivery): void;
  /** How long each simulated call lasts (SANDBOX_CALL_SECONDS). */
  readonly callSeconds: number;
  /**
   * Plays a placed call's script. `placed`: the provider call id and the clock at placing when the caller
   * already chose them (the sandbox provider records both in its ledger first); new ones otherwise.
   */
  start(request: PhoneCallRequest, placed?: { providerCallId: string; placedAt: number }): { providerCallId: string; status: ProviderCallStatus };
  /** Delivers one event now; resolves when our webhook route has answered it. */
  send(message: Json): Promise<void>;
  /**
   * Delivers `events` in order, each at its time (`at`, epoch ms; at once when past). `key` names the
   * series: a later `play` or `cancel` with the same key replaces it.
   */
  play(key: string, events: SandboxEvent[]): void;
  cancel(key: string): void;
  /** Stops every simulated call (no more events) and waits for deliveries under way. */
  close(): Promise<void>;
}

/**
 * Runs simulated calls on timers: each event is delivered after the one before it has been answered,
 * never before its time. Timers do not keep the process alive and stop at close().
 */
export function createSandboxCalls(options: { callSeconds?: number } = {}): SandboxCalls {
  const callSeconds = options.callSeconds ?? DEFAULT_SANDBOX_CALL_SECONDS;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let delivery: WebhookDelivery | null = null;
  let closed = false;

  /** Waits between redeliveries; close() ends them at once. */
  const waking = new Set<() => void>();
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waking.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      waking.add(done);
    });
  }

  /** One try: our route's answer, or null when it could not be reached. */
  async function deliverOnce(target: WebhookDelivery, message: Json): Promise<WebhookAnswer | null> {
    const body = JSON.stringify({ message });
    try {
      const response = await target.post(body, signedHeaders(target.secret, body));
      if (response.statusCode >= 300) target.log?.warn({ status: response.statusCode, type: message.type }, `the sandbox's webhook was answered ${response.statusCode}`);
      return response;
    } catch (error) {
      if (!closed) target.log?.warn({ err: error, type: message.type }, "the sandbox could not deliver a webhook event");
      return null;
    }
  }

  /**
   * Delivers one event. A call's state (status-update, end-of-call-report) that could not be delivered or was
   * answered 5xx is sent again after SANDBOX_REDELIVERY_MS (our ingestion takes each event once, so a repeat
   * changes nothing); other events (tool calls, transcripts) are sent once. A call whose end is still lost is
   * the reaper's to find (it asks the provider once the contact's lease runs out).
   */
  async function deliver(message: Json): Promise<WebhookAnswer | null> {
    const redeliver = REDELIVERED_TYPES.has(String(message.type));
    for (let attempt = 0; ; attempt++) {
      const target = delivery;
      if (!target || closed) return null;
      const answer = await deliverOnce(target, message);
      const lost = answer === null || answer.statusCode >= 500;
      if (!lost || !redeliver || closed || attempt >= SANDBOX_REDELIVERY_MS.length) return answer;
      await pause(SANDBOX_REDELIVERY_MS[attempt]!);
    }
  }

  /** What follows a delivered event: its continuation's events, else the rest of the script. */
  function following(event: SandboxEvent, rest: SandboxEvent[], answer: WebhookAnswer | null): SandboxEvent[] {
    if (!event.then) return rest;
    try {
      return event.then(answer) ?? rest;
    } catch (error) {
      delivery?.log?.warn({ err: error, type: event.message.type }, "a sandbox call's continuation failed; the call goes on as scripted");
      return rest;
    }
  }

  /** Series started with a key (see `play` in SandboxCalls): the timer of its next event. */
  const keyed = new Map<string, NodeJS.Timeout>();

  function play(events: SandboxEvent[], placedAt: number, key?: string): void {
    const [event, ...rest] = events;
    if (!event || closed) {
      if (key) keyed.delete(key);
      return;
    }
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        const delivered = deliver(event.message).then((answer) => {
          inFlight.delete(delivered);
          if (!key || keyed.get(key) === timer) play(following(event, rest, answer), placedAt, key);
        });
        inFlight.add(delivered);
      },
      Math.max(0, placedAt + event.at - Date.now()),
    );
    timer.unref();
    timers.add(timer);
    if (key) keyed.set(key, timer);
  }

  function cancel(key: string): void {
    const timer = keyed.get(key);
    keyed.delete(key);
    if (timer) {
      clearTimeout(timer);
      timers.delete(timer);
    }
  }

  return {
    connect(target) {
      delivery = target;
    },
    callSeconds,
    start(request, placed) {
      const providerCallId = placed?.providerCallId ?? `sandbox-${randomUUID()}`;
      const placedAt = placed?.placedAt ?? Date.now();
      play(sandboxCallScript(request, providerCallId, placedAt, callSeconds), placedAt);
      return { providerCallId, status: "queued" };
    },
    send: async (message) => {
      await deliver(message);
    },
    play(key, events) {
      cancel(key);
      play(events, 0, key);
    },
    cancel,
    async close() {
      closed = true;
      for (const wake of [...waking]) wake();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
