import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Location } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { ConsoleRoutes } from "../../src/routes";
import type { SuccessRubric } from "../../src/components/calls/success-evaluation";
import { AGENT_ID, makeAgent } from "./agents-fixtures";
import { CALL_ID, listItem, listQueries, makeCall, OTHER_CALL_ID, serveCalls } from "./call-logs-fixtures";
import { failingList } from "./fetch-fake";
import { asPhone, ConsoleProviders, FakeSession, findScreen, installFetchFake, json, retryFailedList } from "./test-utils";

function renderCallLogs(path = "/call-logs", fetch = serveCalls(installFetchFake())) {
  let location: Location | null = null;
  const user = userEvent.setup();
  render(
    <ConsoleProviders session={new FakeSession()} path={path} onLocation={(current) => (location = current)}>
      <ConsoleRoutes />
    </ConsoleProviders>,
  );
  const current = () => location as Location | null;
  return { user, fetch, search: () => decodeURIComponent(current()?.search ?? ""), pathname: () => current()?.pathname };
}

async function listShown() {
  await findScreen("Call Logs");
  return screen.findByRole("button", { name: `Open call ${CALL_ID}` });
}

async function pick(user: ReturnType<typeof userEvent.setup>, label: string, option: string) {
  await user.click(screen.getByRole("combobox", { name: label }));
  const options = await screen.findAllByTitle(option);
  await user.click(options.at(-1)!);
}

const lastQuery = (fetch: ReturnType<typeof installFetchFake>) => listQueries(fetch).at(-1);

