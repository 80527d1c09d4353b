import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CAMPAIGN_ID, makeCampaign, makeCounts, OTHER_CAMPAIGN_ID, queriesTo, serveCampaigns } from "./campaigns-fixtures";
import { failingList } from "./fetch-fake";
import { asPhone, findDialog, findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs, waitForPath } from "./test-utils";

const RUNNING = makeCampaign({
  status: "running",
  counts: makeCounts({ answered: 40, busy: 5, no_answer: 5, queued: 45, in_progress: 2, needs_timezone: 3 }),
  started_at: "2026-03-02T09:00:00.000Z",
});
const DRAFT = makeCampaign({ id: OTHER_CAMPAIGN_ID, name: "Winback", status: "draft", counts: makeCounts(), agent_id: null, agent_name: null, phone_number_id: null, phone_number: null });

function row(name: string) {
  return screen.getByRole("link", { name }).closest("tr") as HTMLElement;
}

const buttonsOf = (name: string) =>
  within(row(name))
    .getAllByRole("button")
    .map((button) => button.getAttribute("aria-label") ?? button.textContent);

async function openList(role: "org:admin" | "org:member" = "org:admin", campaigns = [RUNNING, DRAFT]) {
  const fetch = installFetchFake();
  const state = serveCampaigns(fetch, { campaigns });
  const rendered = renderConsole({ path: "/campaigns", fetch, session: signedInAs(role) });
  await findScreen("Campaigns");
  await screen.findByRole("link", { name: campaigns[0]!.name });
  return { ...rendered, state };
}

