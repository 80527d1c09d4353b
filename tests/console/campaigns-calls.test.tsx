import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { makeCall } from "./call-logs-fixtures";
import { CAMPAIGN_ID, CONTACT_CALL_ID, makeCampaign, makeContact, makeCounts, queriesTo, serveCampaigns, type CampaignServer } from "./campaigns-fixtures";
import { failingList } from "./fetch-fake";
import { findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs, type FetchFake } from "./test-utils";

const FIRST_CALL_ID = "9d342b2e-1f6a-4e0c-8d2b-7c9a1e3f4b22";
const PATH = `/campaigns/${CAMPAIGN_ID}/calls`;

const CONTACTS = [
  makeContact(),
  makeContact({
    id: "a1b2c3d4-0000-4000-8000-000000000002",
    name: "<b>Bobby</b>",
    number: "+442079460012",
    status: "queued",
    outcome: "busy",
    attempts: 1,
    timezones: ["Europe/London"],
    next_attempt_at: new Date(Date.now() + 3 * 3_600_000 + 10 * 60_000).toISOString(),
    last_call_id: FIRST_CALL_ID,
    last_ended_reason: "customer-busy",
    call_ids: [FIRST_CALL_ID],
  }),
  makeContact({ id: "a1b2c3d4-0000-4000-8000-000000000003", name: null, number: "+61291234567", status: "needs_timezone", outcome: null, attempts: 0, timezones: [], last_call_id: null, last_ended_reason: null, call_ids: [] }),
];

const WALLET_PAUSE = makeCampaign({
  status: "paused",
  pause_code: "wallet",
  pause_reason: "The wallet balance is $0.12: top up at least $5 to go on calling.",
  counts: makeCounts({ answered: 1, queued: 1, needs_timezone: 1 }),
  started_at: "2026-03-02T09:00:00.000Z",
});

