/**
 * /api/phonenumber in sandbox mode: CRUD, the one-default rule (also under concurrent writes), duplicates,
 * E.164 validation, the answering agent, permissions, organisation isolation, and carrier credentials that
 * are stored encrypted and never answered. (phone-numbers-vapi.test.ts: the same through Vapi.)
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PhoneNumber } from "../../contract";
import { ConfigError, loadConfig } from "../../server/config";
import { createSecretBox, credentialsKey } from "../../server/crypto/credentials";
import { deriveEncryptionKey, parseEncryptionKey } from "../../server/crypto/keys";
import type { Database } from "../../server/db/client";
import { agents, phoneNumbers } from "../../server/db/schema";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, organisationCast, signUp } from "./helpers";

const KEY = Buffer.alloc(32, 7);
const TWILIO_SID = `AC${"a1".repeat(16)}`;
const TWILIO_TOKEN = "twilio-auth-token-do-not-leak-9f8e7d";

let database: Database;
let app: FastifyInstance;
let adminToken: string;
let memberToken: string;
let orgId: string;
let otherToken: string;
let otherOrgId: string;
let noOrgToken: string;
/** Every response body this file saw: none may carry the credentials. */
const bodies: string[] = [];

type Method = "GET" | "POST" | "PUT" | "DELETE";
async function call(token: string | null, method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const response = await app.inject({ method, url: `/api${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
  bodies.push(response.body);
  return response;
}

async function add(token: string, body: Record<string, unknown>): Promise<PhoneNumber> {
  const response = await call(token, "POST", "/phonenumber/", { name: "Line", provider: "byo", ...body });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { data: PhoneNumber }).data;
}

let counter = 0;
/** A fresh, valid number for each call (E.164, +1 415 555 xxxx). */
const freshNumber = () => `+1415555${String(1000 + ++counter).slice(-4)}`;

const rowsOf = (organisation: string) => database.db.select().from(phoneNumbers).where(eq(phoneNumbers.orgId, organisation));
const defaultsOf = async (organisation: string) => (await rowsOf(organisation)).filter((row) => row.isDefault);

async function newOrganisation(label: string): Promise<{ token: string; orgId: string }> {
  const token = (await signUp(app)).token;
  return { token, orgId: await createOrganisation(app, token, `${label} ${randomUUID().slice(0, 6)}`) };
}

async function agentOf(organisation: string): Promise<string> {
  const id = randomUUID();
  await database.db.insert(agents).values({ id, orgId: organisation, name: "Receptionist", config: {} as never });
  return id;
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { CREDENTIALS_ENCRYPTION_KEY: KEY.toString("base64") }));
  ({ adminToken, orgId, memberToken, otherToken, otherOrgId, noOrgToken } = await organisationCast(app, "Numbers Inc"));
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("create, fetch, list", () => {
  it("GET /phonenumber/default answers 404 until there is a number", async () => {
    const { token } = await newOrganisation("Empty");
    const response = await call(token, "GET", "/phonenumber/default");
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: "No default phone number yet", code: "not_found" });
    expect((await call(token, "GET", "/phonenumber/")).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
  });

  it("the first number becomes the default (even when isDefault is false); a sandbox number is local", async () => {
    const { token, orgId: organisation } = await newOrganisation("First");
    const number = await add(token, { name: "Main line", number: "+14155550123", provider: "twilio", isDefault: false, credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: TWILIO_TOKEN } });
    expect(number).toEqual({
      id: expect.any(String),
      name: "Main line",
      number: "+14155550123",
      isDefault: true,
      provider: "twilio",
      agent_id: null,
      provider_number_id: null,
      is_sandbox: true,
      has_credentials: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await call(token, "GET", "/phonenumber/default")).json()).toEqual({ data: number });
    expect((await call(token, "GET", `/phonenumber/${number.id}`)).json()).toEqual({ data: number });
    expect(await defaultsOf(organisation)).toHaveLength(1);
  });

  it("isDefault: true on a new number moves the default to it; the list shows the default first, then newest first", async () => {
    const { token, orgId: organisation } = await newOrganisation("Second");
    const first = await add(token, { name: "First", number: freshNumber() });
    const second = await add(token, { name: "Second", number: freshNumber() });
    expect(second.isDefault).toBe(false);
    const third = await add(token, { name: "Third", number: freshNumber(), isDefault: true });
    expect(third.isDefault).toBe(true);
    const list = (await call(token, "GET", "/phonenumber/")).json() as { data: PhoneNumber[]; total: number };
    expect(list.total).toBe(3);
    expect(list.data.map((entry) => [entry.name, entry.isDefault])).toEqual([
      ["Third", true],
      ["Second", false],
      ["First", false],
    ]);
    expect((await defaultsOf(organisation)).map((row) => row.id)).toEqual([third.id]);
    const paged = (await call(token, "GET", "/phonenumber/?page=2&limit=2")).json() as { data: PhoneNumber[]; page: number; limit: number };
    expect({ names: paged.data.map((entry) => entry.name), page: paged.page, limit: paged.limit }).toEqual({ names: ["First"], page: 2, limit: 2 });
    expect(first.isDefault).toBe(true);
  });

  it("a vapi number in the sandbox: a made-up 555-01xx number in the area code, or the number given", async () => {
    const made = await add(adminToken, { name: "Vapi line", provider: "vapi", area_code: "212" });
    expect(made.number).toMatch(/^\+121255501\d\d$/);
    expect(made).toMatchObject({ provider: "vapi", is_sandbox: true, provider_number_id: null, has_credentials: false });
    const given = await add(adminToken, { name: "Given", provider: "vapi", number: freshNumber() });
    expect(given.provider).toBe("vapi");
    expect((await call(adminToken, "POST", "/phonenumber/", { name: "Nothing", provider: "vapi" })).json().detail).toMatch(/^area_code: .*area code/);
  });

  it("vonage, telnyx and byo numbers are kept locally in the sandbox", async () => {
    for (const provider of ["vonage", "telnyx", "byo"]) {
      expect((await add(adminToken, { name: provider, provider, number: freshNumber() })).provider).toBe(provider);
    }
  });

  it("numbers written with spaces, dashes or brackets are stored in E.164", async () => {
    const number = await add(adminToken, { name: "Formatted", number: " +44 (20) 7183-8750 " });
    expect(number.number).toBe("+442071838750");
  });
});

describe("validation", () => {
  it("answers 400 with the E.164 hint for numbers that are not E.164", async () => {
    for (const bad of ["4155550123", "+0155550123", "+123", "+1415555012345678", "call me", "", "++14155550123"]) {
      const response = await call(adminToken, "POST", "/phonenumber/", { name: "Bad", provider: "byo", number: bad });
      expect({ bad, status: response.statusCode }).toEqual({ bad, status: 400 });
      expect(response.json()).toEqual({ detail: "number: must be in E.164 form, e.g. +14155550123", code: "validation_error" });
    }
  });

  it("a duplicate number in one organisation is a 409 naming it; another organisation may hold the same number", async () => {
    const number = freshNumber();
    await add(adminToken, { name: "Original", number });
    const formatted = `${number.slice(0, 2)} ${number.slice(2, 5)}-${number.slice(5)}`;
    const response = await call(adminToken, "POST", "/phonenumber/", { name: "Copy", provider: "byo", number: formatted });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ detail: `This organisation already has the number ${number} ("Original"): each number can be added once.`, code: "conflict" });
    expect((await add(otherToken, { name: "Theirs", number })).number).toBe(number);
  });

  it("needs name and provider, knows no other fields, and checks each provider's needs", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ provider: "byo", number: freshNumber() }, /^name: is required/],
      [{ name: "x".repeat(41), provider: "byo", number: freshNumber() }, /^name: must be at most 40 characters/],
      [{ name: "No provider", number: freshNumber() }, /^provider: /],
      [{ name: "Odd", provider: "skype", number: freshNumber() }, /^provider: must be one of vapi, twilio, vonage, telnyx, byo/],
      [{ name: "Extra", provider: "byo", number: freshNumber(), colour: "red" }, /^colour: is not a known field/],
      [{ name: "No number", provider: "twilio", credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: "t" } }, /^number: is required for twilio numbers \(E\.164/],
      [{ name: "No credentials", provider: "twilio", number: freshNumber() }, /^credentials: are required for twilio numbers: \{twilio_account_sid, twilio_auth_token\}/],
      [{ name: "Bad SID", provider: "twilio", number: freshNumber(), credentials: { twilio_account_sid: "sid", twilio_auth_token: "t" } }, /twilio_account_sid: .*AC followed by 32/],
      [{ name: "Stray credentials", provider: "byo", number: freshNumber(), credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: "t" } }, /^credentials: are only used for twilio numbers/],
      [{ name: "Stray area", provider: "byo", number: freshNumber(), area_code: "415" }, /^area_code: is only used for vapi numbers/],
      [{ name: "Bad area", provider: "vapi", area_code: "41" }, /^area_code: must be a 3-digit US area code/],
    ];
    for (const [body, detail] of cases) {
      const response = await call(adminToken, "POST", "/phonenumber/", body);
      expect({ body, status: response.statusCode }).toEqual({ body, status: 400 });
      expect(response.json().detail).toMatch(detail);
    }
  });

  it("agent_id must be an agent of the same organisation", async () => {
    const theirs = await agentOf(otherOrgId);
    const response = await call(adminToken, "POST", "/phonenumber/", { name: "Wrong agent", provider: "byo", number: freshNumber(), agent_id: theirs });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail: `agent_id: ${theirs} is not an agent of this organisation`, code: "validation_error" });
    const ours = await agentOf(orgId);
    const number = await add(adminToken, { name: "Answered", number: freshNumber(), agent_id: ours });
    expect(number.agent_id).toBe(ours);
    expect((await call(adminToken, "PUT", `/phonenumber/${number.id}`, { agent_id: theirs })).statusCode).toBe(400);
    expect((await call(adminToken, "PUT", `/phonenumber/${number.id}`, { agent_id: null })).json().data.agent_id).toBeNull();
  });

  it("a signed-in user without an organisation is told to choose one", async () => {
    const response = await call(noOrgToken, "GET", "/phonenumber/");
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe("organization_required");
  });
});

describe("update", () => {
  it("renames and keeps the rest; number and provider may be resent unchanged but not changed", async () => {
    const number = await add(adminToken, { name: "Old name", number: freshNumber() });
    const renamed = (await call(adminToken, "PUT", `/phonenumber/${number.id}`, { name: "New name", number: number.number, provider: "byo" })).json().data as PhoneNumber;
    expect(renamed).toMatchObject({ id: number.id, name: "New name", number: number.number, provider: "byo", isDefault: number.isDefault });
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(number.updated_at));

    const changedNumber = await call(adminToken, "PUT", `/phonenumber/${number.id}`, { number: freshNumber() });
    expect(changedNumber.statusCode).toBe(400);
    expect(changedNumber.json().detail).toMatch(/^number: a number cannot be changed/);
    const changedProvider = await call(adminToken, "PUT", `/phonenumber/${number.id}`, { provider: "vonage" });
    expect(changedProvider.statusCode).toBe(400);
    expect(changedProvider.json().detail).toMatch(/^provider: /);
    expect((await call(adminToken, "PUT", `/phonenumber/${number.id}`, { credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: "x" } })).statusCode).toBe(400);
  });

  it("isDefault: true moves the default; isDefault: false on the default is refused; on another number it changes nothing", async () => {
    const { token, orgId: organisation } = await newOrganisation("Switch");
    const first = await add(token, { number: freshNumber() });
    const second = await add(token, { number: freshNumber() });
    const moved = await call(token, "PUT", `/phonenumber/${second.id}`, { isDefault: true });
    expect(moved.json().data.isDefault).toBe(true);
    expect((await call(token, "GET", `/phonenumber/${first.id}`)).json().data.isDefault).toBe(false);
    expect((await call(token, "GET", "/phonenumber/default")).json().data.id).toBe(second.id);

    const refused = await call(token, "PUT", `/phonenumber/${second.id}`, { isDefault: false });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toBe("isDefault: every organisation keeps one default number: make another number the default instead");
    expect((await call(token, "PUT", `/phonenumber/${first.id}`, { isDefault: false })).json().data.isDefault).toBe(false);
    expect((await defaultsOf(organisation)).map((row) => row.id)).toEqual([second.id]);
  });

  it("concurrent make-default requests leave exactly one default", async () => {
    const { token, orgId: organisation } = await newOrganisation("Race");
    const numbers: PhoneNumber[] = [];
    for (let index = 0; index < 6; index++) numbers.push(await add(token, { name: `N${index}`, number: freshNumber() }));
    for (let round = 0; round < 3; round++) {
      const responses = await Promise.all(numbers.map((number) => call(token, "PUT", `/phonenumber/${number.id}`, { isDefault: true })));
      expect(responses.map((response) => response.statusCode)).toEqual(numbers.map(() => 200));
      expect(await defaultsOf(organisation)).toHaveLength(1);
    }
    // And new numbers that all ask to be the default at once.
    const created = await Promise.all([0, 1, 2, 3].map((index) => call(token, "POST", "/phonenumber/", { name: `C${index}`, provider: "byo", number: freshNumber(), isDefault: true })));
    expect(created.map((response) => response.statusCode)).toEqual([201, 201, 201, 201]);
    expect(await defaultsOf(organisation)).toHaveLength(1);
  });

  it("concurrent first numbers of an organisation: exactly one becomes the default", async () => {
    const { token, orgId: organisation } = await newOrganisation("Race first");
    const responses = await Promise.all([0, 1, 2, 3, 4].map((index) => call(token, "POST", "/phonenumber/", { name: `F${index}`, provider: "byo", number: freshNumber() })));
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(await defaultsOf(organisation)).toHaveLength(1);
    expect(responses.filter((response) => response.json().data.isDefault)).toHaveLength(1);
  });

  it("the database itself refuses a second default (phone_numbers_org_default_unique)", async () => {
    const { orgId: organisation } = await newOrganisation("Index");
    await database.db.insert(phoneNumbers).values({ id: randomUUID(), orgId: organisation, name: "A", number: freshNumber(), provider: "byo", isDefault: true });
    await expect(
      database.db.insert(phoneNumbers).values({ id: randomUUID(), orgId: organisation, name: "B", number: freshNumber(), provider: "byo", isDefault: true }),
    ).rejects.toThrow();
  });
});

describe("delete", () => {
  it("members may add and edit numbers but not delete them (403); admins may", async () => {
    const number = await add(memberToken, { name: "Member's", number: freshNumber() });
    expect((await call(memberToken, "PUT", `/phonenumber/${number.id}`, { name: "Edited" })).statusCode).toBe(200);
    const refused = await call(memberToken, "DELETE", `/phonenumber/${number.id}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: "Your role may not delete phone numbers.", code: "forbidden" });
    expect((await call(memberToken, "GET", `/phonenumber/${number.id}`)).statusCode).toBe(200);
    const deleted = await call(adminToken, "DELETE", `/phonenumber/${number.id}`);
    expect(deleted.json()).toEqual({ data: { id: number.id } });
    expect((await call(adminToken, "GET", `/phonenumber/${number.id}`)).statusCode).toBe(404);
  });

  it("deleting the default promotes the oldest remaining number; deleting the last leaves none", async () => {
    const { token, orgId: organisation } = await newOrganisation("Promote");
    const oldest = await add(token, { name: "Oldest", number: freshNumber() });
    const middle = await add(token, { name: "Middle", number: freshNumber() });
    const newest = await add(token, { name: "Newest", number: freshNumber(), isDefault: true });
    expect((await call(token, "DELETE", `/phonenumber/${newest.id}`)).statusCode).toBe(200);
    expect((await call(token, "GET", "/phonenumber/default")).json().data.id).toBe(oldest.id);
    expect((await call(token, "DELETE", `/phonenumber/${middle.id}`)).statusCode).toBe(200);
    expect((await call(token, "GET", "/phonenumber/default")).json().data.id).toBe(oldest.id);
    expect((await call(token, "DELETE", `/phonenumber/${oldest.id}`)).statusCode).toBe(200);
    expect((await call(token, "GET", "/phonenumber/default")).statusCode).toBe(404);
    expect(await rowsOf(organisation)).toEqual([]);
  });
});