describe("the Call Logs list", () => {
  it("shows each call's started time, agent, customer, type, status, duration, cost, ended reason, success and a Sandbox tag", async () => {
    const fetch = serveCalls(installFetchFake(), [makeCall({ cost: 0.5 }), makeCall({ id: OTHER_CALL_ID, is_sandbox: false, customer_name: "<b>Bobby</b>", agent_name: null, type: "inbound", status: "in-progress", success_evaluation: null, duration_seconds: 3725 })], { total: 12345, total_is_estimate: true });
    renderCallLogs("/call-logs", fetch);
    await listShown();
    expect(listQueries(fetch)).toEqual([{ page: "1", limit: "20" }]);

    const [, first, second] = screen.getAllByRole("row");
    const cells = within(first!).getAllByRole("cell").map((cell) => cell.textContent);
    expect(cells).toEqual([
      expect.stringContaining("Sandbox"),
      "Front desk",
      "Grace Hopper+14155550100",
      "outbound",
      "ended",
      "Answered",
      "1:15",
      "$0.50",
      "assistant-ended-call",
      "Pass",
    ]);
    // User text stays text: no element is made from it.
    expect(within(second!).getByText("<b>Bobby</b>")).toBeInTheDocument();
    expect(within(second!).queryByText("Sandbox")).toBeNull();
    expect(within(second!).getByText("Deleted agent")).toBeInTheDocument();
    expect(within(second!).getByText("1:02:05")).toBeInTheDocument();
    expect(screen.getByText("about 12,345 calls")).toBeInTheDocument();
  });

  it("on a phone, shows whose call, the agent, duration, cost, status and outcome under its start time, in sight, not in columns off to the right", async () => {
    const restore = asPhone();
    try {
      const fetch = serveCalls(installFetchFake(), [makeCall(), makeCall({ id: OTHER_CALL_ID, status: "in-progress", outcome: "in_progress" })]);
      renderCallLogs("/call-logs", fetch);
      await listShown();
      const headers = screen.getAllByRole("columnheader").map((header) => header.textContent);
      expect(headers).not.toContain("Status");
      expect(headers).not.toContain("Outcome");
      const [, first, second] = screen.getAllByRole("row");
      const [started] = within(first!).getAllByRole("cell");
      expect(within(started!).getByText("ended")).toBeInTheDocument();
      expect(within(started!).getByText("Answered")).toBeInTheDocument();
      expect(within(within(second!).getAllByRole("cell")[0]!).getByText("in-progress")).toBeInTheDocument();
      // Whose call it was, with which agent, how long and what it cost: one column, nothing to scroll sideways for.
      expect(within(first!).getAllByRole("cell")).toHaveLength(1);
      expect(within(started!).getByText("Grace Hopper · +14155550100")).toBeInTheDocument();
      expect(within(started!).getByText("Front desk · 1:15 · $0.13")).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it("shows each success evaluation in its agent's rubric's one readable form", async () => {
    const agent = (n: number, rubric: SuccessRubric) => {
      const base = makeAgent();
      return makeAgent({ id: `00000000-0000-4000-8000-00000000000${n}`, agent_name: `Agent ${n}`, analysis_plan: { ...base.analysis_plan, success_evaluation_rubric: rubric } });
    };
    const agents = [agent(1, "PassFail"), agent(2, "PercentageScale"), agent(3, "NumericScale"), agent(4, "DescriptiveScale"), agent(5, "LikertScale"), agent(6, "Checklist")];
    const checklist = "All checklist items were completed: the caller confirmed the order and the delivery date.";
    const answers = ["false", "25", "8", "good", "Strongly Disagree", checklist];
    const calls = answers.map((answer, index) =>
      makeCall({ id: `10000000-0000-4000-8000-00000000000${index}`, agent_id: agents[index]!.id, agent_name: agents[index]!.agent_name, success_evaluation: answer }),
    );
    // A deleted agent's call: no rubric known, the answer's own shape decides.
    calls.push(makeCall({ id: "10000000-0000-4000-8000-000000000009", agent_id: null, agent_name: null, success_evaluation: "75" }));
    const fetch = serveCalls(installFetchFake(), calls, { agents });
    renderCallLogs("/call-logs", fetch);
    await findScreen("Call Logs");
    await screen.findByRole("button", { name: `Open call ${calls[0]!.id}` });

    const successCells = () => screen.getAllByRole("row").slice(1).map((row) => within(row).getAllByRole("cell").at(-1)!);
    await waitFor(() => expect(successCells()[1]).toHaveTextContent("25%"));
    expect(successCells().map((cell) => cell.textContent)).toEqual(["Fail", "25%", "8/10", "Good", "Strongly disagree", checklist, "75%"]);
    // Pass/fail and scores are tags; free text stays text, on one line.
    expect(successCells()[0]!.querySelector(".ant-tag-red")).not.toBeNull();
    expect(successCells()[2]!.querySelector(".ant-tag-green")).not.toBeNull();
    expect(successCells()[5]!.querySelector(".ant-tag")).toBeNull();
    expect(successCells()[5]!.querySelector(".ant-typography-ellipsis")).not.toBeNull();
  });

  it("says when there are no calls, and shows the server's detail when the list fails", async () => {
    const fetch = installFetchFake();
    serveCalls(fetch, []);
    renderCallLogs("/call-logs", fetch);
    await findScreen("Call Logs");
    await screen.findByText("No calls yet");

    fetch.on("GET", "/api/call/", () => json({ detail: "startDate must be YYYY-MM-DD", code: "bad_request" }, 400));
    await userEvent.setup().click(screen.getByRole("button", { name: "More filters" }));
    await userEvent.setup().click(screen.getByRole("combobox", { name: "Type" }));
    await userEvent.setup().click((await screen.findAllByTitle("web")).at(-1)!);
    await screen.findByText("The calls could not be loaded");
    expect(screen.getByText("startDate must be YYYY-MM-DD")).toBeInTheDocument();
  });

  it("claims no calls while the list fails or is asked again, and Retry shows the calls once they load", async () => {
    const fetch = serveCalls(installFetchFake());
    const list = failingList(() => json({ data: [listItem(makeCall())], total: 1, page: 1, limit: 20 }));
    fetch.on("GET", "/api/call/", list.respond);
    const { user } = renderCallLogs("/call-logs", fetch);
    // Nothing is known about the calls: "No calls yet" would be false, and is while the Retry is on its way.
    await retryFailedList(list, user, { title: "The calls could not be loaded", empty: "No calls yet", shown: listShown });
  });
});

describe("the Call Logs filters", () => {
  it("sends search only after a pause, and the agent, status and type picked, keeping them in the URL", async () => {
    const { user, fetch, search } = renderCallLogs();
    await listShown();

    await user.type(screen.getByRole("searchbox", { name: "Search calls" }), "refund");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ search: "refund" }));
    // Debounced: no request for "r", "re", …
    expect(listQueries(fetch).filter((query) => query.search)).toHaveLength(1);

    await pick(user, "Agent", "Front desk");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ agentId: AGENT_ID }));
    await pick(user, "Status", "ended");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ status: "ended" }));
    await user.click(screen.getByRole("button", { name: "More filters" }));
    await pick(user, "Type", "inbound");
    await waitFor(() =>
      expect(lastQuery(fetch)).toEqual({ page: "1", limit: "20", search: "refund", agentId: AGENT_ID, status: "ended", type: "inbound" }),
    );
    for (const field of ["search", "agentId", "status", "type"]) {
      await waitFor(() => expect(search()).toContain(`[field]=${field}`));
    }

    await user.click(screen.getByRole("button", { name: "Clear filters" }));
    await waitFor(() => expect(lastQuery(fetch)).toEqual({ page: "1", limit: "20" }));
    expect(screen.getByRole("searchbox", { name: "Search calls" })).toHaveValue("");
    await waitFor(() => expect(search()).not.toContain("filters"));
  });

  it("sends the ended reason, success, duration and cost ranges typed", async () => {
    const { user, fetch, search } = renderCallLogs();
    await listShown();
    await user.click(screen.getByRole("button", { name: "More filters" }));
    await user.type(screen.getByRole("combobox", { name: "Ended reason" }), "voicemail");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ endedReason: "voicemail" }));
    await user.type(screen.getByRole("combobox", { name: "Evaluation answer" }), "false");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ successEvaluation: "false" }));
    await user.type(screen.getByRole("spinbutton", { name: "Min duration (s)" }), "30");
    await user.type(screen.getByRole("spinbutton", { name: "Max duration (s)" }), "600");
    await user.type(screen.getByRole("spinbutton", { name: "Min cost ($)" }), "0.05");
    await user.type(screen.getByRole("spinbutton", { name: "Max cost ($)" }), "2");
    await waitFor(() =>
      expect(lastQuery(fetch)).toEqual({
        page: "1",
        limit: "20",
        endedReason: "voicemail",
        successEvaluation: "false",
        durationMin: "30",
        durationMax: "600",
        costMin: "0.05",
        costMax: "2",
      }),
    );
    await waitFor(() => expect(search()).toContain("[field]=costMax&filters[5][operator]=lte&filters[5][value]=2"));
  }, 40_000);

  it("keeps the rarely used filters behind 'More filters', which opens by itself when one of them is set", async () => {
    const { user } = renderCallLogs();
    await listShown();
    const more = screen.getByRole("button", { name: "More filters" });
    expect(more).toHaveAttribute("aria-expanded", "false");
    // One row: search, dates, agent and status; type, ended reason, success, duration and cost are hidden.
    expect(screen.getByRole("searchbox", { name: "Search calls" })).toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Agent" })).toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Status" })).toBeInTheDocument();
    for (const name of ["Outcome", "Success", "Type", "Ended reason", "Evaluation answer"]) expect(screen.queryByRole("combobox", { name })).toBeNull();
    expect(screen.queryByRole("spinbutton", { name: "Min cost ($)" })).toBeNull();
    await user.click(more);
    expect(more).toHaveAttribute("aria-expanded", "true");
    // (getByRole finds only what is not hidden)
    for (const name of ["Outcome", "Success", "Type", "Ended reason", "Evaluation answer"]) expect(screen.getByRole("combobox", { name })).toBeInTheDocument();
    expect(screen.getByRole("spinbutton", { name: "Min cost ($)" })).toBeInTheDocument();
    await user.click(more);
    expect(screen.queryByRole("combobox", { name: "Type" })).toBeNull();
  });

  it("opens 'More filters' for a link that sets one of them, and counts them on the button", async () => {
    renderCallLogs("/call-logs?filters[0][field]=type&filters[0][operator]=eq&filters[0][value]=inbound&filters[1][field]=costMax&filters[1][operator]=lte&filters[1][value]=2");
    await listShown();
    const more = screen.getByRole("button", { name: "More filters 2" });
    expect(more).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByRole("combobox", { name: "Type" })).toBeInTheDocument();
    expect(screen.getByTitle("inbound")).toBeInTheDocument();
    expect(screen.getByRole("spinbutton", { name: "Max cost ($)" })).toHaveValue("2.00");
  });

  it("sends a picked date range as zero-padded YYYY-MM-DD", async () => {
    const { user, fetch, search } = renderCallLogs();
    await listShown();
    await user.click(screen.getByPlaceholderText("From date"));
    await user.type(screen.getByPlaceholderText("From date"), "2026-03-05{Enter}");
    await user.type(screen.getByPlaceholderText("To date"), "2026-03-09{Enter}");
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ startDate: "2026-03-05", endDate: "2026-03-09" }));
    expect(search()).toContain("[field]=startDate");
  });
});

