/**
 * /api/campaign: who may do what, create and its validation ({detail, code} naming the field), the
 * list and its filters, every state transition and each 409 (naming the current state), start's
 * requirements, delete rules, what a running campaign may change, schedule edits moving contacts
 * between queued and needs_timezone, next_window_at, the contact list's filters and call ids, the CSV
 * export, progress and events, and another organisation's campaign answering 404 without changes.
 * (Imports: campaigns-import.test.ts; the do-not-call list: dnc.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Campaign, CampaignContact } from "../../contract/campaign";
import type { Database } from "../../server/db/client";
import { agents, calls, campaignContacts, campaigns } from "../../server/db/schema";
import { parseCsvRecords } from "./csv";
import { act, ALWAYS, api, campaignBody, campaignOrg, createCampaign, getCampaign, importJson, WEEKDAY_WINDOWS, type CampaignOrg } from "./campaigns-fixtures";
import { buildTestApp, migratedDatabase, signUp } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: CampaignOrg;
let other: CampaignOrg;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { ORG_CONCURRENT_CALLS: "10" }));
  org = await campaignOrg(app, database.db, "Outreach Ltd");
  other = await campaignOrg(app, database.db, "Elsewhere Ltd");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** A campaign of `org` with `count` contacts in New York (212), ready to start. */
async function readyCampaign(owner = org, count = 3, extra: Parameters<typeof campaignBody>[1] = {}): Promise<Campaign> {
  const campaign = await createCampaign(app, owner.memberToken, campaignBody(owner, { name: `Ready ${randomUUID().slice(0, 6)}`, ...extra }));
  if (count > 0) await importJson(app, owner.memberToken, campaign.id, Array.from({ length: count }, (_, i) => ({ number: `+1212555${String(1000 + i)}`, name: `Contact ${i}` })));
  return getCampaign(app, owner.memberToken, campaign.id);
}

const errorOf = (response: { json(): unknown }) => response.json() as { detail: string; code: string; status?: string };

describe("who may do what", () => {
  it("answers 401 without a token and 403 organization_required without an organisation", async () => {
    const anonymous = await api(app, null, "GET", "/campaign/");
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ detail: expect.any(String), code: "unauthorized" });
    const { token } = await signUp(app);
    const none = await api(app, token, "GET", "/campaign/");
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({ code: "organization_required" });
  });

  it("members list, create, edit and run campaigns; only admins delete them", async () => {
    const campaign = await readyCampaign();
    expect((await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { name: "Renamed by a member" })).statusCode).toBe(200);
    const refused = await api(app, org.memberToken, "DELETE", `/campaign/${campaign.id}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: "Your role may not delete campaigns.", code: "forbidden" });
    expect((await getCampaign(app, org.memberToken, campaign.id)).name).toBe("Renamed by a member");
    const deleted = await api(app, org.adminToken, "DELETE", `/campaign/${campaign.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ data: { id: campaign.id } });
    expect((await api(app, org.memberToken, "GET", `/campaign/${campaign.id}`)).statusCode).toBe(404);
  });
});

