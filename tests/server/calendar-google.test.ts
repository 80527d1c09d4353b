/**
 * Google Calendar against its local stand-in (tests/server/fakes/google.ts): connecting (the consent
 * page's parameters, PKCE, the single-use state), tokens encrypted at rest, the connections list,
 * reconnecting, disconnecting (revoked at Google, deleted even when Google fails), and what a refused
 * step changes: nothing.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CalendarConnection } from "../../contract";
import { GOOGLE_MESSAGES } from "../../server/calendar/google";
import { createSecretBox } from "../../server/crypto/credentials";
import type { Database } from "../../server/db/client";
import { appointments, calendarConnections, calendarOauthStates } from "../../server/db/schema";
import {
  CREDENTIALS_ENV,
  CREDENTIALS_KEY,
  appointmentRow,
  connectGoogle,
  connectUrl,
  get,
  makeAppointment,
  makeCalendar,
  post,
  tomorrowAt,
} from "./calendar-google-fixtures";
import { ALL_SCOPES, FAKE_GOOGLE_CLIENT, startFakeGoogle, type FakeGoogle } from "./fakes/google";
import { bearer, buildTestApp, migratedDatabase, organisationCast } from "./helpers";

let google: FakeGoogle;
let database: Database;
let app: FastifyInstance;
let cast: Awaited<ReturnType<typeof organisationCast>>;

beforeAll(async () => {
  google = await startFakeGoogle();
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { ...google.env, ...CREDENTIALS_ENV }));
  cast = await organisationCast(app, "Acme Dental");
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await google?.close();
});

const connectionRows = () => database.db.select().from(calendarConnections).where(eq(calendarConnections.orgId, cast.orgId));
const stateRows = () => database.db.select().from(calendarOauthStates).where(eq(calendarOauthStates.orgId, cast.orgId));

async function disconnectAll() {
  await app.googleCalendar!.settle();
  for (const row of await connectionRows()) {
    const response = await app.inject({ method: "DELETE", url: `/api/calendar/connections/${row.id}`, headers: bearer(cast.adminToken) });
    expect(response.statusCode, response.body).toBe(200);
  }
}

describe("connecting Google Calendar", () => {
  beforeEach(disconnectAll);

  it("members see the connections and that Google is configured, with no tokens in the answer", async () => {
    await connectGoogle(app, google, cast.adminToken);
    const response = await get(app, "/api/calendar/connections", cast.memberToken);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: CalendarConnection[]; google_configured: boolean };
    expect(body.google_configured).toBe(true);
    expect(body.data).toEqual([
      { id: expect.any(String), provider: "google", account_email: "owner@example.com", calendar: "primary", status: "connected", last_error: null, connected_at: expect.any(String) },
    ]);
    for (const token of [...google.accessTokens.keys(), ...google.refreshTokens.keys()]) expect(response.body).not.toContain(token);
  });

  it("connect answers Google's consent page with offline access, consent, PKCE S256, the calendar scopes and a state stored only as its hash", async () => {
    const url = await connectUrl(app, cast.adminToken);
    expect(`${url.origin}${url.pathname}`).toBe(`${google.url}/o/oauth2/v2/auth`);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({
      client_id: FAKE_GOOGLE_CLIENT.id,
      redirect_uri: "http://localhost:3000/calendar-permission",
      response_type: "code",
      access_type: "offline",
      prompt: "consent",
      code_challenge_method: "S256",
    });
    expect(params.scope!.split(" ")).toEqual(
      expect.arrayContaining(["openid", "email", "https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.freebusy"]),
    );
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = (await stateRows()).find((row) => row.stateHash === createHash("sha256").update(params.state!).digest("hex"));
    expect(stored).toMatchObject({ provider: "google", userId: expect.any(String) });
    expect(JSON.stringify(await stateRows())).not.toContain(params.state!);
    expect(stored!.expiresAt.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(stored!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });

  it("the callback exchanges the code with its PKCE verifier and stores the tokens encrypted, bound to the row", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken);
    const exchange = google.requests.filter((request) => request.path === "/token" && request.form?.grant_type === "authorization_code").at(-1)!;
    expect(exchange.form).toMatchObject({ client_id: FAKE_GOOGLE_CLIENT.id, client_secret: FAKE_GOOGLE_CLIENT.secret, redirect_uri: "http://localhost:3000/calendar-permission" });
    expect(exchange.form!.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);

    const [row] = await connectionRows();
    expect(row).toMatchObject({ id: connection.id, provider: "google", accountEmail: "owner@example.com", status: "connected", scope: ALL_SCOPES });
    const refreshToken = [...google.refreshTokens.keys()].at(-1)!;
    const accessToken = [...google.accessTokens.entries()].find(([, entry]) => entry.refreshToken === refreshToken)![0];
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(refreshToken);
    expect(stored).not.toContain(accessToken);
    expect(row!.refreshTokenEncrypted).toMatch(/^v1\./);
    const box = createSecretBox(CREDENTIALS_KEY);
    expect(box.open(row!.refreshTokenEncrypted!, `calendar_connections:${row!.id}:refresh`)).toBe(refreshToken);
    expect(box.open(row!.accessTokenEncrypted!, `calendar_connections:${row!.id}:access`)).toBe(accessToken);
    expect(() => box.open(row!.refreshTokenEncrypted!, `calendar_connections:${row!.id}:access`)).toThrow();
    expect(row!.accessTokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(3500_000);
  });

  it("a state is single use: the second callback answers 400 and changes nothing", async () => {
    const { code, state } = google.approve((await connectUrl(app, cast.adminToken)).toString());
    expect((await post(app, "/api/calendar/google/callback", cast.adminToken, { code, state })).statusCode).toBe(200);
    const before = { connections: await connectionRows(), states: await stateRows() };
    const again = await post(app, "/api/calendar/google/callback", cast.adminToken, { code, state });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: GOOGLE_MESSAGES.stateInvalid, code: "bad_request" });
    expect({ connections: await connectionRows(), states: await stateRows() }).toEqual(before);
  });

  it("a forged state, or another organisation's, answers 400 and changes nothing (the other's stays usable)", async () => {
    const theirs = google.approve((await connectUrl(app, cast.otherToken)).toString());
    const before = { connections: await connectionRows(), states: await stateRows() };
    for (const state of ["forged-state", theirs.state, `${theirs.state}x`]) {
      const response = await post(app, "/api/calendar/google/callback", cast.adminToken, { code: theirs.code, state });
      expect(response.statusCode, state).toBe(400);
      expect((response.json() as { detail: string }).detail).toBe(GOOGLE_MESSAGES.stateInvalid);
    }
    expect({ connections: await connectionRows(), states: await stateRows() }).toEqual(before);
    expect(google.requests.filter((request) => request.form?.code === theirs.code)).toEqual([]);
    // The other organisation's admin can still finish their own.
    const own = await post(app, "/api/calendar/google/callback", cast.otherToken, { code: theirs.code, state: theirs.state });
    expect(own.statusCode, own.body).toBe(200);
  });

  it("an expired state (over 10 minutes) answers 400 saying so, and changes nothing", async () => {
    const { code, state } = google.approve((await connectUrl(app, cast.adminToken)).toString());
    const hash = createHash("sha256").update(state).digest("hex");
    await database.db.update(calendarOauthStates).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(calendarOauthStates.stateHash, hash));
    const before = { connections: await connectionRows(), states: await stateRows() };
    const response = await post(app, "/api/calendar/google/callback", cast.adminToken, { code, state });
    expect(response.statusCode).toBe(400);
    expect((response.json() as { detail: string }).detail).toBe(GOOGLE_MESSAGES.stateExpired);
    expect({ connections: await connectionRows(), states: await stateRows() }).toEqual(before);
  });

  it("a code Google refuses answers 400 asking to start again; no connection is made", async () => {
    const url = await connectUrl(app, cast.adminToken);
    const response = await post(app, "/api/calendar/google/callback", cast.adminToken, { code: "4/not-a-code-google-gave", state: url.searchParams.get("state") });
    expect(response.statusCode).toBe(400);
    expect((response.json() as { detail: string }).detail).toBe(GOOGLE_MESSAGES.codeRefused);
    expect(await connectionRows()).toEqual([]);
  });

  it("a grant without the calendar scopes is refused (and given back to Google); one without a refresh token too", async () => {
    const narrowScope = "openid https://www.googleapis.com/auth/userinfo.email";
    const narrow = google.approve((await connectUrl(app, cast.adminToken)).toString(), { scope: narrowScope });
    const revokedBefore = google.revoked.length;
    const refused = await post(app, "/api/calendar/google/callback", cast.adminToken, { code: narrow.code, state: narrow.state });
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as { detail: string }).detail).toBe(GOOGLE_MESSAGES.scopesMissing);
    await expect.poll(() => google.revoked.length).toBe(revokedBefore + 1);
    expect([...google.refreshTokens.values()].filter((grant) => grant.scope === narrowScope)).toEqual([]);

    google.withholdRefreshToken();
    const noRefresh = google.approve((await connectUrl(app, cast.adminToken)).toString());
    const response = await post(app, "/api/calendar/google/callback", cast.adminToken, { code: noRefresh.code, state: noRefresh.state });
    expect(response.statusCode).toBe(502);
    expect((response.json() as { detail: string }).detail).toBe(GOOGLE_MESSAGES.noRefreshToken);
    expect(await connectionRows()).toEqual([]);
  });

  it("the broad calendar scope is enough", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken, { scope: "openid email https://www.googleapis.com/auth/calendar" });
    expect(connection.status).toBe("connected");
  });

  it("reconnecting replaces the organisation's connection: one row, same id, the new account and fresh tokens", async () => {
    const first = await connectGoogle(app, google, cast.adminToken);
    const before = (await connectionRows())[0]!;
    const second = await connectGoogle(app, google, cast.adminToken, { email: "front-desk@example.com" });
    const rows = await connectionRows();
    expect(rows).toHaveLength(1);
    expect(second).toMatchObject({ id: first.id, account_email: "front-desk@example.com", status: "connected" });
    expect(rows[0]!.refreshTokenEncrypted).not.toBe(before.refreshTokenEncrypted);
  });

  it("members may look but not connect, finish, or disconnect (403, nothing changes)", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken);
    const adminUrl = await connectUrl(app, cast.adminToken);
    const before = { connections: await connectionRows(), states: await stateRows() };
    const answers = [
      await post(app, "/api/calendar/google/connect", cast.memberToken),
      await post(app, "/api/calendar/google/callback", cast.memberToken, { code: "x", state: adminUrl.searchParams.get("state") }),
      await app.inject({ method: "DELETE", url: `/api/calendar/connections/${connection.id}`, headers: bearer(cast.memberToken) }),
    ];
    expect(answers.map((answer) => [answer.statusCode, (answer.json() as { code: string }).code])).toEqual([
      [403, "forbidden"],
      [403, "forbidden"],
      [403, "forbidden"],
    ]);
    expect({ connections: await connectionRows(), states: await stateRows() }).toEqual(before);
  });
});

describe("disconnecting", () => {
  beforeEach(disconnectAll);

  it("revokes the permission at Google, deletes the connection and forgets which appointments were written", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken);
    const refreshToken = [...google.refreshTokens.keys()].at(-1)!;
    const calendarId = await makeCalendar(database.db, cast.orgId);
    const appointmentId = await makeAppointment(database.db, cast.orgId, calendarId, { start: tomorrowAt(15) });
    app.googleCalendar!.appointmentChanged(cast.orgId, appointmentId);
    await app.googleCalendar!.settle();
    expect((await appointmentRow(database.db, appointmentId))!.externalEventId).not.toBeNull();

    const response = await app.inject({ method: "DELETE", url: `/api/calendar/connections/${connection.id}`, headers: bearer(cast.adminToken) });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { id: connection.id, revoked: true, revoke_error: null } });
    expect(google.revoked).toContain(refreshToken);
    expect(google.refreshTokens.has(refreshToken)).toBe(false);
    expect(await connectionRows()).toEqual([]);
    expect((await appointmentRow(database.db, appointmentId))!.externalEventId).toBeNull();
    await database.db.delete(appointments).where(eq(appointments.id, appointmentId));
  });

  it("deletes the connection even when Google fails to revoke, and says so", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken);
    google.fail({ status: 503, match: "POST /revoke", error: "temporarily_unavailable", message: "try later" });
    const response = await app.inject({ method: "DELETE", url: `/api/calendar/connections/${connection.id}`, headers: bearer(cast.adminToken) });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: { revoked: boolean; revoke_error: string } };
    expect(body.data.revoked).toBe(false);
    expect(body.data.revoke_error).toMatch(/try later/);
    expect(await connectionRows()).toEqual([]);
  });

  it("another organisation's connection, or a made-up id, answers 404 and stays", async () => {
    const connection = await connectGoogle(app, google, cast.adminToken);
    for (const id of [connection.id, "00000000-0000-4000-8000-000000000000"]) {
      const response = await app.inject({ method: "DELETE", url: `/api/calendar/connections/${id}`, headers: bearer(cast.otherToken) });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: GOOGLE_MESSAGES.notFound, code: "not_found" });
    }
    expect(await connectionRows()).toHaveLength(1);
    const bad = await app.inject({ method: "DELETE", url: "/api/calendar/connections/not-a-uuid", headers: bearer(cast.adminToken) });
    expect(bad.statusCode).toBe(400);
  });
});

describe("without GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET", () => {
  it("the connections say google_configured false, and connecting answers 409 saying what to set", async () => {
    const { app: bare } = await buildTestApp(database, CREDENTIALS_ENV);
    try {
      expect(bare.googleCalendar).toBeNull();
      const list = await get(bare, "/api/calendar/connections", cast.adminToken);
      expect((list.json() as { google_configured: boolean }).google_configured).toBe(false);
      for (const [url, body] of [
        ["/api/calendar/google/connect", {}],
        ["/api/calendar/google/callback", { code: "x", state: "y" }],
      ] as const) {
        const response = await post(bare, url, cast.adminToken, body);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toEqual({ detail: GOOGLE_MESSAGES.notConfigured, code: "conflict" });
      }
    } finally {
      await bare.close();
    }
  });
});