describe("the Call Logs URL", () => {
  it("reproduces a linked view: page, filters and sort are requested and shown", async () => {
    const link =
      "/call-logs?currentPage=3&pageSize=20" +
      "&filters[0][field]=status&filters[0][operator]=eq&filters[0][value]=ended" +
      "&filters[1][field]=startDate&filters[1][operator]=gte&filters[1][value]=2026-03-05" +
      "&filters[2][field]=search&filters[2][operator]=contains&filters[2][value]=refund" +
      "&sorters[0][field]=cost&sorters[0][order]=asc";
    const fetch = serveCalls(installFetchFake(), [makeCall()], { total: 100 });
    renderCallLogs(link, fetch);
    await listShown();
    expect(listQueries(fetch)[0]).toEqual({
      page: "3",
      limit: "20",
      status: "ended",
      startDate: "2026-03-05",
      search: "refund",
      sortBy: "cost",
      sortOrder: "asc",
    });
    expect(screen.getByRole("searchbox", { name: "Search calls" })).toHaveValue("refund");
    expect(screen.getByPlaceholderText("From date")).toHaveValue("2026-03-05");
    expect(screen.getByTitle("ended")).toBeInTheDocument();
    // (jsdom matches no media query, so antd shows its small "3/5" pager)
    expect(screen.getByTitle("3/5")).toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: /Cost/ })).toHaveAttribute("aria-sort", "ascending");
  });

  it("sorts by started, duration and cost on the server, and pages on the server", async () => {
    const fetch = serveCalls(installFetchFake(), [makeCall()], { total: 100 });
    const { user, search } = renderCallLogs("/call-logs", fetch);
    await listShown();
    await user.click(screen.getByText("Duration"));
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ sortBy: "duration", sortOrder: "asc" }));
    await user.click(screen.getByText("Duration"));
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ sortBy: "duration", sortOrder: "desc" }));
    await user.click(screen.getByText("Started"));
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ sortBy: "startedAt", sortOrder: "asc" }));
    await user.click(within(screen.getByTitle("Next Page")).getByRole("button"));
    await waitFor(() => expect(lastQuery(fetch)).toMatchObject({ page: "2", sortBy: "startedAt" }));
    expect(search()).toContain("currentPage=2");
    expect(search()).toContain("sorters[0][field]=started_at");
  });
});

