import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { theme } from "antd";
import type { Location } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Role } from "../../contract/roles";
import { CONTRAST_COMPONENTS, CONTRAST_TOKENS } from "../../src/providers/antd-root";
import { ConsoleRoutes } from "../../src/routes";
import { AGENT_ID, OTHER_AGENT_ID } from "./agents-fixtures";
import { listQueries, serveCalls } from "./call-logs-fixtures";
import { dashboardQueries, makeDashboard, makeTotals, serveDashboard, ZONE } from "./dashboard-fixtures";
import { ConsoleProviders, findScreen, installFetchFake, json, signedInAs, type FetchFake } from "./test-utils";

// The theme AntdRoot sets; the cards' colours are its tokens.
const token = theme.getDesignToken({ token: { ...CONTRAST_TOKENS, borderRadius: 8 }, components: CONTRAST_COMPONENTS });

function renderDashboard({ path = "/dashboard", role = "org:admin", fetch }: { path?: string; role?: Role; fetch?: FetchFake } = {}) {
  const fake = fetch ?? serveDashboard(installFetchFake());
  let location: Location | null = null;
  const user = userEvent.setup();
  render(
    <ConsoleProviders session={signedInAs(role)} path={path} onLocation={(current) => (location = current)}>
      <ConsoleRoutes />
    </ConsoleProviders>,
  );
  const current = () => location as Location | null;
  return { user, fetch: fake, search: () => current()?.search ?? "", pathname: () => current()?.pathname ?? "" };
}

/** The dashboard on screen with its figures. */
async function figuresShown() {
  await findScreen("Dashboard");
  return screen.findByRole("link", { name: /^Calls / });
}

async function pick(user: ReturnType<typeof userEvent.setup>, label: string, option: string) {
  await user.click(screen.getByRole("combobox", { name: label }));
  const options = await screen.findAllByTitle(option);
  await user.click(options.at(-1)!);
}

const card = (kpi: string) => document.querySelector<HTMLElement>(`[data-kpi="${kpi}"]`)!;
const changeOf = (kpi: string) => card(kpi).querySelector<HTMLElement>(".dash-card__change")!;