describe("create", () => {
  it("creates a draft (201) with its fields, counts, the organisation's limit and the agent's and number's names", async () => {
    const response = await api(app, org.memberToken, "POST", "/campaign/", {
      name: "  Winter offers  ",
      agent_id: org.agentId,
      phone_number_id: org.phoneNumberId,
      schedule: { windows: [{ days: ["fri", "mon"], start: "09:30", end: "17:00" }], fallback_timezone: "Europe/Berlin", start_at: "2030-01-06T09:00:00+01:00" },
      max_concurrency: 4,
      retry: { max_attempts: 2, delay_minutes: 30, on: ["voicemail", "busy"] },
    });
    expect(response.statusCode, response.body).toBe(201);
    const campaign = (response.json() as { data: Campaign }).data;
    expect(campaign).toEqual({
      id: expect.any(String),
      name: "Winter offers",
      status: "draft",
      agent_id: org.agentId,
      agent_name: "Caller",
      phone_number_id: org.phoneNumberId,
      phone_number: expect.stringMatching(/^\+1415555\d{4}$/),
      schedule: { windows: [{ days: ["mon", "fri"], start: "09:30", end: "17:00" }], fallback_timezone: "Europe/Berlin", start_at: "2030-01-06T08:00:00.000Z", end_at: null },
      max_concurrency: 4,
      retry: { max_attempts: 2, delay_minutes: 30, on: ["busy", "voicemail"] },
      pause_reason: null,
      pause_code: null,
      counts: { total: 0, queued: 0, in_progress: 0, answered: 0, busy: 0, no_answer: 0, voicemail: 0, failed: 0, dnc: 0, needs_timezone: 0, cancelled: 0 },
      next_window_at: null,
      concurrency_limit: 10,
      started_at: null,
      completed_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await api(app, org.memberToken, "GET", `/campaign/${campaign.id}`)).json()).toEqual({ data: campaign });
  });

  it("a draft may come without agent and number; defaults: max_concurrency 1, retry 3 attempts an hour apart", async () => {
    const campaign = await createCampaign(app, org.memberToken, { name: "Bare", schedule: { windows: WEEKDAY_WINDOWS as never } });
    expect(campaign).toMatchObject({ agent_id: null, agent_name: null, phone_number_id: null, phone_number: null, max_concurrency: 1, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer", "voicemail"] } });
    expect(campaign.schedule.fallback_timezone).toBeNull();
  });

  it.each([
    [{ name: "" }, "name: is required"],
    [{ name: undefined }, "name: is required"],
    [{ schedule: { windows: [] } }, "schedule.windows: needs at least one calling window"],
    [{ schedule: { windows: [{ days: ["mon"], start: "17:00", end: "09:00" }] } }, "schedule.windows.0.end: a window's end must be after its start"],
    [{ schedule: { windows: [{ days: ["moon"], start: "09:00", end: "17:00" }] } }, "schedule.windows.0.days.0"],
    [{ schedule: { windows: WEEKDAY_WINDOWS, fallback_timezone: "Mars/Olympus" } }, "schedule.fallback_timezone"],
    [{ schedule: { windows: WEEKDAY_WINDOWS, start_at: "2030-01-02T00:00:00Z", end_at: "2030-01-01T00:00:00Z" } }, "schedule.end_at: must be after schedule.start_at"],
    [{ max_concurrency: 0 }, "max_concurrency: must be at least 1"],
    [{ max_concurrency: 11 }, "max_concurrency: may be at most 10, the organisation's limit"],
    [{ retry: { max_attempts: 11, delay_minutes: 5, on: [] } }, "retry.max_attempts"],
    [{ agent_id: "not-a-uuid" }, "agent_id: must be the id (a UUID)"],
    [{ colour: "blue" }, "colour: is not a known field"],
  ])("%j answers 400 {detail, code} naming the field", async (change, expected) => {
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(campaigns);
    const response = await api(app, org.memberToken, "POST", "/campaign/", { ...campaignBody(org), ...change });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response).code).toBe("validation_error");
    expect(errorOf(response).detail).toContain(expected);
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(campaigns)).toEqual(before);
  });

  it("agent_id and phone_number_id must be the organisation's own: 400 naming the field (another organisation's is not revealed)", async () => {
    for (const [field, id] of [["agent_id", other.agentId], ["phone_number_id", other.phoneNumberId], ["agent_id", randomUUID()]] as const) {
      const response = await api(app, org.memberToken, "POST", "/campaign/", { ...campaignBody(org), [field]: id });
      expect(response.statusCode).toBe(400);
      expect(errorOf(response)).toEqual({ detail: `${field}: ${id} is not ${field === "agent_id" ? "an agent" : "a phone number"} of this organisation`, code: "validation_error" });
    }
  });
});