describe("the Call Logs filters the dashboard links with: outcome, success, time zone", () => {
  it("sends the outcome and the success picked in 'More filters', by their contract values", async () => {
    const { user, fetch, search } = renderCallLogs();
    await listShown();
    await user.click(screen.getByRole("button", { name: "More filters" }));
    await pick(user, "Outcome", "No answer");
    await waitFor(() => expect(lastQuery(fetch)).toEqual({ page: "1", limit: "20", outcome: "no_answer" }));
    await pick(user, "Success", "Fail");
    await waitFor(() => expect(lastQuery(fetch)).toEqual({ page: "1", limit: "20", outcome: "no_answer", success: "fail" }));
    await waitFor(() => expect(search()).toContain("[field]=success&filters[1][operator]=eq&filters[1][value]=fail"));
  });

  it("reads a linked time zone, outcome and success, shows the zone beside the dates, and clears the zone back to UTC days", async () => {
    const link =
      "/call-logs?filters[0][field]=startDate&filters[0][operator]=gte&filters[0][value]=2026-03-01" +
      "&filters[1][field]=endDate&filters[1][operator]=lte&filters[1][value]=2026-03-31" +
      "&filters[2][field]=timezone&filters[2][operator]=eq&filters[2][value]=Europe%2FBerlin" +
      "&filters[3][field]=outcome&filters[3][operator]=eq&filters[3][value]=voicemail" +
      "&filters[4][field]=success&filters[4][operator]=eq&filters[4][value]=pass";
    const { user, fetch } = renderCallLogs(link);
    await listShown();
    expect(listQueries(fetch)[0]).toEqual({
      page: "1",
      limit: "20",
      startDate: "2026-03-01",
      endDate: "2026-03-31",
      timezone: "Europe/Berlin",
      outcome: "voicemail",
      success: "pass",
    });
    expect(screen.getByText("Days in Europe/Berlin")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "More filters 2" })).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByTitle("Voicemail")).toBeInTheDocument();
    expect(screen.getByTitle("Pass")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Stop reading days in Europe/Berlin (use UTC)" }));
    await waitFor(() => expect(lastQuery(fetch)).not.toHaveProperty("timezone"));
    expect(lastQuery(fetch)).toMatchObject({ startDate: "2026-03-01", endDate: "2026-03-31", outcome: "voicemail" });
    expect(screen.queryByText("Days in Europe/Berlin")).toBeNull();
  });

  it("sends a linked UTC zone but shows no note for it (the days the list reads anyway)", async () => {
    const { fetch } = renderCallLogs("/call-logs?filters[0][field]=startDate&filters[0][operator]=gte&filters[0][value]=2026-03-01&filters[1][field]=timezone&filters[1][operator]=eq&filters[1][value]=UTC");
    await listShown();
    expect(listQueries(fetch)[0]).toEqual({ page: "1", limit: "20", startDate: "2026-03-01", timezone: "UTC" });
    expect(screen.queryByText("Days in UTC")).toBeNull();
  });

  it("shows each call's outcome as a tag", async () => {
    const calls = [
      makeCall(),
      makeCall({ id: OTHER_CALL_ID, ended_reason: "customer-did-not-answer", duration_seconds: 0, success_evaluation: null }),
    ];
    renderCallLogs("/call-logs", serveCalls(installFetchFake(), calls));
    await listShown();
    const outcomeCells = () => screen.getAllByRole("row").slice(1).map((row) => within(row).getAllByRole("cell")[5]!);
    expect(outcomeCells().map((cell) => cell.textContent)).toEqual(["Answered", "No answer"]);
    expect(outcomeCells()[0]!.querySelector(".ant-tag-green")).not.toBeNull();
  });
});

