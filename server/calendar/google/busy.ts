/**
 * Busy times kept in memory per organisation, because the agent's tools wait on them while the caller
 * waits in silence: an answer from memory takes microseconds, one from Google ~100–300 ms. Google is
 * asked for a wider window than the question (two weeks at least, from the hour), so the next questions
 * of a call land in it. An entry is fresh for `freshMs`; after that, until `staleMs`, it is still
 * answered while a refresh runs behind it; older entries are not used.
 */
import type { BusyInterval } from "../sync";

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
/** The smallest window asked of Google. */
export const BUSY_MIN_WINDOW_MS = 14 * DAY_MS;
/** The largest window of one freeBusy request (Google refuses long ranges); longer questions are split. */
export const BUSY_CHUNK_MS = 60 * DAY_MS;
/** Entries kept per organisation (the agent's week and a person browsing other months). */
const ENTRIES_PER_ORG = 4;

export interface Window {
  from: number;
  to: number;
}

/** The window asked of Google for a question: from the hour before `from`, at least BUSY_MIN_WINDOW_MS long, to a whole hour. */
export function widenWindow(from: Date, to: Date): Window {
  const start = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS;
  const end = Math.ceil(Math.max(to.getTime(), start + BUSY_MIN_WINDOW_MS) / HOUR_MS) * HOUR_MS;
  return { from: start, to: end };
}

/** A window cut in pieces Google takes in one request each. */
export function chunksOf(window: Window): Window[] {
  const chunks: Window[] = [];
  for (let start = window.from; start < window.to; start += BUSY_CHUNK_MS) chunks.push({ from: start, to: Math.min(window.to, start + BUSY_CHUNK_MS) });
  return chunks;
}

/** Sorted, with overlapping and touching intervals joined; empty ones dropped. */
export function mergeIntervals(intervals: BusyInterval[]): BusyInterval[] {
  const sorted = intervals.filter((interval) => interval.end.getTime() > interval.start.getTime()).sort((a, b) => a.start.getTime() - b.start.getTime());
  const merged: BusyInterval[] = [];
  for (const interval of sorted) {
    const last = merged.at(-1);
    if (last && interval.start.getTime() <= last.end.getTime()) {
      if (interval.end.getTime() > last.end.getTime()) last.end = new Date(interval.end.getTime());
    } else {
      merged.push({ start: new Date(interval.start.getTime()), end: new Date(interval.end.getTime()) });
    }
  }
  return merged;
}

/** `busy` without the parts `holes` cover (both merged first). */
export function subtractIntervals(busy: BusyInterval[], holes: BusyInterval[]): BusyInterval[] {
  const cuts = mergeIntervals(holes);
  const result: BusyInterval[] = [];
  for (const interval of mergeIntervals(busy)) {
    let start = interval.start.getTime();
    const end = interval.end.getTime();
    for (const cut of cuts) {
      if (cut.end.getTime() <= start || cut.start.getTime() >= end) continue;
      if (cut.start.getTime() > start) result.push({ start: new Date(start), end: cut.start });
      start = Math.max(start, cut.end.getTime());
      if (start >= end) break;
    }
    if (start < end) result.push({ start: new Date(start), end: new Date(end) });
  }
  return result;
}

/** The intervals overlapping [from, to), cut to it (copies: callers may keep them). */
export function clipIntervals(intervals: BusyInterval[], from: Date, to: Date): BusyInterval[] {
  const lo = from.getTime();
  const hi = to.getTime();
  return intervals
    .filter((interval) => interval.start.getTime() < hi && interval.end.getTime() > lo)
    .map((interval) => ({ start: new Date(Math.max(lo, interval.start.getTime())), end: new Date(Math.min(hi, interval.end.getTime())) }));
}

export interface BusyEntry extends Window {
  intervals: BusyInterval[];
  fetchedAt: number;
}

export class BusyCache {
  private readonly entries = new Map<string, BusyEntry[]>();

  constructor(
    private readonly options: { freshMs: number; staleMs: number; now: () => number },
  ) {}

  /** The newest usable entry covering [from, to), and whether it is still fresh. */
  covering(orgId: string, from: Date, to: Date): { entry: BusyEntry; fresh: boolean } | null {
    const now = this.options.now();
    const found = (this.entries.get(orgId) ?? [])
      .filter((entry) => entry.from <= from.getTime() && entry.to >= to.getTime() && now - entry.fetchedAt < this.options.staleMs)
      .sort((a, b) => b.fetchedAt - a.fetchedAt)[0];
    return found ? { entry: found, fresh: now - found.fetchedAt < this.options.freshMs } : null;
  }

  put(orgId: string, entry: BusyEntry): void {
    const kept = (this.entries.get(orgId) ?? []).filter((other) => !(other.from >= entry.from && other.to <= entry.to));
    kept.unshift(entry);
    this.entries.set(orgId, kept.slice(0, ENTRIES_PER_ORG));
  }

  /** Our own write changed Google's answer: keep answering from memory, but refresh at the next question. */
  markStale(orgId: string): void {
    for (const entry of this.entries.get(orgId) ?? []) entry.fetchedAt = Math.min(entry.fetchedAt, this.options.now() - this.options.freshMs);
  }

  forget(orgId: string): void {
    this.entries.delete(orgId);
  }
}