describe("the list", () => {
  it("pages newest first, filters by status and by a part of the name, and shows only the organisation's campaigns", async () => {
    const owner = await campaignOrg(app, database.db);
    const first = await createCampaign(app, owner.memberToken, campaignBody(owner, { name: "Alpha renewals" }));
    const second = await readyCampaign(owner, 1, { name: "Beta 100% reminders" });
    expect((await act(app, owner.memberToken, second.id, "start")).statusCode).toBe(200);
    const third = await createCampaign(app, owner.memberToken, campaignBody(owner, { name: "Gamma renewals" }));
    const list = (await api(app, owner.memberToken, "GET", "/campaign/")).json() as { data: Campaign[]; total: number; page: number; limit: number };
    expect({ ids: list.data.map((c) => c.id), total: list.total, page: list.page, limit: list.limit }).toEqual({ ids: [third.id, second.id, first.id], total: 3, page: 1, limit: 20 });
    expect(list.data[1]!.counts).toMatchObject({ total: 1, queued: 1 });
    // Each campaign carries its own counts (one grouped query for the page).
    expect(list.data.map((c) => c.counts.total)).toEqual([0, 1, 0]);
    const page = (await api(app, owner.memberToken, "GET", "/campaign/?page=2&limit=2")).json() as { data: Campaign[]; total: number };
    expect(page.data.map((c) => c.id)).toEqual([first.id]);
    const running = (await api(app, owner.memberToken, "GET", "/campaign/?status=running")).json() as { data: Campaign[] };
    expect(running.data.map((c) => c.id)).toEqual([second.id]);
    const named = (await api(app, owner.memberToken, "GET", "/campaign/?search=RENEWALS")).json() as { data: Campaign[]; total: number };
    expect(named.data.map((c) => c.name)).toEqual(["Gamma renewals", "Alpha renewals"]);
    // % is a character to find, not a pattern.
    expect(((await api(app, owner.memberToken, "GET", "/campaign/?search=100%25")).json() as { total: number }).total).toBe(1);
    expect(((await api(app, owner.memberToken, "GET", "/campaign/?search=%25")).json() as { total: number }).total).toBe(1);
    expect(((await api(app, other.memberToken, "GET", "/campaign/?limit=100")).json() as { data: Campaign[] }).data.map((c) => c.id)).not.toContain(first.id);
    const bad = await api(app, owner.memberToken, "GET", "/campaign/?status=sleeping");
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).detail).toMatch(/^status: /);
  });
});

describe("another organisation's campaign", () => {
  it("answers 404 {detail, code} on every route and changes nothing", async () => {
    const campaign = await readyCampaign();
    const rows = async () => JSON.stringify([await database.db.select().from(campaigns).where(eq(campaigns.id, campaign.id)), await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaign.id))]);
    const before = await rows();
    const requests: Array<[Parameters<typeof api>[2], string, unknown?]> = [
      ["GET", `/campaign/${campaign.id}`],
      ["PUT", `/campaign/${campaign.id}`, { name: "Taken over" }],
      ["GET", `/campaign/${campaign.id}/contacts`],
      ["POST", `/campaign/${campaign.id}/contacts`, { contacts: [{ number: "+12125550199" }] }],
      ["GET", `/campaign/${campaign.id}/export`],
      ["GET", `/campaign/${campaign.id}/progress`],
      ["GET", `/campaign/${campaign.id}/events`],
      ["POST", `/campaign/${campaign.id}/start`],
      ["POST", `/campaign/${campaign.id}/cancel`],
      ["DELETE", `/campaign/${campaign.id}`],
    ];
    for (const [method, path, body] of requests) {
      const response = await api(app, other.adminToken, method, path, body);
      expect({ path, method, status: response.statusCode, body: response.json() }).toEqual({ path, method, status: 404, body: { detail: "Campaign not found", code: "not_found" } });
    }
    expect(await rows()).toBe(before);
  });
});

