/**
 * /api/dnc: the organisation's do-not-call list. Adding one number (JSON) or many (CSV), a number
 * already listed (not an error), validation, the list's search and paging, who may remove entries
 * (admins), another organisation's entries, and the effect on campaigns: waiting contacts of that
 * number in every campaign become dnc at once, contacts being called or finished stay as they are,
 * and removing the number does not bring them back. addToDnc is the dialler's opt-out tool.
 */
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CampaignContact, DncEntry } from "../../contract/campaign";
import { addToDnc } from "../../server/campaigns/dnc";
import type { Database } from "../../server/db/client";
import { campaignContacts, dncNumbers } from "../../server/db/schema";
import { act, api, campaignBody, campaignOrg, createCampaign, importJson, uploadCsv, type CampaignOrg } from "./campaigns-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";

let database: Database;
let app: FastifyInstance;
let org: CampaignOrg;
let other: CampaignOrg;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  org = await campaignOrg(app, database.db, "Careful Calls Ltd");
  other = await campaignOrg(app, database.db, "Elsewhere Ltd");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

type CreateAnswer = { data: { added: number; already_listed: number; invalid: Array<{ row: number; reason: string }>; entry: DncEntry | null } };
const list = async (token: string, query = "") => (await api(app, token, "GET", `/dnc/${query}`)).json() as { data: DncEntry[]; total: number; page: number; limit: number };

describe("adding numbers", () => {
  it("adds one number (201) with its reason; the same number again, in any spelling, is already listed (200)", async () => {
    const added = await api(app, org.memberToken, "POST", "/dnc/", { number: "+1 (646) 555-0100", reason: "  Asked twice  " });
    expect(added.statusCode, added.body).toBe(201);
    const entry = (added.json() as CreateAnswer).data.entry!;
    expect(added.json()).toEqual({
      data: { added: 1, already_listed: 0, invalid: [], entry: { id: expect.any(String), number: "+16465550100", reason: "Asked twice", source: "manual", call_id: null, created_at: expect.any(String) } },
    });
    const again = await api(app, org.memberToken, "POST", "/dnc/", { number: "+16465550100" });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ data: { added: 0, already_listed: 1, invalid: [], entry } });
  });

  it.each([
    [{ number: "555-0100" }, "number: must be a phone number in E.164 form, e.g. +14155550123"],
    [{ reason: "no number" }, "number: is required"],
    [{ number: "+16465550101", reason: "x".repeat(301) }, "reason: must be at most 300 characters"],
    [{ number: "+16465550101", source: "call" }, "source: is not a known field"],
  ])("%j answers 400 naming the field and lists nothing", async (body, detail) => {
    const before = (await list(org.memberToken)).total;
    const response = await api(app, org.memberToken, "POST", "/dnc/", body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail, code: "validation_error" });
    expect((await list(org.memberToken)).total).toBe(before);
  });

  it("adds a CSV of numbers with reasons: invalid rows reported, numbers already listed counted", async () => {
    const csv = "Phone,Reason\n+16465550110,complaint\n+1 646 555 0111,\nnot a number,oops\n+16465550100,already there\n+16465550110,twice in the file\n";
    const response = await uploadCsv(app, org.memberToken, "/dnc/", csv);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({
      data: { added: 2, already_listed: 1, invalid: [{ row: 3, reason: 'number "not a number" is not a phone number in E.164 form, e.g. +14155550123' }], entry: null },
    });
    const entries = (await list(org.memberToken, "?search=555011")).data;
    expect(entries.map((e) => [e.number, e.reason, e.source]).sort()).toEqual([
      ["+16465550110", "complaint", "import"],
      ["+16465550111", null, "import"],
    ]);
    const nothingNew = await uploadCsv(app, org.memberToken, "/dnc/", "number\n+16465550110\n");
    expect(nothingNew.statusCode).toBe(200);
    expect((nothingNew.json() as CreateAnswer).data).toMatchObject({ added: 0, already_listed: 1 });
    const noColumn = await uploadCsv(app, org.memberToken, "/dnc/", "who\nAnn\n");
    expect(noColumn.statusCode).toBe(400);
    expect((noColumn.json() as { detail: string }).detail).toMatch(/^file: the CSV has no number column/);
  });
});

describe("the list", () => {
  it("pages newest first and searches the number's digits or the reason; another organisation sees none of it", async () => {
    const owner = await campaignOrg(app, database.db);
    for (const [number, reason] of [["+13125550120", "rude"], ["+13125550121", "Moved away"], ["+13125550122", null]] as const) {
      expect((await api(app, owner.memberToken, "POST", "/dnc/", { number, reason })).statusCode).toBe(201);
    }
    const all = await list(owner.memberToken);
    expect({ numbers: all.data.map((e) => e.number), total: all.total, page: all.page, limit: all.limit }).toEqual({ numbers: ["+13125550122", "+13125550121", "+13125550120"], total: 3, page: 1, limit: 20 });
    expect((await list(owner.memberToken, "?page=2&limit=2")).data.map((e) => e.number)).toEqual(["+13125550120"]);
    expect((await list(owner.memberToken, `?search=${encodeURIComponent("(312) 555-0121")}`)).data.map((e) => e.number)).toEqual(["+13125550121"]);
    expect((await list(owner.memberToken, "?search=moved")).data.map((e) => e.number)).toEqual(["+13125550121"]);
    expect((await list(other.adminToken, "?limit=100")).data.map((e) => e.number)).not.toContain("+13125550120");
  });
});

