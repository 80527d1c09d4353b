/**
 * A phone number's time zones (server/campaigns/number-zones.ts) from libphonenumber's prefix data: the
 * examples the issue names, what the data says where it is coarse (Australian mobiles, Russia), the
 * answers treated as unknown, and the speed an import of 10,000 contacts relies on.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NUMBER_ZONES_MAX, numberTimeZones } from "../../server/campaigns/number-zones";

describe("numberTimeZones", () => {
  it("maps a number to its area's zone", () => {
    // 555-01xx numbers are fictional but keep their area code's zone.
    expect(numberTimeZones("+14155550100")).toEqual(["America/Los_Angeles"]);
    expect(numberTimeZones("+12125550100")).toEqual(["America/New_York"]);
    expect(numberTimeZones("+16135550100")).toEqual(["America/Toronto"]);
    expect(numberTimeZones("+442071234567")).toEqual(["Europe/London"]);
    expect(numberTimeZones("+4930123456")).toEqual(["Europe/Berlin"]);
    expect(numberTimeZones("+525512345678")).toEqual(["America/Mexico_City"]);
    expect(numberTimeZones("+73832123456")).toEqual(["Asia/Novosibirsk"]);
  });

  it("gives every zone of a prefix that spans several (the contact is called when all are inside)", () => {
    // Idaho's 208 straddles Mountain and Pacific time.
    expect(numberTimeZones("+12085550100")).toEqual(["America/Boise", "America/Los_Angeles"]);
    // UK mobiles: Guernsey and the Isle of Man share the prefixes (and London's clock).
    expect(numberTimeZones("+447700900123")).toEqual(["Europe/Guernsey", "Europe/Isle_of_Man", "Europe/London"]);
  });

  it("follows the data where it is coarse", () => {
    // Every Australian mobile (+61 4) is Sydney in libphonenumber, even in Perth: a contact there needs a
    // timezone column to be called in its own hours.
    expect(numberTimeZones("+61412345678")).toEqual(["Australia/Sydney"]);
    // Russian mobiles (+7 9) are all Moscow; landlines follow their city codes.
    expect(numberTimeZones("+79161234567")).toEqual(["Europe/Moscow"]);
    expect(numberTimeZones("+74951234567")).toEqual(["Europe/Moscow"]);
  });

  it("treats a whole country or continent as unknown", () => {
    // Toll-free, premium and personal NANP numbers could be anywhere in North America.
    for (const number of ["+18005550100", "+18885550100", "+18335550100", "+19005550100", "+15005550100", "+15335550100"]) expect(numberTimeZones(number)).toEqual([]);
    // A +7 number under no city code: the data's answer is Russia's and Kazakhstan's 16 zones.
    expect(numberTimeZones("+76012345678")).toEqual([]);
    // Australia outside the mapped ranges: eight zones.
    expect(numberTimeZones("+61812345678")).toEqual([]);
  });

  it("answers [] for what is not an E.164 number, and reads the usual separators", () => {
    for (const text of ["", "nonsense", "14155550100", "+0123456789", "+1415555010", "+141555501000", "+1234", "+1415555010x", "+123456789012345678"]) {
      expect(numberTimeZones(text)).toEqual([]);
    }
    expect(numberTimeZones("+1 (415) 555-0100")).toEqual(["America/Los_Angeles"]);
  });

  it("returns a copy the caller may change", () => {
    numberTimeZones("+12085550100").push("Europe/Paris");
    expect(numberTimeZones("+12085550100")).toEqual(["America/Boise", "America/Los_Angeles"]);
  });

  it("only names zones Intl knows, at most NUMBER_ZONES_MAX at a time", () => {
    const data = JSON.parse(readFileSync(new URL("../../server/campaigns/number-zones.json", import.meta.url), "utf8")) as { licence: string; zones: Record<string, string> };
    expect(data.licence).toContain("Apache License, Version 2.0");
    const zones = new Set(Object.values(data.zones).flatMap((value) => value.split("&")));
    for (const zone of zones) expect(() => new Intl.DateTimeFormat("en-US", { timeZone: zone })).not.toThrow();
    for (const prefix of Object.keys(data.zones)) expect(numberTimeZones(`+${prefix.padEnd(11, "2")}`).length).toBeLessThanOrEqual(NUMBER_ZONES_MAX);
  });

  it("looks up 10,000 numbers in well under 100 ms", () => {
    numberTimeZones("+14155550100"); // loads the data
    const numbers = Array.from({ length: 10_000 }, (_, i) => {
      const countries = ["+1415", "+1212", "+4420", "+4930", "+6141", "+7916", "+9198", "+5511", "+1800", "+3361"];
      return `${countries[i % countries.length]}${String(1_000_000 + i).slice(1)}${i % 10}`;
    });
    const began = performance.now();
    let found = 0;
    for (const number of numbers) found += numberTimeZones(number).length;
    const milliseconds = performance.now() - began;
    expect(found).toBeGreaterThan(8000);
    // About 5 ms on a laptop.
    expect(milliseconds).toBeLessThan(100);
  });
});
