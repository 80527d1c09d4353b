/**
 * The demo organisation's store (issue 16 §4: "the embedded default shows a demo store with orders in every
 * state"): a generic integration named "Demo store" marked is_demo, the organisation's order follow-up
 * (switched on, the Purchase Completion Agent calling from "Sales outreach", the default 9:00–20:00 window),
 * and orders in every status, written as the store's deliveries, the dialler and the calls' settling would
 * have left them (orders, their timelines, their follow-up contacts, the store's recorded deliveries).
 *
 * - Called orders are made of the demo's own outbound purchase-completion calls (demo-calls.ts) that no
 *   campaign took, so the call count, the ledger and the dashboard's figures stay as they are: the chosen
 *   calls get the follow-up's campaign and contact, and `order_outcome` in their structured data; the order
 *   holds the product and price the call's conversation speaks of. What the customer said decides the order:
 *   agreed → recovered (paid within the attribution window), declined → declined, asked not to be called →
 *   opted out (and listed), card trouble with a link sent → calling (waiting for the purchase); three
 *   unanswered calls → unreachable, one unanswered call with its retry queued → calling.
 * - Each customer's number ends in the sandbox's digits for what happened (…00 answered, …02 no answer,
 *   …04 opts out, …05 declines), so a further sandbox call to them plays out the same way; the calls' ledger
 *   lines name the new number. Open orders (…00) are queued: the sandbox calls them, the customer agrees,
 *   and the demo store's paid event (server/orders/demo-store.ts) turns them recovered.
 * - The others never had a call: paid before it (paid without a call), cancelled by the store, no consent.
 * - USD, one to three items; pure and seeded like demo-calls.ts (the secret is drawn at insert time).
 * Sandbox voice mode only (seedDemo decides): with real calls, demo numbers must never be dialled.
 */
import { DEFAULT_FOLLOW_UP_WINDOWS } from "../../contract/calling-rules";
import { contactZones, isInsideWindows } from "../../contract/campaign-schedule";
import { DEFAULT_ATTRIBUTION_DAYS, DEFAULT_FOLLOW_UP_DELAY_MINUTES, ORDER_CALL_OUTCOME_LABELS, formatOrderAmount, type OrderCallOutcome, type OrderStatus } from "../../contract/order-shared";
import { numberTimeZones } from "../campaigns/number-zones";
import { readinessPlanner } from "../campaigns/readiness";
import type { SecretBox } from "../crypto/credentials";
import type { Db } from "../db/client";
import { campaignContacts, campaignEvents, campaigns, dncNumbers, orderEvents, orderFollowUps, orders, storeIntegrations, storeWebhookDeliveries } from "../db/schema";
import { DEMO_STORE_NAME, demoPaidDeliveryId } from "../orders/demo-store";
import { FOLLOW_UP_KIND, localTimeText, noConsentDetail, orderVariables, waitingForPurchaseText } from "../orders/follow-up";
import { newStoreSecret, sealStoreSecret } from "../orders/integrations";
import { FOLLOW_UP_DEFAULT_RETRY } from "../orders/settings";
import type { DemoCampaigns } from "./demo-campaigns";
import { mulberry32, type CallInsert, type DemoData } from "./demo-calls";

export const DEMO_STORE_SEED = 20_261_601;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WINDOWS = DEFAULT_FOLLOW_UP_WINDOWS.map((window) => ({ ...window, days: [...window.days] }));
const ANSWERED_REASONS = new Set(["customer-ended-call", "assistant-ended-call"]);
const CONSENT_SOURCE = "Demo store checkout: 'You may call me about this order'";
/** Customers' area codes (numbers in the 555-01xx range, kept for fiction), ending in the sandbox's digits. */
const AREA_CODES = ["212", "213", "305", "312", "404", "415", "503", "512", "617", "702", "713", "720", "808", "917", "206", "602", "646", "718", "310", "214", "303", "404", "470", "619", "678", "702", "786", "818", "929", "971"];
const ITEMS = [
  ["Ceramic pour-over set", 4200], ["Merino wool beanie", 2900], ["Bamboo cutting board", 3450], ["Insulated water bottle", 2495],
  ["Scented soy candle", 1800], ["Leather card holder", 3900], ["Wireless charging pad", 3499], ["Linen apron", 3200],
  ["Stoneware mug, set of 2", 2800], ["Cotton throw blanket", 6400],
] as const;
const FIRST = ["Ava", "Noah", "Mila", "Ethan", "Leah", "Omar", "Ines", "Kai", "Rosa", "Theo", "Yuki", "Zara"];
const LAST = ["Bennett", "Cruz", "Dubois", "Ellis", "Fischer", "Gupta", "Haddad", "Ito", "Jensen", "Kowalski", "Lopez", "Moreau"];

