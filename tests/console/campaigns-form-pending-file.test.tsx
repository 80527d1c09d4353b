// The Contacts step of the campaign wizard with a CSV picked and previewed but not imported: leaving the
// step (Next, Back, a step in the stepper, Save) asks first, and never drops the file silently.
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CAMPAIGN_ID, installXhrFake, makeCampaign, makeCounts, makeReport, serveCampaigns } from "./campaigns-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole } from "./test-utils";

const CSV = ["Phone,First Name,tz", "+14155550100,Ada,Europe/London", "+14155550101,Bob,America/Chicago", "+14155550102,Cleo,UTC", ""].join("\r\n");
const ASK = "Import 3 contacts from leads.csv before going on?";
const CONTACTS = `/api/campaign/${CAMPAIGN_ID}/contacts`;

/** The stepper's item for a step, by its title. */
function stepItem(title: string): HTMLElement {
  const steps = document.querySelector<HTMLElement>(".campaign-form__steps")!;
  return within(steps).getByText(title).closest<HTMLElement>(".ant-steps-item")!;
}

/** A draft campaign's Contacts step with leads.csv picked, previewed and not imported. */
async function withPreviewedFile(csv = CSV) {
  const fetch = installFetchFake();
  installXhrFake(fetch);
  const server = serveCampaigns(fetch, { campaigns: [makeCampaign({ counts: makeCounts() })] });
  const rendered = renderConsole({ path: `/campaigns/edit/${CAMPAIGN_ID}?step=contacts`, fetch });
  await findScreen("Edit Campaign");
  const input = await waitFor(() => {
    const found = document.querySelector<HTMLInputElement>('input[type="file"]');
    if (!found) throw new Error("No file input yet");
    return found;
  });
  await rendered.user.upload(input, new File([csv], "leads.csv", { type: "text/csv" }));
  await screen.findByText(/^leads\.csv: \d+ rows?$/);
  return { ...rendered, fetch, server };
}

