import { DEFAULT_TIME_ZONE } from "../../contract/time-zone-name";

/** Every zone this browser knows, UTC and `current` first (Intl lists UTC under Etc/ or not at all, depending on the engine). */
export function zoneNames(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...new Set([DEFAULT_TIME_ZONE, current, ...known])];
}