describe("the call drawer", () => {
  it("opens from a row, keeps ?call= in the URL, and shows the transcript, recording, summary, data and cost", async () => {
    const call = makeCall({ messages: [...makeCall().messages, { role: "assistant", message: "<img src=x onerror=alert(1)>", time: 3, seconds_from_start: 70 }] });
    const fetch = serveCalls(installFetchFake(), [call]);
    const { user, search } = renderCallLogs("/call-logs", fetch);
    const open = await listShown();
    await user.click(open);
    const drawer = await screen.findByRole("dialog");
    await waitFor(() => expect(search()).toContain(`call=${CALL_ID}`));

    const transcript = await within(drawer).findByRole("list", { name: "Transcript" });
    const turns = within(transcript).getAllByRole("listitem");
    expect(turns.map((turn) => turn.textContent)).toEqual([
      "Assistant 00:00Hello! How are you doing today?",
      "Customer 01:05I need to move my appointment.",
      "Assistant 01:10<img src=x onerror=alert(1)>",
    ]);
    expect(turns[1]).toHaveClass("call-transcript__turn--user");
    expect(drawer.querySelector("img")).toBeNull();

    const audio = within(drawer).getByRole("region", { name: "Recording" }).querySelector("audio");
    expect(audio).toHaveAttribute("src", "https://recordings.example.com/call.wav");
    expect(audio).toHaveAttribute("controls");
    expect(within(drawer).getByText("The caller asked to move an appointment.")).toBeInTheDocument();
    const data = within(drawer).getByRole("region", { name: "Structured data" });
    expect(within(data).getByText("new_slot")).toBeInTheDocument();
    expect(within(data).getByText("Friday 10:00")).toBeInTheDocument();
    expect(within(data).getByText(/"tone": "calm"/)).toBeInTheDocument();
    const cost = within(drawer).getByRole("region", { name: "Cost breakdown" });
    expect(within(cost).getByText("llm")).toBeInTheDocument();
    expect(within(cost).getByText("$0.03")).toBeInTheDocument();
    expect(within(drawer).getByRole("region", { name: "Success evaluation" })).toHaveTextContent("Pass");
    expect(within(drawer).getByText("Sandbox")).toBeInTheDocument();

    await user.click(within(drawer).getByRole("button", { name: "Copy call ID" }));
    expect(await navigator.clipboard.readText()).toBe(CALL_ID);
    await screen.findByText("Call ID copied");

    await user.click(within(drawer).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(search()).not.toContain("call="));
  });

  it("names the call's phone number and campaign, each a link to its screen, not a bare id", async () => {
    const NUMBER = "3b0b8f3e-2c1d-4e5f-8a9b-0c1d2e3f4a5b";
    const CAMPAIGN = "5c2d9e4f-3a1b-4c6d-9e8f-1a2b3c4d5e6f";
    const fetch = serveCalls(installFetchFake(), [makeCall({ phone_number_id: NUMBER, campaign_id: CAMPAIGN })]);
    fetch.on("GET", `/api/phonenumber/${NUMBER}`, () => json({ data: { id: NUMBER, name: "Front line", number: "+14155550142" } }));
    fetch.on("GET", `/api/campaign/${CAMPAIGN}`, () => json({ data: { id: CAMPAIGN, name: "Spring renewals" } }));
    const { user } = renderCallLogs("/call-logs", fetch);
    await user.click(await listShown());
    const drawer = await screen.findByRole("dialog");
    const campaign = await within(drawer).findByRole("link", { name: "Spring renewals: open the campaign's calls" });
    expect(campaign).toHaveAttribute("href", `/campaigns/${CAMPAIGN}/calls`);
    const number = within(drawer).getByRole("link", { name: /^Front line · \+1 \(415\) 555-0142/ });
    expect(number).toHaveAttribute("href", "/phone-numbers");
    expect(within(drawer).queryByText(NUMBER)).toBeNull();
    expect(within(drawer).queryByText(CAMPAIGN)).toBeNull();
  });

  it("shows a deleted campaign's id, said to be removed", async () => {
    const CAMPAIGN = "5c2d9e4f-3a1b-4c6d-9e8f-1a2b3c4d5e6f";
    const fetch = serveCalls(installFetchFake(), [makeCall({ campaign_id: CAMPAIGN })]);
    fetch.on("GET", `/api/campaign/${CAMPAIGN}`, () => json({ detail: "Campaign not found", code: "not_found" }, 404));
    const { user } = renderCallLogs("/call-logs", fetch);
    await user.click(await listShown());
    const drawer = await screen.findByRole("dialog");
    expect(await within(drawer).findByText(`${CAMPAIGN} (removed)`)).toBeInTheDocument();
  });

  it("opens from a deep link and says when there is no recording", async () => {
    const call = makeCall({ recording_url: null, messages: [], transcript: null, structured_data: null });
    const fetch = serveCalls(installFetchFake(), [call]);
    renderCallLogs(`/call-logs?call=${CALL_ID}`, fetch);
    const drawer = await screen.findByRole("dialog");
    await within(drawer).findByText("No recording");
    expect(within(drawer).getByText("No transcript")).toBeInTheDocument();
    expect(within(drawer).getByText("No structured data")).toBeInTheDocument();
    expect(fetch.to("GET", `/api/call/${CALL_ID}`)).toHaveLength(1);
  });
});

