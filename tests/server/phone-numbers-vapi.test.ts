/**
 * Phone numbers in Vapi mode, against the local fake of Vapi's API: what is sent (validated against
 * Vapi's Create*PhoneNumberDTO / Update*PhoneNumberDTO with the unknown-field walk), refusals (502,
 * nothing written), undo at Vapi when our write fails, DELETE 404 as done, and credentials that go to
 * Vapi but never come back from our API.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Agent, PhoneNumber } from "../../contract";
import type { Database } from "../../server/db/client";
import { phoneNumbers } from "../../server/db/schema";
import type { VoiceProvider } from "../../server/voice/types";
import { createVapiVoiceProvider } from "../../server/voice/vapi";
import { toVapiPhoneNumberCreate, toVapiPhoneNumberUpdate } from "../../server/voice/vapi-phone-numbers";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { loadVapiOpenApi, type VapiOpenApi } from "./fakes/vapi-openapi";
import { addMember, bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

const TWILIO_SID = `AC${"0f".repeat(16)}`;
const TWILIO_TOKEN = "vapi-mode-twilio-token-never-answered";

let database: Database;
let app: FastifyInstance;
let fake: FakeVapi;
let vapi: VapiOpenApi;
let token: string;
let memberToken: string;
let orgId: string;
let agent: Agent;
/** Runs after the next savePhoneNumber succeeded at Vapi, before our database write. */
let afterNextSave: (() => Promise<void>) | null = null;
const bodies: string[] = [];

async function call(method: "GET" | "POST" | "PUT" | "DELETE", path: string, payload?: object, as = token): Promise<LightMyRequestResponse> {
  const response = await app.inject({ method, url: `/api${path}`, headers: bearer(as), ...(payload ? { payload } : {}) });
  bodies.push(response.body);
  return response;
}

async function add(body: Record<string, unknown>): Promise<PhoneNumber> {
  const response = await call("POST", "/phonenumber/", body);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: PhoneNumber }).data;
}

const twilio = (number: string, extra: Record<string, unknown> = {}) => ({
  name: "Twilio line",
  provider: "twilio",
  number,
  credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: TWILIO_TOKEN },
  ...extra,
});

let counter = 0;
const freshNumber = () => `+1628555${String(1000 + ++counter).slice(-4)}`;
const phoneRequests = () => fake.requests.filter((request) => request.path.startsWith("/phone-number"));
const rowCount = async () => (await database.db.select().from(phoneNumbers).where(eq(phoneNumbers.orgId, orgId))).length;

beforeAll(async () => {
  database = await migratedDatabase();
  fake = await startFakeVapi();
  vapi = loadVapiOpenApi();
  const real = createVapiVoiceProvider({ privateKey: FAKE_VAPI_KEY, apiUrl: fake.url, publicUrl: "http://localhost:3000", timeoutMs: 2000 });
  const provider: VoiceProvider = {
    ...real,
    async savePhoneNumber(input, providerNumberId) {
      const result = await real.savePhoneNumber(input, providerNumberId);
      const hook = afterNextSave;
      afterNextSave = null;
      if (hook) await hook();
      return result;
    },
  };
  ({ app } = await buildTestApp(database, { VAPI_PRIVATE_KEY: FAKE_VAPI_KEY, VAPI_API_URL: fake.url }, undefined, provider));
  token = (await signUp(app)).token;
  orgId = await createOrganisation(app, token, "Vapi Numbers");
  memberToken = (await addMember(app, token, orgId)).token;
  const created = await call("POST", "/agent/", { agent_name: "Front desk" });
  expect(created.statusCode, created.body).toBe(201);
  agent = created.json().data as Agent;
  expect(agent.provider_assistant_id).toBeTruthy();
});
afterAll(async () => {
  await app.close();
  await fake.close();
  await database.close();
});
beforeEach(() => {
  fake.reset();
  afterNextSave = null;
});

