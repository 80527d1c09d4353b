import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { installXhrFake, makeDncEntry, queriesTo, serveCampaigns } from "./campaigns-fixtures";
import { failingList } from "./fetch-fake";
import { findDialog, findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs } from "./test-utils";

const FROM_CALL = makeDncEntry({ id: "d0000000-0000-4000-8000-0000000000aa", number: "+442079460012", reason: "Asked not to be called again", source: "call" });
const BY_HAND = makeDncEntry();

async function openDnc(role: "org:admin" | "org:member" = "org:admin") {
  const fetch = installFetchFake();
  installXhrFake(fetch);
  const state = serveCampaigns(fetch, { dnc: [FROM_CALL, BY_HAND] });
  const rendered = renderConsole({ path: "/campaigns", fetch, session: signedInAs(role) });
  await findScreen("Campaigns");
  await rendered.user.click(await screen.findByRole("button", { name: /Do-not-call list/ }));
  const drawer = await findDialog("Do-not-call list");
  await within(drawer).findByText("+442079460012");
  return { ...rendered, state, drawer };
}

const rowOf = (drawer: HTMLElement, number: string) => within(drawer).getByText(number).closest("tr") as HTMLElement;

describe("the do-not-call list", () => {
  it("lists the numbers with their reason and where they came from, and searches them", async () => {
    const { user, fetch, drawer } = await openDnc();
    expect(within(rowOf(drawer, "+442079460012")).getByText("Asked not to be called again")).toBeInTheDocument();
    expect(within(rowOf(drawer, "+442079460012")).getByText("Asked on a call")).toBeInTheDocument();
    expect(within(rowOf(drawer, "+14155550199")).getByText("By hand")).toBeInTheDocument();
    expect(within(drawer).getByText("2 numbers")).toBeInTheDocument();

    await user.type(within(drawer).getByRole("searchbox", { name: "Search numbers" }), "4420");
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/dnc/").at(-1)).toEqual({ page: "1", limit: "20", search: "4420" }));
    await waitFor(() => expect(within(drawer).queryByText("+14155550199")).toBeNull());
  });

  it("claims no numbers while the list fails or is asked again, and Retry shows them once they load", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch, { dnc: [BY_HAND] });
    const list = failingList(() => json({ data: [BY_HAND], total: 1, page: 1, limit: 20 }));
    fetch.on("GET", "/api/dnc/", list.respond);
    const { user } = renderConsole({ path: "/campaigns", fetch, session: signedInAs("org:admin") });
    await findScreen("Campaigns");
    await user.click(await screen.findByRole("button", { name: /Do-not-call list/ }));
    await findDialog("Do-not-call list");
    await retryFailedList(list, user, { title: "The do-not-call list could not be loaded", empty: "No numbers on the list.", shown: () => screen.findByText("+14155550199") });
  });

  it("adds one number with a reason", async () => {
    const { user, fetch, drawer } = await openDnc("org:member");
    await user.type(within(drawer).getByLabelText("Phone number"), " +12125550187 ");
    await user.type(within(drawer).getByLabelText("Reason"), "Asked by letter");
    await user.click(within(drawer).getByRole("button", { name: "Add number" }));

    await screen.findByText("Number added to the do-not-call list");
    expect(fetch.to("POST", "/api/dnc/")[0]!.body).toEqual({ number: "+12125550187", reason: "Asked by letter" });
    await within(drawer).findByText("+12125550187");
    expect(within(drawer).getByLabelText("Phone number")).toHaveValue("");
  });

  it("shows the server's reason when a number is refused", async () => {
    const { user, fetch, drawer } = await openDnc();
    fetch.on("POST", "/api/dnc/", () => json({ detail: "number must be in E.164 form, e.g. +14155550123", code: "validation_error" }, 400));
    await user.type(within(drawer).getByLabelText("Phone number"), "12");
    await user.click(within(drawer).getByRole("button", { name: "Add number" }));
    await within(drawer).findByText("number must be in E.164 form, e.g. +14155550123");
  });

  it("uploads a CSV of numbers as multipart and says what came of it", async () => {
    const { user, fetch, drawer } = await openDnc();
    fetch.on("POST", "/api/dnc/", () => json({ data: { added: 2, already_listed: 1, invalid: [{ row: 4, reason: "not a phone number: 'call me'" }], entry: null } }));
    const input = drawer.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File(["number\n+12125550101\n+12125550102\n+14155550199\ncall me\n"], "dnc.csv", { type: "text/csv" }));

    await within(drawer).findByText("2 numbers added, 1 already listed.");
    expect(within(drawer).getByText("Row 4: not a phone number: 'call me'")).toBeInTheDocument();
    const [sent] = fetch.to("POST", "/api/dnc/");
    expect(sent!.headers.get("authorization")).toBe("Bearer token-1");
    expect(((sent!.body as FormData).get("file") as File).name).toBe("dnc.csv");
  });

  it("an admin removes a number after a confirmation", async () => {
    const { user, fetch, drawer } = await openDnc();
    await user.click(within(drawer).getByRole("button", { name: "Remove +14155550199" }));
    const dialog = await findDialog("Remove this number from the do-not-call list?");
    expect(within(dialog).getByText("Campaigns may call +14155550199 again.")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Remove" }));
    await screen.findByText("Number removed from the do-not-call list");
    expect(fetch.to("DELETE", `/api/dnc/${BY_HAND.id}`)).toHaveLength(1);
    await waitFor(() => expect(within(drawer).queryByText("+14155550199")).toBeNull());
  });

  it("a member sees no Remove", async () => {
    const { drawer } = await openDnc("org:member");
    expect(within(drawer).getByRole("button", { name: "Add number" })).toBeInTheDocument();
    expect(within(drawer).queryByRole("button", { name: /^Remove/ })).toBeNull();
  });
});
