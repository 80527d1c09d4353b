/**
 * The organisation's ICS subscription feed: a secret address any calendar app can subscribe to, with
 * no keys and no outside service. The token is 256 random bits; the table keeps its sha256 to find the
 * organisation and the token itself sealed (to show the address again). Rotating replaces both, so the
 * old address answers 404 at once.
 *
 * The feed holds the appointments from 90 days back to a year ahead (booked, completed and no-show as
 * CONFIRMED; cancelled ones as CANCELLED for 30 days after their cancellation, so subscribers remove
 * them), with UIDs from the appointment ids and SEQUENCE from appointments.sequence. Times are UTC.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, gte, lt, ne, or, sql } from "drizzle-orm";
import ical, { foldLines, ICalCalendarMethod, ICalEventStatus } from "ical-generator";
import { API_BASE } from "../../contract/api";
import { calendarPaths } from "../../contract/calendar";
import type { SecretBox } from "../crypto/credentials";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { agents, appointments, calendarFeeds, organizations } from "../db/schema";
import { appointmentDescription, appointmentLink } from "./google/event";

const DAY_MS = 24 * 60 * 60_000;
/** What the feed holds: from this far back… */
export const FEED_PAST_DAYS = 90;
/** …to this far ahead. */
export const FEED_FUTURE_DAYS = 365;
/** Cancelled appointments stay in the feed (as CANCELLED) this long after they were cancelled. */
export const FEED_CANCELLED_DAYS = 30;
/** At most this many events per feed (the earliest of the window first). */
export const FEED_MAX_EVENTS = 5000;
/** How often subscribers are asked to fetch again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
export const FEED_REFRESH_SECONDS = 15 * 60;

/** The token as it appears in the address: 43 base64url characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const FEED_NOT_FOUND = "No calendar feed at this address: it may have been replaced. Ask an admin for the current address.";

const sha256 = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");
const tokenContext = (orgId: string) => `calendar_feeds:${orgId}`;
const newToken = () => randomBytes(32).toString("base64url");

export const feedUrl = (publicUrl: string, token: string) => `${publicUrl}${API_BASE}${calendarPaths.feedIcs(token)}`;

/** The organisation's feed address, made on the first ask. */
export async function feedAddress(scope: OrgScope, box: SecretBox, publicUrl: string): Promise<string> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await scope.first(calendarFeeds);
    if (existing) return feedUrl(publicUrl, box.open<string>(existing.tokenEncrypted, tokenContext(scope.orgId)));
    const token = newToken();
    try {
      await scope.insert(calendarFeeds, { tokenHash: sha256(token), tokenEncrypted: box.seal(token, tokenContext(scope.orgId)) });
      return feedUrl(publicUrl, token);
    } catch (error) {
      // Two first asks at once: the other one's address stands.
      if (!isUniqueViolation(error) || attempt > 0) throw error;
    }
  }
  throw new Error("the calendar feed could not be made");
}

/** A new address; the old one stops working at once. */
export async function rotateFeed(scope: OrgScope, box: SecretBox, publicUrl: string): Promise<string> {
  const token = newToken();
  const values = { tokenHash: sha256(token), tokenEncrypted: box.seal(token, tokenContext(scope.orgId)), updatedAt: new Date() };
  const [updated] = await scope.update(calendarFeeds, values, sql`true`);
  if (!updated) {
    try {
      await scope.insert(calendarFeeds, values);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await scope.update(calendarFeeds, values, sql`true`);
    }
  }
  return feedUrl(publicUrl, token);
}

/** The organisation a feed token belongs to, or null (unknown, replaced, or not a token at all). */
export async function feedOwner(db: Db, token: string): Promise<string | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const rows = await db.select({ orgId: calendarFeeds.orgId }).from(calendarFeeds).where(eq(calendarFeeds.tokenHash, sha256(token))).limit(1);
  return rows[0]?.orgId ?? null;
}

/** The appointments a feed holds as of `now` (see the file comment), for the query and its fingerprint. */
function feedWindow(orgId: string, now: Date) {
  const from = new Date(now.getTime() - FEED_PAST_DAYS * DAY_MS);
  const to = new Date(now.getTime() + FEED_FUTURE_DAYS * DAY_MS);
  const cancelledSince = new Date(now.getTime() - FEED_CANCELLED_DAYS * DAY_MS);
  return and(
    eq(appointments.orgId, orgId),
    gte(appointments.startAt, from),
    lt(appointments.startAt, to),
    or(ne(appointments.status, "cancelled"), gte(sql`coalesce(${appointments.cancelledAt}, ${appointments.updatedAt})`, cancelledSince)),
  );
}

/** Events folded per slice, yielding between slices: ical-generator folds ~2 events a millisecond, and a big feed must not hold up other requests. */
const EVENTS_PER_SLICE = 50;
/** Appointments read per query. */
const FEED_PAGE_ROWS = 500;
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The feed's text (RFC 5545) for the organisation, as of `now`. ical-generator writes every part; the
 * events are folded a slice at a time (folding works line by line, so the text is the same as
 * calendar.toString() in one go).
 */