// The browser is in Los Angeles, the organisation in Berlin: a day cut in the wrong zone shows.
// vi.stubEnv puts TZ back as it was (unset included; assigning undefined would set it to the string
// "undefined", no zone at all, for the next file run in this process).
beforeEach(() => {
  vi.stubEnv("TZ", "America/Los_Angeles");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the dashboard's figures", () => {
  it("shows each key figure with its change against the previous period, coloured by whether it is good news", async () => {
    renderDashboard();
    await figuresShown();

    expect(card("calls")).toHaveTextContent("Calls120▲ 20%previous period 100");
    expect(changeOf("calls")).toHaveStyle({ color: token.colorSuccessText });
    expect(changeOf("calls")).toHaveAttribute("data-trend", "good");
    // Rates change in points.
    expect(card("answerRate")).toHaveTextContent("Answer rate80%▲ 5 ptsprevious period 75%");
    expect(changeOf("answerRate")).toHaveStyle({ color: token.colorSuccessText });
    // A dearer minute is bad news.
    expect(card("costPerMinute")).toHaveTextContent("Cost per minute$0.10/min▲ 25%");
    expect(changeOf("costPerMinute")).toHaveStyle({ color: token.colorErrorText });
    // Cost is neutral; unchanged here.
    expect(changeOf("cost")).toHaveTextContent("= no change");
    expect(changeOf("cost")).toHaveStyle({ color: token.colorTextSecondary });
    expect(card("avgDuration")).toHaveTextContent("Avg duration2:30");
    expect(card("wallet")).toHaveTextContent("Wallet$42.50$0.40 held by calls in progress$42.10 available");

    // A card says all of it to a screen reader.
    expect(screen.getByRole("link", { name: "Calls 120, up 20%, previous period 100 — open these calls" })).toBeInTheDocument();
    expect(screen.getByText("3 Mar – 1 Apr 2026, compared with 1 Feb – 2 Mar 2026")).toBeInTheDocument();
  });

  it("a fall in the success rate is red, and a rate with nothing to compare says so", async () => {
    const fetch = serveDashboard(installFetchFake(), {
      answer: () => makeDashboard({ totals: makeTotals({ success_rate: 0.6 }), previous: makeTotals({ success_rate: 0.7, answer_rate: null }) }),
    });
    renderDashboard({ fetch });
    await figuresShown();
    expect(changeOf("successRate")).toHaveTextContent("▼ 10 pts");
    expect(changeOf("successRate")).toHaveStyle({ color: token.colorErrorText });
    expect(card("answerRate")).toHaveTextContent("no comparison");
    expect(card("answerRate")).toHaveTextContent("previous period —");
  });

  it("shows the outcomes with their counts, the agents, and each chart as a table on request", async () => {
    const { user } = renderDashboard();
    await figuresShown();
    const outcomes = await screen.findByRole("region", { name: "Outcomes" });
    expect(within(outcomes).getByRole("link", { name: "Voicemail: 7 calls (5.8%) — open these calls" })).toBeInTheDocument();
    expect(within(outcomes).getAllByRole("link")).toHaveLength(6);

    const agents = screen.getByRole("region", { name: "Agents" });
    const rows = within(agents).getAllByRole("row").map((row) => row.textContent);
    expect(rows).toEqual(["AgentCallsMinutesCostAnswer rateSuccess rate", "Front desk100250.0$25.0082%80%", "Deleted agents2050.0$5.0070%—"]);

    const chart = await screen.findByRole("region", { name: "Calls and minutes per day" });
    // Every day is a link a keyboard reaches, named for a screen reader.
    const days = within(chart).getAllByRole("link");
    expect(days).toHaveLength(30);
    expect(within(chart).getByRole("link", { name: "14 Mar: 34 calls, 51.0 minutes — open these calls" })).toBeInTheDocument();
    expect(within(chart).getByText("62 calls over 30 days; the busiest was 14 Mar (34).", { exact: false })).toBeInTheDocument();

    const toggle = within(chart).getByRole("button", { name: "Show as table" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    const table = within(chart).getByRole("table");
    expect(within(table).getAllByRole("row")).toHaveLength(31);
    const fourteenth = within(table).getAllByRole("row")[12]!;
    expect([...fourteenth.querySelectorAll("th, td")].map((cell) => cell.textContent)).toEqual(["14 Mar 2026", "34", "51.0", "33", "17"]);
    expect(within(fourteenth).getByRole("link", { name: "14 Mar 2026" })).toHaveAttribute("href", expect.stringContaining("filters[0][field]=startDate"));
  });
});

describe("the dashboard's period and agent", () => {
  it("writes the period to the URL and asks for its days in the organisation's zone, not the browser's or UTC", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    // 23:30 UTC on 31 March: 16:30 that day in the browser's Los Angeles, already 1 April in Berlin.
    vi.setSystemTime(new Date("2026-03-31T23:30:00.000Z"));
    const { user, fetch, search } = renderDashboard();
    await figuresShown();
    // The default, the last 30 days, is the server's own default (cut in the organisation's zone).
    expect(dashboardQueries(fetch)).toEqual([{}]);

    await pick(user, "Period", "Last 7 days");
    await waitFor(() => expect(dashboardQueries(fetch).at(-1)).toEqual({ startDate: "2026-03-26", endDate: "2026-04-01" }));
    expect(search()).toBe("?period=7d");

    await pick(user, "Period", "This month");
    await waitFor(() => expect(dashboardQueries(fetch).at(-1)).toEqual({ startDate: "2026-04-01", endDate: "2026-04-01" }));
    expect(search()).toBe("?period=month");

    await pick(user, "Period", "Last 90 days");
    await waitFor(() => expect(dashboardQueries(fetch).at(-1)).toEqual({ startDate: "2026-01-02", endDate: "2026-04-01" }));
    await screen.findByText("2 Jan – 1 Apr 2026", { exact: false });

    // A custom range starts from the days shown.
    await pick(user, "Period", "Custom range");
    await waitFor(() => expect(search()).toBe("?period=custom&startDate=2026-01-02&endDate=2026-04-01"));
    const from = await screen.findByPlaceholderText("From");
    await user.clear(from);
    await user.type(from, "2026-03-01{Enter}");
    const to = screen.getByPlaceholderText("To");
    await user.clear(to);
    await user.type(to, "2026-03-15{Enter}");
    await waitFor(() => expect(dashboardQueries(fetch).at(-1)).toEqual({ startDate: "2026-03-01", endDate: "2026-03-15" }));
    expect(search()).toBe("?period=custom&startDate=2026-03-01&endDate=2026-03-15");

    await pick(user, "Agent", "Sales line");
    await waitFor(() => expect(dashboardQueries(fetch).at(-1)).toEqual({ startDate: "2026-03-01", endDate: "2026-03-15", agentId: OTHER_AGENT_ID }));
    expect(search()).toBe(`?period=custom&startDate=2026-03-01&endDate=2026-03-15&agentId=${OTHER_AGENT_ID}`);
  });

  it("reads the view from a link, waiting for the organisation's zone before asking for a preset", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-31T23:30:00.000Z"));
    const fetch = installFetchFake();
    let answerZone!: () => void;
    const zoneAnswered = new Promise<void>((resolve) => (answerZone = resolve));
    serveDashboard(fetch);
    fetch.on("GET", "/api/organization/settings", async () => {
      await zoneAnswered;
      return json({ data: { timezone: ZONE } });
    });
    renderDashboard({ path: `/dashboard?period=7d&agentId=${AGENT_ID}`, fetch });
    await findScreen("Dashboard");
    expect(screen.getByLabelText("Loading the dashboard")).toBeInTheDocument();
    expect(dashboardQueries(fetch)).toEqual([]);
    answerZone();
    await figuresShown();
    expect(dashboardQueries(fetch)).toEqual([{ startDate: "2026-03-26", endDate: "2026-04-01", agentId: AGENT_ID }]);
    expect(screen.getByTitle("Last 7 days")).toBeInTheDocument();
    await screen.findByTitle("Front desk");
  });
});

