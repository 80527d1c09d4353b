/**
 * The demo organisation's history (the embedded default shows a product in use): 3 agents made from the
 * templates, 3 sandbox phone numbers (one default, each answered by an agent), DEMO_CALL_COUNT calls over
 * the last 90 days with transcripts, summaries, structured data, success evaluations and costs, and the
 * wallet ledger that paid for them.
 *
 * Decisions:
 * - Everything is stored locally as sandbox data (agents without a provider assistant, numbers without a
 *   provider number, calls with `isSandbox: true`), in Vapi mode too: seed data never reaches a provider.
 *   An agent saved later in Vapi mode is created at Vapi then, like any unsynced agent.
 * - Generated from a seeded PRNG (mulberry32): the same seed and the same `now` give the same rows,
 *   ids included (ids are UUID-shaped values drawn from the PRNG; the seed runs once per database).
 * - Unanswered calls (customer-did-not-answer, customer-busy) have no transcript and cost nothing; every
 *   other ended call is debited once in the ledger, and the wallet balance is the ledger's sum (starting
 *   credit, top-ups whenever the balance would run low, call debits), so it stays positive.
 * - A few calls started in the last two minutes are still in progress (no end, no cost yet): they hold wallet
 *   credit like any running call, and the sandbox ends them at start-up, through the webhook route, with a
 *   transcript, a summary and a debit (server/voice/sandbox-resume.ts).
 */
import { rebuildUsage } from "../billing/usage";
import type { AgentConfig, AgentTemplateKey } from "../../contract/agent";
import { templateConfig } from "../agents/templates";
import { successOutcomeFor } from "../calls/repository";
import type { Db } from "../db/client";
import { agents, calls, phoneNumbers, walletLedger, wallets } from "../db/schema";

export const DEMO_DATA_SEED = 20_260_101;
export const DEMO_CALL_COUNT = 2000;
export const DEMO_DAYS = 90;
const IN_PROGRESS_CALLS = 3;
const BATCH = 250;
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------------
// The PRNG and helpers.
// ---------------------------------------------------------------------------------------------------

export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

class Rng {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1]![0];
  }
  /** A version-4-shaped UUID from the PRNG (deterministic ids). */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16));
    hex[12] = "4";
    hex[16] = "89ab"[Math.floor(this.next() * 4)]!;
    const s = hex.join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}

// ---------------------------------------------------------------------------------------------------
// People, numbers, products.
// ---------------------------------------------------------------------------------------------------

const FIRST_NAMES = [
  "James", "Maria", "Robert", "Linda", "Michael", "Patricia", "David", "Jennifer", "Daniel", "Elizabeth", "Carlos", "Aisha",
  "Wei", "Priya", "Omar", "Sofia", "Liam", "Emma", "Noah", "Olivia", "Lucas", "Chloe", "Ethan", "Grace", "Mateo", "Hannah",
  "Kenji", "Fatima", "Samuel", "Isabella", "Tom", "Zoe", "Raj", "Nina", "Jack", "Laura", "Ben", "Amara", "Leo", "Mia",
];
const LAST_NAMES = [
  "Smith", "Johnson", "Garcia", "Brown", "Miller", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Thomas", "Moore",
  "Lee", "Patel", "Nguyen", "Kim", "Hernandez", "Clark", "Lewis", "Walker", "Young", "Allen", "King", "Wright", "Scott",
  "Green", "Baker", "Adams", "Nelson", "Hill", "Campbell", "Mitchell", "Roberts", "Carter", "Okafor", "Schmidt", "Rossi",
];
const US_AREA_CODES = ["212", "213", "305", "312", "404", "415", "503", "512", "617", "702", "713", "720", "808", "917", "206", "602"];

/** E.164 numbers in ranges kept for fiction or examples where there is one; mostly US. */
function customerNumber(rng: Rng): string {
  const country = rng.weighted([["us", 74], ["ca", 6], ["gb", 7], ["au", 3], ["de", 3], ["fr", 2], ["mx", 3], ["in", 2]] as const);
  const d = (n: number) => Array.from({ length: n }, () => rng.int(0, 9)).join("");
  switch (country) {
    case "us":
      return `+1${rng.pick(US_AREA_CODES)}55501${d(2)}`;
    case "ca":
      return `+1${rng.pick(["416", "604", "514", "403"])}55501${d(2)}`;
    case "gb":
      return `+4420794600${d(2)}`;
    case "au":
      return `+61491570${d(3)}`;
    case "de":
      return `+4930${rng.int(2, 9)}${d(7)}`;
    case "fr":
      return `+336${d(8)}`;
    case "mx":
      return `+5255${d(8)}`;
    case "in":
      return `+919${d(9)}`;
  }
}