describe("the campaign list", () => {
  it("shows each campaign's state, progress, counts and next window", async () => {
    const inTwoHours = new Date(Date.now() + 2 * 3_600_000 + 60_000).toISOString();
    await openList("org:admin", [{ ...RUNNING, status: "paused", pause_code: "wallet", pause_reason: "Your wallet balance is too low: top up to resume.", next_window_at: inTwoHours }, DRAFT]);

    const running = row("Spring renewals");
    expect(within(running).getByText("Paused")).toBeInTheDocument();
    expect(within(running).getAllByRole("cell")[0]).toHaveTextContent("Front desk · +1 (415) 555-0142");
    // The caller number is kept on one line.
    expect(within(running).getByText("+1 (415) 555-0142")).toHaveClass("campaigns__number");
    expect(within(running).getByRole("progressbar", { name: "Progress of Spring renewals" })).toHaveAttribute("aria-valuenow", "50");
    expect(within(running).getByText("50 of 100 done")).toBeInTheDocument();
    expect(within(running).getByText("40 answered · 2 calling · 45 waiting · 5 busy · 5 no answer · 3 need a time zone")).toBeInTheDocument();
    expect(within(running).getByText("opens in 2 hours")).toHaveAttribute("datetime", inTwoHours);

    const draft = row("Winback");
    expect(within(draft).getByText("Draft")).toBeInTheDocument();
    expect(within(draft).getAllByRole("cell")[0]).toHaveTextContent("No agent yet · no caller number yet");
    expect(within(draft).getByText("No contacts yet")).toBeInTheDocument();
    expect(screen.getByText("2 campaigns")).toBeInTheDocument();
  });

  it("on a phone, shows each campaign's state, progress, next window and actions under its name, in sight, not in columns off to the right", async () => {
    const restore = asPhone();
    try {
      await openList("org:admin", [{ ...RUNNING, status: "paused", pause_code: "wallet", pause_reason: "Your wallet balance is too low: top up to resume." }, DRAFT]);
      expect(screen.getAllByRole("columnheader").map((header) => header.textContent)).not.toContain("Status");
      const [name] = within(row("Spring renewals")).getAllByRole("cell");
      expect(within(name!).getByText("Paused")).toBeInTheDocument();
      expect(within(within(row("Winback")).getAllByRole("cell")[0]!).getByText("Draft")).toBeInTheDocument();
      // One column: what it is, how far it got and what can be done with it, without scrolling sideways.
      expect(within(row("Spring renewals")).getAllByRole("cell")).toHaveLength(1);
      expect(within(name!).getByRole("progressbar", { name: "Progress of Spring renewals" })).toBeInTheDocument();
      expect(within(name!).getByRole("button", { name: "Resume Spring renewals" })).toBeInTheDocument();
      expect(within(name!).getByText("+1 (415) 555-0142")).toHaveClass("campaigns__number");
    } finally {
      restore();
    }
  });

  it("offers the actions each state allows; an admin may delete drafts and finished campaigns", async () => {
    await openList("org:admin", [RUNNING, DRAFT, makeCampaign({ id: "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f63", name: "Old", status: "completed" }), makeCampaign({ id: "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f64", name: "Held", status: "paused" })]);
    expect(buttonsOf("Spring renewals")).toEqual(["Pause Spring renewals", "Edit Spring renewals", "Export Spring renewals", "Cancel Spring renewals"]);
    expect(buttonsOf("Winback")).toEqual(["Start Winback", "Edit Winback", "Export Winback", "Cancel Winback", "Delete Winback"]);
    expect(buttonsOf("Old")).toEqual(["Edit Old", "Export Old", "Delete Old"]);
    expect(buttonsOf("Held")).toEqual(["Resume Held", "Edit Held", "Export Held", "Cancel Held"]);
  });

  it("a member runs campaigns but sees no Delete", async () => {
    await openList("org:member");
    await waitFor(() => expect(buttonsOf("Winback")).toContain("Start Winback"));
    expect(buttonsOf("Winback")).toEqual(["Start Winback", "Edit Winback", "Export Winback", "Cancel Winback"]);
    expect(screen.getByRole("button", { name: /Create campaign/ })).toBeInTheDocument();
  });

  it("Pause and Start post the action and show the new state; a refusal shows the server's sentence", async () => {
    const { user, fetch } = await openList();
    await user.click(screen.getByRole("button", { name: "Pause Spring renewals" }));
    await screen.findByText("Campaign paused");
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/pause`)).toHaveLength(1);
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/pause`)[0]!.body).toBeUndefined();
    // The list was asked again: the row now offers Resume.
    await screen.findByRole("button", { name: "Resume Spring renewals" });
    expect(within(row("Spring renewals")).getByText("Paused")).toBeInTheDocument();

    fetch.on("POST", `/api/campaign/${OTHER_CAMPAIGN_ID}/start`, () => json({ detail: "Add contacts before starting the campaign.", code: "conflict" }, 409));
    await user.click(screen.getByRole("button", { name: "Start Winback" }));
    await screen.findByText("The campaign could not be started");
    expect(screen.getByText("Add contacts before starting the campaign.")).toBeInTheDocument();
    expect(within(row("Winback")).getByText("Draft")).toBeInTheDocument();
  });

  it("asks before cancelling, and cancels only when confirmed", async () => {
    const { user, fetch } = await openList();
    await user.click(screen.getByRole("button", { name: "Cancel Spring renewals" }));
    let dialog = await findDialog("Cancel this campaign?");
    expect(within(dialog).getByText(/"Spring renewals" stops calling for good/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Keep it" }));
    await waitFor(() => expect(screen.queryByText("Cancel this campaign?")).toBeNull());
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/cancel`)).toEqual([]);

    await user.click(screen.getByRole("button", { name: "Cancel Spring renewals" }));
    dialog = await findDialog("Cancel this campaign?");
    await user.click(within(dialog).getByRole("button", { name: "Cancel campaign" }));
    await screen.findByText("Campaign cancelled");
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/cancel`)).toHaveLength(1);
    await waitFor(() => expect(within(row("Spring renewals")).getByText("Cancelled")).toBeInTheDocument());
  });

  it("deletes a draft after a confirmation, and the row goes", async () => {
    const { user, fetch } = await openList();
    await user.click(screen.getByRole("button", { name: "Delete Winback" }));
    const dialog = await findDialog("Delete this campaign?");
    await user.click(within(dialog).getByRole("button", { name: "Delete campaign" }));
    await screen.findByText("Campaign deleted");
    expect(fetch.to("DELETE", `/api/campaign/${OTHER_CAMPAIGN_ID}`)).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole("link", { name: "Winback" })).toBeNull());
  });

  it("reads its filters from the URL, so a link reproduces the view", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [RUNNING, DRAFT] });
    renderConsole({ path: "/campaigns?filters[0][field]=status&filters[0][operator]=eq&filters[0][value]=running", fetch });
    await screen.findByRole("link", { name: "Spring renewals" });
    expect(screen.queryByRole("link", { name: "Winback" })).toBeNull();
    expect(queriesTo(fetch, "GET", "/api/campaign/")).toEqual([{ page: "1", limit: "20", status: "running" }]);
    expect(screen.getByRole("combobox", { name: "Status" }).closest(".ant-select")).toHaveTextContent("Running");
  });

  it("filters by state and searches by name", async () => {
    const { user, fetch } = await openList();
    expect(queriesTo(fetch, "GET", "/api/campaign/")[0]).toEqual({ page: "1", limit: "20" });

    await user.click(screen.getByRole("combobox", { name: "Status" }));
    await user.click((await screen.findAllByTitle("Draft")).at(-1)!);
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/campaign/").at(-1)).toEqual({ page: "1", limit: "20", status: "draft" }));
    await waitFor(() => expect(screen.queryByRole("link", { name: "Spring renewals" })).toBeNull());

    await user.type(screen.getByRole("searchbox", { name: "Search campaigns" }), "nothing like it");
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/campaign/").at(-1)).toMatchObject({ status: "draft", search: "nothing like it" }));
    await screen.findByText("No campaigns match these filters");

    await user.click(screen.getByRole("button", { name: "Clear filters" }));
    await screen.findByRole("link", { name: "Spring renewals" });
  });

  it("explains campaigns when there is none, and Create campaign opens the form", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [] });
    const { user, pathname } = renderConsole({ path: "/campaigns", fetch });
    await screen.findByText("No campaigns yet");
    expect(screen.getByText(/A campaign phones a list of contacts with one of your agents/)).toBeInTheDocument();
    const buttons = screen.getAllByRole("button", { name: "Create campaign" });
    await user.click(buttons.at(-1)!);
    await waitForPath(pathname, "/campaigns/create");
  });

  it("asks again every few seconds while a campaign on the page is running, and stops once none is", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { state, fetch } = await openList("org:admin", [RUNNING, DRAFT]);
    const asked = () => fetch.to("GET", "/api/campaign/").length;
    const before = asked();
    await vi.advanceTimersByTimeAsync(5_000);
    await waitFor(() => expect(asked()).toBe(before + 1));

    state.campaigns[0]!.status = "completed";
    await vi.advanceTimersByTimeAsync(5_000);
    await within(row("Spring renewals")).findByText("Completed");
    const settled = asked();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(asked()).toBe(settled);
  });

  it("says when the list fails, with the server's detail, and Retry asks again", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [DRAFT] });
    const list = failingList(() => json({ data: [DRAFT], total: 1, page: 1, limit: 20 }));
    fetch.on("GET", "/api/campaign/", list.respond);
    const { user } = renderConsole({ path: "/campaigns", fetch });
    // Nothing is known about the campaigns, nor while the Retry is on its way: the first-run explanation would be wrong here.
    await retryFailedList(list, user, { title: "The campaigns could not be loaded", empty: "No campaigns yet", shown: () => screen.findByRole("link", { name: "Winback" }) });
  });
});
