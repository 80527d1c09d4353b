/**
 * How the booking tools say times (server/calendar/spoken-time.ts, server/calendar/tools-answers.ts):
 * weekday and date plainly, the zone's everyday name, exact instants with the zone's offset (daylight
 * saving included), local days across clock changes, the caller's zone from their number, and the
 * answers the sandbox reads back.
 */
import { describe, expect, it } from "vitest";
import { bookedAnswer, bookedWhen, firstOpenTime, nextSlotsAnswer, noSlotsAnswer, preamble, takenAnswer } from "../../server/calendar/tools-answers";
import { addDays, callerZone, isCalendarDate, localDate, localIso, spokenDate, spokenTime, spokenZoneName, startOfLocalDay } from "../../server/calendar/spoken-time";

const NY = "America/New_York";
const NOV_30 = new Date("2026-11-30T15:00:00Z");

describe("spoken times", () => {
  it("name the weekday, the date, the time and the zone; the year only when it is not this year's", () => {
    expect(spokenTime(new Date("2026-12-01T14:00:00Z"), NY, NOV_30)).toBe("Tuesday, December 1 at 9:00 AM Eastern Time");
    expect(spokenTime(new Date("2027-01-05T20:30:00Z"), NY, NOV_30)).toBe("Tuesday, January 5, 2027 at 3:30 PM Eastern Time");
    expect(spokenTime(new Date("2026-12-01T14:00:00Z"), "Europe/Berlin", NOV_30)).toBe("Tuesday, December 1 at 3:00 PM Central European Time");
    expect(spokenDate("2026-12-25", NY, NOV_30)).toBe("Friday, December 25");
  });

  it("zones Intl names only by offset are said as UTC, UTC+3, UTC-9:30", () => {
    expect(spokenZoneName("UTC")).toBe("UTC");
    expect(spokenZoneName("Etc/GMT-3")).toBe("UTC+3");
    expect(spokenZoneName("America/Los_Angeles")).toBe("Pacific Time");
  });

  it("exact instants carry the zone's offset at that instant, across daylight saving and half-hour zones", () => {
    expect(localIso(new Date("2026-12-01T14:00:00Z"), NY)).toBe("2026-12-01T09:00:00-05:00");
    expect(localIso(new Date("2026-07-01T13:00:00Z"), NY)).toBe("2026-07-01T09:00:00-04:00");
    expect(localIso(new Date("2026-12-01T14:00:00Z"), "Asia/Kolkata")).toBe("2026-12-01T19:30:00+05:30");
    expect(localIso(new Date("2026-12-01T14:00:00Z"), "UTC")).toBe("2026-12-01T14:00:00+00:00");
    // The repeated hour of November 1, 2026 in New York: both passes, told apart by the offset.
    expect(localIso(new Date("2026-11-01T05:30:00Z"), NY)).toBe("2026-11-01T01:30:00-04:00");
    expect(localIso(new Date("2026-11-01T06:30:00Z"), NY)).toBe("2026-11-01T01:30:00-05:00");
    // Read back, it is the same instant.
    for (const iso of ["2026-03-08T03:00:00-04:00", "2026-11-01T01:30:00-05:00"]) expect(localIso(new Date(iso), NY)).toBe(iso);
  });

  it("a local day starts at its midnight, or after a skipped midnight; days and dates are counted right", () => {
    expect(startOfLocalDay("2026-03-08", NY).toISOString()).toBe("2026-03-08T05:00:00.000Z");
    expect(startOfLocalDay("2026-11-01", NY).toISOString()).toBe("2026-11-01T04:00:00.000Z");
    // Chile skips from 00:00 to 01:00 on 2026-09-06.
    expect(localIso(startOfLocalDay("2026-09-06", "America/Santiago"), "America/Santiago")).toBe("2026-09-06T01:00:00-03:00");
    expect(localDate(new Date("2026-12-01T04:59:00Z"), NY)).toBe("2026-11-30");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
    expect([isCalendarDate("2026-02-30"), isCalendarDate("2028-02-29"), isCalendarDate("2026-13-01")]).toEqual([false, true, false]);
  });

  it("the caller's zone: their number's when it has exactly one, else the calendar's", () => {
    expect(callerZone("+12125550100", "Europe/Berlin")).toEqual({ zone: NY, whose: "caller" });
    expect(callerZone("+18005550100", "Europe/Berlin")).toEqual({ zone: "Europe/Berlin", whose: "calendar" });
    expect(callerZone(null, "Europe/Berlin")).toEqual({ zone: "Europe/Berlin", whose: "calendar" });
  });
});

describe("the answers", () => {
  const speaking = { zone: NY, whose: "caller" as const, now: NOV_30 };
  const slot = (iso: string) => ({ start: new Date(iso), end: new Date(new Date(iso).getTime() + 30 * 60_000) });

  it("start with today's date (with its year) and the zone", () => {
    expect(preamble(speaking)).toBe("Today is Monday, November 30, 2026. Times are in Eastern Time (the caller's time zone).");
    expect(preamble({ ...speaking, whose: "calendar" })).toContain("(the calendar's time zone)");
  });

  it("'no open times' is said plainly, and with nothing after it, that nothing is to be offered", () => {
    const text = noSlotsAnswer(speaking, "2026-12-01", [], null, 60);
    expect(text).toContain("No open times on Tuesday, December 1.");
    expect(text).toContain("There are no open times after it either, within the 60 days ahead that can be booked. Do not offer any time");
    const next = noSlotsAnswer(speaking, "2026-12-01", [slot("2026-12-02T14:00:00Z"), slot("2026-12-03T14:00:00Z")], null, 60);
    expect(next).toContain("- Wednesday, December 2: 9:00 AM (start: 2026-12-02T09:00:00-05:00)\n- Thursday, December 3: 9:00 AM (start: 2026-12-03T09:00:00-05:00)");
  });

  it("taken: 'that time was just taken' with the alternatives, or that there are none near", () => {
    expect(takenAnswer(speaking, [slot("2026-12-01T14:30:00Z")])).toBe(
      [
        "Not booked: that time was just taken.",
        "The nearest open times instead:",
        "- Tuesday, December 1 at 9:30 AM Eastern Time (start: 2026-12-01T09:30:00-05:00)",
        "Offer these; book the one the caller chooses with its start exactly as written.",
      ].join("\n"),
    );
    expect(takenAnswer(speaking, [])).toContain("There are no other open times near it");
  });

  it("the sandbox reads back what the answers say: the first open time, and when it was booked", () => {
    const check = nextSlotsAnswer(speaking, [slot("2026-12-01T14:00:00Z"), slot("2026-12-01T14:30:00Z")], 60);
    expect(firstOpenTime(check)).toEqual({ start: "2026-12-01T09:00:00-05:00", spoken: "Tuesday, December 1 at 9:00 AM Eastern Time" });
    expect(firstOpenTime(noSlotsAnswer(speaking, "2026-12-01", [], null, 60))).toBeNull();
    const booked = bookedAnswer(speaking, { id: "6d7c1b5e-0000-4000-8000-000000000001", title: "Check-up", customerName: "Ada", ...slot("2026-12-01T14:00:00Z") });
    expect(bookedWhen(booked)).toBe("Tuesday, December 1 at 9:00 AM Eastern Time");
    expect(bookedWhen(takenAnswer(speaking, []))).toBeNull();
  });
});
