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
import ical, { ICalCalendarMethod, ICalEventStatus } from "ical-generator";
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

/** The feed's text (RFC 5545) for the organisation, as of `now`. */
export async function feedCalendar(scope: OrgScope, db: Db, publicUrl: string, now = new Date()): Promise<string> {
  const [organisation] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, scope.orgId)).limit(1);
  const from = new Date(now.getTime() - FEED_PAST_DAYS * DAY_MS);
  const to = new Date(now.getTime() + FEED_FUTURE_DAYS * DAY_MS);
  const cancelledSince = new Date(now.getTime() - FEED_CANCELLED_DAYS * DAY_MS);
  const rows = await db
    .select({ appointment: appointments, agentName: agents.name })
    .from(appointments)
    .leftJoin(agents, eq(agents.id, appointments.agentId))
    .where(
      and(
        eq(appointments.orgId, scope.orgId),
        gte(appointments.startAt, from),
        lt(appointments.startAt, to),
        or(ne(appointments.status, "cancelled"), gte(sql`coalesce(${appointments.cancelledAt}, ${appointments.updatedAt})`, cancelledSince)),
      ),
    )
    .orderBy(asc(appointments.startAt), asc(appointments.id))
    .limit(FEED_MAX_EVENTS);

  const name = `${organisation?.name ?? "Voice Agents"} appointments`;
  const calendar = ical({
    name,
    description: "Appointments booked in Voice Agents (by people and by agents during calls).",
    prodId: { company: "Voice Agents", product: "Appointments", language: "EN" },
    method: ICalCalendarMethod.PUBLISH,
    ttl: FEED_REFRESH_SECONDS,
  });
  for (const { appointment, agentName } of rows) {
    const cancelled = appointment.status === "cancelled";
    calendar.createEvent({
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
      status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  return calendar.toString();
}
