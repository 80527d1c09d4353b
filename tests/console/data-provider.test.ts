import type { CrudFilter, CrudSort } from "@refinedev/core";
import { describe, expect, it, vi } from "vitest";
import { createTokenStore } from "../../src/auth/token-store";
import { createDataProvider } from "../../src/providers/data";
import { installFetchFake, json } from "./test-utils";

function provider(getToken: () => Promise<string | null> = async () => "token-1") {
  return createDataProvider({ getToken, apiUrl: "/api" });
}

const EMPTY_LIST = { data: [], total: 0, page: 1, limit: 20 };

describe("the data provider's call list query", () => {
  async function callListUrl(params: { currentPage?: number; pageSize?: number; filters?: CrudFilter[]; sorters?: CrudSort[] }) {
    const fetch = installFetchFake().on("GET", "/api/call/", () => json(EMPTY_LIST));
    await provider().getList({
      resource: "call",
      ...(params.currentPage || params.pageSize
        ? { pagination: { currentPage: params.currentPage, pageSize: params.pageSize } }
        : {}),
      filters: params.filters,
      sorters: params.sorters,
    });
    const [request] = fetch.requests;
    return request?.url;
  }

  it("sends page 1 and limit 20 when the screen gives no paging", async () => {
    expect(await callListUrl({})).toBe("/api/call/?page=1&limit=20");
  });

  it("sends the page and page size it is given", async () => {
    expect(await callListUrl({ currentPage: 3, pageSize: 50 })).toBe("/api/call/?page=3&limit=50");
  });

  it("sends dates as YYYY-MM-DD with zero-padded month and day", async () => {
    const url = await callListUrl({
      filters: [
        { field: "startDate", operator: "gte", value: new Date(2024, 2, 5) },
        { field: "endDate", operator: "lte", value: "2024-3-9" },
      ],
    });
    expect(url).toBe("/api/call/?page=1&limit=20&startDate=2024-03-05&endDate=2024-03-09");
  });

  it("formats a dayjs-like value by its calendar day", async () => {
    const picked = { toDate: () => new Date(2025, 0, 1, 23, 59) };
    expect(await callListUrl({ filters: [{ field: "endDate", operator: "lte", value: picked }] })).toBe(
      "/api/call/?page=1&limit=20&endDate=2025-01-01",
    );
  });

  it("sends search only when it has text", async () => {
    expect(await callListUrl({ filters: [{ field: "search", operator: "contains", value: "  refund " }] })).toBe(
      "/api/call/?page=1&limit=20&search=refund",
    );
    expect(await callListUrl({ filters: [{ field: "search", operator: "contains", value: "   " }] })).toBe(
      "/api/call/?page=1&limit=20",
    );
  });

  it("sends nothing for empty values or filters the server does not read", async () => {
    const url = await callListUrl({
      filters: [
        { field: "startDate", operator: "gte", value: undefined },
        { field: "endDate", operator: "lte", value: "" },
        { field: "search", operator: "contains", value: "" },
        { field: "status", operator: "eq", value: "" },
        { field: "durationMin", operator: "gte", value: null },
        { field: "customer_secret", operator: "eq", value: "x" },
        { field: "endDate", operator: "lte", value: "not a date" },
      ],
      sorters: [{ field: "agent_name", order: "asc" }],
    });
    expect(url).toBe("/api/call/?page=1&limit=20");
  });

  it("sends the screen's other filters by their API names, and the sort the server knows", async () => {
    const url = await callListUrl({
      filters: [
        { field: "agentId", operator: "eq", value: "a1" },
        { field: "status", operator: "eq", value: "ended" },
        { field: "type", operator: "eq", value: "inbound" },
        { field: "endedReason", operator: "eq", value: "voicemail" },
        { field: "successEvaluation", operator: "eq", value: "true" },
        { field: "outcome", operator: "eq", value: "answered" },
        { field: "success", operator: "eq", value: "pass" },
        { field: "timezone", operator: "eq", value: "Europe/Berlin" },
        { field: "durationMin", operator: "gte", value: 30 },
        { field: "durationMax", operator: "lte", value: "120" },
        { field: "costMin", operator: "gte", value: 0 },
        { field: "costMax", operator: "lte", value: 1.5 },
      ],
      sorters: [{ field: "duration_seconds", order: "asc" }],
    });
    expect(url).toBe(
      "/api/call/?page=1&limit=20&agentId=a1&status=ended&type=inbound&endedReason=voicemail&successEvaluation=true" +
        "&outcome=answered&success=pass&timezone=Europe%2FBerlin&durationMin=30&durationMax=120&costMin=0&costMax=1.5&sortBy=duration&sortOrder=asc",
    );
  });
});

