/**
 * Google's OAuth 2 and Calendar v3 endpoints over plain fetch (no SDK: the part we use is six requests).
 * Every request gives up after its timeout; every failure is a GoogleError saying what Google answered,
 * in words a person can act on, with Google's own `error` / `reason` kept for the code that decides
 * what to do next (invalid_grant: reconnect; 409 on insert: update instead).
 */
import type { GoogleConfig } from "../../config";

/** OAuth scopes asked for: the account's address (to show it), events written, busy times read. */
export const GOOGLE_SCOPES = [
  "openid",
  "email",
  "https://www.googleapis.com/auth/calendar.events",
  "https://www.googleapis.com/auth/calendar.freebusy",
] as const;

/** Scopes that each also give what calendar.events / calendar.freebusy give (a broader grant is fine). */
const BROADER = "https://www.googleapis.com/auth/calendar";

/** Token requests and writes may take a little longer than busy reads (which have their own, shorter timeout). */
export const GOOGLE_TIMEOUT_MS = 5000;

const RECONNECT_REASONS = new Set(["invalid_grant", "invalid_client", "unauthorized_client", "insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"]);
/** Google answers some rate limits with 403 and one of these reasons. */
const RATE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"]);

export class GoogleError extends Error {
  override name = "GoogleError";
  constructor(
    message: string,
    /** HTTP status (0: no answer: timeout or network). */
    readonly status: number,
    /** OAuth `error` (invalid_grant, invalid_client…) or the API's first `reason` (duplicate, notFound…). */
    readonly reason: string | null = null,
  ) {
    super(message);
  }

  /** Google will not take the saved permission again (revoked, expired, too narrow, client changed): only reconnecting helps. */
  get needsReconnect(): boolean {
    return this.status === 401 || (this.reason !== null && RECONNECT_REASONS.has(this.reason));
  }

  /** Worth trying again later (no answer, rate-limited, Google's side). */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500 || (this.status === 403 && this.reason !== null && RATE_LIMIT_REASONS.has(this.reason));
  }
}

export interface GoogleTokens {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  id_token?: string;
}

export interface GoogleBusy {
  start: string;
  end: string;
}

export interface GoogleEventTime {
  dateTime: string;
  timeZone?: string;
}

/** The event fields we write (https://developers.google.com/calendar/api/v3/reference/events). */
export interface GoogleEventBody {
  id: string;
  summary: string;
  description?: string;
  start: GoogleEventTime;
  end: GoogleEventTime;
  status?: "confirmed" | "tentative" | "cancelled";
  extendedProperties?: { private?: Record<string, string> };
  source?: { title: string; url: string };
}

export interface GoogleClient {
  /** The consent page address the browser is sent to. */
  authorizeUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string;
  exchangeCode(code: string, codeVerifier: string, redirectUri: string): Promise<GoogleTokens>;
  refresh(refreshToken: string): Promise<GoogleTokens>;
  revoke(token: string): Promise<void>;
  freeBusy(accessToken: string, calendar: string, from: Date, to: Date, timeoutMs: number): Promise<GoogleBusy[]>;
  insertEvent(accessToken: string, calendar: string, event: GoogleEventBody): Promise<void>;
  updateEvent(accessToken: string, calendar: string, event: GoogleEventBody): Promise<void>;
  deleteEvent(accessToken: string, calendar: string, eventId: string): Promise<void>;
}

export interface GoogleClientOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** True when the granted scopes cover what we need (Google lets a person untick single scopes on its consent page). */
export function grantedEnough(scope: string | undefined): boolean {
  const granted = new Set((scope ?? "").split(/\s+/).filter(Boolean));
  if (granted.has(BROADER)) return true;
  return granted.has("https://www.googleapis.com/auth/calendar.events") && granted.has("https://www.googleapis.com/auth/calendar.freebusy");
}

/** The email claim of Google's id_token. Read without checking its signature: it came straight from Google's token endpoint over TLS (OpenID Connect Core 3.1.3.7). */
export function emailOfIdToken(idToken: string | undefined, clientId: string): string | null {
  if (!idToken) return null;
  try {
    const claims = JSON.parse(Buffer.from(idToken.split(".")[1] ?? "", "base64url").toString("utf8")) as { aud?: unknown; email?: unknown };
    if (claims.aud !== clientId || typeof claims.email !== "string") return null;
    return claims.email;
  } catch {
    return null;
  }
}