describe("organisation isolation", () => {
  it("another organisation's number is 404 on every route and never listed", async () => {
    const theirs = await add(otherToken, { name: "Private", number: freshNumber() });
    for (const [method, payload] of [["GET", undefined], ["PUT", { name: "Hijacked" }], ["PUT", { isDefault: true }], ["DELETE", undefined]] as const) {
      const response = await call(adminToken, method, `/phonenumber/${theirs.id}`, payload);
      expect({ method, status: response.statusCode }).toEqual({ method, status: 404 });
      expect(response.json()).toEqual({ detail: "Phone number not found", code: "not_found" });
    }
    const list = (await call(adminToken, "GET", "/phonenumber/?limit=100")).json() as { data: PhoneNumber[] };
    expect(list.data.map((entry) => entry.id)).not.toContain(theirs.id);
    expect((await call(adminToken, "GET", "/phonenumber/default")).json().data.id).not.toBe(theirs.id);
    const [row] = await database.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, theirs.id));
    expect(row).toMatchObject({ name: "Private", orgId: otherOrgId });
    expect(await defaultsOf(otherOrgId)).toHaveLength(1);
  });

  it("a malformed id is a 400 naming it", async () => {
    const response = await call(adminToken, "GET", "/phonenumber/not-a-uuid");
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/phone number id must be a UUID/);
  });
});