const PRODUCTS = [
  ["the trail running shoes", 129], ["the espresso machine", 349], ["the standing desk", 489], ["the noise-cancelling headphones", 229],
  ["the linen bedding set", 189], ["the carry-on suitcase", 275], ["the smart thermostat", 199], ["the yoga mat bundle", 89],
  ["the cast-iron cookware set", 159], ["the kids' bike", 219], ["the robot vacuum", 399], ["the winter parka", 249],
] as const;
const APPOINTMENT_KINDS = ["a dental check-up", "a haircut", "a car service", "a physiotherapy session", "an eye exam", "a consultation", "a home cleaning visit", "a massage"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const TIMES = [["9:30 in the morning", "09:30"], ["10 o'clock", "10:00"], ["11:15", "11:15"], ["1 in the afternoon", "13:00"], ["2:30", "14:30"], ["4 o'clock", "16:00"], ["5:45", "17:45"]] as const;
const ISSUES = [
  ["billing", "I was charged twice for my last order."],
  ["delivery", "My package says delivered but it isn't here."],
  ["account", "I can't log in to my account, the reset email never arrives."],
  ["returns", "I'd like to return something I bought last week."],
  ["product", "The device won't turn on since the last update."],
  ["subscription", "I want to change my plan to the annual one."],
  ["billing", "There's a charge on my card I don't recognise."],
  ["delivery", "Can I change the delivery address on my order?"],
] as const;

// ---------------------------------------------------------------------------------------------------
// Conversations: a few dozen per agent kind, from scenarios whose lines vary with names and products.
// ---------------------------------------------------------------------------------------------------

type Kind = "purchase-completion" | "appointment-setter" | "customer-support";
interface Conversation {
  lines: Array<["assistant" | "user", string]>;
  success: boolean;
  summary: string;
  structured: Record<string, unknown>;
}

function purchaseConversation(rng: Rng, name: string, known: boolean): Conversation {
  const [product, price] = rng.pick(PRODUCTS);
  const who = known ? name : "the customer";
  const greeting: ["assistant", string] = ["assistant", `Hi ${known ? name : "there"}! I'm calling about the items you left in your cart. Do you have a minute?`];
  const hello = rng.pick(["Sure, what's this about?", "Oh, yes, I have a minute.", "Okay, go ahead.", "Um, I guess so."]);
  const remind: ["assistant", string] = ["assistant", `You had ${product} in your cart, $${price}. Was there anything that stopped you from finishing the order?`];
  const scenario = rng.pick(["completed", "completed", "shipping", "price", "agreed", "trust", "payment", "undecided", "do-not-call"] as const);
  const code = `SAVE${rng.int(5, 15)}`;
  const lines: Conversation["lines"] = [greeting, ["user", hello], remind];
  let success = false;
  let objection = "none";
  let followUp = "";
  let outcome = "";
  switch (scenario) {
    case "completed":
      lines.push(["user", rng.pick(["Honestly I just got distracted. I still want it.", "The page timed out on me, I meant to buy it."])]);
      lines.push(["assistant", "No problem at all. I can text you a link that takes you straight back to checkout with everything saved. Shall I?"]);
      lines.push(["user", "Yes please."], ["assistant", "Sent. It should arrive in a few seconds."], ["user", "Got it... okay, done, the order went through."]);
      lines.push(["assistant", "Wonderful, you'll get a confirmation email shortly. Thank you for your time. Have a great day!"]);
      success = true;
      outcome = "completed the purchase during the call using the checkout link";
      break;
    case "agreed":
      lines.push(["user", "I wanted to check with my partner first."], ["assistant", "That makes sense. Your cart is saved for seven days, and I can send a reminder link. Would that help?"]);
      lines.push(["user", "Yes, send it, I'll probably order tonight."], ["assistant", "Done. Thank you for your time. Have a great day!"]);
      success = true;
      objection = "undecided";
      followUp = "Checkout link sent by text; customer plans to order tonight.";
      outcome = "agreed to complete the purchase later today";
      break;
    case "shipping":
      lines.push(["user", "The shipping cost was more than I expected."], ["assistant", `I understand. Orders over $75 ship free this week, and ${product} qualifies, so shipping would be free.`]);
      lines.push(["user", "Oh, I didn't see that. Then yes, I'll order it."], ["assistant", "Great, I've sent the link with free shipping applied. Thank you for your time. Have a great day!"]);
      success = true;
      objection = "shipping";
      outcome = "completed the purchase once free shipping was explained";
      break;
    case "price":
      lines.push(["user", "It's a bit over my budget right now."], ["assistant", `I hear you. I can offer the code ${code} for a discount today, no pressure at all.`]);
      if (rng.chance(0.5)) {
        lines.push(["user", "That helps, okay, I'll use it."], ["assistant", "Perfect, I've texted you the code and the link. Thank you for your time. Have a great day!"]);
        success = true;
        outcome = `agreed to buy with the discount code ${code}`;
        followUp = `Discount code ${code} sent by text.`;
      } else {
        lines.push(["user", "Thanks, but I'll wait for a bigger sale."], ["assistant", "Completely fine. Your cart stays saved. Thank you for your time. Have a great day!"]);
        outcome = "declined for now because of the price";
      }
      objection = "price";
      break;
    case "trust":
      lines.push(["user", "I've never ordered from you before, is it safe to pay on the site?"]);
      lines.push(["assistant", "Yes. Payments go through an encrypted checkout, and every order has a 30-day return window, no questions asked."]);
      lines.push(["user", "Alright, that's reassuring. I'll finish it later this week."], ["assistant", "Sounds good. Thank you for your time. Have a great day!"]);
      success = true;
      objection = "trust";
      followUp = "Customer will complete the order this week.";
      outcome = "reassured about payment security and returns; agreed to order this week";
      break;
    case "payment":
      lines.push(["user", "My card kept getting declined at checkout."], ["assistant", "Sorry about that. Sometimes the bank blocks a first online payment. You can also pay with PayPal or another card. Would you like to try again now?"]);
      lines.push(["user", "I'll call my bank first."], ["assistant", "Of course. I'll send you the link so your cart is ready when you are. Thank you for your time. Have a great day!"]);
      objection = "payment_failure";
      followUp = "Customer is contacting the bank; link sent.";
      outcome = "could not pay because the card was declined; will contact the bank";
      break;
    case "undecided":
      lines.push(["user", "I'm still comparing a couple of options."], ["assistant", "Understandable. Is there anything about it I could answer for you?"]);
      lines.push(["user", "No, not really. I'll decide on my own, thanks."], ["assistant", "Of course. Thank you for your time. Have a great day!"]);
      objection = "undecided";
      outcome = "still comparing options and declined for now";
      break;
    case "do-not-call":
      lines.push(["user", "Please don't call me about this again."], ["assistant", "Understood, I've noted that and you won't get another call about this cart. Have a great day!"]);
      objection = "other";
      outcome = "asked not to be called again";
      break;
  }
  return {
    lines,
    success,
    summary: [`- Reached ${who} about ${product} ($${price}) left in the cart.`, `- Objection: ${objection}.`, `- Outcome: ${who === "the customer" ? "The customer" : who} ${outcome}.`, ...(followUp ? [`- Follow-up: ${followUp}`] : [])].join("\n"),
    structured: {
      reached: true,
      completed_purchase: scenario === "completed" || scenario === "shipping",
      agreed_to_complete: success,
      objection,
      follow_up: followUp,
      do_not_call: scenario === "do-not-call",
    },
  };
}

function appointmentConversation(rng: Rng, name: string, known: boolean, startedAt: Date): Conversation {
  const kind = rng.pick(APPOINTMENT_KINDS);
  const day = rng.pick(DAYS);
  const [spoken, hhmm] = rng.pick(TIMES);
  const scenario = rng.pick(["booked", "booked", "booked", "alternative", "reschedule", "cancel", "no-slot", "just-asking"] as const);
  const date = new Date(startedAt.getTime() + rng.int(1, 14) * DAY).toISOString().slice(0, 10);
  const lines: Conversation["lines"] = [["assistant", `Hi ${known ? name : "there"}! I can help you book an appointment. What would you like to schedule?`]];
  let booked = false;
  let changed = false;
  let outcome = "";
  switch (scenario) {
    case "booked":
      lines.push(["user", `I'd like to book ${kind}, ${day} if possible.`], ["assistant", `Let me check ${day}... I have ${spoken} available. Does that work?`]);
      lines.push(["user", "Yes, that's perfect."]);
      if (known) lines.push(["assistant", `Great. Can I confirm the name? ${name}, is that right?`], ["user", "That's right."]);
      else lines.push(["assistant", "Great. Can I have your name for the booking?"], ["user", `It's ${name}.`]);
      lines.push(["assistant", `You're booked for ${kind} on ${day} at ${spoken}. Your appointment is noted. Thank you, and have a great day!`]);
      booked = true;
      outcome = `booked ${kind} on ${day} at ${spoken}`;
      break;
    case "alternative":
      lines.push(["user", `Do you have anything for ${kind} tomorrow morning?`], ["assistant", "Tomorrow morning is full, I'm afraid. The next opening is " + `${day} at ${spoken}. Would that suit you?`]);
      lines.push(["user", "Hmm, okay, yes, let's do that."], ["assistant", `Done: ${kind} on ${day} at ${spoken}. Your appointment is noted. Thank you, and have a great day!`]);
      booked = true;
      outcome = `first choice unavailable; booked ${kind} on ${day} at ${spoken} instead`;
      break;
    case "reschedule":
      lines.push(["user", "I need to move my appointment, something came up."], ["assistant", `No problem. I can offer ${day} at ${spoken}. Shall I move it there?`]);
      lines.push(["user", "Yes please."], ["assistant", `It's moved to ${day} at ${spoken}. Your appointment is noted. Thank you, and have a great day!`]);
      booked = true;
      changed = true;
      outcome = `rescheduled to ${day} at ${spoken}`;
      break;
    case "cancel":
      lines.push(["user", "I'd like to cancel my appointment on " + `${day}.`], ["assistant", "I've cancelled it. Would you like to book another time instead?"]);
      lines.push(["user", "Not right now, thanks."], ["assistant", "Of course. Thank you, and have a great day!"]);
      changed = true;
      outcome = `cancelled the appointment on ${day}`;
      break;
    case "no-slot":
      lines.push(["user", `Can I get ${kind} this ${day} evening after 7?`], ["assistant", "I'm sorry, we close at 6 on weekdays. The latest I have is 5:45. Would that work?"]);
      lines.push(["user", "No, that's too early for me. I'll call back."], ["assistant", "Understood. Thank you, and have a great day!"]);
      outcome = "no suitable slot; the caller will call back";
      break;
    case "just-asking":
      lines.push(["user", `How much is ${kind}, before I book?`], ["assistant", "Prices depend on the service; our team will confirm it when you book. Would you like me to find you a time?"]);
      lines.push(["user", "Let me think about it first."], ["assistant", "Of course. Thank you, and have a great day!"]);
      outcome = "asked about prices and did not book";
      break;
  }
  return {
    lines,
    success: booked,
    summary: [`- Caller: ${name}.`, `- Purpose: ${kind}.`, `- Outcome: ${outcome}.`].join("\n"),
    structured: {
      caller_name: name,
      appointment_purpose: kind,
      appointment_date: booked ? date : "",
      appointment_time: booked ? hhmm : "",
      booked,
      rescheduled_or_cancelled: changed,
    },
  };
}

function supportConversation(rng: Rng, name: string, known: boolean): Conversation {
  const [category, complaint] = rng.pick(ISSUES);
  const order = `#${rng.int(100_000, 999_999)}`;
  const scenario = rng.pick(["resolved", "resolved", "resolved", "escalated", "follow-up", "unresolved"] as const);
  const lines: Conversation["lines"] = [["assistant", "Hello! Thanks for calling support. How can I help you today?"], ["user", complaint]];
  if (known) lines.push(["assistant", `I'm sorry about that, ${name}. Could you give me your order or account number?`], ["user", `Sure, it's ${order}.`]);
  else lines.push(["assistant", "I'm sorry about that. Could I have your name and your order or account number?"], ["user", `Sure, I'm ${name}, and it's ${order}.`]);
  let resolved = false;
  let escalated = false;
  let followUp = false;
  let sentiment = "neutral";
  let outcome = "";
  switch (scenario) {
    case "resolved":
      lines.push(["assistant", rng.pick([
        "Thanks. I can see the problem and I've fixed it on our side; you'll get an email confirming it within the hour.",
        "Got it. I've sent the steps by email: restart, then hold the button for ten seconds. Could you try that now?",
        "Thank you. I've updated it for you; the change shows in your account right away.",
      ])]);
      lines.push(["user", rng.pick(["Oh great, that worked.", "Perfect, thank you so much.", "Okay, I see it now. Thanks!"])], ["assistant", "Glad I could help. Thanks for calling. Have a great day!"]);
      resolved = true;
      sentiment = "positive";
      outcome = "resolved during the call";
      break;
    case "escalated":
      lines.push(["assistant", "This needs someone from our team who can look at the payment records. I'll transfer you now, please hold."], ["user", "Okay, thanks."]);
      escalated = true;
      outcome = "escalated to a person";
      break;
    case "follow-up":
      lines.push(["assistant", "I've opened a ticket for this; the team will email you within one business day with an update."], ["user", "Alright, I'll wait for the email."]);
      lines.push(["assistant", "Thanks for your patience. Thanks for calling. Have a great day!"]);
      followUp = true;
      resolved = rng.chance(0.3);
      outcome = "ticket opened; the team will follow up by email";
      break;
    case "unresolved":
      lines.push(["assistant", "I'm afraid I can't change that from here."], ["user", "This is really frustrating, I've called twice already."], ["assistant", "I understand, and I'm sorry. I've noted it so the next person sees the history. Thanks for calling."]);
      sentiment = "negative";
      followUp = true;
      outcome = "not resolved; the caller was frustrated";
      break;
  }
  return {
    lines,
    success: resolved || escalated,
    summary: [`- ${name} called about ${category}: "${complaint}"`, `- Order/account: ${order}.`, `- Outcome: ${outcome}.`].join("\n"),
    structured: { issue_category: category, resolved, escalated, follow_up_needed: followUp, customer_sentiment: sentiment },
  };
}

// ---------------------------------------------------------------------------------------------------
// Rows.
// ---------------------------------------------------------------------------------------------------

export type AgentInsert = typeof agents.$inferInsert;
export type PhoneNumberInsert = typeof phoneNumbers.$inferInsert;
export type CallInsert = typeof calls.$inferInsert;
export type LedgerInsert = typeof walletLedger.$inferInsert;
/** A ledger entry before its balance_after is known (written once the entries are in time order). */
type LedgerDraft = Omit<LedgerInsert, "balanceAfterMicros">;

export interface DemoData {
  agents: AgentInsert[];
  phoneNumbers: PhoneNumberInsert[];
  calls: CallInsert[];
  ledger: LedgerInsert[];
  balanceMicros: number;
}

const ANSWERED_REASONS = [
  ["customer-ended-call", 46],
  ["assistant-ended-call", 40],
  ["silence-timed-out", 5],
  ["exceeded-max-duration", 1.5],
  ["pipeline-error-openai-llm-failed", 1.2],
  ["pipeline-error-eleven-labs-voice-failed", 0.8],
  ["pipeline-error-deepgram-transcriber-failed", 0.6],
] as const;

/** Ended reasons that mean nobody picked up: no transcript, no cost. */
export const UNANSWERED_REASONS = ["customer-did-not-answer", "customer-busy"] as const;

/** USD per minute by cost-breakdown part (about $0.12 a minute in all). */
const RATES = { transport: 0.01, stt: 0.01, llm: 0.03, tts: 0.02, vapi: 0.05 } as const;

function cost(seconds: number, llmFactor: number): { micros: number; breakdown: Record<string, unknown> } {
  const parts = Object.fromEntries(
    Object.entries(RATES).map(([part, perMinute]) => [part, Math.round(((part === "llm" ? perMinute * llmFactor : perMinute) * 1_000_000 * seconds) / 60)]),
  ) as Record<string, number>;
  const micros = Object.values(parts).reduce((sum, value) => sum + value, 0);
  const usd = (value: number) => value / 1_000_000;
  return {
    micros,
    breakdown: { ...Object.fromEntries(Object.entries(parts).map(([part, value]) => [part, usd(value)])), total: usd(micros) },
  };
}

function rubricAnswer(config: AgentConfig, success: boolean, rng: Rng): string {
  if (config.analysis_plan.success_evaluation_rubric === "PercentageScale") return String(success ? rng.pick([75, 80, 90, 100]) : rng.pick([0, 10, 25, 40]));
  return success ? "true" : "false";
}

const AGENT_PLAN: ReadonlyArray<{ key: Kind; name: string }> = [
  { key: "customer-support", name: "Customer Support Agent" },
  { key: "appointment-setter", name: "Appointment Setter" },
  // Last: the most recently edited, so Agents opens it first (as it opens a fresh organisation's first agent).
  { key: "purchase-completion", name: "Purchase Completion Agent" },
];

/** Generates the demo organisation's rows. Pure: the same seed, organisation id and `now` give the same rows. */
export function generateDemoData(input: { orgId: string; createdBy: string; now: Date; seed?: number; startingCreditMicros: number; callCount?: number }): DemoData {
  const rng = new Rng(mulberry32(input.seed ?? DEMO_DATA_SEED));
  const now = input.now.getTime();
  const start = now - DEMO_DAYS * DAY;
  const callCount = input.callCount ?? DEMO_CALL_COUNT;

  const agentRows: AgentInsert[] = AGENT_PLAN.map((plan, index) => ({
    id: rng.uuid(),
    orgId: input.orgId,
    name: plan.name,
    config: templateConfig(plan.key as AgentTemplateKey, plan.name),
    isPublic: false,
    providerAssistantId: null,
    createdBy: input.createdBy,
    createdAt: new Date(start - (3 - index) * DAY),
    updatedAt: new Date(now - (3 - index) * 3_600_000),
  }));
  const byKind = new Map(AGENT_PLAN.map((plan, index) => [plan.key, agentRows[index]!]));
  const support = byKind.get("customer-support")!;
  const appointments = byKind.get("appointment-setter")!;
  const sales = byKind.get("purchase-completion")!;

  const numberRows: PhoneNumberInsert[] = [
    { name: "Main line", number: "+16465550134", isDefault: true, agentId: support.id },
    { name: "Bookings", number: "+13105550167", isDefault: false, agentId: appointments.id },
    { name: "Sales outreach", number: "+17735550121", isDefault: false, agentId: sales.id },
  ].map((number, index) => ({
    ...number,
    id: rng.uuid(),
    orgId: input.orgId,
    provider: "vapi",
    providerNumberId: null,
    credentialsEncrypted: null,
    createdAt: new Date(start - (2 - index) * DAY + 3_600_000),
    updatedAt: new Date(start - (2 - index) * DAY + 3_600_000),
  }));
  const [mainLine, bookings, outreach] = numberRows as [PhoneNumberInsert, PhoneNumberInsert, PhoneNumberInsert];

  // When each call starts: weekdays busier than weekends, more calls lately, business hours (US time).
  const dayWeights = Array.from({ length: DEMO_DAYS }, (_, day) => {
    const date = new Date(Math.floor(start / DAY) * DAY + (day + 1) * DAY);
    const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6;
    return (0.55 + (0.45 * day) / DEMO_DAYS) * (weekend ? 0.35 : 1);
  });
  const startTimes: number[] = [];
  const ended = callCount - IN_PROGRESS_CALLS;
  const firstMidnight = Math.floor(start / DAY) * DAY;
  const dayChoices = dayWeights.map((weight, index) => [index, weight] as const);
  while (startTimes.length < ended) {
    const day = rng.weighted(dayChoices);
    // 13:00–01:00 UTC ≈ 8 am–8 pm on the US east coast; a time outside the 90 days is drawn again.
    const at = firstMidnight + (day + 1) * DAY + Math.round((13 + rng.next() * 12) * 3_600_000);
    if (at >= start && at <= now - 15 * 60_000) startTimes.push(at);
  }
  startTimes.sort((a, b) => a - b);

  const callRows: CallInsert[] = [];
  const ledger: LedgerDraft[] = [];
  let balance = input.startingCreditMicros;
  ledger.push({ id: rng.uuid(), orgId: input.orgId, amountMicros: input.startingCreditMicros, kind: "starting-credit", description: "Starting credit", createdAt: new Date(start - 3 * DAY) });
  const topUp = (at: number) => {
    const amount = 100_000_000;
    balance += amount;
    ledger.push({ id: rng.uuid(), orgId: input.orgId, amountMicros: amount, kind: "top-up", description: "Top-up ($100.00)", createdAt: new Date(at) });
  };
  topUp(start - 3 * DAY + 60_000);

  for (const startedAtMs of startTimes) callRows.push(endedCall(startedAtMs));
  // Started within the last two minutes: at start-up the sandbox ends them like any of its calls
  // (server/voice/sandbox-resume.ts), well inside the agents' max_duration_seconds.
  for (let i = 0; i < IN_PROGRESS_CALLS; i++) callRows.push(inProgressCall(now - (i + 1) * rng.int(15, 40) * 1000));

  function person() {
    const first = rng.pick(FIRST_NAMES);
    return { first, full: `${first} ${rng.pick(LAST_NAMES)}` };
  }

  function base(startedAtMs: number) {
    const type = rng.weighted([["outbound", 52], ["inbound", 34], ["web", 14]] as const);
    const agent = type === "outbound" ? (rng.chance(0.7) ? sales : appointments) : type === "inbound" ? rng.weighted([[support, 60], [appointments, 40]] as const) : rng.pick([support, appointments, sales]);
    const number = type === "web" ? null : type === "inbound" ? (agent === support ? mainLine : bookings) : agent === sales ? outreach : bookings;
    const who = person();
    const known = type !== "web" || rng.chance(0.4);
    return {
      id: rng.uuid(),
      orgId: input.orgId,
      type,
      agentId: agent.id!,
      agentRow: agent,
      phoneNumberId: number?.id ?? null,
      customerNumber: type === "web" ? null : customerNumber(rng),
      customerName: known ? who.full : null,
      firstName: who.first,
      known,
      startedAt: new Date(startedAtMs),
      isSandbox: true,
    };
  }

  function endedCall(startedAtMs: number): CallInsert {
    const { agentRow, firstName, known, ...call } = base(startedAtMs);
    const config = agentRow.config as AgentConfig;
    const kind = AGENT_PLAN.find((plan) => plan.name === agentRow.name)!.key;
    const reason =
      call.type === "outbound"
        ? rng.weighted([["answered", 66], ["customer-did-not-answer", 17], ["customer-busy", 6], ["voicemail", 11]] as const)
        : "answered";
    const endedReason = reason === "answered" ? rng.weighted(ANSWERED_REASONS) : reason;
    const row: CallInsert = { ...call, status: "ended", endedReason, createdAt: call.startedAt };

    if ((UNANSWERED_REASONS as readonly string[]).includes(endedReason)) {
      const ringSeconds = endedReason === "customer-busy" ? rng.int(2, 6) : rng.int(25, 40);
      return { ...row, endedAt: new Date(startedAtMs + ringSeconds * 1000), durationSeconds: 0, costMicros: 0, costBreakdown: null, messages: [], transcript: null, summary: null, structuredData: null, successEvaluation: null, updatedAt: new Date(startedAtMs + ringSeconds * 1000) };
    }

    let conversation: Conversation;
    if (endedReason === "voicemail") {
      conversation = {
        lines: [["assistant", `Hi ${firstName}, this is ${config.agent_name} calling. Sorry I missed you, I'll try again later, or you can call us back at this number. Thanks!`]],
        success: false,
        summary: `- Reached ${firstName}'s voicemail; the assistant left a short message.`,
        structured: {},
      };
    } else {
      const name = firstName;
      conversation =
        kind === "purchase-completion"
          ? purchaseConversation(rng, name, known)
          : kind === "appointment-setter"
            ? appointmentConversation(rng, name, known, call.startedAt)
            : supportConversation(rng, name, known);
      if (endedReason.startsWith("pipeline-error")) {
        conversation = { ...conversation, lines: conversation.lines.slice(0, rng.int(1, 3)), success: false, summary: "- The call ended early because of a provider error before the conversation finished." };
      } else if (endedReason === "silence-timed-out") {
        conversation = { ...conversation, lines: conversation.lines.slice(0, 2), success: false, summary: `- ${known ? name : "The caller"} stopped responding; the call ended after a period of silence.` };
      }
    }

    // Times: each line takes a few seconds per word, with pauses.
    const answeredAfter = call.type === "outbound" ? rng.int(4, 14) : 1;
    const messages: Array<Record<string, unknown>> = [];
    let t = 0;
    for (const [role, text] of conversation.lines) {
      messages.push({ role, message: text, time: startedAtMs + (answeredAfter + t) * 1000, secondsFromStart: Math.round(t * 10) / 10 });
      t += Math.max(1.5, text.split(" ").length * (role === "assistant" ? 0.38 : 0.42)) + 0.8 + rng.next() * 2.2;
    }
    if (endedReason === "silence-timed-out") t += 30;
    if (endedReason === "exceeded-max-duration") t = Math.max(t, 600);
    const seconds = Math.max(1, Math.ceil(t));
    const { micros, breakdown } = cost(seconds, 0.8 + rng.next() * 0.5);
    const endedAtMs = startedAtMs + (answeredAfter + seconds) * 1000;
    const reached = endedReason !== "voicemail";
    const debit = `${call.type === "inbound" ? "Inbound call" : call.type === "web" ? "Web call" : "Call"}${call.customerNumber ? ` ${call.type === "inbound" ? "from" : "to"} ${call.customerNumber}` : ""} (${seconds} s)`;
    if (balance - micros < 20_000_000) topUp(endedAtMs - 1000);
    balance -= micros;
    ledger.push({ id: rng.uuid(), orgId: input.orgId, amountMicros: -micros, kind: "call", callId: call.id, agentId: call.agentId ?? null, description: debit, createdAt: new Date(endedAtMs) });
    const successEvaluation = rubricAnswer(config, conversation.success, rng);
    return {
      ...row,
      endedAt: new Date(endedAtMs),
      durationSeconds: seconds,
      costMicros: micros,
      costBreakdown: breakdown,
      messages,
      transcript: conversation.lines.map(([role, text]) => `${role === "assistant" ? "AI" : "User"}: ${text}`).join("\n"),
      summary: conversation.summary,
      structuredData: reached && Object.keys(conversation.structured).length > 0 ? conversation.structured : null,
      successEvaluation,
      successOutcome: successOutcomeFor(successEvaluation, agentRow),
      updatedAt: new Date(endedAtMs),
    };
  }

  function inProgressCall(startedAtMs: number): CallInsert {
    const { agentRow: _agent, firstName: _first, known: _known, ...call } = base(startedAtMs);
    return { ...call, status: "in-progress", createdAt: call.startedAt, updatedAt: call.startedAt, messages: [] };
  }

  // Entries in time order (calls end out of the order they started in), each with the balance after it.
  ledger.sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime());
  let running = 0;
  const ledgerRows: LedgerInsert[] = ledger.map((entry) => {
    running += entry.amountMicros;
    return { ...entry, balanceAfterMicros: running };
  });
  return { agents: agentRows, phoneNumbers: numberRows, calls: callRows, ledger: ledgerRows, balanceMicros: balance };
}

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

export interface DemoDataSummary {
  agents: number;
  numbers: number;
  calls: number;
  ms: number;
}

/** Writes the demo data (inside the caller's transaction, or on its own). */
export async function insertDemoData(db: Db, data: DemoData): Promise<void> {
  await db.insert(agents).values(data.agents);
  await db.insert(phoneNumbers).values(data.phoneNumbers);
  await inBatches(data.calls, (batch) => db.insert(calls).values(batch));
  await db.insert(wallets).values({ orgId: data.agents[0]!.orgId, balanceMicros: data.balanceMicros });
  await inBatches(data.ledger, (batch) => db.insert(walletLedger).values(batch));
  // The usage rollups of the debits just written (a debit through debitCallOnce writes its own).
  await rebuildUsage(db, data.agents[0]!.orgId);
}

export function describeDemoData(summary: DemoDataSummary): string {
  const n = (value: number) => value.toLocaleString("en-US");
  return `demo data: ${n(summary.agents)} agents, ${n(summary.numbers)} numbers, ${n(summary.calls)} calls (${summary.ms} ms)`;
}
