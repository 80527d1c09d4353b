/**
 * Calling windows (contract/campaign-schedule.ts) against a brute force written here: a minute-by-minute
 * scan that reads each minute's local weekday and time from its own Intl formatter. For random windows
 * (starts and ends often in the small hours, where clocks change), one to three random zones (30-minute
 * and 45-minute offsets, Lord Howe's 30-minute daylight saving, the southern hemisphere) and `from`
 * instants mostly within three days of a 2026–2027 daylight-saving change, nextOpening and windowClosesAt
 * give exactly the brute force's instant. Then the examples the issue names, and the speed the dialler
 * relies on.
 *
 * Seeded: SCHEDULE_SEED=<n> runs other cases (fast-check prints the failing seed and path).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WEEKDAYS } from "../../contract/campaign-shared";
import {
  NEXT_OPENING_HORIZON_MS,
  contactZones,
  isInsideWindows,
  isInsideWindowsInZone,
  localClock,
  nextOpening,
  windowClosesAt,
  type WindowSpec,
} from "../../contract/campaign-schedule";

const SEED = Number(process.env.SCHEDULE_SEED ?? 20_261_124);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ZONES = [
  "America/New_York",
  "Europe/London",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "Pacific/Chatham",
  "America/Sao_Paulo",
  "UTC",
  "Europe/Berlin",
  "Asia/Kathmandu",
];

// ---- the brute force -----------------------------------------------------------------------------

const clockFormats = new Map<string, Intl.DateTimeFormat>();
function bruteClock(instant: number, zone: string): { weekday: string; minutes: number } {
  let format = clockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", weekday: "short", hour: "2-digit", minute: "2-digit" });
    clockFormats.set(zone, format);
  }
  let weekday = "";
  let minutes = 0;
  for (const part of format.formatToParts(instant)) {
    if (part.type === "weekday") weekday = part.value.slice(0, 3).toLowerCase();
    else if (part.type === "hour") minutes += (Number(part.value) % 24) * 60;
    else if (part.type === "minute") minutes += Number(part.value);
  }
  return { weekday, minutes };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

function bruteInside(windows: readonly WindowSpec[], zones: readonly string[], instant: number): boolean {
  return (
    zones.length > 0 &&
    zones.every((zone) => {
      const { weekday, minutes } = bruteClock(instant, zone);
      return windows.some((window) => (window.days as readonly string[]).includes(weekday) && minutes >= minutesOf(window.start) && minutes < minutesOf(window.end));
    })
  );
}

/** `from` if inside, else the first whole minute after it that is, up to the horizon or `until`. */
function bruteNextOpening(windows: readonly WindowSpec[], zones: readonly string[], from: number, until = Number.POSITIVE_INFINITY): number | null {
  if (bruteInside(windows, zones, from)) return from;
  const last = Math.min(until, from + NEXT_OPENING_HORIZON_MS);
  for (let t = Math.floor(from / MINUTE) * MINUTE + MINUTE; t <= last; t += MINUTE) if (bruteInside(windows, zones, t)) return t;
  return null;
}

/** `instant` if outside, else the first whole minute after it that is outside, up to the horizon. */
function bruteClosesAt(windows: readonly WindowSpec[], zones: readonly string[], instant: number): number | null {
  if (!bruteInside(windows, zones, instant)) return instant;
  for (let t = Math.floor(instant / MINUTE) * MINUTE + MINUTE; t <= instant + NEXT_OPENING_HORIZON_MS; t += MINUTE) if (!bruteInside(windows, zones, t)) return t;
  return null;
}

// ---- daylight-saving changes of 2026–2027, found by sampling (only to aim `from` near them) ----------

function offsetMinutes(zone: string, instant: number): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(instant).find((part) => part.type === "timeZoneName")?.value ?? "GMT";
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  return match ? (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3] ?? 0)) : 0;
}

function changesIn(zone: string, from: number, to: number): number[] {
  const found: number[] = [];
  for (let t = from; t < to; t += 6 * HOUR) {
    if (offsetMinutes(zone, t) === offsetMinutes(zone, t + 6 * HOUR)) continue;
    let low = t;
    let high = t + 6 * HOUR;
    while (high - low > MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (offsetMinutes(zone, middle) === offsetMinutes(zone, low)) low = middle;
      else high = middle;
    }
    found.push(high);
  }
  return found;
}