type OrderInsert = typeof orders.$inferInsert;
type ContactInsert = typeof campaignContacts.$inferInsert;
type EventInsert = typeof orderEvents.$inferInsert;
type DeliveryInsert = Omit<typeof storeWebhookDeliveries.$inferInsert, "integrationId">;

export interface DemoStore {
  integration: Omit<typeof storeIntegrations.$inferInsert, "secretSealed" | "secretHint">;
  campaign: typeof campaigns.$inferInsert;
  followUp: typeof orderFollowUps.$inferInsert;
  campaignEvents: (typeof campaignEvents.$inferInsert)[];
  orders: OrderInsert[];
  contacts: ContactInsert[];
  events: EventInsert[];
  dnc: (typeof dncNumbers.$inferInsert)[];
  deliveries: DeliveryInsert[];
}

type Plan =
  | { status: "recovered" | "declined" | "opted_out"; calls: [CallInsert] }
  | { status: "calling"; calls: [CallInsert]; outcome: "send_link_sms" | null }
  | { status: "unreachable"; calls: [CallInsert, CallInsert, CallInsert] }
  | { status: "open" | "paid_without_call" | "cancelled" | "no_consent"; calls: []; abandonedAt: number };

/** The sandbox's last two digits for what happened to a customer (server/voice/sandbox-calls.ts). */
const SUFFIX: Readonly<Record<OrderStatus, string>> = {
  open: "00",
  calling: "00",
  recovered: "00",
  declined: "05",
  unreachable: "02",
  paid_without_call: "00",
  opted_out: "04",
  cancelled: "00",
  no_consent: "00",
};

const structuredOf = (call: CallInsert) => (call.structuredData ?? {}) as { agreed_to_complete?: boolean; do_not_call?: boolean; objection?: string; completed_purchase?: boolean };
const day = (at: Date) => at.toISOString().slice(0, 10);

/** "the espresso machine" and 349 from the conversation's summary ("- Reached … about the espresso machine ($349) left in the cart."). */
function productOf(call: CallInsert): { name: string; priceMinor: number } | null {
  const match = /about (.+?) \(\$(\d+)\) left in the cart/.exec(call.summary ?? "");
  if (!match) return null;
  const name = match[1]!.replace(/^the /, "");
  return { name: `${name[0]!.toUpperCase()}${name.slice(1)}`, priceMinor: Number(match[2]) * 100 };
}

/**
 * Picks the demo store's calls in `data.calls` and sets their campaign, contact, number and order outcome
 * (and the ledger lines naming their numbers), then answers the store's rows.
 */