describe("the dashboard's links into Call Logs", () => {
  const period = { startDate: "2026-03-03", endDate: "2026-04-01", timezone: ZONE };
  const cases: Array<{ what: string; link: string; expected: Record<string, string>; path?: string }> = [
    { what: "a key figure (the period, its zone and the agent)", path: `/dashboard?agentId=${AGENT_ID}`, link: "Calls 120, up 20%, previous period 100 — open these calls", expected: { ...period, agentId: AGENT_ID } },
    { what: "the success rate (the calls that passed)", link: "Success rate 75%, up 5 pts, previous period 70% — open the calls that passed", expected: { ...period, success: "pass" } },
    { what: "the answer rate (the answered calls)", link: "Answer rate 80%, up 5 pts, previous period 75% — open the answered calls", expected: { ...period, outcome: "answered" } },
    { what: "a day of the chart (that day)", link: "14 Mar: 34 calls, 51.0 minutes — open these calls", expected: { startDate: "2026-03-14", endDate: "2026-03-14", timezone: ZONE } },
    { what: "a day of the cost chart (that day, for the agent)", path: `/dashboard?agentId=${AGENT_ID}`, link: "14 Mar: $5.10, 34 calls — open these calls", expected: { startDate: "2026-03-14", endDate: "2026-03-14", timezone: ZONE, agentId: AGENT_ID } },
    { what: "an outcome", link: "Voicemail: 7 calls (5.8%) — open these calls", expected: { ...period, outcome: "voicemail" } },
    { what: "an agent", link: "Front desk: 100 calls — open these calls", expected: { ...period, agentId: AGENT_ID } },
    { what: "the wallet's held amount (the calls in progress, any day)", link: "$0.40 held by calls in progress — open these calls", expected: { outcome: "in_progress" } },
  ];

  it.each(cases)("$what opens Call Logs with exactly its filters", async ({ link, expected, path }) => {
    const fetch = serveCalls(serveDashboard(installFetchFake()));
    const { user, pathname } = renderDashboard({ fetch, ...(path ? { path } : {}) });
    await figuresShown();
    await user.click(await screen.findByRole("link", { name: link }));
    await findScreen("Call Logs");
    expect(pathname()).toBe("/call-logs");
    await waitFor(() => expect(listQueries(fetch)).toHaveLength(1));
    expect(listQueries(fetch)[0]).toEqual({ page: "1", limit: "20", ...expected });
    if (expected.timezone) expect(screen.getByText(`Days in ${ZONE}`)).toBeInTheDocument();
  });
});