describe("creating numbers at Vapi", () => {
  it("provider vapi: POST /phone-number with CreateVapiPhoneNumberDTO (area code, name, the agent's assistant); stores the digits Vapi assigned", async () => {
    const number = await add({ name: "Support", provider: "vapi", area_code: "415", agent_id: agent.id });
    const [request] = phoneRequests();
    expect(request).toMatchObject({ method: "POST", path: "/phone-number" });
    expect(request!.json).toEqual({ provider: "vapi", name: "Support", numberDesiredAreaCode: "415", assistantId: agent.provider_assistant_id });
    expect(vapi.problems("CreateVapiPhoneNumberDTO", request!.json)).toEqual([]);
    const atVapi = fake.phoneNumbers.get(number.provider_number_id!);
    expect(atVapi).toMatchObject({ provider: "vapi", assistantId: agent.provider_assistant_id });
    expect(number).toMatchObject({ number: atVapi!.number, provider: "vapi", is_sandbox: false, agent_id: agent.id, has_credentials: false });
    expect(number.number).toMatch(/^\+1415\d{7}$/);
  });

  it("provider vapi with a number of our own is refused (Vapi picks the digits)", async () => {
    const response = await call("POST", "/phonenumber/", { name: "Mine", provider: "vapi", number: freshNumber() });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/^number: Vapi picks the digits of a vapi number: send area_code/);
    expect(phoneRequests()).toEqual([]);
  });

  it("provider twilio: imports with CreateTwilioPhoneNumberDTO (number, SID, token); the credentials are stored sealed and never answered", async () => {
    const numberValue = freshNumber();
    const number = await add(twilio(numberValue));
    const [request] = phoneRequests();
    expect(request!.json).toEqual({ provider: "twilio", number: numberValue, twilioAccountSid: TWILIO_SID, twilioAuthToken: TWILIO_TOKEN, name: "Twilio line" });
    expect(vapi.problems("CreateTwilioPhoneNumberDTO", request!.json)).toEqual([]);
    expect(number).toMatchObject({ number: numberValue, provider: "twilio", is_sandbox: false, has_credentials: true });
    expect(fake.phoneNumbers.get(number.provider_number_id!)).toMatchObject({ provider: "twilio", number: numberValue });
    const [row] = await database.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, number.id));
    expect(row!.credentialsEncrypted).not.toContain(TWILIO_TOKEN);
  });

  it("vonage, telnyx and byo are refused with 400 before anything reaches Vapi", async () => {
    for (const provider of ["vonage", "telnyx", "byo"]) {
      const response = await call("POST", "/phonenumber/", { name: provider, provider, number: freshNumber() });
      expect({ provider, status: response.statusCode }).toEqual({ provider, status: 400 });
      expect(response.json().detail).toMatch(new RegExp(`^provider: Importing ${provider} numbers into Vapi needs a Vapi credential id`));
    }
    expect(phoneRequests()).toEqual([]);
  });

  it("a Vapi refusal answers 502 upstream_error with Vapi's reason, and nothing is written", async () => {
    const before = await rowCount();
    fake.fail({ status: 400, message: ["twilioAuthToken is invalid"], match: "POST /phone-number" });
    const response = await call("POST", "/phonenumber/", twilio(freshNumber()));
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({ detail: "Vapi could not import the phone number (HTTP 400): twilioAuthToken is invalid", code: "upstream_error" });
    fake.fail({ status: 503, match: "POST /phone-number" });
    const down = await call("POST", "/phonenumber/", { name: "Down", provider: "vapi", area_code: "212" });
    expect(down.statusCode).toBe(502);
    expect(down.json().detail).toMatch(/^The voice provider failed to create the phone number \(Vapi answered 503\)/);
    expect(await rowCount()).toBe(before);
  });

  it("when our write fails after Vapi said yes, the new Vapi number is released (and a duplicate answers 409)", async () => {
    const numberValue = freshNumber();
    // Another request stores the same number while Vapi is importing this one.
    afterNextSave = async () => {
      await database.db.insert(phoneNumbers).values({ id: randomUUID(), orgId, name: "Raced", number: numberValue, provider: "twilio" });
    };
    const response = await call("POST", "/phonenumber/", twilio(numberValue));
    expect(response.statusCode).toBe(409);
    expect(response.json().detail).toMatch(/already has the number/);
    const [created, released] = phoneRequests();
    expect(created).toMatchObject({ method: "POST", path: "/phone-number" });
    const id = [...fake.requests].find((request) => request.method === "DELETE")?.path.split("/").pop();
    expect(released).toMatchObject({ method: "DELETE", path: `/phone-number/${id}` });
    expect(fake.phoneNumbers.has(id!)).toBe(false);
  });
});

