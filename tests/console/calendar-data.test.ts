import type { CrudFilter } from "@refinedev/core";
import { describe, expect, it } from "vitest";
import { daysCovering, formatRange, instantAt } from "../../src/components/calendar/calendar-time";
import { createDataProvider } from "../../src/providers/data";
import { installFetchFake, json } from "./test-utils";

const provider = () => createDataProvider({ getToken: async () => "token-1", apiUrl: "/api" });

describe("the data provider's appointments", () => {
  async function listUrl(filters: CrudFilter[], pagination = { currentPage: 1, pageSize: 1000 }) {
    const fetch = installFetchFake().on("GET", "/api/appointment/", () => json({ data: [], total: 0, page: 1, limit: 1000 }));
    await provider().getList({ resource: "appointment", pagination, filters });
    return fetch.requests[0]?.url;
  }

  it("asks for the days shown as YYYY-MM-DD, with the filters that have a value and nothing else", async () => {
    expect(
      await listUrl([
        { field: "startDate", operator: "eq", value: "2026-12-7" },
        { field: "endDate", operator: "eq", value: "2026-12-13" },
        { field: "agentId", operator: "eq", value: "0d5f7c1e-8a8b-4c51-9a43-2f4a8f0b7e11" },
        { field: "status", operator: "eq", value: "booked" },
        { field: "search", operator: "contains", value: "  grace " },
        { field: "timezone", operator: "eq", value: "Europe/Berlin" },
      ]),
    ).toBe("/api/appointment/?page=1&limit=1000&startDate=2026-12-07&endDate=2026-12-13&agentId=0d5f7c1e-8a8b-4c51-9a43-2f4a8f0b7e11&status=booked&search=grace");
    expect(await listUrl([{ field: "search", operator: "contains", value: "   " }, { field: "status", operator: "eq", value: "" }])).toBe("/api/appointment/?page=1&limit=1000");
  });

  it("creates with POST /appointment/, moves with PUT and cancels with DELETE /appointment/{id}", async () => {
    const fetch = installFetchFake()
      .on("POST", "/api/appointment/", (request) => json({ data: { id: "a1", ...(request.body as object) } }, 201))
      .on("PUT", "/api/appointment/a1", (request) => json({ data: { id: "a1", ...(request.body as object) } }))
      .on("DELETE", "/api/appointment/a1", () => json({ data: { id: "a1", status: "cancelled" } }));
    const dataProvider = provider();
    await dataProvider.create({ resource: "appointment", variables: { title: "Haircut" } });
    await dataProvider.update({ resource: "appointment", id: "a1", variables: { start: "2026-12-09T16:00:00.000Z", end: "2026-12-09T16:30:00.000Z" } });
    expect(await dataProvider.deleteOne({ resource: "appointment", id: "a1" })).toEqual({ data: { id: "a1", status: "cancelled" } });
    expect(fetch.requests.map((request) => `${request.method} ${request.path}`)).toEqual(["POST /api/appointment/", "PUT /api/appointment/a1", "DELETE /api/appointment/a1"]);
  });

  it("keeps a 409 slot_taken's offered slots on the error", async () => {
    const slots = [{ start: "2026-12-09T16:00:00.000Z", end: "2026-12-09T16:30:00.000Z" }];
    installFetchFake().on("PUT", "/api/appointment/a1", () => json({ detail: "That time is taken.", code: "slot_taken", slots }, 409));
    await expect(provider().update({ resource: "appointment", id: "a1", variables: {} })).rejects.toMatchObject({ statusCode: 409, code: "slot_taken", message: "That time is taken.", slots });
  });
});

describe("the calendar's times in a named zone", () => {
  it("reads a wall-clock time in the zone, across a daylight-saving change", () => {
    // New York moves from UTC−4 to UTC−5 on 1 November 2026.
    expect(new Date(instantAt("2026-10-31", "09:00", "America/New_York")).toISOString()).toBe("2026-10-31T13:00:00.000Z");
    expect(new Date(instantAt("2026-11-02", "09:00", "America/New_York")).toISOString()).toBe("2026-11-02T14:00:00.000Z");
    expect(new Date(instantAt("2026-12-09", "24:00", "America/New_York")).toISOString()).toBe("2026-12-10T05:00:00.000Z");
  });

  it("gives the days of the calendar's zone that a range shown in another zone covers, the end day included", () => {
    const berlinWeek = { start: Date.parse("2026-12-06T23:00:00Z"), end: Date.parse("2026-12-13T23:00:00Z") };
    expect(daysCovering(berlinWeek.start, berlinWeek.end, "America/New_York")).toEqual({ startDate: "2026-12-06", endDate: "2026-12-13" });
    expect(daysCovering(berlinWeek.start, berlinWeek.end, "Europe/Berlin")).toEqual({ startDate: "2026-12-07", endDate: "2026-12-13" });
  });

  it("writes a range on the zone's wall clock, naming both days when it passes midnight", () => {
    expect(formatRange("2026-12-09T15:00:00Z", "2026-12-09T15:30:00Z", "America/New_York")).toBe("Wed 9 Dec 2026, 10:00–10:30");
    expect(formatRange("2026-12-10T04:30:00Z", "2026-12-10T05:00:00Z", "America/New_York")).toBe("Wed 9 Dec 2026, 23:30–24:00");
    expect(formatRange("2026-12-10T04:30:00Z", "2026-12-10T06:00:00Z", "America/New_York")).toBe("Wed 9 Dec 2026, 23:30 – Thu 10 Dec 2026, 01:00");
  });
});