export function generateDemoStore(data: DemoData, campaignData: DemoCampaigns, input: { orgId: string; createdBy: string; now: Date; seed?: number }): DemoStore {
  const next = mulberry32(input.seed ?? DEMO_STORE_SEED);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
    hex[12] = "4";
    hex[16] = "89ab"[Math.floor(next() * 4)]!;
    const s = hex.join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
  const now = input.now.getTime();
  const sales = data.agents.find((agent) => agent.name === "Purchase Completion Agent");
  const outreach = data.phoneNumbers.find((number) => number.name === "Sales outreach");

  const integrationId = uuid();
  const campaignId = uuid();
  const setUpAt = new Date(now - 30 * DAY);
  const campaign: typeof campaigns.$inferInsert = {
    id: campaignId,
    orgId: input.orgId,
    name: "Order follow-up",
    kind: FOLLOW_UP_KIND,
    agentId: sales?.id ?? null,
    phoneNumberId: outreach?.id ?? null,
    status: sales && outreach ? "running" : "draft",
    schedule: { windows: WINDOWS, fallback_timezone: null },
    maxConcurrency: 2,
    retry: { ...FOLLOW_UP_DEFAULT_RETRY, on: [...FOLLOW_UP_DEFAULT_RETRY.on] },
    startedAt: sales && outreach ? new Date(setUpAt.getTime() + 2 * MINUTE) : null,
    createdBy: input.createdBy,
    createdAt: setUpAt,
    updatedAt: setUpAt,
  };
  const store: DemoStore = {
    integration: { id: integrationId, orgId: input.orgId, kind: "generic", name: DEMO_STORE_NAME, isDemo: true, createdBy: input.createdBy, createdAt: new Date(setUpAt.getTime() - HOUR), updatedAt: new Date(setUpAt.getTime() - HOUR) },
    campaign,
    followUp: { campaignId, orgId: input.orgId, integrationId: null, enabled: campaign.status === "running", delayMinutes: DEFAULT_FOLLOW_UP_DELAY_MINUTES, attributionDays: DEFAULT_ATTRIBUTION_DAYS, createdAt: setUpAt, updatedAt: setUpAt },
    campaignEvents: [
      { id: uuid(), orgId: input.orgId, campaignId, kind: "created", detail: "Order follow-up set up.", actor: input.createdBy, createdAt: setUpAt },
      ...(campaign.status === "running" ? [{ id: uuid(), orgId: input.orgId, campaignId, kind: "started", detail: "Follow-up calls may go out.", actor: input.createdBy, createdAt: campaign.startedAt! }] : []),
    ],
    orders: [],
    contacts: [],
    events: [],
    dnc: [],
    deliveries: [],
  };

  // Numbers: unused, ending in the outcome's digits, and (for a call) inside the follow-up's window at its time.
  const used = new Set<string>([...campaignData.dnc.map((entry) => entry.number), ...data.phoneNumbers.map((number) => number.number)]);
  const numberFor = (suffix: string, at: readonly number[]): string | null => {
    const start = int(0, AREA_CODES.length - 1);
    for (let i = 0; i < AREA_CODES.length; i++) {
      const number = `+1${AREA_CODES[(start + i) % AREA_CODES.length]}55501${suffix}`;
      if (used.has(number)) continue;
      const zones = contactZones({ timezone: null, numberZones: numberTimeZones(number) }, null);
      if (at.every((instant) => isInsideWindows(WINDOWS, zones, instant))) {
        used.add(number);
        return number;
      }
    }
    return null;
  };

  // The calls no campaign took: the Purchase Completion Agent's, from "Sales outreach", over the last three weeks.
  const pool = sales && outreach
    ? data.calls
        .filter((call) => call.type === "outbound" && call.status === "ended" && call.agentId === sales.id && call.phoneNumberId === outreach.id && !call.campaignId && call.customerName)
        .filter((call) => call.startedAt!.getTime() >= now - 21 * DAY && call.endedAt!.getTime() <= now - 30 * MINUTE)
        .sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime())
    : [];
  const taken = new Set<CallInsert>();
  // A call the follow-up could have made: inside its window in the zone of some customer number we can give it.
  const ZONES = ["America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "Pacific/Honolulu"];
  const callable = (...calls: CallInsert[]) => ZONES.some((zone) => calls.every((call) => isInsideWindows(WINDOWS, [zone], call.startedAt!.getTime())));
  const answered = pool.filter((call) => ANSWERED_REASONS.has(call.endedReason ?? "") && call.structuredData && productOf(call));
  const take = (calls: CallInsert[], count: number, test: (call: CallInsert) => boolean, within: [number, number] = [now - 21 * DAY, now]) => {
    const chosen: CallInsert[] = [];
    for (const call of calls) {
      if (chosen.length === count) break;
      const at = call.startedAt!.getTime();
      if (!taken.has(call) && at >= within[0] && at <= within[1] && callable(call) && test(call)) {
        taken.add(call);
        chosen.push(call);
      }
    }
    return chosen;
  };
  const plans: Plan[] = [];
  for (const call of take(answered, 5, (c) => !!structuredOf(c).agreed_to_complete && structuredOf(c).objection !== "payment_failure", [now - 21 * DAY, now - 2 * DAY])) plans.push({ status: "recovered", calls: [call] });
  for (const call of take(answered, 3, (c) => !structuredOf(c).agreed_to_complete && !structuredOf(c).do_not_call && ["undecided", "price"].includes(structuredOf(c).objection ?? ""))) plans.push({ status: "declined", calls: [call] });
  for (const call of take(answered, 1, (c) => !!structuredOf(c).do_not_call)) plans.push({ status: "opted_out", calls: [call] });
  // Waiting for the purchase: within the 7 days of attribution.
  for (const call of take(answered, 1, (c) => structuredOf(c).objection === "payment_failure", [now - 5 * DAY, now])) plans.push({ status: "calling", calls: [call], outcome: "send_link_sms" });
  const unanswered = pool.filter((call) => call.endedReason === "customer-did-not-answer");
  // Unreachable: three unanswered calls to one number, the retry delay (2 hours) or more apart, within three days.
  for (let made = 0; made < 2; made++) {
    let triple: [CallInsert, CallInsert, CallInsert] | null = null;
    for (const first of unanswered.filter((call) => !taken.has(call) && call.startedAt!.getTime() < now - 4 * DAY)) {
      const after = (call: CallInsert) =>
        unanswered.find(
          (other) => !taken.has(other) && other.startedAt!.getTime() >= call.endedAt!.getTime() + 2 * HOUR && other.startedAt!.getTime() <= first.startedAt!.getTime() + 3 * DAY && callable(first, call, other),
        );
      const second = after(first);
      const third = second ? after(second) : undefined;
      if (second && third && callable(first, second, third)) {
        triple = [first, second, third];
        break;
      }
    }
    if (!triple) break;
    for (const call of triple) taken.add(call);
    plans.push({ status: "unreachable", calls: triple });
  }
  // Not reached once, its retry waiting.
  for (const call of take([...unanswered].reverse(), 1, () => true, [now - DAY, now - 2 * HOUR])) plans.push({ status: "calling", calls: [call], outcome: null });
  // Never called: paid before the call, cancelled by the store, no consent; and two just abandoned (open).
  plans.push(
    { status: "paid_without_call", calls: [], abandonedAt: now - int(6, 9) * DAY - int(0, 600) * MINUTE },
    { status: "paid_without_call", calls: [], abandonedAt: now - int(1, 3) * DAY - int(0, 600) * MINUTE },
    { status: "cancelled", calls: [], abandonedAt: now - int(3, 5) * DAY - int(0, 600) * MINUTE },
    { status: "no_consent", calls: [], abandonedAt: now - int(8, 12) * DAY - int(0, 600) * MINUTE },
    { status: "no_consent", calls: [], abandonedAt: now - int(0, 1) * DAY - int(60, 600) * MINUTE },
    { status: "open", calls: [], abandonedAt: now - int(15, 25) * MINUTE },
    { status: "open", calls: [], abandonedAt: now - int(3, 8) * MINUTE },
  );

  // Abandoned before its first call (the follow-up's 30-minute delay, then the first window opening).
  const abandonedAtOf = (plan: Plan) => ("abandonedAt" in plan ? plan.abandonedAt : plan.calls[0].startedAt!.getTime() - (DEFAULT_FOLLOW_UP_DELAY_MINUTES + int(5, 90)) * MINUTE);
  const dated = plans.map((plan) => ({ plan, abandonedAt: abandonedAtOf(plan) })).sort((a, b) => a.abandonedAt - b.abandonedAt);
  const planner = readinessPlanner(campaign as Parameters<typeof readinessPlanner>[0], now);
  let position = 0;
  let referenceNumber = 1040;

  for (const { plan, abandonedAt: abandonedMs } of dated) {
    // A retry waiting after an unanswered call: the number keeps not answering (…02).
    const suffix = plan.status === "calling" && plan.outcome === null ? "02" : SUFFIX[plan.status];
    const number = numberFor(suffix, plan.calls.map((call) => call.startedAt!.getTime()));
    if (!number) continue;
    const orderId = uuid();
    const externalId = `chk_${uuid().replace(/-/g, "").slice(0, 20)}`;
    const first = plan.calls[0];
    const name = first?.customerName ?? `${pick(FIRST)} ${pick(LAST)}`;
    const product = first ? productOf(first) : null;
    const items = product
      ? [{ name: product.name, quantity: 1, price_minor: product.priceMinor }]
      : Array.from({ length: int(1, 3) }, () => {
          const [itemName, price] = pick(ITEMS);
          return { name: itemName, quantity: int(1, 2), price_minor: price };
        }).filter((item, index, all) => all.findIndex((other) => other.name === item.name) === index);
    const totalMinor = items.reduce((sum, item) => sum + item.quantity * item.price_minor, 0);
    const amount = formatOrderAmount(totalMinor, "USD");
    const abandonedAt = new Date(abandonedMs);
    const zones = contactZones({ timezone: null, numberZones: numberTimeZones(number) }, null);
    const consent = plan.status !== "no_consent";
    const order: OrderInsert = {
      id: orderId,
      orgId: input.orgId,
      integrationId,
      source: "generic",
      externalId,
      reference: `#${++referenceNumber}`,
      storeName: DEMO_STORE_NAME,
      customerName: name,
      customerNumber: number,
      customerEmail: `${name.toLowerCase().replace(/[^a-z]+/g, ".")}@example.com`,
      timezone: null,
      items,
      totalMinor,
      currency: "USD",
      checkoutUrl: `https://demo-store.example.com/checkouts/${externalId}/recover`,
      abandonedAt,
      status: plan.status,
      statusDetail: null,
      consentGiven: consent,
      consentSource: consent ? CONSENT_SOURCE : null,
      consentAt: consent ? new Date(abandonedMs - int(1, 4) * MINUTE) : null,
      createdBy: null,
      createdAt: abandonedAt,
      updatedAt: abandonedAt,
    };
    const event = (kind: EventInsert["kind"], detail: string, at: number, callId: string | null = null) =>
      store.events.push({ id: uuid(), orgId: input.orgId, orderId, kind, detail, callId, actor: null, createdAt: new Date(at) });
    const delivery = (deliveryId: string, topic: string, at: number, detail: string) =>
      store.deliveries.push({ deliveryId, orgId: input.orgId, topic, result: "applied", detail, receivedAt: new Date(at) });
    event("abandoned", `Checkout abandoned with ${amount} in the cart (from the demo store).`, abandonedMs);
    delivery(`demo-abandoned-${orderId}`, "checkout.abandoned", abandonedMs, consent ? "order open" : "order no_consent");
    let last = abandonedMs;

    if (plan.status === "no_consent") {
      order.statusDetail = noConsentDetail(order as { consentSource: string | null });
      store.orders.push(order);
      continue;
    }
    const contactId = uuid();
    const contact: ContactInsert = {
      id: contactId,
      orgId: input.orgId,
      campaignId,
      orderId,
      position: ++position,
      number,
      name,
      timezone: null,
      numberZones: numberTimeZones(number),
      variables: orderVariables({ customerName: name, items, currency: "USD", totalMinor, checkoutUrl: order.checkoutUrl ?? null, storeName: DEMO_STORE_NAME, reference: order.reference! }),
      status: "queued",
      attempts: 0,
      notBefore: new Date(abandonedMs + DEFAULT_FOLLOW_UP_DELAY_MINUTES * MINUTE),
      createdAt: abandonedAt,
      updatedAt: abandonedAt,
    };
    // When the first call could go, as the follow-up planned it at the time (for a past order, as of its abandonment).
    const queuedFor = first ? first.startedAt! : readinessPlanner(campaign as Parameters<typeof readinessPlanner>[0], Math.min(abandonedMs, now))({ timezone: null, numberZones: contact.numberZones!, notBefore: contact.notBefore! }).readyAt;
    event("queued", queuedFor ? `Queued: the first call may go from ${localTimeText(queuedFor, zones)}.` : "Queued.", abandonedMs + 1000);

    // The calls: placed by the dialler, settled by their end.
    plan.calls.forEach((call, index) => {
      const old = call.customerNumber!;
      call.customerNumber = number;
      call.customerName = name;
      call.campaignId = campaignId;
      call.campaignContactId = contactId;
      for (const entry of data.ledger) if (entry.callId === call.id) entry.description = entry.description.replace(old, number);
      const reached = ANSWERED_REASONS.has(call.endedReason ?? "");
      event("call", index === 0 ? "Call placed." : `Call placed (attempt ${index + 1}).`, call.startedAt!.getTime(), call.id!);
      event("call", reached ? "Call answered." : "Call not answered.", call.endedAt!.getTime(), call.id!);
      last = call.endedAt!.getTime();
    });
    const lastCall = plan.calls.at(-1);
    if (lastCall) {
      contact.attempts = plan.calls.length;
      contact.lastCallId = lastCall.id!;
      contact.lastEndedReason = lastCall.endedReason!;
      contact.outcome = ANSWERED_REASONS.has(lastCall.endedReason ?? "") ? "answered" : "no_answer";
      contact.updatedAt = lastCall.endedAt!;
    }
    const saidOnTheCall = (outcome: OrderCallOutcome) => {
      lastCall!.structuredData = { ...(lastCall!.structuredData as Record<string, unknown>), order_outcome: outcome };
      order.callOutcome = outcome;
      order.reachedAt = lastCall!.endedAt!;
      order.reachedCallId = lastCall!.id!;
      event("outcome", `${ORDER_CALL_OUTCOME_LABELS[outcome]} (said on the call).`, lastCall!.endedAt!.getTime() - 30_000, lastCall!.id!);
    };

    switch (plan.status) {
      case "recovered": {
        saidOnTheCall("completed");
        // Bought on the call (the conversation says so), or within hours or days of it (the 7 days of attribution).
        const duringTheCall = !!structuredOf(lastCall!).completed_purchase;
        const paidMs = duringTheCall ? lastCall!.endedAt!.getTime() - 20_000 : lastCall!.endedAt!.getTime() + int(20, 3 * 24 * 60) * MINUTE;
        const paidAt = new Date(Math.min(paidMs, now - 10 * MINUTE));
        const detail = duringTheCall ? `Recovered: paid ${amount} during the call.` : `Recovered: paid ${amount} on ${day(paidAt)}, within ${DEFAULT_ATTRIBUTION_DAYS} days of the call.`;
        Object.assign(order, { status: "recovered", statusDetail: detail, paidAt, paidMinor: totalMinor, recoveredMinor: totalMinor });
        contact.status = "answered";
        event("paid", `${detail} (from the demo store)`, paidAt.getTime(), lastCall!.id!);
        delivery(demoPaidDeliveryId(orderId), "order.paid", paidAt.getTime(), "order recovered");
        last = Math.max(last, paidAt.getTime());
        break;
      }
      case "declined":
        saidOnTheCall("declined");
        order.statusDetail = "Declined on the call.";
        contact.status = "answered";
        event("declined", "The customer declined on the call.", last, lastCall!.id!);
        break;
      case "opted_out": {
        saidOnTheCall("do_not_call");
        order.statusDetail = "Asked not to be called again: the number is on the do-not-call list.";
        contact.status = "dnc";
        event("opted_out", order.statusDetail, last, lastCall!.id!);
        store.dnc.push({ id: uuid(), orgId: input.orgId, number, reason: "Asked not to be called again during a call", source: "call", callId: lastCall!.id!, createdBy: null, createdAt: lastCall!.endedAt! });
        break;
      }
      case "calling":
        if (plan.outcome) {
          saidOnTheCall(plan.outcome);
          const until = new Date(lastCall!.endedAt!.getTime() + DEFAULT_ATTRIBUTION_DAYS * DAY);
          order.statusDetail = `${ORDER_CALL_OUTCOME_LABELS[plan.outcome]}. ${waitingForPurchaseText(until, DEFAULT_ATTRIBUTION_DAYS, zones)}`;
          contact.status = "answered";
        } else {
          // Its retry: the delay after the unanswered call, moved into the customer's window.
          const notBefore = new Date(lastCall!.endedAt!.getTime() + FOLLOW_UP_DEFAULT_RETRY.delay_minutes * MINUTE);
          const ready = planner({ timezone: null, numberZones: contact.numberZones!, notBefore });
          Object.assign(contact, { status: ready.status, notBefore, readyAt: ready.readyAt });
          order.statusDetail = `Not reached (no answer); ${ready.readyAt ? `next call from ${localTimeText(ready.readyAt, zones)}` : "waiting for a time zone for the next call"}.`;
        }
        break;
      case "unreachable":
        order.statusDetail = `Not reached after ${plan.calls.length} calls (the last: no answer).`;
        contact.status = "no_answer";
        event("unreachable", order.statusDetail, last, lastCall!.id!);
        break;
      case "paid_without_call": {
        const paidAt = new Date(abandonedMs + int(8, 25) * MINUTE);
        const detail = `Paid ${amount} on ${day(paidAt)} before any call reached the customer. The pending follow-up call was cancelled.`;
        Object.assign(order, { statusDetail: detail, paidAt, paidMinor: totalMinor });
        Object.assign(contact, { status: "cancelled", updatedAt: paidAt });
        event("paid", `${detail} (from the demo store)`, paidAt.getTime());
        delivery(demoPaidDeliveryId(orderId), "order.paid", paidAt.getTime(), "order paid_without_call");
        last = paidAt.getTime();
        break;
      }
      case "cancelled": {
        const at = new Date(abandonedMs + int(10, 28) * MINUTE);
        const detail = `Cancelled by the demo store on ${day(at)}; the pending follow-up call was cancelled.`;
        order.statusDetail = detail;
        Object.assign(contact, { status: "cancelled", updatedAt: at });
        event("cancelled", detail, at.getTime());
        delivery(`demo-cancelled-${orderId}`, "order.cancelled", at.getTime(), "order cancelled");
        last = at.getTime();
        break;
      }
      case "open": {
        const ready = planner({ timezone: null, numberZones: contact.numberZones!, notBefore: contact.notBefore! });
        Object.assign(contact, { status: ready.status, readyAt: ready.readyAt });
        order.statusDetail =
          ready.readyAt === null ? "Queued, but the follow-up's calling windows never open in the customer's time zone: change the windows." : ready.readyAt.getTime() <= now ? "Queued: the first call goes out when a line is free." : `Queued: the first call may go from ${localTimeText(ready.readyAt, zones)}.`;
        break;
      }
    }
    order.updatedAt = new Date(last);
    store.orders.push(order);
    store.contacts.push(contact);
  }
  const lastDelivery = Math.max(...store.deliveries.map((entry) => entry.receivedAt!.getTime()), store.integration.createdAt!.getTime());
  store.integration.lastDeliveryAt = new Date(lastDelivery);
  return store;
}

/** Writes the demo store (inside the seed's transaction; its calls are written with the demo's calls). The secret is new and sealed with `box`. */
export async function insertDemoStore(db: Db, box: SecretBox, store: DemoStore): Promise<void> {
  const secret = newStoreSecret();
  const integrationId = store.integration.id!;
  await db.insert(storeIntegrations).values({ ...store.integration, secretSealed: sealStoreSecret(box, integrationId, secret), secretHint: secret.slice(-4) });
  await db.insert(campaigns).values(store.campaign);
  await db.insert(orderFollowUps).values(store.followUp);
  await db.insert(campaignEvents).values(store.campaignEvents);
  await db.insert(orders).values(store.orders);
  if (store.contacts.length > 0) await db.insert(campaignContacts).values(store.contacts);
  await db.insert(orderEvents).values(store.events);
  if (store.dnc.length > 0) await db.insert(dncNumbers).values(store.dnc);
  await db.insert(storeWebhookDeliveries).values(store.deliveries.map((entry) => ({ ...entry, integrationId })));
}