describe("updating and deleting at Vapi", () => {
  it("PUT patches the name and the answering assistant with Update*PhoneNumberDTO; agent_id null takes the assistant off (assistantId: null)", async () => {
    const number = await add({ name: "Sales", provider: "vapi", area_code: "646" });
    fake.reset();
    const renamed = await call("PUT", `/phonenumber/${number.id}`, { name: "Sales EU", agent_id: agent.id });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const [patch] = phoneRequests();
    expect(patch).toMatchObject({ method: "PATCH", path: `/phone-number/${number.provider_number_id}` });
    expect(patch!.json).toEqual({ provider: "vapi", name: "Sales EU", assistantId: agent.provider_assistant_id });
    expect(vapi.problems("UpdateVapiPhoneNumberDTO", patch!.json)).toEqual([]);
    expect(fake.phoneNumbers.get(number.provider_number_id!)).toMatchObject({ name: "Sales EU", assistantId: agent.provider_assistant_id });

    fake.reset();
    expect((await call("PUT", `/phonenumber/${number.id}`, { agent_id: null })).json().data.agent_id).toBeNull();
    const clear = phoneRequests()[0]!.json as Record<string, unknown>;
    // The one documented departure from Vapi's OpenAPI document: it types assistantId as a string, and Vapi clears it with null.
    expect(clear).toEqual({ provider: "vapi", name: "Sales EU", assistantId: null });
    const { assistantId: _cleared, ...rest } = clear;
    expect(vapi.problems("UpdateVapiPhoneNumberDTO", rest)).toEqual([]);
    expect(fake.phoneNumbers.get(number.provider_number_id!)).not.toHaveProperty("assistantId");
  });

  it("a Twilio number's PATCH carries its credentials (UpdateTwilioPhoneNumberDTO); new ones replace them", async () => {
    const number = await add(twilio(freshNumber()));
    fake.reset();
    const response = await call("PUT", `/phonenumber/${number.id}`, { credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: `${TWILIO_TOKEN}-new` } });
    expect(response.statusCode).toBe(200);
    const patch = phoneRequests()[0]!.json;
    expect(patch).toEqual({ provider: "twilio", name: "Twilio line", assistantId: null, twilioAccountSid: TWILIO_SID, twilioAuthToken: `${TWILIO_TOKEN}-new` });
    const { assistantId: _none, ...rest } = patch as Record<string, unknown>;
    expect(vapi.problems("UpdateTwilioPhoneNumberDTO", rest)).toEqual([]);
  });

  it("making a number the default alone does not call Vapi", async () => {
    const number = await add(twilio(freshNumber()));
    fake.reset();
    expect((await call("PUT", `/phonenumber/${number.id}`, { isDefault: true })).json().data.isDefault).toBe(true);
    expect(phoneRequests()).toEqual([]);
  });

  it("a refused update answers 502 and changes nothing", async () => {
    const number = await add({ name: "Stable", provider: "vapi", area_code: "303" });
    fake.fail({ status: 400, message: "name must be shorter than or equal to 40 characters", match: "PATCH /phone-number" });
    const response = await call("PUT", `/phonenumber/${number.id}`, { name: "Changed", agent_id: agent.id });
    expect(response.statusCode).toBe(502);
    expect(response.json().code).toBe("upstream_error");
    expect((await call("GET", `/phonenumber/${number.id}`)).json().data).toEqual(number);
  });

  it("when our update fails after Vapi said yes, Vapi gets the old settings back", async () => {
    const number = await add({ name: "Before", provider: "vapi", area_code: "303", agent_id: agent.id });
    fake.reset();
    afterNextSave = async () => {
      await database.db.delete(phoneNumbers).where(eq(phoneNumbers.id, number.id));
    };
    const response = await call("PUT", `/phonenumber/${number.id}`, { name: "After", agent_id: null });
    expect(response.statusCode).toBe(404);
    expect(phoneRequests().map((request) => [request.method, request.json])).toEqual([
      ["PATCH", { provider: "vapi", name: "After", assistantId: null }],
      ["PATCH", { provider: "vapi", name: "Before", assistantId: agent.provider_assistant_id }],
    ]);
  });

  it("DELETE releases the Vapi number, then deletes ours; already gone at Vapi (404) counts as done", async () => {
    const number = await add({ name: "Temp", provider: "vapi", area_code: "720" });
    fake.reset();
    expect((await call("DELETE", `/phonenumber/${number.id}`)).statusCode).toBe(200);
    expect(phoneRequests().map((request) => `${request.method} ${request.path}`)).toEqual([`DELETE /phone-number/${number.provider_number_id}`]);
    expect(fake.phoneNumbers.has(number.provider_number_id!)).toBe(false);

    const gone = await add({ name: "Gone", provider: "vapi", area_code: "720" });
    fake.phoneNumbers.delete(gone.provider_number_id!);
    expect((await call("DELETE", `/phonenumber/${gone.id}`)).statusCode).toBe(200);
    expect((await call("GET", `/phonenumber/${gone.id}`)).statusCode).toBe(404);
  });

  it("a refused delete answers 502 and keeps the number", async () => {
    const number = await add({ name: "Kept", provider: "vapi", area_code: "720" });
    fake.fail({ status: 500, match: "DELETE /phone-number" });
    const response = await call("DELETE", `/phonenumber/${number.id}`);
    expect(response.statusCode).toBe(502);
    expect((await call("GET", `/phonenumber/${number.id}`)).statusCode).toBe(200);
  });

  it("members cannot delete (403) and nothing reaches Vapi", async () => {
    const number = await add({ name: "Guarded", provider: "vapi", area_code: "720" });
    fake.reset();
    expect((await call("DELETE", `/phonenumber/${number.id}`, undefined, memberToken)).statusCode).toBe(403);
    expect(phoneRequests()).toEqual([]);
  });
});