const ZONE_CHANGES = ZONES.flatMap((zone) => changesIn(zone, Date.UTC(2026, 0, 1), Date.UTC(2028, 0, 1)).map((instant) => ({ zone, instant })));
const CHANGES = ZONE_CHANGES.map((change) => change.instant);

// ---- arbitraries ---------------------------------------------------------------------------------

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** Window edges: often whole or half hours, often 00:00–04:00 (where the clocks change). */
const edgeMinute = fc.oneof(
  fc.integer({ min: 0, max: 23 }).map((hour) => hour * 60),
  fc.integer({ min: 0, max: 47 }).map((half) => half * 30),
  fc.integer({ min: 0, max: 4 * 60 }),
  fc.integer({ min: 0, max: 1439 }),
);

const windowArbitrary: fc.Arbitrary<WindowSpec> = fc
  .record({
    days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
    start: edgeMinute,
    length: fc.oneof(fc.integer({ min: 1, max: 180 }), fc.integer({ min: 1, max: 1440 })),
  })
  .map(({ days, start, length }) => ({ days, start: hhmm(start), end: hhmm(Math.min(1440, start + length)) }));

const windowsArbitrary = fc.array(windowArbitrary, { minLength: 1, maxLength: 3 });
const zonesArbitrary = fc.subarray(ZONES, { minLength: 1, maxLength: 3 });

/** Mostly within three days of a clock change, to the minute or to the millisecond; else anywhere in 2026–2027. */
const fromArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -3 * 24 * 60, max: 3 * 24 * 60 })).map(([change, minutes]) => change + minutes * MINUTE) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -3 * DAY, max: 3 * DAY })).map(([change, ms]) => change + ms) },
  { weight: 1, arbitrary: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2028, 0, 1) }) },
);

/**
 * Windows aimed at one clock change: in the changing zone (and maybe one more), on the day of the change,
 * starting or ending within 90 minutes of the wall-clock time it happens at, so that starts and ends land
 * in skipped and repeated hours; `from` up to six hours before the change, `until` half a day after it.
 */
const aroundChange = fc
  .record({
    change: fc.constantFrom(...ZONE_CHANGES),
    other: fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
    startShift: fc.integer({ min: -90, max: 90 }),
    length: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 1440 })),
    otherDays: fc.subarray([...WEEKDAYS]),
    before: fc.integer({ min: 0, max: 6 * 60 }),
    seconds: fc.integer({ min: 0, max: MINUTE - 1 }),
  })
  .map(({ change, other, startShift, length, otherDays, before, seconds }) => {
    const { weekday, minutes } = bruteClock(change.instant - MINUTE, change.zone);
    const start = Math.min(1439, Math.max(0, minutes + 1 + startShift));
    const windows: WindowSpec[] = [{ days: [...new Set([weekday, ...otherDays])], start: hhmm(start), end: hhmm(Math.min(1440, start + length)) }];
    const zones = other && other !== change.zone ? [change.zone, other] : [change.zone];
    const from = change.instant - before * MINUTE - (before % 2) * seconds;
    return { windows, zones, from, until: change.instant + 12 * HOUR };
  });

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());

// ---- properties ----------------------------------------------------------------------------------