export async function feedCalendar(scope: OrgScope, db: Db, publicUrl: string, now = new Date()): Promise<string> {
  const [organisation] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, scope.orgId)).limit(1);
  // Read a page at a time (by start, then id): on PGlite a query runs on this thread, and one of
  // thousands of rows would hold up every other request for most of a second.
  const rows: Array<{ appointment: typeof appointments.$inferSelect; agentName: string | null }> = [];
  while (rows.length < FEED_MAX_EVENTS) {
    const last = rows.at(-1)?.appointment;
    const page = await db
      .select({ appointment: appointments, agentName: agents.name })
      .from(appointments)
      .leftJoin(agents, eq(agents.id, appointments.agentId))
      .where(and(feedWindow(scope.orgId, now), last ? sql`(${appointments.startAt}, ${appointments.id}) > (${last.startAt}, ${last.id})` : undefined))
      .orderBy(asc(appointments.startAt), asc(appointments.id))
      .limit(Math.min(FEED_PAGE_ROWS, FEED_MAX_EVENTS - rows.length));
    rows.push(...page);
    if (page.length < FEED_PAGE_ROWS) break;
  }

  const header = () =>
    ical({
      name: `${organisation?.name ?? "Voice Agents"} appointments`,
      description: "Appointments booked in Voice Agents (by people and by agents during calls).",
      prodId: { company: "Voice Agents", product: "Appointments", language: "EN" },
      method: ICalCalendarMethod.PUBLISH,
      ttl: FEED_REFRESH_SECONDS,
    });
  const calendar = header();
  const parts = [header().toString().replace(/END:VCALENDAR$/, "")];
  for (let index = 0; index < rows.length; index += EVENTS_PER_SLICE) {
    if (index > 0) await yieldToOthers();
    for (const { appointment, agentName } of rows.slice(index, index + EVENTS_PER_SLICE)) {
      const event = calendar.createEvent({
        id: `${appointment.id}@voice-agents`,
        sequence: appointment.sequence,
        start: appointment.startAt,
        end: appointment.endAt,
        stamp: appointment.updatedAt,
        created: appointment.createdAt,
        lastModified: appointment.updatedAt,
        summary: appointment.title,
        description: appointmentDescription(appointment, publicUrl, agentName),
        url: appointmentLink(publicUrl, appointment.id),
        status: appointment.status === "cancelled" ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      });
      parts.push(foldLines(event.toString()));
    }
  }
  parts.push("END:VCALENDAR");
  return parts.join("");
}

export interface FeedAnswer {
  text: string;
  /** A strong ETag of this text: a subscriber asking again with If-None-Match gets 304. */
  etag: string;
}

/**
 * Feeds kept in memory, each with the fingerprint of what it was made from (the hour, the organisation's
 * name, and the count, latest change and highest SEQUENCE of the appointments in its window): a poll
 * that finds the same fingerprint answers from memory, the fingerprint costing one indexed aggregate.
 * At most `maxBytes` of text is kept (the oldest goes first).
 */
export function createFeedCache(options: { maxBytes?: number } = {}) {
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const kept = new Map<string, FeedAnswer & { fingerprint: string }>();
  let bytes = 0;

  async function fingerprintOf(scope: OrgScope, db: Db, now: Date): Promise<string> {
    const [[organisation], [window]] = await Promise.all([
      db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, scope.orgId)).limit(1),
      db
        .select({ count: sql<number>`count(*)::int`, changed: sql<string | null>`max(${appointments.updatedAt})::text`, sequence: sql<number | null>`max(${appointments.sequence})` })
        .from(appointments)
        .where(feedWindow(scope.orgId, now)),
    ]);
    return JSON.stringify([now.toISOString().slice(0, 13), organisation?.name ?? null, window?.count ?? 0, window?.changed ?? null, window?.sequence ?? null]);
  }

  return {
    async get(scope: OrgScope, db: Db, publicUrl: string, now = new Date()): Promise<FeedAnswer> {
      const fingerprint = await fingerprintOf(scope, db, now);
      const known = kept.get(scope.orgId);
      if (known?.fingerprint === fingerprint) return known;
      const text = await feedCalendar(scope, db, publicUrl, now);
      const answer = { text, etag: `"${createHash("sha256").update(text).digest("base64url").slice(0, 32)}"`, fingerprint };
      if (known) bytes -= known.text.length;
      kept.delete(scope.orgId);
      kept.set(scope.orgId, answer);
      bytes += text.length;
      for (const [orgId, entry] of kept) {
        if (bytes <= maxBytes || orgId === scope.orgId) break;
        kept.delete(orgId);
        bytes -= entry.text.length;
      }
      return answer;
    },
    /** Rotating the address or a test: the next ask makes the feed again. */
    forget(orgId: string) {
      const known = kept.get(orgId);
      if (known) bytes -= known.text.length;
      kept.delete(orgId);
    },
  };
}
export type FeedCache = ReturnType<typeof createFeedCache>;
