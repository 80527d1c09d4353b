/**
 * The time zones a phone number may be in, from its prefix (issue 13: a contact without a timezone column
 * is called in its number's zones). Data: Google libphonenumber's prefix → time-zone map, vendored as
 * number-zones.json (Apache-2.0, notice inside), read once on first use; longest prefix wins.
 *
 * An answer that only says "somewhere in a big region" is no answer: more than NUMBER_ZONES_MAX zones
 * (the country-wide entries of +1, +7, +52 and +61) or a North American non-geographic code (toll-free,
 * premium, personal) gives [], so the contact takes the campaign's fallback or waits as needs_timezone.
 * The data's own choices stand: every +61 4 mobile is Australia/Sydney and every +7 9 mobile
 * Europe/Moscow; fictional 555-01xx numbers keep their area code's zone.
 */
import { readFileSync } from "node:fs";

/** More zones than this (a whole country or continent) counts as unknown. */
export const NUMBER_ZONES_MAX = 4;

/** NANP area codes that are not places: personal (5XX), Canadian non-geographic, carrier, government, toll-free, premium. */
const NANP_NON_GEOGRAPHIC = new Set([
  "456",
  "500",
  "521",
  "522",
  "523",
  "524",
  "525",
  "526",
  "527",
  "528",
  "529",
  "533",
  "544",
  "566",
  "577",
  "588",
  "600",
  "622",
  "700",
  "710",
  "800",
  "822",
  "833",
  "844",
  "855",
  "866",
  "877",
  "880",
  "881",
  "882",
  "883",
  "884",
  "885",
  "886",
  "887",
  "888",
  "889",
  "900",
]);

/** E.164 after removing the usual separators: "+", a non-zero digit, 7 to 15 digits in all. */
const E164 = /^\+([1-9]\d{6,14})$/;
const SEPARATORS = /[\s().-]/g;

let prefixes: Map<string, readonly string[]> | undefined;
let longestPrefix = 0;

function load(): Map<string, readonly string[]> {
  const file = JSON.parse(readFileSync(new URL("./number-zones.json", import.meta.url), "utf8")) as { zones: Record<string, string> };
  const loaded = new Map<string, readonly string[]>();
  for (const [prefix, zones] of Object.entries(file.zones)) {
    const list = zones.split("&");
    // Kept as an empty answer (not dropped) so that it hides a shorter prefix's zones.
    loaded.set(prefix, list.length > NUMBER_ZONES_MAX ? [] : list);
    longestPrefix = Math.max(longestPrefix, prefix.length);
  }
  return loaded;
}

/** The IANA zones `e164` ("+14155550100") may be in, from its prefix; [] when unknown or not a number. */
export function numberTimeZones(e164: string): string[] {
  const digits = E164.exec(e164.replace(SEPARATORS, ""))?.[1];
  if (!digits) return [];
  if (digits.startsWith("1") && (digits.length !== 11 || NANP_NON_GEOGRAPHIC.has(digits.slice(1, 4)))) return [];
  prefixes ??= load();
  for (let length = Math.min(longestPrefix, digits.length); length > 0; length--) {
    const zones = prefixes.get(digits.slice(0, length));
    if (zones) return [...zones];
  }
  return [];
}