function serve(fetch: FetchFake, state: Partial<CampaignServer> = {}) {
  const server = serveCampaigns(fetch, { campaigns: [WALLET_PAUSE], contacts: CONTACTS, ...state });
  fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}/events`, () =>
    json({
      data: [
        { id: "e0000000-0000-4000-8000-000000000002", at: "2026-03-03T10:00:00.000Z", kind: "paused", detail: "Paused: the wallet balance is $0.12.", actor: null },
        { id: "e0000000-0000-4000-8000-000000000003", at: "2026-03-02T12:00:00.000Z", kind: "paused", detail: "Paused by Ada Lovelace: calls in progress finish.", actor: "Ada Lovelace" },
        { id: "e0000000-0000-4000-8000-000000000001", at: "2026-03-02T09:00:00.000Z", kind: "started", detail: "Started with 3 contacts.", actor: "Ada Lovelace" },
      ],
    }),
  );
  return server;
}

async function openPage(role: "org:admin" | "org:member" = "org:admin", state: Partial<CampaignServer> = {}) {
  const fetch = installFetchFake();
  const server = serve(fetch, state);
  const rendered = renderConsole({ path: PATH, fetch, session: signedInAs(role) });
  await findScreen("Campaign Calls");
  await screen.findByRole("heading", { level: 2, name: "Spring renewals" });
  return { ...rendered, server };
}

const contactRow = (text: string) => screen.getByText(text).closest("tr") as HTMLElement;

describe("a campaign's calls page", () => {
  it("puts the reason of an automatic pause first, with Resume, and lists what happened", async () => {
    const { user, fetch } = await openPage("org:member");
    // The first thing under the campaign's name.
    const notice = screen.getAllByRole("alert")[0]!;
    expect(within(notice).getByText("Paused: the wallet balance is too low")).toBeInTheDocument();
    expect(within(notice).getByText("The wallet balance is $0.12: top up at least $5 to go on calling.")).toBeInTheDocument();
    expect(screen.getByText("1 contacts wait for a time zone")).toBeInTheDocument();

    const history = await screen.findByRole("list", { name: "History" });
    expect(within(history).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      expect.stringContaining("pausedPaused: the wallet balance is $0.12."),
      // A sentence that names who did it does not say it twice.
      expect.stringMatching(/pausedPaused by Ada Lovelace: calls in progress finish\.$/),
      expect.stringContaining("startedStarted with 3 contacts. by Ada Lovelace"),
    ]);

    await user.click(within(notice).getByRole("button", { name: "Resume" }));
    await screen.findByText("Campaign resumed");
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/resume`)).toHaveLength(1);
    await waitFor(() => expect(screen.queryByText("Paused: the wallet balance is too low")).toBeNull());
    expect(screen.getByText("Live: updates every few seconds")).toBeInTheDocument();
    // The history was asked again after the action.
    expect(fetch.to("GET", `/api/campaign/${CAMPAIGN_ID}/events`).length).toBeGreaterThan(1);
  });

  it("shows each contact's state, outcome, attempts, zones, next attempt and calls, and filters them", async () => {
    const { user, fetch } = await openPage();
    await screen.findByText("Grace Hopper");
    const grace = contactRow("Grace Hopper");
    expect(within(grace).getAllByRole("cell").map((cell) => cell.textContent)).toEqual([
      "Grace Hopper+1 (415) 555-0100",
      "Answered",
      "Answered",
      "1 of 3",
      "America/Los_Angeles",
      "—",
      "Call 1",
      "assistant-ended-call",
    ]);
    // User text stays text.
    const bobby = contactRow("<b>Bobby</b>");
    expect(within(bobby).getByText("Queued")).toBeInTheDocument();
    expect(within(bobby).getByText("Busy")).toBeInTheDocument();
    expect(within(bobby).getByText("in 3 hours")).toBeInTheDocument();
    const noZone = contactRow("+61 2 9123 4567");
    expect(within(noZone).getByText("Needs time zone")).toBeInTheDocument();
    expect(within(noZone).getByText("None yet")).toBeInTheDocument();
    expect(within(noZone).getByText("No calls yet")).toBeInTheDocument();
    expect(screen.getByText("3 contacts")).toBeInTheDocument();
    expect(queriesTo(fetch, "GET", `/api/campaign/${CAMPAIGN_ID}/contacts`)[0]).toEqual({ page: "1", limit: "20" });

    await user.click(screen.getByRole("combobox", { name: "Contact status" }));
    await user.click((await screen.findAllByTitle("Queued (1)")).at(-1)!);
    await waitFor(() => expect(queriesTo(fetch, "GET", `/api/campaign/${CAMPAIGN_ID}/contacts`).at(-1)).toEqual({ page: "1", limit: "20", status: "queued" }));
    await waitFor(() => expect(screen.queryByText("Grace Hopper")).toBeNull());
    expect(screen.getByText("<b>Bobby</b>")).toBeInTheDocument();

    await user.click(screen.getByRole("combobox", { name: "Last outcome" }));
    await user.click((await screen.findAllByTitle("Answered")).at(-1)!);
    await waitFor(() => expect(queriesTo(fetch, "GET", `/api/campaign/${CAMPAIGN_ID}/contacts`).at(-1)).toEqual({ page: "1", limit: "20", status: "queued", outcome: "answered" }));
    await screen.findByText("No contacts match these filters.");

    await user.type(screen.getByRole("searchbox", { name: "Search contacts" }), "4420");
    await waitFor(() => expect(queriesTo(fetch, "GET", `/api/campaign/${CAMPAIGN_ID}/contacts`).at(-1)).toMatchObject({ search: "4420" }));
  });

  it("never shows more attempts than the limit as \"2 of 1\": calls placed before the limit was lowered say so", async () => {
    const lowered = makeCampaign({ status: "running", retry: { max_attempts: 1, delay_minutes: 60, on: ["busy"] }, counts: makeCounts({ busy: 2 }) });
    const contacts = [
      makeContact({ id: "a1b2c3d4-0000-4000-8000-000000000011", name: "Twice Called", status: "busy", outcome: "busy", attempts: 2, call_ids: [CONTACT_CALL_ID, FIRST_CALL_ID] }),
      makeContact({ id: "a1b2c3d4-0000-4000-8000-000000000012", name: "Once Called", status: "busy", outcome: "busy", attempts: 1 }),
    ];
    await openPage("org:admin", { campaigns: [lowered], contacts });
    await screen.findByText("Twice Called");
    expect(within(contactRow("Twice Called")).getByText("2 (limit now 1)")).toBeInTheDocument();
    expect(within(contactRow("Once Called")).getByText("1 of 1")).toBeInTheDocument();
    expect(screen.queryByText("2 of 1")).toBeNull();
  });

  it("claims no contacts while they fail or are asked again, and Retry shows them once they load", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    const list = failingList(() => json({ data: CONTACTS, total: CONTACTS.length, page: 1, limit: 20 }));
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}/contacts`, list.respond);
    const { user } = renderConsole({ path: PATH, fetch, session: signedInAs("org:admin") });
    await retryFailedList(list, user, { title: "The contacts could not be loaded", empty: "No contacts in this campaign yet.", shown: () => screen.findByText("Grace Hopper") });
  });

  it("opens a contact's call in Call Logs' call drawer", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    fetch.on("GET", `/api/call/${CONTACT_CALL_ID}`, () => json({ data: makeCall({ id: CONTACT_CALL_ID, campaign_id: CAMPAIGN_ID, summary: "Renewed the Gold plan." }) }));
    const { user } = renderConsole({ path: PATH, fetch });
    await user.click(await screen.findByRole("button", { name: `Open call ${CONTACT_CALL_ID}` }));
    const drawer = await screen.findByRole("dialog");
    expect(within(drawer).getByText("Call details")).toBeInTheDocument();
    await within(drawer).findByText("Renewed the Gold plan.");
    expect(within(drawer).getByText(CONTACT_CALL_ID)).toBeInTheDocument();
  });

  it("draws the progress over time", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}/progress`, () =>
      json({
        data: {
          bucket_seconds: 3600,
          points: [
            { at: "2026-03-02T09:00:00.000Z", calls: 12, answered: 7, ended: 9 },
            { at: "2026-03-02T10:00:00.000Z", calls: 8, answered: 5, ended: 6 },
          ],
        },
      }),
    );
    renderConsole({ path: PATH, fetch });
    await screen.findByRole("img", { name: "20 calls placed, 12 answered." });
  });

  it("asks again every few seconds while running, and stops once the campaign is completed", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetch = installFetchFake();
    const server = serve(fetch, { campaigns: [makeCampaign({ status: "running", counts: makeCounts({ answered: 1, queued: 2 }) })] });
    renderConsole({ path: PATH, fetch });
    await screen.findByText("Live: updates every few seconds");
    const asked = () => ({
      campaign: fetch.to("GET", `/api/campaign/${CAMPAIGN_ID}`).length,
      contacts: fetch.to("GET", `/api/campaign/${CAMPAIGN_ID}/contacts`).length,
      events: fetch.to("GET", `/api/campaign/${CAMPAIGN_ID}/events`).length,
    });
    const before = asked();

    await vi.advanceTimersByTimeAsync(5_000);
    await waitFor(() => expect(asked().campaign).toBe(before.campaign + 1));
    await waitFor(() => expect(asked().contacts).toBe(before.contacts + 1));
    expect(asked().events).toBe(before.events + 1);

    server.campaigns[0]!.status = "completed";
    server.campaigns[0]!.completed_at = "2026-03-05T12:00:00.000Z";
    await vi.advanceTimersByTimeAsync(5_000);
    await screen.findByText("Completed", { selector: ".ant-tag" });
    await waitFor(() => expect(screen.queryByText("Live: updates every few seconds")).toBeNull());
    const settled = asked();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(asked()).toEqual(settled);
  });

  it("exports the campaign's CSV with the token", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    const createObjectURL = vi.fn((_blob: Blob) => "blob:campaign");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}/export`, () => new Response("number,status\n+14155550100,answered\n+442079460012,queued\n", { headers: { "Content-Type": "text/csv", "x-total-count": "2" } }));
    const { user } = renderConsole({ path: PATH, fetch });
    await user.click(await screen.findByRole("button", { name: "Export Spring renewals" }));
    await screen.findByText("Exported 2 contacts");
    expect(fetch.to("GET", `/api/campaign/${CAMPAIGN_ID}/export`)[0]!.headers.get("authorization")).toBe("Bearer token-1");
    expect(await createObjectURL.mock.calls[0]![0].text()).toBe("number,status\n+14155550100,answered\n+442079460012,queued\n");
    expect(click).toHaveBeenCalled();
    click.mockRestore();
  });

  it("says when the campaign does not exist", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [] });
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}`, () => json({ detail: "Campaign not found", code: "not_found" }, 404));
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}/events`, () => json({ data: [] }));
    renderConsole({ path: PATH, fetch });
    await findScreen("Campaign Calls");
    await screen.findByText("Campaign not found");
  });
});
