/**
 * Google Calendar for the calendar core (server/calendar/sync.ts's CalendarSync), and the OAuth flow
 * the /calendar/... routes drive. Built once per app when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are
 * set (createGoogleCalendar answers null otherwise, and the app uses noCalendarSync).
 *
 * - busy(): freeBusy of the connected account's primary calendar, from memory when possible (busy.ts),
 *   waiting at most `busyTimeoutMs` for Google otherwise; our own events are taken out (they are our
 *   appointments, which block their time already and must not block their own move). Never throws.
 * - appointmentChanged(): a per-process queue writes the appointment as an event with our own id
 *   (event.ts), one write at a time per appointment, retrying Google's passing failures; what finally
 *   fails is written on the connection for the page to show. Never throws, never delays the caller.
 * - Access tokens are renewed when (about to be) expired, once at a time per connection; a refused
 *   renewal (invalid_grant) turns the connection's status to error, which only reconnecting clears.
 */
import type { FastifyBaseLogger } from "fastify";
import { and, asc, eq, gt, isNotNull, lt, ne } from "drizzle-orm";
import { CALENDAR_PERMISSION_PAGE } from "../../../contract/calendar";
import type { AppConfig, GoogleConfig } from "../../config";
import type { SecretBox } from "../../crypto/credentials";
import { orgScope, type OrgScope } from "../../data/orgScope";
import type { Db } from "../../db/client";
import { appointments, calendars } from "../../db/schema";
import type { BusyInterval, CalendarSync } from "../sync";
import { BusyCache, chunksOf, clipIntervals, mergeIntervals, subtractIntervals, widenWindow, type BusyEntry, type Window } from "./busy";
import { createGoogleClient, emailOfIdToken, grantedEnough, GoogleError, type GoogleClient, type GoogleTokens } from "./client";
import {
  clearConnectionProblem,
  deleteConnection,
  findGoogleConnection,
  recordConnectionProblem,
  saveGoogleConnection,
  saveRefreshedTokens,
  tokenContext,
  type ConnectionRow,
} from "./connections";
import { googleEventBody, googleEventId } from "./event";
import { claimOauthState, GOOGLE_MESSAGES, issueOauthState } from "./oauth";

export { GOOGLE_MESSAGES } from "./oauth";
export { GoogleError } from "./client";

/** A connected calendar's token is renewed this long before it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** Connecting writes the organisation's upcoming appointments to Google, at most this many. */
const BACKFILL_LIMIT = 500;

export interface GoogleCalendarOptions {
  config: Pick<AppConfig, "google" | "publicUrl">;
  db: Db;
  box: SecretBox;
  log: FastifyBaseLogger;
  /** Tests: another fetch. */
  fetch?: typeof fetch;
  /** How long busy() waits for Google when nothing usable is in memory (default 1000 ms; then it answers what it knows). */
  busyTimeoutMs?: number;
  /** How long busy times from Google are used as they are (default 90 s). */
  busyFreshMs?: number;
  /** How long older busy times are still answered while a refresh runs (default 15 minutes). */
  busyStaleMs?: number;
  /** How long the organisation's connection is remembered between reads (default 60 s; this process forgets at once on its own changes). */
  connectionCacheMs?: number;
  /** Waits before each retry of a write Google failed for a passing reason (default 1 s, 5 s, 20 s). */
  retryDelaysMs?: number[];
  /** Writes under way at once, across organisations (default 4). */
  concurrency?: number;
  now?: () => number;
}

export interface DisconnectResult {
  revoked: boolean;
  /** Why revoking did not happen or failed (the connection is deleted anyway). */
  revokeError: string | null;
}

export interface GoogleCalendar extends CalendarSync {
  readonly config: GoogleConfig;
  /** Where to send the browser to connect (a new single-use state for this person). */
  connectUrl(scope: OrgScope, userId: string): Promise<string>;
  /** Completes the flow with Google's code and the state: the organisation's connection, new or replaced. Throws CalendarFlowError. */
  complete(scope: OrgScope, userId: string, input: { code: string; state: string }): Promise<ConnectionRow>;
  /** Revokes at Google (when it can) and deletes the connection whatever Google answers. */
  disconnect(scope: OrgScope, row: ConnectionRow): Promise<DisconnectResult>;
  /** Forgets what this process remembers of the organisation (its connection and busy times). */
  forget(orgId: string): void;
  settle(): Promise<void>;
  /** Stops taking writes and waits for those under way (the app's onClose). */
  close(): Promise<void>;
}

