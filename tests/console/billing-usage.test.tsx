import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingText as text } from "../../src/components/billing/strings";
import { defaultUsageRange } from "../../src/components/billing/usage-tab";
import { AGENT_A, billingSummary, usage } from "./billing-fixtures";
import { findScreen, installFetchFake, json, renderConsole } from "./test-utils";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function serve() {
  const fetch = installFetchFake();
  fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ time_zone: "Pacific/Auckland" }) }));
  fetch.on("GET", "/api/agent/", () => json({ data: [{ id: AGENT_A, agent_name: "Front desk" }], total: 1, page: 1, limit: 100 }));
  fetch.on("GET", "/api/billing/usage", () => json({ data: usage() }));
  return fetch;
}

describe("Billing: Usage", () => {
  it("the default period is the last 30 days of the organisation's zone", () => {
    // 2026-03-10 20:00 UTC is already 11 March in Auckland.
    expect(defaultUsageRange("Pacific/Auckland", new Date("2026-03-10T20:00:00Z"))).toEqual({ startDate: "2026-02-10", endDate: "2026-03-11" });
    expect(defaultUsageRange("UTC", new Date("2026-03-10T20:00:00Z"))).toEqual({ startDate: "2026-02-09", endDate: "2026-03-10" });
  });

  it("asks for the URL's period and agent, shows the KPIs, the stacked chart by component, cost by agent and the table", async () => {
    const fetch = serve();
    renderConsole({ path: `/billing?tab=usage&from=2026-03-01&to=2026-03-03&agent=${AGENT_A}`, fetch });
    await findScreen("Billing");
    await screen.findByRole("group", { name: text.usage.perDay });
    expect(Object.fromEntries(fetch.to("GET", "/api/billing/usage")[0]!.query)).toEqual({ startDate: "2026-03-01", endDate: "2026-03-03", agentId: AGENT_A });

    // KPIs
    expect(screen.getByText("$3.00", { selector: ".ant-statistic-content-value *, .ant-statistic-content-value" })).toBeInTheDocument();
    expect(screen.getByText("$0.30/min")).toBeInTheDocument();
    // "Calls" here are the billed ones, named so beside the dashboard's count of every call (which can differ).
    expect(screen.getByText("Billed calls", { selector: ".ant-statistic-title" })).toBeInTheDocument();
    expect(screen.getByText(/^Billed calls are the calls charged to the wallet, each on the day it was charged\. The dashboard's Calls counts every call/)).toBeInTheDocument();
    // Segments per component, only those with cost, named for a screen reader.
    const chart = screen.getByRole("group", { name: text.usage.perDay });
    const segments = within(chart).getAllByRole("img").map((bar) => bar.getAttribute("aria-label"));
    expect(segments).toEqual([
      "1 Mar Transport: $0.50",
      "1 Mar LLM: $0.25",
      "1 Mar Text-to-speech: $0.25",
      "3 Mar Transport: $1.00",
      "3 Mar LLM: $0.50",
      "3 Mar Text-to-speech: $0.50",
    ]);
    expect(screen.getAllByText("Speech-to-text").length).toBeGreaterThan(0);
    // Cost by agent
    const byAgent = screen.getByText(text.usage.byAgent, { selector: ".ant-card-head-title" }).closest(".ant-card") as HTMLElement;
    expect(within(byAgent).getByText("Front desk")).toBeInTheDocument();
    // The table, newest day first
    const table = screen.getByText(text.usage.table, { selector: ".ant-card-head-title" }).closest(".ant-card") as HTMLElement;
    const rows = within(table).getAllByRole("row").slice(1);
    expect(within(rows[0]!).getByText("3 Mar")).toBeInTheDocument();
  });

  it("downloads the table as CSV", async () => {
    const createObjectURL = vi.fn((_blob: Blob) => "blob:usage");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const fetch = serve();
    const { user } = renderConsole({ path: "/billing?tab=usage&from=2026-03-01&to=2026-03-03", fetch });
    await user.click(await screen.findByRole("button", { name: text.usage.download }));
    await waitFor(() => expect(createObjectURL).toHaveBeenCalled());
    const csv = await createObjectURL.mock.calls[0]![0].text();
    expect(csv.split("\r\n")[0]).toBe("date,cost_usd,calls,minutes,avg_cost_per_minute_usd,transport,speech_to_text,llm,text_to_speech,platform,other");
    expect(csv.split("\r\n")[1]).toBe("2026-03-01,1,2,5,0.2,0.5,0,0.25,0.25,0,0");
  });

  it("without a period in the URL asks for the default one", async () => {
    const fetch = serve();
    renderConsole({ path: "/billing?tab=usage", fetch });
    await screen.findByRole("group", { name: text.usage.perDay });
    const expected = defaultUsageRange("Pacific/Auckland");
    const query = fetch.to("GET", "/api/billing/usage")[0]!.query;
    expect(query.get("startDate")).toBe(expected.startDate);
    expect(query.get("endDate")).toBe(expected.endDate);
  });

  it("says when the period has no usage, and when usage fails to load", async () => {
    const fetch = serve();
    const empty = usage();
    empty.totals = { ...empty.totals, cost_usd: 0, calls: 0, seconds: 0, minutes: 0, avg_cost_per_minute_usd: null };
    empty.days = empty.days.map((day) => ({ ...day, cost_usd: 0, calls: 0 }));
    empty.agents = [];
    let fail = false;
    fetch.on("GET", "/api/billing/usage", () => (fail ? json({ detail: "Usage is down", code: "internal_error" }, 500) : json({ data: empty })));
    const first = renderConsole({ path: "/billing?tab=usage&from=2026-03-01&to=2026-03-03", fetch });
    await screen.findByText(text.usage.empty);
    expect(screen.queryByRole("group", { name: text.usage.perDay })).not.toBeInTheDocument();
    first.unmount();
    fail = true;
    renderConsole({ path: "/billing?tab=usage&from=2026-02-01&to=2026-02-03", fetch });
    await screen.findByText(text.usage.loadFailed);
    expect(screen.getByText("Usage is down")).toBeInTheDocument();
  });
});
