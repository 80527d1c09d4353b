/**
 * TEMPORARY stub (branch c-api): the zones a number may be in, by prefix. The real table comes from
 * branch c-sched, whose file replaces this one at the merge; only the signature matters here.
 */
const AREA_CODE_ZONES: Readonly<Record<string, readonly string[]>> = {
  "415": ["America/Los_Angeles"],
  "650": ["America/Los_Angeles"],
  "212": ["America/New_York"],
  "646": ["America/New_York"],
  "312": ["America/Chicago"],
};

/** The IANA zones `e164` may ring in; [] when the prefix is not known. */
export function numberTimeZones(e164: string): string[] {
  if (!e164.startsWith("+1") || e164.length !== 12) return [];
  return [...(AREA_CODE_ZONES[e164.slice(2, 5)] ?? [])];
}
