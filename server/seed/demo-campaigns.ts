/**
 * The demo organisation's campaigns (issue 13): one completed and one paused, both calling with the
 * Purchase Completion Agent from the "Sales outreach" number. They are made of the demo's own outbound
 * calls (demo-calls.ts): no call is added, so the call count, the ledger and the dashboard's figures
 * stay as they are; the chosen calls get campaign_id and campaign_contact_id.
 *
 * - "Autumn cart recovery" (completed): the agent's outbound calls 40 to 33 days ago that fall inside
 *   its calling windows in the contact's zone; each number is a contact whose status is its last
 *   call's outcome. A few unanswered calls become the first attempt of a later contact (the earlier
 *   call takes that contact's number: unanswered calls carry no ledger entry naming theirs), so some
 *   contacts show a retry.
 * - "Holiday offers follow-up" (paused by the demo admin): the same over the last 3 days, plus
 *   contacts not called yet (queued).
 * - A contact who asked on a call not to be called again (the conversation's do_not_call) is on the
 *   organisation's do-not-call list, from that call.
 * Pure and seeded like demo-calls.ts: the same data, organisation and `now` give the same rows.
 */
import { callOutcome } from "../../contract/call-outcome";
import { contactZones, isInsideWindows } from "../../contract/campaign-schedule";
import { DEFAULT_CAMPAIGN_RETRY } from "../../contract/campaign";
import { numberTimeZones } from "../campaigns/number-zones";
import type { Db } from "../db/client";
import { campaignContacts, campaignEvents, campaigns, dncNumbers } from "../db/schema";
import { mulberry32, type CallInsert, type DemoData } from "./demo-calls";

export const DEMO_CAMPAIGN_SEED = 20_261_301;
const DAY = 86_400_000;
const MINUTE = 60_000;

type CampaignInsert = typeof campaigns.$inferInsert;
type ContactInsert = typeof campaignContacts.$inferInsert;
type EventInsert = typeof campaignEvents.$inferInsert;
type DncInsert = typeof dncNumbers.$inferInsert;

export interface DemoCampaigns {
  campaigns: CampaignInsert[];
  contacts: ContactInsert[];
  events: EventInsert[];
  dnc: DncInsert[];
}

const WINDOWS = [
  { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "20:00" },
  { days: ["sat"], start: "10:00", end: "16:00" },
];
const FALLBACK_ZONE = "America/New_York";
const RETRYABLE = new Set(["busy", "no_answer", "voicemail"]);

function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(next() * 4)]!;
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

const outcomeOf = (call: CallInsert) => callOutcome(call.status ?? "ended", call.endedReason);
const zonesOf = (number: string) => contactZones({ timezone: null, numberZones: numberTimeZones(number) }, FALLBACK_ZONE);

/**
 * Picks the campaigns' calls in `data.calls` and sets their campaign_id and campaign_contact_id (and,
 * for the retries, the earlier call's number), then answers the campaigns' rows.
 */