describe("carrier credentials", () => {
  it("are stored sealed with AES-256-GCM (CREDENTIALS_ENCRYPTION_KEY), bound to their row, and replaceable", async () => {
    const number = await add(adminToken, {
      name: "Twilio",
      provider: "twilio",
      number: freshNumber(),
      credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: TWILIO_TOKEN },
    });
    const [row] = await database.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, number.id));
    const sealed = row!.credentialsEncrypted!;
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(TWILIO_TOKEN);
    expect(sealed).not.toContain(TWILIO_SID);
    const box = createSecretBox(KEY);
    const context = `phone_numbers:${number.id}:credentials`;
    expect(box.open(sealed, context)).toEqual({ twilioAccountSid: TWILIO_SID, twilioAuthToken: TWILIO_TOKEN });
    expect(() => box.open(sealed, `phone_numbers:${randomUUID()}:credentials`)).toThrow();
    expect(() => createSecretBox(Buffer.alloc(32, 1)).open(sealed, context)).toThrow();

    const replaced = await call(adminToken, "PUT", `/phonenumber/${number.id}`, { credentials: { twilio_account_sid: TWILIO_SID, twilio_auth_token: `${TWILIO_TOKEN}-2` } });
    expect(replaced.statusCode).toBe(200);
    const [after] = await database.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, number.id));
    expect(box.open(after!.credentialsEncrypted!, context)).toEqual({ twilioAccountSid: TWILIO_SID, twilioAuthToken: `${TWILIO_TOKEN}-2` });
  });

  it("no response in this file ever carried them", async () => {
    for (const path of ["/phonenumber/?limit=100", "/phonenumber/default"]) await call(adminToken, "GET", path);
    expect(bodies.length).toBeGreaterThan(50);
    for (const body of bodies) {
      expect(body).not.toContain(TWILIO_TOKEN);
      expect(body).not.toContain(TWILIO_SID);
      // No field of that name either (error details may name the fields, as text).
      expect(body).not.toMatch(/"(credentials|twilio_account_sid|twilio_auth_token|twilioAuthToken|credentials_encrypted|credentialsEncrypted)"\s*:/);
    }
  });
});

