/**
 * What the dialler tests share: an organisation with an agent and a caller number, campaigns and
 * contacts written straight into the tables (the campaign API is another part's; its transitions are
 * mimicked here with the same columns), a dialler on the test app, and a sampler that watches the
 * number of calls in progress while a campaign runs.
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, ne, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { DEFAULT_CAMPAIGN_RETRY, type CampaignRetry, type CampaignWindow } from "../../contract/campaign";
import { createDialler, type Dialler, type DiallerOptions } from "../../server/campaigns/dialler";
import { recordCampaignEvent } from "../../server/campaigns/events";
import type { Db } from "../../server/db/client";
import { calls, campaignContacts, campaignEvents, campaigns, dncNumbers } from "../../server/db/schema";
import { addPhoneNumber, createAgent, newOrganisation, waitFor, type TestOrg } from "./calls-fixtures";

/** Every day, all day. */
export const ALWAYS: CampaignWindow[] = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "00:00", end: "24:00" }];

export interface CampaignWorld {
  app: FastifyInstance;
  db: Db;
  org: TestOrg;
  agentId: string;
  phoneNumberId: string;
}

export async function campaignWorld(app: FastifyInstance, db: Db, name = "Campaign Co"): Promise<CampaignWorld> {
  const org = await newOrganisation(app, name);
  const agent = await createAgent(app, org.token, { agent_name: "Outbound desk", agent_welcome_message: "Hello {{name}}, this is Outbound desk about {{plan}}." });
  const phoneNumberId = await addPhoneNumber(db, org.orgId);
  return { app, db, org, agentId: agent.id, phoneNumberId };
}

export interface CampaignOptions {
  status?: "draft" | "scheduled" | "running" | "paused";
  maxConcurrency?: number;
  retry?: CampaignRetry;
  windows?: CampaignWindow[];
  fallbackTimezone?: string | null;
  startAt?: Date | null;
  endAt?: Date | null;
  agentId?: string | null;
  phoneNumberId?: string | null;
}

/** A campaign as the API would leave it (running by default, with a `started` event). */
export async function createCampaign(world: CampaignWorld, options: CampaignOptions = {}): Promise<string> {
  const id = randomUUID();
  const status = options.status ?? "running";
  await world.db.insert(campaigns).values({
    id,
    orgId: world.org.orgId,
    name: `Campaign ${id.slice(0, 6)}`,
    agentId: options.agentId === undefined ? world.agentId : options.agentId,
    phoneNumberId: options.phoneNumberId === undefined ? world.phoneNumberId : options.phoneNumberId,
    status,
    schedule: { windows: options.windows ?? ALWAYS, fallback_timezone: options.fallbackTimezone === undefined ? "UTC" : options.fallbackTimezone },
    startAt: options.startAt ?? null,
    endAt: options.endAt ?? null,
    maxConcurrency: options.maxConcurrency ?? 1,
    retry: options.retry ?? { ...DEFAULT_CAMPAIGN_RETRY, delay_minutes: 0 },
    startedAt: status === "running" ? new Date() : null,
  });
  if (status === "running") await recordCampaignEvent(world.db, { orgId: world.org.orgId, campaignId: id, kind: "started", detail: "Started (test)." });
  return id;
}

export interface ContactSpec {
  number: string;
  name?: string | null;
  timezone?: string | null;
  variables?: Record<string, string>;
  readyAt?: Date | null;
}

/** Contacts queued and ready now (as the API's start leaves them inside a window). */
export async function addContacts(world: CampaignWorld, campaignId: string, specs: (ContactSpec | string)[]): Promise<string[]> {
  const [last] = await world.db.select({ n: count() }).from(campaignContacts).where(eq(campaignContacts.campaignId, campaignId));
  const first = (last?.n ?? 0) + 1;
  const rows = specs.map((spec, index) => {
    const contact = typeof spec === "string" ? { number: spec } : spec;
    return {
      id: randomUUID(),
      orgId: world.org.orgId,
      campaignId,
      position: first + index,
      number: contact.number,
      name: contact.name === undefined ? `Person ${first + index}` : contact.name,
      timezone: contact.timezone ?? null,
      variables: contact.variables ?? { plan: "Gold" },
      status: "queued",
      readyAt: contact.readyAt === undefined ? new Date(Date.now() - 1000) : contact.readyAt,
    };
  });
  for (let i = 0; i < rows.length; i += 500) await world.db.insert(campaignContacts).values(rows.slice(i, i + 500));
  return rows.map((row) => row.id);
}