describe("the dashboard's states", () => {
  it("an organisation without agents is asked to create its first", async () => {
    const empty = makeTotals({ calls: 0, minutes: 0, cost: 0, avg_duration_seconds: null, answer_rate: null, success_rate: null, cost_per_minute: null });
    const fetch = serveDashboard(installFetchFake(), { answer: () => makeDashboard({ totals: empty, previous: empty, agents: [], setup: { agents: 0, calls_ever: false } }) });
    renderDashboard({ fetch });
    await findScreen("Dashboard");
    const create = await screen.findByRole("link", { name: "Create your first agent" });
    expect(create).toHaveAttribute("href", "/agent/new");
    expect(screen.queryByRole("link", { name: /^Calls / })).toBeNull();
    expect(screen.queryByRole("combobox", { name: "Period" })).toBeNull();
  });

  it("an organisation with agents but no call yet is asked to make a test call with its newest agent", async () => {
    const empty = makeTotals({ calls: 0, minutes: 0, cost: 0, avg_duration_seconds: null, answer_rate: null, success_rate: null, cost_per_minute: null });
    const fetch = serveDashboard(installFetchFake(), { answer: () => makeDashboard({ totals: empty, previous: empty, agents: [], setup: { agents: 2, calls_ever: false } }) });
    const { user, pathname } = renderDashboard({ fetch });
    const testCall = await screen.findByRole("link", { name: "Make a test call" });
    await waitFor(() => expect(testCall).toHaveAttribute("href", `/agent/${AGENT_ID}`));
    fetch.on("GET", `/api/agent/${AGENT_ID}`, () => json({ detail: "not here", code: "not_found" }, 404));
    await user.click(testCall);
    await waitFor(() => expect(pathname()).toBe(`/agent/${AGENT_ID}`));
  });

  it("a period without calls says so, and still compares with the period before", async () => {
    const none = makeTotals({ calls: 0, minutes: 0, cost: 0, avg_duration_seconds: null, answer_rate: null, success_rate: null, cost_per_minute: null, ended: 0, answered: 0, evaluated: 0, successful: 0, duration_seconds: 0 });
    const fetch = serveDashboard(installFetchFake(), {
      answer: () =>
        makeDashboard({
          totals: none,
          outcomes: { answered: 0, busy: 0, no_answer: 0, voicemail: 0, failed: 0, in_progress: 0 },
          series: makeDashboard().series.map((day) => ({ ...day, calls: 0, minutes: 0, cost: 0, answered: 0, successful: 0 })),
          agents: [],
        }),
    });
    renderDashboard({ fetch });
    await figuresShown();
    expect(screen.getByText("No calls in this period.")).toBeInTheDocument();
    expect(card("calls")).toHaveTextContent("Calls0▼ 100%previous period 100");
    expect(changeOf("calls")).toHaveStyle({ color: token.colorErrorText });
    expect(screen.queryByRole("region", { name: "Calls and minutes per day" })).toBeNull();
  });

  it("says when the figures could not be loaded, with the server's detail, and tries again on Retry", async () => {
    const fetch = serveDashboard(installFetchFake());
    fetch.on("GET", "/api/dashboard/", () => json({ detail: "agentId must be the id (a UUID) of one of the organisation's agents", code: "bad_request" }, 400));
    const { user } = renderDashboard({ fetch });
    await screen.findByText("The dashboard could not be loaded");
    expect(screen.getByText("agentId must be the id (a UUID) of one of the organisation's agents")).toBeInTheDocument();

    serveDashboard(fetch);
    await user.click(screen.getByRole("button", { name: "Retry" }));
    await figuresShown();
    expect(screen.queryByText("The dashboard could not be loaded")).toBeNull();
  });
});

describe("the organisation's time zone", () => {
  it("an admin changes it, and the figures are asked for again", async () => {
    const { user, fetch } = renderDashboard();
    await figuresShown();
    const zone = await screen.findByRole("combobox", { name: "Organization time zone" });
    const asked = dashboardQueries(fetch).length;
    await user.type(zone, "Tokyo");
    await user.click((await screen.findAllByTitle("Asia/Tokyo")).at(-1)!);
    await waitFor(() => expect(fetch.to("PATCH", "/api/organization/settings")).toHaveLength(1));
    expect(fetch.to("PATCH", "/api/organization/settings")[0]!.body).toEqual({ timezone: "Asia/Tokyo" });
    await waitFor(() => expect(dashboardQueries(fetch).length).toBeGreaterThan(asked));
    await screen.findByText("Days are now counted in Asia/Tokyo");
    await waitFor(() => expect(decodeURIComponent(screen.getByRole("link", { name: /^Calls / }).getAttribute("href")!)).toContain("Asia/Tokyo"));
  });

  it("a member reads it but cannot change it", async () => {
    renderDashboard({ role: "org:member" });
    await figuresShown();
    expect(screen.getByText(`Times in ${ZONE}`)).toBeInTheDocument();
    expect(screen.queryByRole("combobox", { name: "Organization time zone" })).toBeNull();
  });
});