export function generateDemoCampaigns(data: DemoData, input: { orgId: string; createdBy: string; createdByName: string; now: Date; seed?: number }): DemoCampaigns {
  const next = mulberry32(input.seed ?? DEMO_CAMPAIGN_SEED);
  const uuid = () => uuidFrom(next);
  const now = input.now.getTime();
  const sales = data.agents.find((agent) => agent.name === "Purchase Completion Agent");
  const outreach = data.phoneNumbers.find((number) => number.name === "Sales outreach");
  const result: DemoCampaigns = { campaigns: [], contacts: [], events: [], dnc: [] };
  if (!sales || !outreach) return result;
  const used = new Set<CallInsert>();
  const listed = new Set<string>();

  /** One campaign over the agent's ended outbound calls in [from, to); `queued` more contacts not called yet. */
  function campaign(spec: { name: string; from: number; to: number; status: "completed" | "paused"; queued: number }) {
    const id = uuid();
    const eligible = data.calls
      .filter((call) => !used.has(call) && call.type === "outbound" && call.status === "ended" && call.agentId === sales!.id && call.phoneNumberId === outreach!.id && call.customerNumber)
      .filter((call) => call.startedAt!.getTime() >= spec.from && call.startedAt!.getTime() < spec.to && !listed.has(call.customerNumber!))
      .filter((call) => isInsideWindows(WINDOWS, zonesOf(call.customerNumber!), call.startedAt!.getTime()))
      .sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime());
    // Some unanswered calls become an earlier attempt of a later contact: they take its number.
    for (let i = 0; i < eligible.length; i++) {
      const early = eligible[i]!;
      if (!RETRYABLE.has(outcomeOf(early)) || early.costMicros || next() > 0.35) continue;
      const later = eligible.slice(i + 1).find((call) => call.startedAt!.getTime() - early.startedAt!.getTime() > 2 * 3_600_000 && call.customerNumber !== early.customerNumber);
      if (later && isInsideWindows(WINDOWS, zonesOf(later.customerNumber!), early.startedAt!.getTime())) {
        early.customerNumber = later.customerNumber;
        early.customerName = later.customerName;
      }
    }
    // Calls to one number, in order: a call after one that ended the contact (answered, failed) is not the campaign's.
    const byNumber = new Map<string, CallInsert[]>();
    for (const call of eligible) {
      const calls = byNumber.get(call.customerNumber!) ?? [];
      const last = calls.at(-1);
      if (last && !RETRYABLE.has(outcomeOf(last))) continue;
      if (calls.length >= DEFAULT_CAMPAIGN_RETRY.max_attempts) continue;
      calls.push(call);
      byNumber.set(call.customerNumber!, calls);
    }
    const first = eligible[0]?.startedAt!.getTime() ?? spec.from;
    const startedAt = new Date(first - 2 * MINUTE);
    const createdAt = new Date(startedAt.getTime() - DAY + 37 * MINUTE);
    let position = 0;
    let lastEnd = startedAt.getTime();
    // The completed campaign ran until its stop time: a retry still due then was cut off (cancelled, as the
    // dialler does at end_at). The paused one still owes its retries: those contacts wait (queued).
    const stopAt = new Date(Math.max(...eligible.map((call) => call.endedAt!.getTime()), startedAt.getTime()) + 30 * MINUTE);
    let retriesDue = 0;
    for (const [number, calls] of byNumber) {
      const contactId = uuid();
      const last = calls.at(-1)!;
      const outcome = outcomeOf(last);
      const retryDue = RETRYABLE.has(outcome) && calls.length < DEFAULT_CAMPAIGN_RETRY.max_attempts;
      if (retryDue) retriesDue++;
      for (const call of calls) {
        call.campaignId = id;
        call.campaignContactId = contactId;
        used.add(call);
        lastEnd = Math.max(lastEnd, call.endedAt!.getTime());
      }
      result.contacts.push({
        id: contactId,
        orgId: input.orgId,
        campaignId: id,
        position: ++position,
        number,
        name: last.customerName ?? null,
        timezone: null,
        numberZones: numberTimeZones(number),
        variables: last.customerName ? { first_name: last.customerName.split(" ")[0]! } : {},
        status: retryDue ? (spec.status === "paused" ? "queued" : "cancelled") : outcome,
        outcome,
        lastEndedReason: last.endedReason ?? null,
        attempts: calls.length,
        // Paused: resume computes when each waiting contact may be called; its retry not before the delay.
        ...(retryDue && spec.status === "paused" ? { notBefore: new Date(last.endedAt!.getTime() + DEFAULT_CAMPAIGN_RETRY.delay_minutes * MINUTE), readyAt: null } : {}),
        lastCallId: last.id!,
        createdAt,
        updatedAt: last.endedAt!,
      });
      const structured = last.structuredData as { do_not_call?: boolean } | null | undefined;
      if (structured?.do_not_call && !listed.has(number)) {
        listed.add(number);
        result.dnc.push({ id: uuid(), orgId: input.orgId, number, reason: "Asked not to be called again", source: "call", callId: last.id!, createdAt: last.endedAt! });
      }
    }
    const numbers = new Set(byNumber.keys());
    for (let i = 0; i < spec.queued; i++) {
      let number: string;
      do number = `+1${["212", "312", "415", "646", "650"][Math.floor(next() * 5)]}55501${String(Math.floor(next() * 100)).padStart(2, "0")}`;
      while (numbers.has(number) || listed.has(number));
      numbers.add(number);
      result.contacts.push({
        id: uuid(),
        orgId: input.orgId,
        campaignId: id,
        position: ++position,
        number,
        name: null,
        timezone: null,
        numberZones: numberTimeZones(number),
        variables: {},
        status: "queued",
        // Paused: resume computes when each contact may be called.
        readyAt: null,
        createdAt,
        updatedAt: createdAt,
      });
    }
    const completedAt = spec.status === "completed" ? new Date(Math.max(lastEnd + MINUTE, stopAt.getTime())) : null;
    const pausedAt = new Date(Math.min(now - 20 * MINUTE, lastEnd + 5 * MINUTE));
    const updatedAt = completedAt ?? pausedAt;
    result.campaigns.push({
      id,
      orgId: input.orgId,
      name: spec.name,
      agentId: sales!.id!,
      phoneNumberId: outreach!.id!,
      status: spec.status,
      schedule: { windows: WINDOWS, fallback_timezone: FALLBACK_ZONE },
      startAt: null,
      endAt: spec.status === "completed" ? stopAt : null,
      maxConcurrency: 3,
      retry: { ...DEFAULT_CAMPAIGN_RETRY, on: [...DEFAULT_CAMPAIGN_RETRY.on] },
      pauseCode: spec.status === "paused" ? "manual" : null,
      pauseReason: spec.status === "paused" ? `Paused by ${input.createdByName}` : null,
      startedAt,
      completedAt,
      createdBy: input.createdBy,
      createdAt,
      updatedAt,
    });
    const event = (kind: string, detail: string, at: Date, actor: string | null = input.createdBy) =>
      result.events.push({ id: uuid(), orgId: input.orgId, campaignId: id, kind, detail, actor, createdAt: at });
    const contacts = position;
    event("created", `Created "${spec.name}" as a draft.`, createdAt);
    event("imported", `${contacts} contacts added.`, new Date(createdAt.getTime() + 3 * MINUTE));
    event("started", `Started by ${input.createdByName} (${contacts} contacts queued).`, startedAt);
    if (completedAt) {
      event(
        "completed",
        retriesDue > 0
          ? `The stop time came: the campaign is complete (${retriesDue} ${retriesDue === 1 ? "retry was" : "retries were"} not made and ${retriesDue === 1 ? "its contact is" : "their contacts are"} cancelled).`
          : "Every contact was called: the campaign is complete.",
        completedAt,
        null,
      );
    }
    else event("paused", `Paused by ${input.createdByName}: calls in progress finish, no new calls start.`, pausedAt);
  }

  campaign({ name: "Autumn cart recovery", from: now - 40 * DAY, to: now - 33 * DAY, status: "completed", queued: 0 });
  campaign({ name: "Holiday offers follow-up", from: now - 3 * DAY, to: now, status: "paused", queued: 24 });
  return result;
}

/** Writes the campaigns (inside the seed's transaction; their calls are written with the demo's calls). */
export async function insertDemoCampaigns(db: Db, data: DemoCampaigns): Promise<void> {
  if (data.campaigns.length === 0) return;
  await db.insert(campaigns).values(data.campaigns);
  await db.insert(campaignContacts).values(data.contacts);
  await db.insert(campaignEvents).values(data.events);
  if (data.dnc.length > 0) await db.insert(dncNumbers).values(data.dnc);
}