/** A refused step of the OAuth flow, with the answer's status (400 the person's to fix, 502 Google's side). */
export class CalendarFlowError extends Error {
  override name = "CalendarFlowError";
  constructor(
    readonly statusCode: 400 | 502,
    message: string,
  ) {
    super(message);
  }
}

export function redirectUriFor(publicUrl: string): string {
  return `${publicUrl}${CALENDAR_PERMISSION_PAGE}`;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createGoogleCalendar(options: GoogleCalendarOptions): GoogleCalendar | null {
  const googleConfig = options.config.google;
  if (!googleConfig) return null;
  const { db, box, log } = options;
  const publicUrl = options.config.publicUrl;
  const now = options.now ?? Date.now;
  const client: GoogleClient = createGoogleClient(googleConfig, options.fetch ? { fetch: options.fetch } : {});
  const busyTimeoutMs = options.busyTimeoutMs ?? 1000;
  const connectionCacheMs = options.connectionCacheMs ?? 60_000;
  const retryDelaysMs = options.retryDelaysMs ?? [1000, 5000, 20_000];
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const cache = new BusyCache({ freshMs: options.busyFreshMs ?? 90_000, staleMs: options.busyStaleMs ?? 15 * 60_000, now });
  const redirectUri = redirectUriFor(publicUrl);
  /** Set by close(): no new writes or busy reads. */
  let closed = false;

  // --- the organisation's connection, remembered briefly --------------------------------------------

  const connections = new Map<string, { row: ConnectionRow | null; at: number }>();
  const loadingConnections = new Map<string, Promise<ConnectionRow | null>>();

  function remember(orgId: string, row: ConnectionRow | null) {
    connections.set(orgId, { row, at: now() });
  }

  async function connectionOf(orgId: string, fresh = false): Promise<ConnectionRow | null> {
    const known = connections.get(orgId);
    if (!fresh && known && now() - known.at < connectionCacheMs) return known.row;
    let loading = loadingConnections.get(orgId);
    if (!loading) {
      loading = findGoogleConnection(orgScope(db, orgId)).finally(() => loadingConnections.delete(orgId));
      loadingConnections.set(orgId, loading);
    }
    const row = await loading;
    remember(orgId, row);
    return row;
  }

  async function problem(row: ConnectionRow, message: string, needsReconnect: boolean): Promise<void> {
    try {
      remember(row.orgId, await recordConnectionProblem(orgScope(db, row.orgId), row, message, needsReconnect));
    } catch (error) {
      log.warn({ err: error, orgId: row.orgId }, "could not record a Google Calendar problem on its connection");
    }
  }

  async function cleared(row: ConnectionRow): Promise<void> {
    if (row.lastError === null) return;
    try {
      remember(row.orgId, await clearConnectionProblem(orgScope(db, row.orgId), row));
    } catch (error) {
      log.warn({ err: error, orgId: row.orgId }, "could not clear a Google Calendar problem on its connection");
    }
  }

  // --- access tokens -----------------------------------------------------------------------------------

  const refreshing = new Map<string, Promise<string>>();

  function refresh(row: ConnectionRow): Promise<string> {
    let running = refreshing.get(row.id);
    if (running) return running;
    running = (async () => {
      if (!row.refreshTokenEncrypted) {
        await problem(row, GOOGLE_MESSAGES.reconnect, true);
        throw new GoogleError(GOOGLE_MESSAGES.reconnect, 401, "invalid_grant");
      }
      const refreshToken = box.open<string>(row.refreshTokenEncrypted, tokenContext(row.id, "refresh"));
      try {
        const tokens = await client.refresh(refreshToken);
        const updated = await saveRefreshedTokens(orgScope(db, row.orgId), box, row, {
          accessToken: tokens.access_token,
          expiresAt: new Date(now() + (tokens.expires_in ?? 3600) * 1000),
          refreshToken: tokens.refresh_token,
        });
        remember(row.orgId, updated);
        return tokens.access_token;
      } catch (error) {
        if (error instanceof GoogleError && error.needsReconnect) await problem(row, GOOGLE_MESSAGES.reconnect, true);
        else await problem(row, `Could not renew the calendar permission: ${errorText(error)}`, false);
        throw error;
      }
    })().finally(() => refreshing.delete(row.id));
    refreshing.set(row.id, running);
    return running;
  }

  function accessToken(row: ConnectionRow): Promise<string> {
    if (row.status === "error") return Promise.reject(new GoogleError(row.lastError ?? GOOGLE_MESSAGES.reconnect, 401, "invalid_grant"));
    const expiresAt = row.accessTokenExpiresAt?.getTime() ?? 0;
    if (row.accessTokenEncrypted && expiresAt - now() > TOKEN_MARGIN_MS) return Promise.resolve(box.open<string>(row.accessTokenEncrypted, tokenContext(row.id, "access")));
    return refresh(row);
  }

  /** Runs `work` with a valid access token; a 401 (token revoked or expired early) renews it once and tries again. */
  async function withToken<T>(row: ConnectionRow, work: (token: string) => Promise<T>): Promise<T> {
    try {
      return await work(await accessToken(row));
    } catch (error) {
      if (!(error instanceof GoogleError) || error.status !== 401 || error.reason === "invalid_grant") throw error;
      try {
        return await work(await refresh(row));
      } catch (again) {
        if (again instanceof GoogleError && again.status === 401 && again.reason !== "invalid_grant") await problem(row, GOOGLE_MESSAGES.reconnect, true);
        throw again;
      }
    }
  }

  // --- busy times --------------------------------------------------------------------------------------

  const fetchingBusy = new Map<string, Promise<BusyEntry>>();
  /**
   * Bumped by forget(): a read that was already on its way (e.g. a stale entry's background refresh) neither
   * fills the cache after it nor is joined by the next read, which asks Google afresh with the connection as it
   * is now (a renewed token, a reconnected calendar).
   */
  const generations = new Map<string, number>();

  /** Our own events (appointments written to Google) in the window: Google counts them busy, we do not. */
  async function ownEvents(orgId: string, window: Window): Promise<BusyInterval[]> {
    const rows = await orgScope(db, orgId).select(appointments, {
      where: and(isNotNull(appointments.externalEventId), lt(appointments.startAt, new Date(window.to)), gt(appointments.endAt, new Date(window.from))),
    });
    return rows.map((row) => ({ start: row.startAt, end: row.endAt }));
  }

  function fetchBusy(row: ConnectionRow, window: Window): Promise<BusyEntry> {
    const generation = generations.get(row.orgId) ?? 0;
    const key = `${row.orgId} ${generation} ${window.from} ${window.to}`;
    let running = fetchingBusy.get(key);
    if (running) return running;
    running = (async () => {
      try {
        const answers = await withToken(row, (token) =>
          Promise.all(chunksOf(window).map((chunk) => client.freeBusy(token, row.externalCalendar, new Date(chunk.from), new Date(chunk.to), 5000))),
        );
        const google = answers.flat().map((busy) => ({ start: new Date(busy.start), end: new Date(busy.end) })).filter((busy) => !Number.isNaN(busy.start.getTime()) && !Number.isNaN(busy.end.getTime()));
        const intervals = google.length > 0 ? subtractIntervals(google, await ownEvents(row.orgId, window)) : [];
        const entry: BusyEntry = { ...window, intervals: mergeIntervals(intervals), fetchedAt: now() };
        if ((generations.get(row.orgId) ?? 0) === generation) cache.put(row.orgId, entry);
        await cleared(connections.get(row.orgId)?.row ?? row);
        return entry;
      } catch (error) {
        if (!(error instanceof GoogleError && error.needsReconnect)) await problem(connections.get(row.orgId)?.row ?? row, `Could not read busy times from Google Calendar: ${errorText(error)}`, false);
        throw error;
      }
    })().finally(() => fetchingBusy.delete(key));
    fetchingBusy.set(key, running);
    return running;
  }

  function within<T>(promise: Promise<T>, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new GoogleError(`Google did not answer within ${ms} ms.`, 0, "timeout")), ms);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error as Error);
        },
      );
    });
  }

  async function busy(orgId: string, from: Date, to: Date): Promise<BusyInterval[]> {
    if (closed || !(to.getTime() > from.getTime())) return [];
    try {
      const row = await connectionOf(orgId);
      if (!row || row.status === "error") return [];
      const known = cache.covering(orgId, from, to);
      if (known) {
        if (!known.fresh) fetchBusy(row, known.entry).catch(() => undefined);
        return clipIntervals(known.entry.intervals, from, to);
      }
      const entry = await within(fetchBusy(row, widenWindow(from, to)), busyTimeoutMs);
      return clipIntervals(entry.intervals, from, to);
    } catch (error) {
      log.debug({ err: error, orgId }, "Google Calendar busy times unavailable; answering without them");
      return [];
    }
  }

  // --- writes --------------------------------------------------------------------------------------------

  let active = 0;
  const slots: Array<() => void> = [];
  /** Appointments with a write waiting to start (a second change then adds nothing: the write reads the latest row). */
  const waiting = new Set<string>();
  /** The last write of each appointment, so writes of one appointment run in order. */
  const chains = new Map<string, Promise<void>>();
  const sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  async function slot(): Promise<void> {
    if (active < concurrency) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => slots.push(resolve));
  }
  function release() {
    const next = slots.shift();
    if (next) next();
    else active--;
  }
  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = { timer: setTimeout(() => wake(), ms), wake: () => wake() };
      const wake = () => {
        clearTimeout(sleeper.timer);
        sleepers.delete(sleeper);
        resolve();
      };
      sleepers.add(sleeper);
    });
  }

  async function appointmentOf(orgId: string, appointmentId: string) {
    const rows = await db
      .select({
        id: appointments.id,
        title: appointments.title,
        startAt: appointments.startAt,
        endAt: appointments.endAt,
        status: appointments.status,
        source: appointments.source,
        customerName: appointments.customerName,
        customerNumber: appointments.customerNumber,
        customerEmail: appointments.customerEmail,
        notes: appointments.notes,
        externalEventId: appointments.externalEventId,
        timezone: calendars.timezone,
      })
      .from(appointments)
      .innerJoin(calendars, eq(calendars.id, appointments.calendarId))
      .where(and(eq(appointments.orgId, orgId), eq(appointments.id, appointmentId)))
      .limit(1);
    return rows[0] ?? null;
  }

  const gone = (error: unknown) => error instanceof GoogleError && (error.status === 404 || error.status === 410);
  const taken = (error: unknown) => error instanceof GoogleError && error.status === 409;

  async function writeOnce(orgId: string, appointmentId: string): Promise<void> {
    // Read now, not from memory: a disconnect in another process must stop the writes.
    const row = await connectionOf(orgId, true);
    if (!row || row.status === "error") return;
    const scope = orgScope(db, orgId);
    const appointment = await appointmentOf(orgId, appointmentId);
    const eventId = googleEventId(appointmentId);
    const calendar = row.externalCalendar;
    await withToken(row, async (token) => {
      if (!appointment || appointment.status === "cancelled") {
        await client.deleteEvent(token, calendar, eventId).catch((error: unknown) => {
          if (!gone(error)) throw error;
        });
        if (appointment?.externalEventId) await scope.update(appointments, { externalEventId: null }, eq(appointments.id, appointmentId));
        return;
      }
      const event = googleEventBody(appointment, publicUrl);
      const insert = () =>
        client.insertEvent(token, calendar, event).catch((error: unknown) => {
          // Ours already (an earlier try that timed out, or a cancelled one booked again): update it.
          if (taken(error)) return client.updateEvent(token, calendar, event);
          throw error;
        });
      if (appointment.externalEventId) {
        await client.updateEvent(token, calendar, event).catch((error: unknown) => {
          if (gone(error)) return insert();
          throw error;
        });
      } else {
        await insert();
      }
      if (appointment.externalEventId !== eventId) await scope.update(appointments, { externalEventId: eventId }, eq(appointments.id, appointmentId));
    });
    cache.markStale(orgId);
    await cleared(connections.get(orgId)?.row ?? row);
  }

  async function write(orgId: string, appointmentId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await writeOnce(orgId, appointmentId);
        return;
      } catch (error) {
        const delay = retryDelaysMs[attempt];
        if (error instanceof GoogleError && error.transient && delay !== undefined && !closed) {
          await sleep(delay);
          continue;
        }
        log.warn({ err: error, orgId, appointmentId }, "an appointment could not be written to Google Calendar");
        const row = connections.get(orgId)?.row;
        if (row && !(error instanceof GoogleError && error.needsReconnect)) await problem(row, `Could not write an appointment to Google Calendar: ${errorText(error)}`, false);
        return;
      }
    }
  }

  function appointmentChanged(orgId: string, appointmentId: string): void {
    if (closed) return;
    const key = `${orgId} ${appointmentId}`;
    if (waiting.has(key)) return;
    waiting.add(key);
    const previous = chains.get(key) ?? Promise.resolve();
    const run: Promise<void> = previous
      .then(async () => {
        await slot();
        waiting.delete(key);
        try {
          await write(orgId, appointmentId);
        } finally {
          release();
        }
      })
      .catch((error: unknown) => log.error({ err: error, orgId, appointmentId }, "the Google Calendar write queue failed"))
      .finally(() => {
        if (chains.get(key) === run) chains.delete(key);
      });
    chains.set(key, run);
  }

  async function settle(): Promise<void> {
    while (chains.size > 0 || fetchingBusy.size > 0 || refreshing.size > 0) {
      await Promise.allSettled([...chains.values(), ...fetchingBusy.values(), ...refreshing.values()]);
    }
  }

  /** Connecting writes what is already booked ahead, so the Google calendar shows it too. */
  async function backfill(orgId: string): Promise<void> {
    const upcoming = await orgScope(db, orgId).select(appointments, {
      where: and(ne(appointments.status, "cancelled"), gt(appointments.endAt, new Date(now()))),
      orderBy: asc(appointments.startAt),
      limit: BACKFILL_LIMIT,
    });
    for (const appointment of upcoming) appointmentChanged(orgId, appointment.id);
  }

  return {
    config: googleConfig,
    busy,
    appointmentChanged,
    settle,

    async connectUrl(scope, userId) {
      const { state, challenge } = await issueOauthState(scope, box, userId, new Date(now()));
      return client.authorizeUrl({ state, codeChallenge: challenge, redirectUri });
    },

    async complete(scope, userId, { code, state }) {
      const claim = await claimOauthState(scope, box, userId, state, new Date(now()));
      if (!claim.ok) throw new CalendarFlowError(400, claim.reason === "expired" ? GOOGLE_MESSAGES.stateExpired : GOOGLE_MESSAGES.stateInvalid);
      let tokens: GoogleTokens;
      try {
        tokens = await client.exchangeCode(code, claim.codeVerifier, redirectUri);
      } catch (error) {
        if (error instanceof GoogleError && error.reason === "invalid_grant") throw new CalendarFlowError(400, GOOGLE_MESSAGES.codeRefused);
        throw new CalendarFlowError(502, `Google Calendar could not be connected: ${errorText(error)}`);
      }
      const giveBack = () => client.revoke(tokens.refresh_token ?? tokens.access_token).catch(() => undefined);
      if (!grantedEnough(tokens.scope)) {
        void giveBack();
        throw new CalendarFlowError(400, GOOGLE_MESSAGES.scopesMissing);
      }
      if (!tokens.refresh_token) {
        void giveBack();
        throw new CalendarFlowError(502, GOOGLE_MESSAGES.noRefreshToken);
      }
      const row = await saveGoogleConnection(scope, box, {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        expiresAt: new Date(now() + (tokens.expires_in ?? 3600) * 1000),
        scope: tokens.scope ?? null,
        accountEmail: emailOfIdToken(tokens.id_token, googleConfig.clientId),
        userId,
      });
      generations.set(scope.orgId, (generations.get(scope.orgId) ?? 0) + 1);
      cache.forget(scope.orgId);
      remember(scope.orgId, row);
      await backfill(scope.orgId).catch((error: unknown) => log.warn({ err: error, orgId: scope.orgId }, "upcoming appointments were not queued for Google Calendar"));
      return row;
    },

    async disconnect(scope, row) {
      let result: DisconnectResult = { revoked: false, revokeError: "No permission was saved to revoke." };
      const sealed = row.refreshTokenEncrypted ? { value: row.refreshTokenEncrypted, kind: "refresh" as const } : row.accessTokenEncrypted ? { value: row.accessTokenEncrypted, kind: "access" as const } : null;
      if (sealed) {
        try {
          await client.revoke(box.open<string>(sealed.value, tokenContext(row.id, sealed.kind)));
          result = { revoked: true, revokeError: null };
        } catch (error) {
          // Google answers invalid_token for a permission it no longer holds: nothing is left to revoke.
          result = error instanceof GoogleError && error.reason === "invalid_token" ? { revoked: true, revokeError: null } : { revoked: false, revokeError: errorText(error) };
        }
      }
      await deleteConnection(scope, row);
      generations.set(scope.orgId, (generations.get(scope.orgId) ?? 0) + 1);
      cache.forget(scope.orgId);
      remember(scope.orgId, null);
      return result;
    },

    forget(orgId) {
      generations.set(orgId, (generations.get(orgId) ?? 0) + 1);
      connections.delete(orgId);
      cache.forget(orgId);
    },

    async close() {
      closed = true;
      for (const sleeper of [...sleepers]) sleeper.wake();
      await settle();
    },
  };
}
