/**
 * A local stand-in for the parts of Google the server uses: the OAuth consent page, token and revoke
 * endpoints (GOOGLE_OAUTH_URL) and Calendar v3 freeBusy and events (GOOGLE_API_URL), on one node:http
 * server at 127.0.0.1 with a random port. It checks what Google checks (client credentials, the code's
 * redirect_uri and PKCE verifier, single-use codes, bearer tokens, expired and revoked tokens, event id
 * rules, 409 for an id already used) and answers in Google's shapes. Tests read what it holds (events,
 * tokens) and can make it fail or hang.
 *
 * The consent page answers at once, as if the person allowed everything: GET …/o/oauth2/v2/auth
 * redirects to redirect_uri with a code and the state (a browser test follows it); `approve(url)` does
 * the same without a browser and returns the code.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

export const FAKE_GOOGLE_CLIENT = { id: "fake-client.apps.googleusercontent.com", secret: "fake-google-secret" } as const;
export const FAKE_GOOGLE_EMAIL = "owner@example.com";
export const ALL_SCOPES = "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/calendar.events https://www.googleapis.com/auth/calendar.freebusy";

export interface GoogleRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Form fields (token, revoke) or the parsed JSON body. */
  form: Record<string, string> | null;
  json: unknown;
}

export interface FakeEvent {
  id: string;
  calendar: string;
  /** The Google account (email) whose calendar holds it: each connection is its own account's. */
  account?: string;
  summary: string;
  description?: string;
  start: { dateTime: string; timeZone?: string };
  end: { dateTime: string; timeZone?: string };
  status: "confirmed" | "tentative" | "cancelled";
  extendedProperties?: { private?: Record<string, string> };
  /** How many times it was written (insert 1, each update +1). */
  writes: number;
}

export interface FakeGoogleFailure {
  status: number;
  /** OAuth-style `error` (token endpoint) or API `reason`. */
  error?: string;
  message?: string;
  /** Only requests starting with this ("POST /token", "POST /calendar/v3/freeBusy"…); default any. */
  match?: string;
  /** How many requests fail (default 1). */
  times?: number;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  email: string;
  used: boolean;
}

export interface FakeGoogle {
  /** The one host for GOOGLE_OAUTH_URL and GOOGLE_API_URL. */
  url: string;
  env: { GOOGLE_CLIENT_ID: string; GOOGLE_CLIENT_SECRET: string; GOOGLE_OAUTH_URL: string; GOOGLE_API_URL: string };
  requests: GoogleRequest[];
  /** Events by id (cancelled ones stay, as Google keeps deleted events' ids). */
  events: Map<string, FakeEvent>;
  /** Busy times of the account's calendar beside our events (as Google has them from other events). */
  busy: Array<{ start: string; end: string }>;
  /** Access tokens handed out, with their expiry (ms). */
  accessTokens: Map<string, { refreshToken: string; expiresAt: number }>;
  /** Refresh tokens handed out; a revoked one is gone. */
  refreshTokens: Map<string, { scope: string; email: string }>;
  revoked: string[];
  /** Plays the consent page for an authorize URL: checks it and answers the code it would redirect with. */
  approve(authorizeUrl: string, options?: { scope?: string; email?: string }): { code: string; state: string; redirectUri: string };
  /** Access tokens issued from now on last this long (default 3599 s). */
  setAccessTokenSeconds(seconds: number): void;
  /** Every access token handed out so far expires now. */
  expireAccessTokens(): void;
  /** As if the person removed the app's access in their Google account. */
  revokeEverything(): void;
  /** The next token answers hold no refresh_token. */
  withholdRefreshToken(): void;
  fail(failure: FakeGoogleFailure): void;
  /** Accepts the next matching request and never answers. */
  hang(match?: string): void;
  close(): Promise<void>;
}