describe("the data provider's envelopes and paths", () => {
  it("reads {data, total} of a list", async () => {
    installFetchFake().on("GET", "/api/agent/", () =>
      json({ data: [{ id: "a1" }, { id: "a2" }], total: 12, page: 1, limit: 20 }),
    );
    await expect(provider().getList({ resource: "agent" })).resolves.toEqual({
      data: [{ id: "a1" }, { id: "a2" }],
      total: 12,
    });
  });

  it("reads {data} of one record, of a create and of an update", async () => {
    const fetch = installFetchFake()
      .on("GET", "/api/phonenumber/pn%201", () => json({ data: { id: "pn 1", number: "+15550001" } }))
      .on("POST", "/api/agent/", (request) => json({ data: { id: "a9", ...(request.body as object) } }, 201))
      .on("PUT", "/api/campaign/c1", () => json({ data: { id: "c1", name: "Renewals" } }));

    const dataProvider = provider();
    expect(await dataProvider.getOne({ resource: "phonenumber", id: "pn 1" })).toEqual({
      data: { id: "pn 1", number: "+15550001" },
    });
    expect(await dataProvider.create({ resource: "agent", variables: { agent_name: "Sales" } })).toEqual({
      data: { id: "a9", agent_name: "Sales" },
    });
    expect(await dataProvider.update({ resource: "campaign", id: "c1", variables: { name: "Renewals" } })).toEqual({
      data: { id: "c1", name: "Renewals" },
    });
    expect(fetch.to("POST", "/api/agent/")[0]?.body).toEqual({ agent_name: "Sales" });
    expect(fetch.to("POST", "/api/agent/")[0]?.headers.get("content-type")).toBe("application/json");
  });

  it("lists files at /file/files and deletes one at /file/file/{id}", async () => {
    const fetch = installFetchFake()
      .on("GET", "/api/file/files", () => json({ data: [{ id: "f1" }], total: 1, page: 1, limit: 20 }))
      .on("DELETE", "/api/file/file/f1", () => new Response(null, { status: 204 }));

    expect((await provider().getList({ resource: "file" })).data).toEqual([{ id: "f1" }]);
    expect(await provider().deleteOne({ resource: "file", id: "f1" })).toEqual({ data: { id: "f1" } });
    expect(fetch.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /api/file/files",
      "DELETE /api/file/file/f1",
    ]);
  });

  it("turns a server error into an HttpError with the server's detail and status", async () => {
    installFetchFake().on("DELETE", "/api/phonenumber/pn1", () =>
      json({ detail: "Members may not delete phone numbers.", code: "forbidden" }, 403),
    );
    await expect(provider().deleteOne({ resource: "phonenumber", id: "pn1" })).rejects.toMatchObject({
      message: "Members may not delete phone numbers.",
      statusCode: 403,
      detail: "Members may not delete phone numbers.",
      code: "forbidden",
    });
  });

  it("says which status failed when the server sent no detail", async () => {
    installFetchFake().on("GET", "/api/call/c1", () => new Response("upstream exploded", { status: 502 }));
    const failure = await provider().getOne({ resource: "call", id: "c1" }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: "The request failed (status 502).", statusCode: 502 });
    expect(failure).not.toHaveProperty("detail");
  });

  it("refuses an operation a resource does not have, without a request", async () => {
    const fetch = installFetchFake();
    await expect(provider().update({ resource: "call", id: "c1", variables: {} })).rejects.toThrow(
      'The resource "call" has no edit operation',
    );
    expect(fetch.requests).toEqual([]);
  });
});

describe("the bearer token", () => {
  it("is on every request to the API", async () => {
    const fetch = installFetchFake()
      .on("GET", "/api/agent/", () => json(EMPTY_LIST))
      .on("POST", "/api/organization/org_1/invite", () => json({ status: "success" }));

    const dataProvider = provider(async () => "secret-token");
    await dataProvider.getList({ resource: "agent" });
    await dataProvider.custom?.({ url: "/organization/org_1/invite", method: "post", payload: {} });

    expect(fetch.requests.map((request) => request.headers.get("authorization"))).toEqual([
      "Bearer secret-token",
      "Bearer secret-token",
    ]);
  });

  it("is refreshed every 10 s and the fresh one goes on the next request", async () => {
    vi.useFakeTimers();
    const fetch = installFetchFake().on("GET", "/api/agent/", () => json(EMPTY_LIST));
    let issued = 0;
    const getToken = vi.fn(async () => `token-${++issued}`);
    const tokens = createTokenStore(getToken);
    const dataProvider = provider(() => tokens.get());

    tokens.start();
    await dataProvider.getList({ resource: "agent" });
    expect(getToken).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(9_999);
    expect(getToken).toHaveBeenCalledTimes(1);
    await dataProvider.getList({ resource: "agent" });

    await vi.advanceTimersByTimeAsync(1);
    expect(getToken).toHaveBeenCalledTimes(2);
    await dataProvider.getList({ resource: "agent" });

    await vi.advanceTimersByTimeAsync(20_000);
    expect(getToken).toHaveBeenCalledTimes(4);
    await dataProvider.getList({ resource: "agent" });

    expect(fetch.requests.map((request) => request.headers.get("authorization"))).toEqual([
      "Bearer token-1",
      "Bearer token-1",
      "Bearer token-2",
      "Bearer token-4",
    ]);

    tokens.stop();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(getToken).toHaveBeenCalledTimes(4);
    expect(await tokens.get()).toBeNull();
  });

  it("fetches a fresh token before use when the 10 s timer was held back (a sleeping laptop, a background tab)", async () => {
    vi.useFakeTimers();
    let issued = 0;
    const tokens = createTokenStore(async () => `token-${++issued}`);
    tokens.start();
    expect(await tokens.get()).toBe("token-1");
    // The clock moves on but the interval never ran: the short-lived token may have expired meanwhile.
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect(await tokens.get()).toBe("token-2");
    expect(await tokens.get()).toBe("token-2");
    tokens.stop();
  });

  it("keeps the last token when a refresh fails", async () => {
    let fail = false;
    const tokens = createTokenStore(async () => {
      if (fail) throw new Error("identity provider unreachable");
      return "token-1";
    });
    tokens.start();
    expect(await tokens.get()).toBe("token-1");
    fail = true;
    expect(await tokens.refresh()).toBe("token-1");
    tokens.stop();
  });
});