describe("calling windows against a minute-by-minute scan", () => {
  it("finds the 2026–2027 clock changes it aims at", () => {
    // US, UK, EU, Lord Howe and Chatham change twice a year; São Paulo, Kolkata, Kathmandu and UTC never.
    expect(CHANGES.length).toBe(5 * 2 * 2);
  });

  it("isInsideWindows agrees with the brute force at any instant", () => {
    fc.assert(
      fc.property(windowsArbitrary, zonesArbitrary, fromArbitrary, (windows, zones, instant) => {
        expect(isInsideWindows(windows, zones, instant)).toBe(bruteInside(windows, zones, instant));
        for (const zone of zones) expect(isInsideWindowsInZone(windows, zone, instant)).toBe(bruteInside(windows, [zone], instant));
      }),
      { numRuns: 2000, seed: SEED },
    );
  });

  it("localClock agrees with Intl at any instant", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fromArbitrary, (zone, instant) => {
        expect(localClock(instant, zone)).toEqual(bruteClock(instant, zone));
      }),
      { numRuns: 2000, seed: SEED },
    );
  });

  it("nextOpening is the first inside minute, one zone or the intersection of several", () => {
    fc.assert(
      fc.property(windowsArbitrary, zonesArbitrary, fromArbitrary, (windows, zones, from) => {
        expect(iso(nextOpening(windows, zones, from))).toBe(iso(bruteNextOpening(windows, zones, from)));
      }),
      { numRuns: 120, seed: SEED },
    );
  });

  it("nextOpening stops at `until`", () => {
    fc.assert(
      fc.property(windowsArbitrary, zonesArbitrary, fromArbitrary, fc.integer({ min: -HOUR, max: 2 * DAY }), (windows, zones, from, ahead) => {
        expect(iso(nextOpening(windows, zones, from, { until: from + ahead }))).toBe(iso(bruteNextOpening(windows, zones, from, from + ahead)));
      }),
      { numRuns: 120, seed: SEED },
    );
  });

  it("nextOpening and windowClosesAt agree with it at the clock changes themselves", () => {
    fc.assert(
      fc.property(aroundChange, ({ windows, zones, from, until }) => {
        const opening = nextOpening(windows, zones, from, { until });
        expect(iso(opening)).toBe(iso(bruteNextOpening(windows, zones, from, until)));
        if (opening !== null) expect(iso(windowClosesAt(windows, zones, opening))).toBe(iso(bruteClosesAt(windows, zones, opening)));
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it("windowClosesAt is the first minute outside", () => {
    fc.assert(
      fc.property(windowsArbitrary, zonesArbitrary, fromArbitrary, (windows, zones, from) => {
        // Start inside when there is an opening, so that the scan has something to close.
        const instant = nextOpening(windows, zones, from) ?? from;
        expect(iso(windowClosesAt(windows, zones, instant))).toBe(iso(bruteClosesAt(windows, zones, instant)));
      }),
      { numRuns: 120, seed: SEED },
    );
  });
});

// ---- examples ------------------------------------------------------------------------------------

const at = (text: string) => Date.parse(text);
const WEEKDAYS_9_TO_5: WindowSpec[] = [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }];

describe("isInsideWindows", () => {
  it("holds from the start up to, not including, the end, on the window's days only", () => {
    // Monday 9 March 2026: New York is on daylight time (UTC−4) since the day before.
    expect(isInsideWindows(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T12:59:59.999Z"))).toBe(false);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T13:00:00Z"))).toBe(true);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T20:59:59.999Z"))).toBe(true);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T21:00:00Z"))).toBe(false);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-07T15:00:00Z"))).toBe(false); // Saturday
  });

  it("needs every zone of a contact to be inside", () => {
    // London is still on GMT on 9 March: 13:00–17:00 UTC is inside in both.
    const both = ["America/New_York", "Europe/London"];
    expect(isInsideWindows(WEEKDAYS_9_TO_5, both, at("2026-03-09T12:59:00Z"))).toBe(false);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, both, at("2026-03-09T13:00:00Z"))).toBe(true);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, both, at("2026-03-09T16:59:00Z"))).toBe(true);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, both, at("2026-03-09T17:00:00Z"))).toBe(false);
    expect(isInsideWindows(WEEKDAYS_9_TO_5, [], at("2026-03-09T15:00:00Z"))).toBe(false);
  });

  it("reads 45-minute offsets and several windows a day", () => {
    const split: WindowSpec[] = [
      { days: ["mon"], start: "09:00", end: "09:15" },
      { days: ["mon"], start: "14:00", end: "15:00" },
    ];
    // Kathmandu is UTC+05:45.
    expect(isInsideWindows(split, ["Asia/Kathmandu"], at("2026-03-09T03:14:00Z"))).toBe(false);
    expect(isInsideWindows(split, ["Asia/Kathmandu"], at("2026-03-09T03:15:00Z"))).toBe(true);
    expect(isInsideWindows(split, ["Asia/Kathmandu"], at("2026-03-09T03:30:00Z"))).toBe(false);
    expect(isInsideWindows(split, ["Asia/Kathmandu"], at("2026-03-09T08:15:00Z"))).toBe(true);
    expect(localClock(at("2026-03-09T03:15:00Z"), "Asia/Kathmandu")).toEqual({ weekday: "mon", minutes: 9 * 60 });
  });
});