const EVENT_ID = /^[0-9a-v]{5,1024}$/;
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export async function startFakeGoogle(options: { clientId?: string; clientSecret?: string; port?: number } = {}): Promise<FakeGoogle> {
  const clientId = options.clientId ?? FAKE_GOOGLE_CLIENT.id;
  const clientSecret = options.clientSecret ?? FAKE_GOOGLE_CLIENT.secret;
  const requests: GoogleRequest[] = [];
  const events = new Map<string, FakeEvent>();
  const busy: Array<{ start: string; end: string }> = [];
  const accessTokens = new Map<string, { refreshToken: string; expiresAt: number }>();
  const refreshTokens = new Map<string, { scope: string; email: string }>();
  const revoked: string[] = [];
  const codes = new Map<string, Grant>();
  let failures: FakeGoogleFailure[] = [];
  const hangs: Array<string | undefined> = [];
  let accessSeconds = 3599;
  let withhold = false;

  function idToken(email: string) {
    const now = Math.floor(Date.now() / 1000);
    return `${b64url({ alg: "RS256", kid: "fake" })}.${b64url({ iss: "https://accounts.google.com", aud: clientId, sub: "1234567890", email, email_verified: true, iat: now, exp: now + 3600 })}.${randomBytes(16).toString("base64url")}`;
  }

  function issue(refreshToken: string) {
    const accessToken = `ya29.${randomBytes(18).toString("base64url")}`;
    accessTokens.set(accessToken, { refreshToken, expiresAt: Date.now() + accessSeconds * 1000 });
    return accessToken;
  }

  function approve(authorizeUrl: string, grant: { scope?: string; email?: string } = {}) {
    const url = new URL(authorizeUrl);
    const params = url.searchParams;
    const problems = [
      params.get("client_id") !== clientId && "client_id",
      params.get("response_type") !== "code" && "response_type",
      params.get("code_challenge_method") !== "S256" && "code_challenge_method",
      !params.get("code_challenge") && "code_challenge",
      !params.get("state") && "state",
      !params.get("redirect_uri") && "redirect_uri",
    ].filter(Boolean);
    if (problems.length > 0) throw new Error(`fake Google: the consent page was opened without a right ${problems.join(", ")}`);
    const code = `4/${randomBytes(24).toString("base64url")}`;
    codes.set(code, {
      clientId,
      redirectUri: params.get("redirect_uri")!,
      challenge: params.get("code_challenge")!,
      scope: grant.scope ?? ALL_SCOPES,
      email: grant.email ?? FAKE_GOOGLE_EMAIL,
      used: false,
    });
    return { code, state: params.get("state")!, redirectUri: params.get("redirect_uri")! };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const method = req.method ?? "GET";
      const [pathname, search] = (req.url ?? "/").split("?") as [string, string | undefined];
      const query = new URLSearchParams(search ?? "");
      const type = req.headers["content-type"] ?? "";
      const form = type.startsWith("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(raw)) : null;
      let json: unknown = null;
      if (type.startsWith("application/json") && raw) {
        try {
          json = JSON.parse(raw);
        } catch {
          json = { unparseable: raw };
        }
      }
      requests.push({ method, path: pathname, query, headers: req.headers, form, json });
      const route = `${method} ${pathname}`;

      const send = (status: number, body?: unknown) => {
        res.writeHead(status, body === undefined ? {} : { "content-type": "application/json; charset=UTF-8" });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      const oauthError = (status: number, error: string, description?: string) => send(status, { error, ...(description ? { error_description: description } : {}) });
      const apiError = (status: number, reason: string, message: string) =>
        send(status, { error: { code: status, message, errors: [{ domain: "global", reason, message }], ...(status === 401 ? { status: "UNAUTHENTICATED" } : {}) } });

      const hang = hangs.findIndex((match) => match === undefined || route.startsWith(match));
      if (hang >= 0) {
        hangs.splice(hang, 1);
        return;
      }
      const failure = failures.find((candidate) => !candidate.match || route.startsWith(candidate.match));
      if (failure) {
        failure.times = (failure.times ?? 1) - 1;
        if (failure.times <= 0) failures = failures.filter((candidate) => candidate !== failure);
        if (pathname === "/token" || pathname === "/revoke") return oauthError(failure.status, failure.error ?? "server_error", failure.message);
        return apiError(failure.status, failure.error ?? "backendError", failure.message ?? "Backend Error");
      }

      // --- OAuth --------------------------------------------------------------------------------------
      if (route === "GET /o/oauth2/v2/auth") {
        try {
          const { code, state, redirectUri } = approve(`http://fake${req.url}`);
          const target = new URL(redirectUri);
          target.searchParams.set("state", state);
          target.searchParams.set("code", code);
          target.searchParams.set("scope", ALL_SCOPES);
          res.writeHead(302, { location: target.toString() });
          res.end();
        } catch (error) {
          res.writeHead(400, { "content-type": "text/plain" });
          res.end((error as Error).message);
        }
        return;
      }
      if (route === "POST /token") {
        if (!form) return oauthError(400, "invalid_request", "Expected application/x-www-form-urlencoded");
        if (form.client_id !== clientId || form.client_secret !== clientSecret) return oauthError(401, "invalid_client", "Unauthorized");
        if (form.grant_type === "authorization_code") {
          const grant = codes.get(form.code ?? "");
          if (!grant || grant.used) return oauthError(400, "invalid_grant", "Malformed auth code.");
          if (grant.redirectUri !== form.redirect_uri) return oauthError(400, "redirect_uri_mismatch", "Bad Request");
          const challenge = createHash("sha256").update(form.code_verifier ?? "", "ascii").digest("base64url");
          if (challenge !== grant.challenge) return oauthError(400, "invalid_grant", "Invalid code verifier.");
          grant.used = true;
          const refreshToken = `1//${randomBytes(24).toString("base64url")}`;
          refreshTokens.set(refreshToken, { scope: grant.scope, email: grant.email });
          const give = !withhold;
          withhold = false;
          return send(200, {
            access_token: issue(refreshToken),
            expires_in: accessSeconds,
            ...(give ? { refresh_token: refreshToken } : {}),
            scope: grant.scope,
            token_type: "Bearer",
            id_token: idToken(grant.email),
          });
        }
        if (form.grant_type === "refresh_token") {
          const known = refreshTokens.get(form.refresh_token ?? "");
          if (!known) return oauthError(400, "invalid_grant", "Token has been expired or revoked.");
          return send(200, { access_token: issue(form.refresh_token!), expires_in: accessSeconds, scope: known.scope, token_type: "Bearer" });
        }
        return oauthError(400, "unsupported_grant_type", "Invalid grant_type");
      }
      if (route === "POST /revoke") {
        const token = form?.token ?? query.get("token") ?? "";
        const access = accessTokens.get(token);
        const refreshToken = refreshTokens.has(token) ? token : access?.refreshToken;
        if (!refreshToken || !refreshTokens.has(refreshToken)) return oauthError(400, "invalid_token", "Token expired or revoked");
        refreshTokens.delete(refreshToken);
        for (const [accessToken, entry] of accessTokens) if (entry.refreshToken === refreshToken) accessTokens.delete(accessToken);
        revoked.push(token);
        return send(200, {});
      }

      // --- Calendar v3 --------------------------------------------------------------------------------
      if (!pathname.startsWith("/calendar/v3/")) return apiError(404, "notFound", "Not Found");
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      const access = accessTokens.get(bearer);
      if (!access || access.expiresAt <= Date.now() || !refreshTokens.has(access.refreshToken)) {
        return apiError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
      }

      if (route === "POST /calendar/v3/freeBusy") {
        const body = json as { timeMin?: string; timeMax?: string; items?: Array<{ id: string }> };
        const from = Date.parse(body?.timeMin ?? "");
        const to = Date.parse(body?.timeMax ?? "");
        if (Number.isNaN(from) || Number.isNaN(to)) return apiError(400, "badRequest", "Bad Request");
        if (to - from > 90 * 86_400_000) return apiError(400, "timeRangeTooLong", "The requested time range is too long.");
        const overlapping = (start: string, end: string) => Date.parse(start) < to && Date.parse(end) > from;
        const account = refreshTokens.get(access.refreshToken)?.email;
        const ours = [...events.values()].filter((event) => event.status !== "cancelled" && event.account === account).map((event) => ({ start: event.start.dateTime, end: event.end.dateTime }));
        const periods = [...busy, ...ours]
          .filter((period) => overlapping(period.start, period.end))
          .map((period) => ({ start: new Date(Math.max(from, Date.parse(period.start))).toISOString(), end: new Date(Math.min(to, Date.parse(period.end))).toISOString() }))
          .sort((a, b) => a.start.localeCompare(b.start));
        const calendars = Object.fromEntries((body.items ?? []).map((item) => [item.id, { busy: periods }]));
        return send(200, { kind: "calendar#freeBusy", timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), calendars });
      }

      const eventsMatch = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(pathname);
      if (!eventsMatch) return apiError(404, "notFound", "Not Found");
      const calendar = decodeURIComponent(eventsMatch[1]!);
      const eventId = eventsMatch[2] ? decodeURIComponent(eventsMatch[2]) : null;
      const body = json as Partial<FakeEvent> | null;
      if (method === "POST" && !eventId) {
        if (!body?.id || !EVENT_ID.test(body.id)) return apiError(400, "invalid", "Invalid resource id value.");
        if (events.has(body.id)) return apiError(409, "duplicate", "The requested identifier already exists.");
        if (!body.start?.dateTime || !body.end?.dateTime) return apiError(400, "required", "Missing end time.");
        events.set(body.id, { ...(body as FakeEvent), calendar, account: refreshTokens.get(access.refreshToken)?.email, status: body.status ?? "confirmed", writes: 1 });
        return send(200, { kind: "calendar#event", ...events.get(body.id), htmlLink: `https://calendar.google.com/event?eid=${body.id}` });
      }
      if (eventId && method === "PUT") {
        const existing = events.get(eventId);
        if (!existing) return apiError(404, "notFound", "Not Found");
        if (!body?.start?.dateTime || !body.end?.dateTime) return apiError(400, "required", "Missing end time.");
        events.set(eventId, { ...(body as FakeEvent), id: eventId, calendar, account: existing.account, status: body.status ?? "confirmed", writes: existing.writes + 1 });
        return send(200, { kind: "calendar#event", ...events.get(eventId) });
      }
      if (eventId && method === "DELETE") {
        const existing = events.get(eventId);
        if (!existing) return apiError(404, "notFound", "Not Found");
        if (existing.status === "cancelled") return apiError(410, "deleted", "Resource has been deleted");
        existing.status = "cancelled";
        return send(204);
      }
      return apiError(404, "notFound", "Not Found");
    });
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    env: { GOOGLE_CLIENT_ID: clientId, GOOGLE_CLIENT_SECRET: clientSecret, GOOGLE_OAUTH_URL: url, GOOGLE_API_URL: url },
    requests,
    events,
    busy,
    accessTokens,
    refreshTokens,
    revoked,
    approve,
    setAccessTokenSeconds(seconds) {
      accessSeconds = seconds;
    },
    expireAccessTokens() {
      for (const entry of accessTokens.values()) entry.expiresAt = Date.now() - 1;
    },
    revokeEverything() {
      refreshTokens.clear();
      accessTokens.clear();
    },
    withholdRefreshToken() {
      withhold = true;
    },
    fail(failure) {
      failures.push(failure);
    },
    hang(match) {
      hangs.push(match);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// `node --import tsx tests/server/fakes/google.ts [port]`: a stand-in for a dev server or a browser test; prints its env.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  void startFakeGoogle({ port: Number(process.argv[2] ?? 0) }).then((google) => {
    console.log(Object.entries(google.env).map(([name, value]) => `${name}=${value}`).join("\n"));
  });
}