describe("the Contacts step with a previewed file that is not imported", () => {
  it("asks on Next instead of dropping it; Stay keeps the file and its columns, Import imports it and goes on", async () => {
    const { user, fetch, search } = await withPreviewedFile();
    await user.click(screen.getByRole("button", { name: "Next" }));

    let dialog = await findDialog(ASK);
    expect(within(dialog).getByText(/not imported yet/)).toBeInTheDocument();
    // Still on Contacts: the stepper does not tick it as done while the file waits.
    expect(search()).toContain("step=contacts");
    expect(stepItem("Contacts")).not.toHaveClass("ant-steps-item-finish");
    expect(stepItem("Contacts")).toHaveClass("ant-steps-item-process");

    // Stay: the file, its preview and the column chosen are all still there.
    await user.click(within(dialog).getByRole("button", { name: "Stay" }));
    await waitFor(() => expect(screen.queryByText(ASK)).toBeNull());
    expect(fetch.to("POST", CONTACTS)).toEqual([]);
    expect(screen.getByText("leads.csv: 3 rows")).toBeInTheDocument();
    expect(screen.getByRole("table", { name: /Preview: the first 3 of 3 rows/ })).toBeInTheDocument();
    expect(search()).toContain("step=contacts");

    // A later step in the stepper asks the same; Import sends the file, then goes to that step.
    await user.click(within(stepItem("Schedule")).getByText("Schedule"));
    dialog = await findDialog(ASK);
    await user.click(within(dialog).getByRole("button", { name: "Import 3 contacts" }));
    await screen.findByRole("group", { name: "Window 1" });
    expect(search()).toContain("step=schedule");
    expect(fetch.to("POST", CONTACTS).map((request) => request.body)).toEqual([
      {
        contacts: [
          { number: "+14155550100", timezone: "Europe/London", variables: { "First Name": "Ada" } },
          { number: "+14155550101", timezone: "America/Chicago", variables: { "First Name": "Bob" } },
          { number: "+14155550102", timezone: "UTC", variables: { "First Name": "Cleo" } },
        ],
      },
    ]);
    await screen.findByText("Imported leads.csv: 3 added. The campaign now has 3 contacts.");
    expect(stepItem("Contacts")).toHaveClass("ant-steps-item-finish");
  });

  it("Discard the file goes on without importing it (Back asks too)", async () => {
    const { user, fetch, search } = await withPreviewedFile();
    await user.click(screen.getByRole("button", { name: "Back" }));
    const dialog = await findDialog(ASK);
    await user.click(within(dialog).getByRole("button", { name: "Discard the file" }));
    await waitFor(() => expect(search()).toContain("step=basics"));
    expect(fetch.to("POST", CONTACTS)).toEqual([]);

    // Back on Contacts the file is gone: a new one can be dropped, and Next asks nothing.
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("Drop a CSV file here, or click to choose one");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("group", { name: "Window 1" });
    expect(screen.queryByText(ASK)).toBeNull();
  });

  it("an import with rows to check stays on the step with its report; Next then goes on", async () => {
    const { user, fetch, server, search } = await withPreviewedFile();
    server.importReport = () => makeReport({ accepted: 2, invalid: [{ row: 2, reason: "not a phone number: '+14155550101'" }], invalid_count: 1, total_contacts: 2 });
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.click(within(await findDialog(ASK)).getByRole("button", { name: "Import 3 contacts" }));

    const report = await screen.findByRole("region", { name: "Import report" });
    expect(within(report).getByText(/Imported with rows to check/)).toBeInTheDocument();
    expect(within(report).getByText("not a phone number: '+14155550101'")).toBeInTheDocument();
    expect(search()).toContain("step=contacts");
    expect(fetch.to("POST", CONTACTS)).toHaveLength(1);

    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("group", { name: "Window 1" });
    expect(fetch.to("POST", CONTACTS)).toHaveLength(1);
  });

  it("a failed import stays on the step with the server's reason", async () => {
    const { user, fetch, search } = await withPreviewedFile();
    fetch.on("POST", CONTACTS, () => json({ detail: "This campaign would pass your plan's 50 contacts.", code: "limit_reached" }, 403));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.click(within(await findDialog(ASK)).getByRole("button", { name: "Import 3 contacts" }));

    await screen.findByText("This campaign would pass your plan's 50 contacts.");
    expect(screen.getByText("The contacts could not be imported")).toBeInTheDocument();
    expect(search()).toContain("step=contacts");
    expect(stepItem("Contacts")).toHaveClass("ant-steps-item-process");
  });

  it("Next while an import started on the step is uploading waits for it in the dialog, then goes on", async () => {
    const { user, fetch, search } = await withPreviewedFile();
    let answer!: () => void;
    fetch.on("POST", CONTACTS, () => new Promise((resolve) => (answer = () => resolve(json({ data: makeReport({ accepted: 3, total_contacts: 3 }) })))));
    await user.click(screen.getByRole("button", { name: "Import 3 contacts" }));
    await screen.findByText("Uploading 3 contacts…");
    await user.click(screen.getByRole("button", { name: "Next" }));

    const dialog = await findDialog(ASK);
    expect(within(dialog).getByText("Uploading 3 contacts…")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Stay" })).toBeDisabled();
    expect(within(dialog).getByRole("button", { name: "Discard the file" })).toBeDisabled();
    expect(search()).toContain("step=contacts");
    answer();
    await screen.findByRole("group", { name: "Window 1" });
    expect(search()).toContain("step=schedule");
    expect(fetch.to("POST", CONTACTS)).toHaveLength(1);
  });

  it("a file that cannot be imported as mapped offers only to discard it or stay", async () => {
    // No column named like a phone number: none is chosen, and the file cannot go in as it is.
    const { user, search } = await withPreviewedFile(CSV.replace("Phone,", "Cell,"));
    await screen.findByText("Choose the column that holds the phone numbers");
    await user.click(screen.getByRole("button", { name: "Next" }));
    const dialog = await findDialog("leads.csv is not imported yet");
    expect(within(dialog).getByText("Choose the column that holds the phone numbers")).toBeInTheDocument();
    expect(within(dialog).queryByRole("button", { name: /^Import/ })).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Stay" }));
    expect(search()).toContain("step=contacts");
  });

  it("counts one row as one contact, not '1 contacts'", async () => {
    const { user } = await withPreviewedFile(CSV.split("\r\n").slice(0, 2).join("\r\n"));
    expect(screen.getByText("leads.csv: 1 row")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Import 1 contact" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Next" }));
    const dialog = await findDialog("Import 1 contact from leads.csv before going on?");
    expect(within(dialog).getByRole("button", { name: "Import 1 contact" })).toBeInTheDocument();
  });

  it("Save draft asks too before it leaves the page", async () => {
    const { user, fetch, pathname } = await withPreviewedFile();
    await user.click(screen.getByRole("button", { name: "Save draft" }));
    const dialog = await findDialog(ASK);
    await user.click(within(dialog).getByRole("button", { name: "Import 3 contacts" }));
    await waitFor(() => expect(pathname()).toBe("/campaigns"));
    expect(fetch.to("POST", CONTACTS)).toHaveLength(1);
  });
});