describe("transitions", () => {
  it("start needs an agent, a caller number and contacts: 400 naming every missing one", async () => {
    const bare = await createCampaign(app, org.memberToken, { name: "Bare", schedule: { windows: ALWAYS as never } });
    const response = await act(app, org.memberToken, bare.id, "start");
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toEqual({
      detail: `The campaign cannot start yet: it needs an agent (agent_id), a caller number (phone_number_id) and contacts (POST /campaign/${bare.id}/contacts).`,
      code: "validation_error",
    });
    expect((await getCampaign(app, org.memberToken, bare.id)).status).toBe("draft");
    const noContacts = await createCampaign(app, org.memberToken, campaignBody(org));
    expect(errorOf(await act(app, org.memberToken, noContacts.id, "start")).detail).toBe(`The campaign cannot start yet: it needs contacts (POST /campaign/${noContacts.id}/contacts).`);
  });

  it("an agent deleted after it was chosen stops the start (400 naming it)", async () => {
    const agentId = randomUUID();
    await database.db.insert(agents).values({ id: agentId, orgId: org.orgId, name: "Short-lived", config: {} as never });
    const campaign = await readyCampaign(org, 1, { agent_id: agentId });
    await database.db.delete(agents).where(eq(agents.id, agentId));
    const response = await act(app, org.memberToken, campaign.id, "start");
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).detail).toBe("The campaign cannot start yet: it needs an agent (agent_id).");
  });

  it("draft → running → paused → running → cancelled, each refused elsewhere with 409 naming the state", async () => {
    const campaign = await readyCampaign(org, 3);
    const expectConflict = async (action: "start" | "pause" | "resume" | "cancel", status: string, detail: RegExp) => {
      const response = await act(app, org.memberToken, campaign.id, action);
      expect(response.statusCode, `${action} in ${status}`).toBe(409);
      expect(errorOf(response)).toEqual({ detail: expect.stringMatching(detail), code: "conflict", status });
    };
    await expectConflict("pause", "draft", /^Only a running or scheduled campaign can be paused; this one is draft\.$/);
    await expectConflict("resume", "draft", /^Only a paused campaign can be resumed; this one is draft\.$/);

    const started = await act(app, org.memberToken, campaign.id, "start");
    expect(started.statusCode, started.body).toBe(200);
    const running = (started.json() as { data: Campaign }).data;
    expect(running).toMatchObject({ status: "running", pause_code: null, counts: { total: 3, queued: 3 }, next_window_at: null });
    expect(Date.parse(running.started_at!)).toBeGreaterThan(Date.now() - 60_000);
    await expectConflict("start", "running", /^Only a draft campaign can be started; this one is running\.$/);
    await expectConflict("resume", "running", /this one is running/);

    const paused = (await act(app, org.memberToken, campaign.id, "pause")).json() as { data: Campaign };
    expect(paused.data).toMatchObject({ status: "paused", pause_code: "manual", pause_reason: "Paused by Test Person" });
    await expectConflict("pause", "paused", /this one is paused/);
    await expectConflict("start", "paused", /this one is paused/);

    const resumed = (await act(app, org.memberToken, campaign.id, "resume")).json() as { data: Campaign };
    expect(resumed.data).toMatchObject({ status: "running", pause_code: null, pause_reason: null, started_at: running.started_at });

    const cancelled = (await act(app, org.adminToken, campaign.id, "cancel")).json() as { data: Campaign };
    expect(cancelled.data).toMatchObject({ status: "cancelled", counts: { total: 3, queued: 0, cancelled: 3 } });
    expect(cancelled.data.completed_at).not.toBeNull();
    for (const action of ["start", "pause", "resume", "cancel"] as const) await expectConflict(action, "cancelled", /cancelled/);

    const events = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/events`)).json() as { data: Array<{ kind: string; detail: string; actor: string | null }> };
    expect(events.data.map((event) => event.kind)).toEqual(["cancelled", "resumed", "paused", "started", "imported", "created"]);
    expect(events.data[0]).toMatchObject({ detail: "Cancelled by Ada Admin: 3 waiting contacts will not be called.", actor: "Ada Admin" });
    expect(events.data[3]!.detail).toBe("Started by Test Person (3 contacts queued).");
  });

  it("cancel leaves contacts that are being called or finished alone (the dialler settles calls in progress)", async () => {
    const campaign = await readyCampaign(org, 3);
    await act(app, org.memberToken, campaign.id, "start");
    const [first, second] = await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaign.id)).orderBy(campaignContacts.position);
    await database.db.update(campaignContacts).set({ status: "in_progress" }).where(eq(campaignContacts.id, first!.id));
    await database.db.update(campaignContacts).set({ status: "answered", outcome: "answered", attempts: 1 }).where(eq(campaignContacts.id, second!.id));
    const cancelled = (await act(app, org.memberToken, campaign.id, "cancel")).json() as { data: Campaign };
    expect(cancelled.data.counts).toMatchObject({ total: 3, in_progress: 1, answered: 1, cancelled: 1, queued: 0 });
  });

  it("with start_at in the future, start schedules; pause and resume keep it scheduled until then; cancel works from a draft", async () => {
    const startAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const campaign = await readyCampaign(org, 2, { schedule: { windows: ALWAYS as never, fallback_timezone: "UTC", start_at: startAt } });
    const scheduled = (await act(app, org.memberToken, campaign.id, "start")).json() as { data: Campaign };
    expect(scheduled.data).toMatchObject({ status: "scheduled", started_at: null, next_window_at: new Date(Date.parse(startAt)).toISOString() });
    expect((await act(app, org.memberToken, campaign.id, "pause")).json()).toMatchObject({ data: { status: "paused" } });
    expect((await act(app, org.memberToken, campaign.id, "resume")).json()).toMatchObject({ data: { status: "scheduled", started_at: null } });
    const draft = await readyCampaign(org, 1);
    expect((await act(app, org.memberToken, draft.id, "cancel")).json()).toMatchObject({ data: { status: "cancelled", counts: { cancelled: 1 } } });
  });

  it("an action takes no fields: {} or no body; anything else is 400 and changes nothing", async () => {
    const campaign = await readyCampaign(org, 1);
    const withField = await api(app, org.memberToken, "POST", `/campaign/${campaign.id}/start`, { now: true });
    expect(withField.statusCode).toBe(400);
    expect(errorOf(withField).detail).toBe("now: is not a known field");
    expect((await getCampaign(app, org.memberToken, campaign.id)).status).toBe("draft");
    expect((await api(app, org.memberToken, "POST", `/campaign/${campaign.id}/start`, {})).statusCode).toBe(200);
  });
});

describe("delete", () => {
  it("drafts and finished campaigns can be deleted (admins); a running or paused one answers 409 naming its state", async () => {
    const campaign = await readyCampaign(org, 1);
    await act(app, org.memberToken, campaign.id, "start");
    for (const status of ["running", "paused"]) {
      if (status === "paused") await act(app, org.memberToken, campaign.id, "pause");
      const refused = await api(app, org.adminToken, "DELETE", `/campaign/${campaign.id}`);
      expect(refused.statusCode).toBe(409);
      expect(errorOf(refused)).toEqual({ detail: `A ${status} campaign cannot be deleted: cancel it first (drafts, completed and cancelled campaigns can be deleted).`, code: "conflict", status });
    }
    await act(app, org.memberToken, campaign.id, "cancel");
    expect((await api(app, org.adminToken, "DELETE", `/campaign/${campaign.id}`)).statusCode).toBe(200);
    expect(await database.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaign.id))).toEqual([]);
    const completed = await readyCampaign(org, 0);
    await database.db.update(campaigns).set({ status: "completed" }).where(eq(campaigns.id, completed.id));
    expect((await api(app, org.adminToken, "DELETE", `/campaign/${completed.id}`)).statusCode).toBe(200);
  });
});

describe("edits", () => {
  it("a running campaign takes name, schedule, max_concurrency and retry at once; agent and number need a pause (409)", async () => {
    const campaign = await readyCampaign(org, 1);
    await act(app, org.memberToken, campaign.id, "start");
    const live = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { name: "Live edit", max_concurrency: 3, retry: { max_attempts: 1, delay_minutes: 0, on: [] } });
    expect(live.statusCode, live.body).toBe(200);
    expect((live.json() as { data: Campaign }).data).toMatchObject({ name: "Live edit", max_concurrency: 3, retry: { max_attempts: 1, delay_minutes: 0, on: [] }, status: "running" });

    const secondAgent = (await api(app, org.adminToken, "POST", "/agent/", { agent_name: "Second" })).json() as { data: { id: string } };
    const refused = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { name: "Not saved", agent_id: secondAgent.data.id });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused)).toEqual({ detail: "agent_id cannot change while the campaign is running: pause the campaign first.", code: "conflict", status: "running" });
    expect((await getCampaign(app, org.memberToken, campaign.id)).name).toBe("Live edit");
    // Sent back unchanged (an edit form sends every field) is not an edit.
    const unchanged = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { agent_id: org.agentId, phone_number_id: org.phoneNumberId, name: "Live edit 2" });
    expect(unchanged.statusCode, unchanged.body).toBe(200);

    await act(app, org.memberToken, campaign.id, "pause");
    const paused = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { agent_id: secondAgent.data.id });
    expect((paused.json() as { data: Campaign }).data).toMatchObject({ agent_id: secondAgent.data.id, agent_name: "Second", status: "paused" });
    const tooMany = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { max_concurrency: 50 });
    expect(tooMany.statusCode).toBe(400);
    expect(errorOf(tooMany).detail).toContain("max_concurrency: may be at most 10");

    const events = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/events`)).json() as { data: Array<{ kind: string; detail: string }> };
    expect(events.data[0]).toMatchObject({ kind: "edited", detail: "Changed agent." });
    expect(events.data.find((event) => event.detail.startsWith('Changed name "Ready'))?.detail).toMatch(/^Changed name ".*" → "Live edit"; max_concurrency 1 → 3; retry \(1 call per contact, 0 min apart, on nothing\)\.$/);
  });

  it("a finished campaign only takes a new name", async () => {
    const campaign = await readyCampaign(org, 1);
    await act(app, org.memberToken, campaign.id, "cancel");
    expect((await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { name: "Archived" })).json()).toMatchObject({ data: { name: "Archived" } });
    const refused = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { max_concurrency: 2, schedule: { windows: WEEKDAY_WINDOWS } });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused)).toEqual({ detail: "The campaign is cancelled: only its name can change (not schedule, max_concurrency).", code: "conflict", status: "cancelled" });
  });

  it("a schedule edit moves contacts between queued and needs_timezone as the fallback zone comes and goes", async () => {
    // 999 is no known area code and the contacts give no zone: only the fallback can place them.
    const campaign = await createCampaign(app, org.memberToken, campaignBody(org, { schedule: { windows: ALWAYS as never, fallback_timezone: null } }));
    const report = await importJson(app, org.memberToken, campaign.id, [{ number: "+19995550100" }, { number: "+19995550101" }, { number: "+12125550150" }]);
    expect(report).toMatchObject({ accepted: 3, needs_timezone: 2 });
    await act(app, org.memberToken, campaign.id, "start");
    expect((await getCampaign(app, org.memberToken, campaign.id)).counts).toMatchObject({ queued: 1, needs_timezone: 2 });
    const withFallback = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { schedule: { windows: ALWAYS, fallback_timezone: "America/Denver" } });
    expect((withFallback.json() as { data: Campaign }).data.counts).toMatchObject({ queued: 3, needs_timezone: 0 });
    const contacts = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts`)).json() as { data: CampaignContact[] };
    expect(contacts.data.map((contact) => contact.timezones)).toEqual([["America/Denver"], ["America/Denver"], ["America/New_York"]]);
    const without = await api(app, org.memberToken, "PUT", `/campaign/${campaign.id}`, { schedule: { windows: ALWAYS, fallback_timezone: null } });
    expect((without.json() as { data: Campaign }).data.counts).toMatchObject({ queued: 1, needs_timezone: 2 });
    const events = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/events`)).json() as { data: Array<{ kind: string; detail: string }> };
    expect(events.data.slice(0, 2).map((event) => event.detail)).toEqual(["Changed schedule (fallback time zone removed).", "Changed schedule (fallback time zone America/Denver)."]);
  });

  it("next_window_at: when the first waiting contact's window opens, while it is still to come", async () => {
    // A window on one weekday three days from now (UTC), for contacts in UTC.
    const now = new Date();
    const target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 3, 9, 0));
    const day = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][target.getUTCDay()]!;
    const campaign = await createCampaign(app, org.memberToken, campaignBody(org, { schedule: { windows: [{ days: [day], start: "09:00", end: "10:00" }] as never, fallback_timezone: null } }));
    await importJson(app, org.memberToken, campaign.id, [{ number: "+12125550160", timezone: "UTC" }]);
    const started = (await act(app, org.memberToken, campaign.id, "start")).json() as { data: Campaign };
    expect(started.data.next_window_at).toBe(target.toISOString());
    const contacts = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts`)).json() as { data: CampaignContact[] };
    expect(contacts.data[0]).toMatchObject({ timezones: ["UTC"], timezone: "UTC", next_attempt_at: target.toISOString() });
  });
});

describe("contacts, export, progress", () => {
  let campaign: Campaign;
  let contacts: CampaignContact[];
  const callIds = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    campaign = await createCampaign(app, org.memberToken, campaignBody(org, { name: "Export = test" }));
    await importJson(app, org.memberToken, campaign.id, [
      { number: "+1 (212) 555-0170", name: "Nora Ortiz", variables: { plan: "=HYPERLINK(\"x\")", renewal: "2026-12-01" } },
      { number: "+13125550171", name: "Sam Lee", timezone: "America/Chicago", variables: { plan: "gold", status: "vip" } },
      { number: "+14155550172", name: "Ann Ng" },
    ]);
    contacts = ((await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts`)).json() as { data: CampaignContact[] }).data;
    // Sam was called twice (busy, then answered), as the dialler records it.
    const startedAt = new Date(Date.now() - 90 * 60_000);
    await database.db.update(campaigns).set({ status: "running", startedAt }).where(eq(campaigns.id, campaign.id));
    const sam = contacts[1]!;
    for (const [index, [reason, at]] of ([["customer-busy", 10], ["customer-ended-call", 80]] as const).entries()) {
      await database.db.insert(calls).values({
        id: callIds[index]!,
        orgId: org.orgId,
        type: "outbound",
        status: "ended",
        agentId: org.agentId,
        customerNumber: sam.number,
        campaignId: campaign.id,
        campaignContactId: sam.id,
        startedAt: new Date(startedAt.getTime() + at * 60_000),
        endedAt: new Date(startedAt.getTime() + (at + 2) * 60_000),
        endedReason: reason,
      });
    }
    await database.db.update(campaignContacts).set({ status: "answered", outcome: "answered", attempts: 2, lastCallId: callIds[1]!, lastEndedReason: "customer-ended-call" }).where(eq(campaignContacts.id, sam.id));
  });

  it("lists contacts in import order with their zones, variables and calls (newest first)", async () => {
    const list = (await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts`)).json() as { data: CampaignContact[]; total: number; page: number; limit: number };
    expect(list.total).toBe(3);
    expect(list.data[0]).toEqual({
      id: expect.any(String),
      number: "+12125550170",
      name: "Nora Ortiz",
      timezones: ["America/New_York"],
      timezone: null,
      status: "queued",
      outcome: null,
      attempts: 0,
      last_call_id: null,
      last_ended_reason: null,
      next_attempt_at: expect.any(String),
      variables: { plan: '=HYPERLINK("x")', renewal: "2026-12-01" },
      call_ids: [],
      updated_at: expect.any(String),
    });
    expect(list.data[1]).toMatchObject({ name: "Sam Lee", timezones: ["America/Chicago"], status: "answered", outcome: "answered", attempts: 2, last_call_id: callIds[1], next_attempt_at: null, call_ids: [callIds[1], callIds[0]] });
  });

  it("filters by status, outcome and a search on the number's digits (any spelling) or the name", async () => {
    const names = async (query: string) => ((await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts?${query}`)).json() as { data: CampaignContact[] }).data.map((c) => c.name);
    expect(await names("status=queued")).toEqual(["Nora Ortiz", "Ann Ng"]);
    expect(await names("outcome=answered")).toEqual(["Sam Lee"]);
    expect(await names(`search=${encodeURIComponent("(312) 555")}`)).toEqual(["Sam Lee"]);
    expect(await names("search=0172")).toEqual(["Ann Ng"]);
    expect(await names("search=nora")).toEqual(["Nora Ortiz"]);
    expect(await names("search=nobody")).toEqual([]);
    expect(await names("limit=1&page=2")).toEqual(["Sam Lee"]);
    expect((await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/contacts?status=asleep`)).statusCode).toBe(400);
  });

  it("exports the contacts as CSV: fixed columns, one per variable, formulas defused", async () => {
    const response = await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/export`);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.headers["content-disposition"]).toMatch(/^attachment; filename="campaign-export-test-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers["x-total-count"]).toBe("3");
    expect(response.body.split("\r\n")[0]).toBe("number,name,timezones,status,outcome,attempts,last_call_id,last_ended_reason,plan,renewal,variables.status");
    const rows = parseCsvRecords(response.body);
    expect(rows).toEqual([
      { number: "'+12125550170", name: "Nora Ortiz", timezones: "America/New_York", status: "queued", outcome: "", attempts: "0", last_call_id: "", last_ended_reason: "", plan: `'=HYPERLINK("x")`, renewal: "2026-12-01", "variables.status": "" },
      { number: "'+13125550171", name: "Sam Lee", timezones: "America/Chicago", status: "answered", outcome: "answered", attempts: "2", last_call_id: callIds[1], last_ended_reason: "customer-ended-call", plan: "gold", renewal: "", "variables.status": "vip" },
      { number: "'+14155550172", name: "Ann Ng", timezones: "America/Los_Angeles", status: "queued", outcome: "", attempts: "0", last_call_id: "", last_ended_reason: "", plan: "", renewal: "", "variables.status": "" },
    ]);
  });

  it("progress: calls placed, ended and answered per bucket since the start", async () => {
    const response = await api(app, org.memberToken, "GET", `/campaign/${campaign.id}/progress`);
    expect(response.statusCode).toBe(200);
    const { bucket_seconds, points } = (response.json() as { data: { bucket_seconds: number; points: Array<{ at: string; calls: number; ended: number; answered: number }> } }).data;
    expect(bucket_seconds).toBe(60);
    expect(points.length).toBeGreaterThanOrEqual(90);
    expect(points.reduce((sum, p) => sum + p.calls, 0)).toBe(2);
    expect(points.reduce((sum, p) => sum + p.ended, 0)).toBe(2);
    expect(points.reduce((sum, p) => sum + p.answered, 0)).toBe(1);
    expect(points.every((p, i) => i === 0 || Date.parse(p.at) - Date.parse(points[i - 1]!.at) === 60_000)).toBe(true);
    const draft = await createCampaign(app, org.memberToken, campaignBody(org));
    expect((await api(app, org.memberToken, "GET", `/campaign/${draft.id}/progress`)).json()).toEqual({ data: { bucket_seconds: 60, points: [] } });
  });
});
