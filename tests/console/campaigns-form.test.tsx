import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AGENT_ID } from "./agents-fixtures";
import { pickOption } from "./agents-fixtures";
import { CAMPAIGN_ID, installXhrFake, makeCampaign, makeCounts, makeReport, NEW_CAMPAIGN_ID, NUMBER_ID, serveCampaigns } from "./campaigns-fixtures";
import { findScreen, installFetchFake, renderConsole, signedInAs, waitForPath } from "./test-utils";

const CSV = ["Phone,First Name,tz,plan", "+14155550100,Ada,Europe/London,Gold", "12,Bob,,Silver", '+14155550102,"Lovelace, Grace",,"Bronze ""B"""', ""].join("\r\n");

/** The contact file's input, once the contacts step shows it. */
function fileInput() {
  return waitFor(() => {
    const input = document.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error("No file input yet");
    return input;
  });
}

function stubDownloads() {
  const createObjectURL = vi.fn((_blob: Blob) => "blob:campaign");
  vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
  return { createObjectURL, restore: () => click.mockRestore() };
}

describe("creating a campaign", () => {
  it("posts the draft, imports a mapped CSV with a report, sets the schedule and starts it", async () => {
    const fetch = installFetchFake();
    installXhrFake(fetch);
    const state = serveCampaigns(fetch, {
      campaigns: [],
      importReport: (request) => {
        const rows = (request.body as { contacts: unknown[] }).contacts;
        return makeReport({
          accepted: rows.length - 1,
          invalid: [{ row: 2, reason: "not a phone number: '12'", number: "12" }],
          invalid_count: 1,
          needs_timezone: 1,
          variables: ["plan"],
          total_contacts: rows.length - 1,
        });
      },
    });
    const { user, pathname } = renderConsole({ path: "/campaigns/create", fetch, session: signedInAs("org:member") });
    await findScreen("Create Campaign");

    // Basics: the draft is made on Next.
    await user.click(await screen.findByRole("button", { name: "Next" }));
    await screen.findByText("Please enter a name");
    await user.type(screen.getByLabelText("Name"), "Spring renewals");
    await pickOption(user, "Agent", "Front desk");
    await pickOption(user, "Caller number", "Main line (+1 (415) 555-0142)");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitForPath(pathname, `/campaigns/edit/${NEW_CAMPAIGN_ID}`);
    expect(fetch.to("POST", "/api/campaign/")[0]!.body).toEqual({
      name: "Spring renewals",
      agent_id: AGENT_ID,
      phone_number_id: NUMBER_ID,
      schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }], fallback_timezone: null, start_at: null, end_at: null },
    });
    await findScreen("Create Campaign");

    // Contacts: a CSV, previewed and mapped in the browser.
    await screen.findByText("0 contacts in this campaign");
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File([CSV], "renewals.csv", { type: "text/csv" }));
    await screen.findByText("renewals.csv: 3 rows");
    const preview = screen.getByRole("table", { name: /Preview: the first 3 of 3 rows/ });
    // Guessed from the headers: Phone is the number, tz the time zone; the rest are variables.
    expect(within(preview).getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Number", "Time zone", "First Name", "plan"]);
    expect(within(preview).getByText("Lovelace, Grace")).toBeInTheDocument();
    expect(within(preview).getByText('Bronze "B"')).toBeInTheDocument();

    await pickOption(user, "Name column", "First Name");
    expect(within(screen.getByRole("table", { name: /Preview/ })).getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Number", "Name", "Time zone", "plan"]);
    await user.click(screen.getByRole("button", { name: "Import 3 contacts" }));

    await screen.findByText("Import report");
    const [sent] = fetch.to("POST", `/api/campaign/${NEW_CAMPAIGN_ID}/contacts`);
    expect(sent!.headers.get("authorization")).toBe("Bearer token-1");
    expect(sent!.body).toEqual({
      contacts: [
        { number: "+14155550100", name: "Ada", timezone: "Europe/London", variables: { plan: "Gold" } },
        { number: "12", name: "Bob", timezone: null, variables: { plan: "Silver" } },
        { number: "+14155550102", name: "Lovelace, Grace", timezone: null, variables: { plan: 'Bronze "B"' } },
      ],
    });
    const report = screen.getByRole("region", { name: "Import report" });
    expect(within(report).getByText("Added").closest(".ant-statistic")).toHaveTextContent("Added2");
    expect(within(report).getByText("Invalid").closest(".ant-statistic")).toHaveTextContent("Invalid1");
    expect(within(report).getByText("Without a time zone").closest(".ant-statistic")).toHaveTextContent("Without a time zone1");
    expect(within(report).getByText("The campaign now has 2 contacts. Variables: plan.")).toBeInTheDocument();
    expect(within(report).getByText(/1 added contacts have no time zone: choose a fallback time zone/)).toBeInTheDocument();
    const invalid = within(report).getByText("not a phone number: '12'").closest("tr")!;
    expect(within(invalid).getAllByRole("cell").map((cell) => cell.textContent)).toEqual(["2", "12", "not a phone number: '12'"]);

    // The invalid rows download as the file had them, with the reason.
    const downloads = stubDownloads();
    await user.click(within(report).getByRole("button", { name: /Download invalid rows/ }));
    expect(await downloads.createObjectURL.mock.calls[0]![0].text()).toBe("row,reason,Phone,First Name,tz,plan\r\n2,not a phone number: '12',12,Bob,,Silver\r\n");
    downloads.restore();

    // Schedule: the end must be after the start.
    await user.click(screen.getByRole("button", { name: "Next" }));
    // Read afresh each time: antd re-renders the window's fields and replaces a shown error (its old node
    // leaves with a motion), so a node found before a click may be out of the document after it.
    await screen.findByRole("group", { name: "Window 1" });
    const window1 = () => screen.getByRole("group", { name: "Window 1" });
    const end = () => within(window1()).getByLabelText("Until");
    await user.clear(end());
    await user.type(end(), "08:00");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(within(window1()).getAllByText("The end must be after the start").length).toBeGreaterThan(0));
    await user.clear(end());
    await user.type(end(), "24:00");
    await user.click(within(window1()).getByRole("checkbox", { name: "Saturday" }));
    // Hundreds of zones: typing narrows the list to the one wanted.
    const zone = screen.getAllByLabelText("Fallback time zone").find((element) => element.getAttribute("role") === "combobox")!;
    await user.click(zone);
    await user.type(zone, "Berlin");
    await user.click((await screen.findAllByTitle("Europe/Berlin")).at(-1)!);
    await user.click(screen.getByRole("button", { name: "Next" }));

    // Calling, then the review.
    await screen.findByLabelText("Calls at once");
    expect(screen.getByText("1 to 10: your organization's limit of simultaneous calls.")).toBeInTheDocument();
    await user.clear(screen.getByLabelText("Calls at once"));
    await user.type(screen.getByLabelText("Calls at once"), "3");
    await user.click(screen.getByRole("button", { name: "Next" }));
    const summary = await screen.findByText("Summary");
    const review = summary.closest(".ant-descriptions") as HTMLElement;
    expect(within(review).getByText("Mon–Sat 09:00–24:00")).toBeInTheDocument();
    expect(within(review).getByText("Europe/Berlin")).toBeInTheDocument();
    expect(within(review).getByText("Front desk")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Save and start" }));
    await waitForPath(pathname, `/campaigns/${NEW_CAMPAIGN_ID}/calls`);
    expect(fetch.to("PUT", `/api/campaign/${NEW_CAMPAIGN_ID}`).map((request) => request.body)).toEqual([
      {
        schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "24:00" }], fallback_timezone: "Europe/Berlin", start_at: null, end_at: null },
        max_concurrency: 3,
      },
    ]);
    expect(fetch.to("POST", `/api/campaign/${NEW_CAMPAIGN_ID}/start`)).toHaveLength(1);
    await screen.findByText("Campaign started");
    expect(state.campaigns[0]!.status).toBe("running");
  });

  it("shows the upload's progress while the contacts go", async () => {
    const fetch = installFetchFake();
    installXhrFake(fetch);
    serveCampaigns(fetch, { campaigns: [makeCampaign({ counts: makeCounts() })] });
    let answer!: () => void;
    fetch.on("POST", `/api/campaign/${CAMPAIGN_ID}/contacts`, () => new Promise((resolve) => (answer = () => resolve(new Response(JSON.stringify({ data: makeReport({ accepted: 3, total_contacts: 3 }) }), { status: 200 })))));
    const { user } = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=contacts`, fetch });
    await findScreen("Edit Campaign");
    await user.upload(await fileInput(), new File([CSV], "renewals.csv", { type: "text/csv" }));
    await user.click(await screen.findByRole("button", { name: "Import 3 contacts" }));

    await screen.findByText("Uploading 3 contacts…");
    expect(screen.getByRole("progressbar", { name: "Upload progress" })).toHaveAttribute("aria-valuenow", "50");
    answer();
    await screen.findByText("Import report");
    expect(screen.queryByText("Uploading 3 contacts…")).toBeNull();
  });

  it("refuses a file without rows before sending anything", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ counts: makeCounts() })] });
    const { user } = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=contacts`, fetch });
    await findScreen("Edit Campaign");
    await user.upload(await fileInput(), new File(["number,name\r\n"], "empty.csv", { type: "text/csv" }));
    await screen.findByText("This file has no rows under its header.");
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/contacts`)).toEqual([]);
  });
});

describe("editing a campaign", () => {
  it("of a running campaign: the agent, the number and new contacts wait for a pause; the rest is saved live", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ status: "running", counts: makeCounts({ queued: 10, answered: 5 }) })] });
    const { user } = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}`, fetch, session: signedInAs("org:member") });
    await findScreen("Edit Campaign");
    await screen.findByText("This campaign is running");
    expect(screen.getByText(/The name, the schedule, the calls at once and the retries apply to its next calls/)).toBeInTheDocument();

    const agent = () => screen.getAllByLabelText("Agent").find((element) => element.getAttribute("role") === "combobox")!;
    const number = () => screen.getAllByLabelText("Caller number").find((element) => element.getAttribute("role") === "combobox")!;
    await waitFor(() => expect(screen.getByLabelText("Name")).toBeEnabled());
    expect(agent()).toBeDisabled();
    expect(number()).toBeDisabled();
    expect(screen.getAllByText("Pause the campaign to change this.")).toHaveLength(2);

    // New contacts too.
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("Pause the campaign to add contacts.");
    expect(document.querySelector('input[type="file"]')).toBeNull();

    // Pausing unlocks them.
    await user.click(screen.getByRole("button", { name: "Pause campaign" }));
    await screen.findByText("Campaign paused");
    expect(fetch.to("POST", `/api/campaign/${CAMPAIGN_ID}/pause`)).toHaveLength(1);
    await waitFor(() => expect(screen.queryByText("This campaign is running")).toBeNull());
    expect(document.querySelector('input[type="file"]')).not.toBeNull();
    await user.click(screen.getByRole("button", { name: "Back" }));
    await waitFor(() => expect(agent()).toBeEnabled());
    expect(number()).toBeEnabled();
  });

  it("saves only what changed, and says when nothing did", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ status: "running" })] });
    const { user, pathname } = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=calling`, fetch });
    await findScreen("Edit Campaign");
    const concurrency = await screen.findByLabelText("Calls at once");
    await waitFor(() => expect(concurrency).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await screen.findByText("No changes to save");
    expect(fetch.to("PUT", `/api/campaign/${CAMPAIGN_ID}`)).toEqual([]);

    // Up to the organisation's limit, which the campaign carries.
    expect(concurrency).toHaveAttribute("aria-valuemax", "10");
    await user.clear(concurrency);
    await user.type(concurrency, "4");
    await user.click(screen.getByRole("checkbox", { name: "Failed" }));
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await waitForPath(pathname, `/campaigns/${CAMPAIGN_ID}/calls`);
    expect(fetch.to("PUT", `/api/campaign/${CAMPAIGN_ID}`).map((request) => request.body)).toEqual([
      { max_concurrency: 4, retry: { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer", "voicemail", "failed"] } },
    ]);
    await screen.findByText("Campaign saved");
  });

  it("of a campaign already started: the retry hints say what saving does to the contacts waiting for a retry", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ status: "paused" })] });
    renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=calling`, fetch, session: signedInAs("org:member") });
    await findScreen("Edit Campaign");
    await waitFor(() => expect(screen.getByLabelText("Calls per contact")).toBeEnabled());
    expect(screen.getByText(/Applies when you save to contacts waiting for a retry: those that have had this many calls are finished\. Finished contacts are not called again\./)).toBeInTheDocument();
    expect(screen.getByText("How long to wait before calling a contact again. Retries already waiting move to this long after each contact's last call.")).toBeInTheDocument();
  });

  it("of a draft: the plain retry hints (no contact has been called)", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ status: "draft" })] });
    renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=calling`, fetch, session: signedInAs("org:member") });
    await findScreen("Edit Campaign");
    await waitFor(() => expect(screen.getByLabelText("Calls per contact")).toBeEnabled());
    expect(screen.getByText("The first call included; at most 10. 1 means no retries.")).toBeInTheDocument();
    expect(screen.queryByText(/waiting for a retry/)).toBeNull();
  });

  it("of a completed campaign: only the name", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [makeCampaign({ status: "completed" })] });
    const { user } = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=schedule`, fetch });
    await findScreen("Edit Campaign");
    await screen.findByText("This campaign is completed");
    expect(within(screen.getByRole("group", { name: "Window 1" })).getByLabelText("From")).toBeDisabled();
    expect(screen.getByRole("button", { name: "Weekdays 9–17" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Back" }));
    await user.click(screen.getByRole("button", { name: "Back" }));
    await waitFor(() => expect(screen.getByLabelText("Name")).toBeEnabled());
  });

  it("says when the campaign does not exist", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { campaigns: [] });
    fetch.on("GET", `/api/campaign/${CAMPAIGN_ID}`, () => new Response(JSON.stringify({ detail: "Campaign not found", code: "not_found" }), { status: 404 }));
    renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}`, fetch });
    await findScreen("Edit Campaign");
    await screen.findByText("Campaign not found");
    expect(screen.getByRole("button", { name: "All campaigns" })).toBeInTheDocument();
  });
});