describe("the credentials key", () => {
  it("CREDENTIALS_ENCRYPTION_KEY takes 32 bytes as hex, base64 or base64url; anything else is a ConfigError that does not echo it", () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, index) => index * 7));
    for (const written of [key.toString("hex"), key.toString("base64"), key.toString("base64url")]) {
      expect(loadConfig({ CREDENTIALS_ENCRYPTION_KEY: written }).credentialsEncryptionKey).toEqual(key);
    }
    expect(loadConfig({}).credentialsEncryptionKey).toBeNull();
    for (const bad of ["too-short-secret", key.subarray(0, 31).toString("base64"), `${key.toString("hex")}00`]) {
      expect(parseEncryptionKey(bad)).toBeNull();
      let message = "";
      try {
        loadConfig({ CREDENTIALS_ENCRYPTION_KEY: bad });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toBe("CREDENTIALS_ENCRYPTION_KEY must be 32 bytes written as 64 hex characters or base64 (make one with: openssl rand -base64 32)");
    }
  });

  it("unset: derived with HKDF from BETTER_AUTH_SECRET, else from the secret kept in DATA_DIR/auth-secret (the same across restarts)", () => {
    const secret = "a-sign-in-secret-of-at-least-32-characters";
    const fromSecret = credentialsKey(loadConfig({ BETTER_AUTH_SECRET: secret }), { inMemory: false, kind: "pglite" });
    expect(fromSecret).toEqual({ key: deriveEncryptionKey(secret), source: "BETTER_AUTH_SECRET" });
    expect(fromSecret.key).toHaveLength(32);
    expect(deriveEncryptionKey(`${secret}!`).equals(fromSecret.key)).toBe(false);

    const dataDir = mkdtempSync(join(tmpdir(), "vap-credentials-key-"));
    try {
      const config = loadConfig({ DATA_DIR: dataDir });
      const first = credentialsKey(config, { inMemory: false, kind: "pglite" });
      expect(first.source).toBe("DATA_DIR/auth-secret");
      expect(existsSync(join(dataDir, "auth-secret"))).toBe(true);
      expect(credentialsKey(config, { inMemory: false, kind: "pglite" }).key).toEqual(first.key);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const explicit = Buffer.alloc(32, 9);
    expect(credentialsKey({ ...loadConfig({}), credentialsEncryptionKey: explicit }, { inMemory: true, kind: "pglite" })).toEqual({ key: explicit, source: "CREDENTIALS_ENCRYPTION_KEY" });
  });
});