describe("the Call Logs export", () => {
  it("asks GET /call/export with the same filters and the token, shows progress, and saves the CSV", async () => {
    const fetch = serveCalls(installFetchFake());
    const createObjectURL = vi.fn((_blob: Blob) => "blob:calls");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    let push!: (text: string | null) => void;
    fetch.on("GET", "/api/call/export", () => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          push = (text) => (text === null ? controller.close() : controller.enqueue(new TextEncoder().encode(text)));
        },
      });
      return new Response(stream, { headers: { "Content-Type": "text/csv", "x-total-count": "4" } });
    });
    const link = "/call-logs?filters[0][field]=status&filters[0][operator]=eq&filters[0][value]=ended&sorters[0][field]=cost&sorters[0][order]=desc";
    const { user } = renderCallLogs(link, fetch);
    await listShown();
    await user.click(screen.getByRole("button", { name: /Export CSV/ }));

    await waitFor(() => expect(fetch.to("GET", "/api/call/export")).toHaveLength(1));
    const [request] = fetch.to("GET", "/api/call/export");
    expect(Object.fromEntries(request!.query)).toEqual({ status: "ended", sortBy: "cost", sortOrder: "desc" });
    expect(request!.headers.get("Authorization")).toBe("Bearer token-1");

    push("id,started_at\n1,a\n2,b\n");
    await screen.findByText("2/4");
    push('3,"two\nlines"\n4,d');
    push(null);
    await screen.findByText("Exported 4 calls");
    expect(click).toHaveBeenCalled();
    expect(await createObjectURL.mock.calls[0]![0].text()).toBe('id,started_at\n1,a\n2,b\n3,"two\nlines"\n4,d');
  });

  it("shows the server's detail when the export fails", async () => {
    const fetch = serveCalls(installFetchFake());
    fetch.on("GET", "/api/call/export", () => json({ detail: "Exports are limited to 1,000,000 calls", code: "too_large" }, 413));
    const { user } = renderCallLogs("/call-logs", fetch);
    await listShown();
    await user.click(screen.getByRole("button", { name: /Export CSV/ }));
    await screen.findByText("Exports are limited to 1,000,000 calls");
  });
});