describe("nextOpening and windowClosesAt", () => {
  it("opens a window that starts in the skipped hour at 03:00 local (US spring-forward night)", () => {
    // 8 March 2026: New York goes from 01:59:59 EST to 03:00 EDT (07:00 UTC).
    const window: WindowSpec[] = [{ days: ["sun"], start: "02:30", end: "05:00" }];
    expect(iso(nextOpening(window, ["America/New_York"], at("2026-03-08T05:00:00Z")))).toBe("2026-03-08T07:00:00.000Z");
    expect(localClock(at("2026-03-08T07:00:00Z"), "America/New_York")).toEqual({ weekday: "sun", minutes: 3 * 60 });
    // The window ends at 05:00 EDT.
    expect(iso(windowClosesAt(window, ["America/New_York"], at("2026-03-08T07:00:00Z")))).toBe("2026-03-08T09:00:00.000Z");
  });

  it("counts the repeated 01:00–02:00 hour in November in both passes", () => {
    // 1 November 2026: 01:00–01:59 EDT (05:00–05:59 UTC), then 01:00–01:59 EST again (06:00–06:59 UTC).
    const repeated: WindowSpec[] = [{ days: ["sun"], start: "01:00", end: "02:00" }];
    expect(isInsideWindows(repeated, ["America/New_York"], at("2026-11-01T05:30:00Z"))).toBe(true);
    expect(isInsideWindows(repeated, ["America/New_York"], at("2026-11-01T06:30:00Z"))).toBe(true);
    expect(iso(nextOpening(repeated, ["America/New_York"], at("2026-11-01T04:00:00Z")))).toBe("2026-11-01T05:00:00.000Z");
    expect(iso(windowClosesAt(repeated, ["America/New_York"], at("2026-11-01T05:00:00Z")))).toBe("2026-11-01T07:00:00.000Z");

    // 01:30–02:00 holds twice, with the clock change between: closes at 06:00 UTC, opens again at 06:30.
    const halfHour: WindowSpec[] = [{ days: ["sun"], start: "01:30", end: "02:00" }];
    expect(iso(nextOpening(halfHour, ["America/New_York"], at("2026-11-01T04:00:00Z")))).toBe("2026-11-01T05:30:00.000Z");
    expect(iso(windowClosesAt(halfHour, ["America/New_York"], at("2026-11-01T05:30:00Z")))).toBe("2026-11-01T06:00:00.000Z");
    expect(iso(nextOpening(halfHour, ["America/New_York"], at("2026-11-01T06:00:00Z")))).toBe("2026-11-01T06:30:00.000Z");

    // 00:00–01:30 closes at 01:30 EDT and opens again when the clock goes back to 01:00 (the change itself).
    const midnight: WindowSpec[] = [{ days: ["sun"], start: "00:00", end: "01:30" }];
    expect(iso(windowClosesAt(midnight, ["America/New_York"], at("2026-11-01T04:00:00Z")))).toBe("2026-11-01T05:30:00.000Z");
    expect(iso(nextOpening(midnight, ["America/New_York"], at("2026-11-01T05:30:00Z")))).toBe("2026-11-01T06:00:00.000Z");
    expect(iso(windowClosesAt(midnight, ["America/New_York"], at("2026-11-01T06:00:00Z")))).toBe("2026-11-01T06:30:00.000Z");
  });

  it("takes a window ending 24:00 to the end of its day", () => {
    const lateFriday: WindowSpec[] = [{ days: ["fri"], start: "22:00", end: "24:00" }];
    expect(isInsideWindows(lateFriday, ["UTC"], at("2026-03-13T23:59:59.999Z"))).toBe(true);
    expect(isInsideWindows(lateFriday, ["UTC"], at("2026-03-14T00:00:00Z"))).toBe(false);
    expect(iso(nextOpening(lateFriday, ["UTC"], at("2026-03-10T00:00:00Z")))).toBe("2026-03-13T22:00:00.000Z");
    expect(iso(windowClosesAt(lateFriday, ["UTC"], at("2026-03-13T22:00:00Z")))).toBe("2026-03-14T00:00:00.000Z");
    // Followed by Saturday 00:00–01:00, calling goes on through midnight.
    const throughMidnight = [...lateFriday, { days: ["sat"], start: "00:00", end: "01:00" }];
    expect(iso(windowClosesAt(throughMidnight, ["UTC"], at("2026-03-13T22:00:00Z")))).toBe("2026-03-14T01:00:00.000Z");
    // Every day all day: never closes within the horizon.
    expect(windowClosesAt([{ days: [...WEEKDAYS], start: "00:00", end: "24:00" }], ["Europe/Berlin"], at("2026-03-29T00:00:00Z"))).toBeNull();
  });

  it("answers from itself when it is already inside, and null with no windows or no zones", () => {
    expect(nextOpening(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T15:00:00.123Z"))).toBe(at("2026-03-09T15:00:00.123Z"));
    expect(nextOpening([], ["America/New_York"], at("2026-03-09T15:00:00Z"))).toBeNull();
    expect(nextOpening(WEEKDAYS_9_TO_5, [], at("2026-03-09T15:00:00Z"))).toBeNull();
    expect(windowClosesAt(WEEKDAYS_9_TO_5, [], at("2026-03-09T15:00:00Z"))).toBeNull();
    expect(windowClosesAt(WEEKDAYS_9_TO_5, ["America/New_York"], at("2026-03-09T22:00:00Z"))).toBe(at("2026-03-09T22:00:00Z"));
  });

  it("is null for zones whose windows never meet", () => {
    // Kiritimati is UTC+14 and Adak UTC−9 in summer: their 09:00–10:00 are 19:00 and 18:00 UTC.
    const nineToTen: WindowSpec[] = [{ days: [...WEEKDAYS], start: "09:00", end: "10:00" }];
    const apart = ["Pacific/Kiritimati", "America/Adak"];
    expect(nextOpening(nineToTen, apart, at("2026-07-01T00:00:00Z"))).toBeNull();
    // In winter Adak is UTC−10, a whole day behind Kiritimati: the same hour, a day apart.
    expect(iso(nextOpening(nineToTen, apart, at("2026-12-01T00:00:00Z")))).toBe("2026-12-01T19:00:00.000Z");
    // Weekdays only: Kiritimati's Monday 09:00 is Adak's Sunday, so they still meet Tuesday to Friday (Kiritimati).
    expect(iso(nextOpening(WEEKDAYS_9_TO_5.map((window) => ({ ...window, end: "10:00" })), apart, at("2026-12-06T00:00:00Z")))).toBe("2026-12-07T19:00:00.000Z");
  });

  it("opens a Mon–Fri schedule on Monday morning local time across the world", () => {
    const saturday = at("2026-03-28T12:00:00Z");
    expect(iso(nextOpening(WEEKDAYS_9_TO_5, ["Europe/London"], saturday))).toBe("2026-03-30T08:00:00.000Z"); // BST from the 29th
    expect(iso(nextOpening(WEEKDAYS_9_TO_5, ["Australia/Lord_Howe"], saturday))).toBe("2026-03-29T22:00:00.000Z"); // UTC+11 until 5 April
    expect(iso(nextOpening(WEEKDAYS_9_TO_5, ["Pacific/Chatham"], saturday))).toBe("2026-03-29T19:15:00.000Z"); // UTC+13:45
    expect(iso(nextOpening(WEEKDAYS_9_TO_5, ["Asia/Kolkata"], saturday))).toBe("2026-03-30T03:30:00.000Z");
  });
});

describe("contactZones", () => {
  it("takes the contact's zone, else its number's, else the campaign's fallback", () => {
    expect(contactZones({ timezone: "Europe/Berlin", numberZones: ["America/New_York"] }, "UTC")).toEqual(["Europe/Berlin"]);
    expect(contactZones({ timezone: null, numberZones: ["America/Boise", "America/Los_Angeles"] }, "UTC")).toEqual(["America/Boise", "America/Los_Angeles"]);
    expect(contactZones({ timezone: null, numberZones: [] }, "UTC")).toEqual(["UTC"]);
    expect(contactZones({ timezone: null, numberZones: [] }, null)).toEqual([]);
  });
});

describe("speed", () => {
  it("answers nextOpening for a one-zone Mon–Fri schedule in well under 50 µs", () => {
    const start = at("2026-03-01T00:00:00Z");
    const calls = 20_000;
    const began = performance.now();
    for (let i = 0; i < calls; i++) nextOpening(WEEKDAYS_9_TO_5, ["America/New_York"], start + i * 7 * MINUTE);
    const microseconds = ((performance.now() - began) * 1000) / calls;
    // About 1–3 µs on a laptop (the first call per zone and day reads Intl; later ones hit the cache).
    expect(microseconds).toBeLessThan(50);
  });
});