/** `n` different numbers ending in `suffix` (two digits: the sandbox's outcome); `area` keeps sets apart. */
export function numbers(n: number, suffix: string, area = "415"): string[] {
  return Array.from({ length: n }, (_, i) => `+1${area}${String(i).padStart(5, "0")}${suffix}`);
}

export async function contactsOf(db: Db, campaignId: string) {
  return db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaignId)).orderBy(asc(campaignContacts.position));
}

export async function campaignRow(db: Db, campaignId: string) {
  return (await db.select().from(campaigns).where(eq(campaigns.id, campaignId)))[0]!;
}

/** The campaign's events, oldest first. */
export async function eventsOf(db: Db, campaignId: string) {
  return db.select().from(campaignEvents).where(eq(campaignEvents.campaignId, campaignId)).orderBy(asc(campaignEvents.createdAt));
}

export async function callsOf(db: Db, campaignId: string) {
  return db.select().from(calls).where(eq(calls.campaignId, campaignId)).orderBy(asc(calls.startedAt));
}

export async function listDnc(db: Db, orgId: string) {
  return db.select().from(dncNumbers).where(eq(dncNumbers.orgId, orgId));
}

/** Calls of the campaign (or of the organisation) not ended: what the provider has on the line. */
export async function callsInProgress(db: Db, where: { campaignId?: string; orgId?: string }): Promise<number> {
  const filter = where.campaignId ? eq(calls.campaignId, where.campaignId) : eq(calls.orgId, where.orgId!);
  const [row] = await db.select({ n: count() }).from(calls).where(and(filter, ne(calls.status, "ended"), sql`${calls.campaignId} is not null`));
  return row?.n ?? 0;
}

/** in_progress contacts of these campaigns. */
export async function contactsInProgress(db: Db, campaignIds: string[]): Promise<number> {
  const [row] = await db.select({ n: count() }).from(campaignContacts).where(and(inArray(campaignContacts.campaignId, campaignIds), eq(campaignContacts.status, "in_progress")));
  return row?.n ?? 0;
}

/**
 * Samples `read` every few milliseconds until stop(): answers the highest value seen and how many
 * samples were taken (a sampler that never ran proves nothing).
 */
export function sampler(read: () => Promise<number>, everyMs = 5) {
  let highest = 0;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      highest = Math.max(highest, await read());
      samples++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { highest, samples };
    },
  };
}

/** A dialler on the test app (driven by tick() or start()). */
export function diallerFor(app: FastifyInstance, options: Partial<DiallerOptions> = {}): Dialler {
  return createDialler({ db: app.db, voice: app.voice, config: app.config, log: app.log, signals: app.campaignSignals, ...options });
}

/** Ticks until `done` holds (between ticks the sandbox's calls play out). */
export async function tickUntil(dialler: Dialler, done: () => Promise<boolean>, timeoutMs = 20_000, what = "the campaign"): Promise<void> {
  await waitFor(
    async () => {
      await dialler.tick();
      return done();
    },
    timeoutMs,
    what,
  );
}

/** Every contact in a final state (not queued nor in_progress). */
export async function allSettled(db: Db, campaignId: string): Promise<boolean> {
  const [row] = await db
    .select({ n: count() })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaignId), inArray(campaignContacts.status, ["queued", "in_progress"])));
  return (row?.n ?? 0) === 0;
}

/** Calls per contact never above its attempts, attempts never above max_attempts; one call per (contact, attempt). */
export async function expectNoDoubleDial(db: Db, campaignId: string, maxAttempts: number): Promise<void> {
  const contacts = await contactsOf(db, campaignId);
  const placed = await callsOf(db, campaignId);
  const perContact = new Map<string, number>();
  for (const call of placed) perContact.set(call.campaignContactId!, (perContact.get(call.campaignContactId!) ?? 0) + 1);
  for (const contact of contacts) {
    expect(perContact.get(contact.id) ?? 0, `calls of ${contact.number}`).toBeLessThanOrEqual(contact.attempts);
    expect(contact.attempts, `attempts of ${contact.number}`).toBeLessThanOrEqual(maxAttempts);
  }
}
