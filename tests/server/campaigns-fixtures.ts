/** What the campaign tests share: an organisation ready to run campaigns, and the API calls they make. */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { Campaign, CampaignCreate, ContactImportReport } from "../../contract/campaign";
import type { Db } from "../../server/db/client";
import { addPhoneNumber, createAgent } from "./calls-fixtures";
import { addMember, bearer, createOrganisation, signUp } from "./helpers";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export function api(app: FastifyInstance, token: string | null, method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method, url: `/api${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
}

export interface CampaignOrg {
  orgId: string;
  adminToken: string;
  memberToken: string;
  agentId: string;
  phoneNumberId: string;
}

/** An organisation with an admin, a member, an agent and a caller number. */
export async function campaignOrg(app: FastifyInstance, db: Db, name = `Campaigns ${randomUUID().slice(0, 6)}`): Promise<CampaignOrg> {
  const admin = await signUp(app, undefined, "Ada Admin");
  const orgId = await createOrganisation(app, admin.token, name);
  const member = await addMember(app, admin.token, orgId);
  const agent = await createAgent(app, admin.token, { agent_name: "Caller" });
  const phoneNumberId = await addPhoneNumber(db, orgId, { number: `+1415555${String(1000 + Math.floor(Math.random() * 9000))}` });
  return { orgId, adminToken: admin.token, memberToken: member.token, agentId: agent.id, phoneNumberId };
}

export const WEEKDAY_WINDOWS = [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }];
/** Every minute of every day: contacts with a zone are ready at once. */
export const ALWAYS = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "00:00", end: "24:00" }];

export function campaignBody(org: CampaignOrg, extra: Partial<CampaignCreate> = {}): CampaignCreate {
  return {
    name: "Spring renewals",
    agent_id: org.agentId,
    phone_number_id: org.phoneNumberId,
    schedule: { windows: ALWAYS as CampaignCreate["schedule"]["windows"], fallback_timezone: "America/New_York" },
    ...extra,
  };
}

export async function createCampaign(app: FastifyInstance, token: string, body: CampaignCreate): Promise<Campaign> {
  const response = await api(app, token, "POST", "/campaign/", body);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: Campaign }).data;
}

export async function getCampaign(app: FastifyInstance, token: string, id: string): Promise<Campaign> {
  const response = await api(app, token, "GET", `/campaign/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Campaign }).data;
}

export function multipartCsv(content: string | Buffer, field = "file", filename = "contacts.csv") {
  const boundary = `----campaign${randomUUID().replace(/-/g, "")}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8"),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

export function uploadCsv(app: FastifyInstance, token: string, path: string, content: string | Buffer, field?: string): Promise<LightMyRequestResponse> {
  const upload = multipartCsv(content, field);
  return app.inject({ method: "POST", url: `/api${path}`, headers: { ...bearer(token), ...upload.headers }, payload: upload.payload });
}

export async function importCsv(app: FastifyInstance, token: string, campaignId: string, csv: string | Buffer): Promise<ContactImportReport> {
  const response = await uploadCsv(app, token, `/campaign/${campaignId}/contacts`, csv);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: ContactImportReport }).data;
}

export async function importJson(app: FastifyInstance, token: string, campaignId: string, contacts: unknown[]): Promise<ContactImportReport> {
  const response = await api(app, token, "POST", `/campaign/${campaignId}/contacts`, { contacts });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: ContactImportReport }).data;
}

export async function act(app: FastifyInstance, token: string, campaignId: string, action: "start" | "pause" | "resume" | "cancel"): Promise<LightMyRequestResponse> {
  return api(app, token, "POST", `/campaign/${campaignId}/${action}`);
}

let counter = 0;
/** A fresh E.164 number in the 212 area code (New York), unique in this process. */
export const freshNumber = (area = "212") => `+1${area}555${String(++counter % 10_000).padStart(4, "0")}`;
