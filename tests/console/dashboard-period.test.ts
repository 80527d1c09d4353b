import { describe, expect, it } from "vitest";
import {
  addDays,
  dashboardQuery,
  dashboardViewParams,
  presetRange,
  readDashboardView,
  todayIn,
} from "../../src/components/dashboard/dashboard-period";
import { pointsChange, relativeChange } from "../../src/components/dashboard/kpi-change";

const AGENT = "0d5f7c1e-8a8b-4c51-9a43-2f4a8f0b7e11";

describe("the dashboard's period", () => {
  it("cuts today in the organisation's zone, across daylight saving changes", () => {
    // 23:30 UTC: already the next day in Berlin (summer time from 29 March 2026), still the day in New York.
    const now = new Date("2026-03-31T23:30:00.000Z");
    expect(todayIn("Europe/Berlin", now)).toBe("2026-04-01");
    expect(todayIn("UTC", now)).toBe("2026-03-31");
    expect(todayIn("America/New_York", now)).toBe("2026-03-31");
    // Winter time: 23:30 UTC is 00:30 in Berlin.
    expect(todayIn("Europe/Berlin", new Date("2026-01-14T23:30:00.000Z"))).toBe("2026-01-15");
    expect(todayIn("Pacific/Kiritimati", new Date("2026-03-31T10:00:00.000Z"))).toBe("2026-04-01");
  });

  it("counts whole calendar days back, today included, and this month from its first", () => {
    const now = new Date("2026-03-31T23:30:00.000Z");
    expect(presetRange("7d", "Europe/Berlin", now)).toEqual({ startDate: "2026-03-26", endDate: "2026-04-01" });
    expect(presetRange("30d", "Europe/Berlin", now)).toEqual({ startDate: "2026-03-03", endDate: "2026-04-01" });
    expect(presetRange("90d", "UTC", now)).toEqual({ startDate: "2026-01-01", endDate: "2026-03-31" });
    expect(presetRange("month", "UTC", now)).toEqual({ startDate: "2026-03-01", endDate: "2026-03-31" });
    expect(presetRange("month", "Europe/Berlin", now)).toEqual({ startDate: "2026-04-01", endDate: "2026-04-01" });
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
    expect(addDays("2026-10-24", 2)).toBe("2026-10-26");
  });

  it("reads its URL, falling back to the last 30 days for anything it cannot read", () => {
    const read = (query: string) => readDashboardView(new URLSearchParams(query));
    expect(read("")).toEqual({ period: "30d" });
    expect(read("period=90d&agentId=" + AGENT)).toEqual({ period: "90d", agentId: AGENT });
    expect(read("period=custom&startDate=2026-03-01&endDate=2026-03-15")).toEqual({ period: "custom", startDate: "2026-03-01", endDate: "2026-03-15" });
    expect(read("period=custom&startDate=2026-03-15&endDate=2026-03-01")).toEqual({ period: "30d" });
    expect(read("period=custom&startDate=2026-02-30&endDate=2026-03-01")).toEqual({ period: "30d" });
    expect(read("period=year")).toEqual({ period: "30d" });
    for (const view of [{ period: "7d" as const }, { period: "custom" as const, startDate: "2026-03-01", endDate: "2026-03-02", agentId: AGENT }]) {
      expect(readDashboardView(dashboardViewParams(view))).toEqual(view);
    }
  });

  it("asks for the default without dates (the server's own default), and waits for the zone for another preset", () => {
    const now = new Date("2026-03-31T23:30:00.000Z");
    expect(dashboardQuery({ period: "30d" }, undefined, now)).toEqual({});
    expect(dashboardQuery({ period: "30d", agentId: AGENT }, undefined, now)).toEqual({ agentId: AGENT });
    expect(dashboardQuery({ period: "7d" }, undefined, now)).toBeNull();
    expect(dashboardQuery({ period: "7d" }, "Europe/Berlin", now)).toEqual({ startDate: "2026-03-26", endDate: "2026-04-01" });
    expect(dashboardQuery({ period: "custom", startDate: "2026-03-01", endDate: "2026-03-02" }, undefined, now)).toEqual({ startDate: "2026-03-01", endDate: "2026-03-02" });
  });
});

describe("a key figure's change", () => {
  it("in percent for counts and amounts, coloured by which way is good", () => {
    expect(relativeChange(120, 100, "up")).toEqual({ direction: "up", text: "20%", spoken: "up 20%", trend: "good" });
    expect(relativeChange(80, 100, "up")).toMatchObject({ direction: "down", text: "20%", trend: "bad" });
    expect(relativeChange(0.1, 0.08, "down")).toMatchObject({ direction: "up", text: "25%", trend: "bad" });
    expect(relativeChange(40, 30, "neither")).toMatchObject({ direction: "up", trend: "neutral" });
    expect(relativeChange(5, 0, "up")).toMatchObject({ direction: "up", text: "from 0", trend: "good" });
    expect(relativeChange(3, 3, "up")).toMatchObject({ direction: "same", text: "no change", trend: "neutral" });
    expect(relativeChange(1000.1, 1000, "up")).toMatchObject({ text: "0.1%" });
    expect(relativeChange(null, 3, "up")).toBeNull();
  });

  it("in points for rates, none when a period has no rate", () => {
    expect(pointsChange(0.8, 0.75, "up")).toEqual({ direction: "up", text: "5 pts", spoken: "up 5 pts", trend: "good" });
    expect(pointsChange(0.6, 0.7, "up")).toMatchObject({ direction: "down", text: "10 pts", trend: "bad" });
    expect(pointsChange(0.5, 0.5004, "up")).toMatchObject({ direction: "same" });
    expect(pointsChange(0.5, null, "up")).toBeNull();
  });
});
