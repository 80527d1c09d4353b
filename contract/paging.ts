/**
 * Paging defaults and envelopes for every list (spec §9: call list page 1, page size 20).
 * No zod here: the console imports this file, and its first chunk stays without a validator.
 */
export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 20;

/** `YYYY-MM-DD`, month and day zero-padded (spec §5). */
export const CALENDAR_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a real zero-padded calendar day (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  if (!CALENDAR_DATE_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The most agents GET /agent/ answers in one page (the console's agent pickers ask for them all). */
export const AGENT_LIST_MAX_LIMIT = 100;

/** The list envelope every list endpoint answers (ARCHITECTURE.md §3). */
export interface ListEnvelope<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
}

/** The envelope every single-item endpoint answers. */
export interface ItemEnvelope<T> {
  data: T;
}