describe("removing numbers", () => {
  it("is for admins (members 403); another organisation's entry is 404; nothing changes on refusal", async () => {
    const entry = ((await api(app, org.memberToken, "POST", "/dnc/", { number: "+16465550130" })).json() as CreateAnswer).data.entry!;
    const member = await api(app, org.memberToken, "DELETE", `/dnc/${entry.id}`);
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual({ detail: "Your role may not remove numbers from the do-not-call list: ask an admin.", code: "forbidden" });
    const elsewhere = await api(app, other.adminToken, "DELETE", `/dnc/${entry.id}`);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toEqual({ detail: "Do-not-call entry not found", code: "not_found" });
    expect(await database.db.select().from(dncNumbers).where(eq(dncNumbers.id, entry.id))).toHaveLength(1);
    const removed = await api(app, org.adminToken, "DELETE", `/dnc/${entry.id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ data: { id: entry.id } });
    expect((await list(org.memberToken, "?search=6465550130")).total).toBe(0);
  });
});

describe("the effect on campaigns", () => {
  it("stops that number's waiting contacts in every campaign of the organisation, and only those", async () => {
    const number = "+12125550140";
    const running = await createCampaign(app, org.memberToken, campaignBody(org, { name: "Running" }));
    await importJson(app, org.memberToken, running.id, [{ number }, { number: "+12125550141" }]);
    await act(app, org.memberToken, running.id, "start");
    const draft = await createCampaign(app, org.memberToken, campaignBody(org, { name: "Draft" }));
    await importJson(app, org.memberToken, draft.id, [{ number }]);
    const calling = await createCampaign(app, org.memberToken, campaignBody(org, { name: "Calling" }));
    await importJson(app, org.memberToken, calling.id, [{ number }]);
    await database.db.update(campaignContacts).set({ status: "in_progress" }).where(eq(campaignContacts.campaignId, calling.id));
    const elsewhere = await createCampaign(app, other.memberToken, campaignBody(other, { name: "Other organisation" }));
    await importJson(app, other.memberToken, elsewhere.id, [{ number }]);

    expect((await api(app, org.memberToken, "POST", "/dnc/", { number: "+1 212-555-0140" })).statusCode).toBe(201);
    const statuses = async (token: string, id: string) => ((await api(app, token, "GET", `/campaign/${id}/contacts`)).json() as { data: CampaignContact[] }).data.map((c) => [c.number, c.status]);
    expect(await statuses(org.memberToken, running.id)).toEqual([[number, "dnc"], ["+12125550141", "queued"]]);
    expect(await statuses(org.memberToken, draft.id)).toEqual([[number, "dnc"]]);
    // The call in progress finishes (the dialler checks the list before every dial).
    expect(await statuses(org.memberToken, calling.id)).toEqual([[number, "in_progress"]]);
    expect(await statuses(other.memberToken, elsewhere.id)).toEqual([[number, "queued"]]);

    // Removing the number does not bring the contacts back.
    const [entry] = await database.db.select().from(dncNumbers).where(eq(dncNumbers.number, number));
    await api(app, org.adminToken, "DELETE", `/dnc/${entry!.id}`);
    expect(await statuses(org.memberToken, running.id)).toEqual([[number, "dnc"], ["+12125550141", "queued"]]);
  });

  it("addToDnc (the dialler's opt-out tool) lists the number from a call and stops its contacts", async () => {
    const campaign = await createCampaign(app, org.memberToken, campaignBody(org));
    await importJson(app, org.memberToken, campaign.id, [{ number: "+12125550150" }]);
    const callId = "00000000-0000-4000-8000-00000000f00d";
    const result = await database.db.transaction((tx) => addToDnc(tx, org.orgId, { number: "+12125550150", reason: "Asked not to be called again", source: "call", callId, createdBy: null }));
    expect(result).toMatchObject({ added: true, contactsStopped: 1, entry: { number: "+12125550150", source: "call", callId } });
    const again = await database.db.transaction((tx) => addToDnc(tx, org.orgId, { number: "+12125550150", source: "call", callId: null }));
    expect(again).toMatchObject({ added: false, contactsStopped: 0, entry: { id: result.entry.id } });
    const [entry] = (await list(org.memberToken, "?search=2125550150")).data;
    expect(entry).toMatchObject({ source: "call", call_id: callId, reason: "Asked not to be called again" });
  });
});