describe("payload mapping", () => {
  it("names longer than Vapi's 40 characters are cut; unsupported providers throw", () => {
    const base = { id: randomUUID(), orgId: "org", name: "n".repeat(60), number: "+14155550123", assistantId: null, credentials: null };
    expect(toVapiPhoneNumberCreate({ ...base, provider: "vapi", areaCode: "415" })).toEqual({ provider: "vapi", name: "n".repeat(40), numberDesiredAreaCode: "415" });
    expect(toVapiPhoneNumberUpdate({ ...base, provider: "byo" })).toEqual({ provider: "byo-phone-number", name: "n".repeat(40), assistantId: null });
    expect(() => toVapiPhoneNumberCreate({ ...base, provider: "telnyx" })).toThrow(/credential id/);
    expect(() => toVapiPhoneNumberCreate({ ...base, provider: "vapi" })).toThrow(/area code/);
  });
});

describe("credentials", () => {
  it("no response in this file carried them", () => {
    expect(bodies.length).toBeGreaterThan(20);
    for (const body of bodies) {
      expect(body).not.toContain(TWILIO_TOKEN);
      expect(body).not.toContain(TWILIO_SID);
    }
  });
});

describe("numbers follow their agent's assistant at Vapi", () => {
  async function newAgent(name: string): Promise<Agent> {
    const created = await call("POST", "/agent/", { agent_name: name });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data as Agent;
  }

  it("deleting an agent first takes it off its Vapi numbers, so Vapi never routes to a deleted assistant", async () => {
    const doomed = await newAgent("Doomed desk");
    const number = await add({ name: "Doomed line", provider: "vapi", area_code: "415", agent_id: doomed.id });
    fake.reset();

    const deleted = await call("DELETE", `/agent/${doomed.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const order = fake.requests.map((request) => `${request.method} ${request.path}`);
    expect(order).toEqual([`PATCH /phone-number/${number.provider_number_id}`, `DELETE /assistant/${doomed.provider_assistant_id}`]);
    expect(fake.requests[0]!.json).toMatchObject({ assistantId: null });
    expect(fake.phoneNumbers.get(number.provider_number_id!)?.assistantId ?? null).toBeNull();
    const after = await call("GET", `/phonenumber/${number.id}`);
    expect(after.json()).toMatchObject({ data: { id: number.id, agent_id: null } });
  });

  it("when Vapi refuses to take the agent off a number, nothing is deleted (502)", async () => {
    const kept = await newAgent("Kept desk");
    const number = await add({ name: "Kept line", provider: "vapi", area_code: "628", agent_id: kept.id });
    fake.fail({ status: 500, message: "Vapi is down", match: "PATCH /phone-number" });

    const refused = await call("DELETE", `/agent/${kept.id}`);
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ code: "upstream_error", detail: expect.any(String) });
    expect((await call("GET", `/agent/${kept.id}`)).statusCode).toBe(200);
    expect(fake.assistants.has(kept.provider_assistant_id!)).toBe(true);
    expect((await call("GET", `/phonenumber/${number.id}`)).json()).toMatchObject({ data: { agent_id: kept.id } });
    expect(fake.phoneNumbers.get(number.provider_number_id!)).toMatchObject({ assistantId: kept.provider_assistant_id });
  });

  it("an assistant re-created at Vapi (deleted in its dashboard) takes the agent's numbers with it", async () => {
    const desk = await newAgent("Recreated desk");
    const number = await add({ name: "Recreated line", provider: "vapi", area_code: "212", agent_id: desk.id });
    fake.assistants.delete(desk.provider_assistant_id!);

    const saved = await call("PUT", `/agent/${desk.id}`, { agent_name: "Recreated desk 2" });
    expect(saved.statusCode, saved.body).toBe(200);
    const fresh = (saved.json() as { data: Agent }).data.provider_assistant_id;
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(desk.provider_assistant_id);
    expect(fake.phoneNumbers.get(number.provider_number_id!)).toMatchObject({ assistantId: fresh });
    expect((await call("GET", `/phonenumber/${number.id}`)).json()).toMatchObject({ data: { agent_id: desk.id } });
  });
});
