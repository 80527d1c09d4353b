/** isoTime (server/data/time.ts) writes exactly what Date#toISOString writes, for any date. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "../../server/data/time";

describe("isoTime", () => {
  it("is Date#toISOString for any valid date, far past and far future included", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        expect(isoTime(date)).toBe(date.toISOString());
      }),
      { numRuns: 5000, seed: 20_261_121 },
    );
  });

  it("pads every field and keeps the milliseconds", () => {
    for (const text of ["2026-01-02T03:04:05.006Z", "2026-12-31T23:59:59.999Z", "1000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "0999-12-31T23:59:59.999Z", "+010000-01-01T00:00:00.000Z", "-000001-01-01T00:00:00.000Z"]) {
      expect(isoTime(new Date(text))).toBe(text);
    }
  });
});