async function bodyOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Google's error answer as one sentence: OAuth's {error, error_description} or the API's {error: {message, errors: [{reason}]}}. */
async function errorOf(response: Response, what: string): Promise<GoogleError> {
  const body = await bodyOf(response);
  if (typeof body.error === "string") {
    const description = typeof body.error_description === "string" ? body.error_description : body.error;
    return new GoogleError(`Google refused ${what}: ${description} (${body.error}).`, response.status, body.error);
  }
  const error = (body.error ?? {}) as { message?: unknown; errors?: Array<{ reason?: unknown }>; status?: unknown };
  const reason = typeof error.errors?.[0]?.reason === "string" ? error.errors[0].reason : typeof error.status === "string" ? error.status : null;
  const message = typeof error.message === "string" ? error.message : `HTTP ${response.status}`;
  return new GoogleError(`Google refused ${what}: ${message}`, response.status, reason);
}

export function createGoogleClient(config: GoogleConfig, options: GoogleClientOptions = {}): GoogleClient {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const defaultTimeout = options.timeoutMs ?? GOOGLE_TIMEOUT_MS;

  async function call(url: string, init: RequestInit, what: string, timeoutMs = defaultTimeout): Promise<Response> {
    let response: Response;
    try {
      response = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new GoogleError(
        timedOut ? `Google did not answer ${what} within ${Number((timeoutMs / 1000).toFixed(2))} seconds.` : `Google could not be reached for ${what}.`,
        0,
        timedOut ? "timeout" : "network",
      );
    }
    if (!response.ok) throw await errorOf(response, what);
    return response;
  }

  const form = (fields: Record<string, string>): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(fields).toString(),
  });
  const api = (accessToken: string, method: string, body?: unknown): RequestInit => ({
    method,
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const eventsUrl = (calendar: string) => `${config.apiUrl}/calendar/v3/calendars/${encodeURIComponent(calendar)}/events`;

  async function tokens(response: Response, what: string): Promise<GoogleTokens> {
    const body = await bodyOf(response);
    if (typeof body.access_token !== "string" || body.access_token.length === 0) throw new GoogleError(`Google's answer to ${what} held no access token.`, 502, "no_access_token");
    return body as unknown as GoogleTokens;
  }

  return {
    authorizeUrl({ state, codeChallenge, redirectUri }) {
      const url = new URL(config.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: GOOGLE_SCOPES.join(" "),
        // A refresh token, and a consent page every time, so that Google hands one out again on a reconnect.
        access_type: "offline",
        prompt: "consent",
        include_granted_scopes: "true",
        state,
        code_challenge: codeChallenge,
        code_challenge_method: "S256",
      }).toString();
      return url.toString();
    },

    async exchangeCode(code, codeVerifier, redirectUri) {
      const what = "the sign-in code";
      const response = await call(
        config.tokenUrl,
        form({ grant_type: "authorization_code", code, code_verifier: codeVerifier, redirect_uri: redirectUri, client_id: config.clientId, client_secret: config.clientSecret }),
        what,
      );
      return tokens(response, what);
    },

    async refresh(refreshToken) {
      const what = "renewing the calendar permission";
      const response = await call(config.tokenUrl, form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: config.clientId, client_secret: config.clientSecret }), what);
      return tokens(response, what);
    },

    async revoke(token) {
      await call(config.revokeUrl, form({ token }), "revoking the calendar permission");
    },

    async freeBusy(accessToken, calendar, from, to, timeoutMs) {
      const response = await call(
        `${config.apiUrl}/calendar/v3/freeBusy`,
        api(accessToken, "POST", { timeMin: from.toISOString(), timeMax: to.toISOString(), timeZone: "UTC", items: [{ id: calendar }] }),
        "the busy times",
        timeoutMs,
      );
      const body = (await bodyOf(response)) as { calendars?: Record<string, { busy?: GoogleBusy[]; errors?: Array<{ reason?: string }> }> };
      const entry = body.calendars?.[calendar];
      if (!entry) throw new GoogleError(`Google's busy times did not include the calendar "${calendar}".`, 502, "missing_calendar");
      if (entry.errors?.length) {
        const reason = entry.errors[0]?.reason ?? "unknown";
        throw new GoogleError(`Google could not read the busy times of the calendar "${calendar}" (${reason}).`, reason === "notFound" ? 404 : 502, reason);
      }
      return (entry.busy ?? []).filter((busy) => typeof busy.start === "string" && typeof busy.end === "string");
    },

    async insertEvent(accessToken, calendar, event) {
      await call(`${eventsUrl(calendar)}?sendUpdates=none`, api(accessToken, "POST", event), "adding the appointment to the calendar");
    },

    async updateEvent(accessToken, calendar, event) {
      await call(`${eventsUrl(calendar)}/${encodeURIComponent(event.id)}?sendUpdates=none`, api(accessToken, "PUT", event), "updating the appointment in the calendar");
    },

    async deleteEvent(accessToken, calendar, eventId) {
      await call(`${eventsUrl(calendar)}/${encodeURIComponent(eventId)}?sendUpdates=none`, api(accessToken, "DELETE"), "removing the appointment from the calendar");
    },
  };
}
