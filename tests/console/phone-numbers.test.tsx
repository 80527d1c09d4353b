import { screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { PhoneNumber } from "../../contract/phone-number";
import { forgetPublicConfig } from "../../src/config/public-config";
import { AGENT_ID, OTHER_AGENT_ID, makeAgent, pickOption } from "./agents-fixtures";
import { makeNumber } from "./phone-numbers-fixtures";
import { failingList } from "./fetch-fake";
import { asPhone, findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs, type FetchFake } from "./test-utils";

const BOOKINGS_ID = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const NEW_ID = "7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b";

/** A small phone-number API: list, create (409 on a duplicate), update, delete; and the agents and config it reads. */
function serve(fetch: FetchFake, initial: PhoneNumber[], voiceMode: "sandbox" | "vapi" = "sandbox") {
  const numbers = initial.map((row) => ({ ...row }));
  fetch.on("GET", "/api/config", () => json({ data: { authMode: "local", voiceMode, clerkPublishableKey: null, vapiPublicKey: null } }));
  fetch.on("GET", "/api/agent/", () =>
    json({ data: [makeAgent({ agent_name: "Support Agent" }), makeAgent({ id: OTHER_AGENT_ID, agent_name: "Bookings Agent" })], total: 2, page: 1, limit: 100 }),
  );
  fetch.on("GET", "/api/phonenumber/", () => json({ data: numbers, total: numbers.length, page: 1, limit: 20 }));
  fetch.on("POST", "/api/phonenumber/", ({ body }) => {
    const input = body as { name: string; number?: string; provider: PhoneNumber["provider"]; agent_id?: string | null; area_code?: string };
    const number = input.number ?? `+1${input.area_code}5550100`;
    const existing = numbers.find((row) => row.number === number);
    if (existing) return json({ detail: `This organisation already has the number ${number} ("${existing.name}"): each number can be added once.`, code: "conflict" }, 409);
    const created = makeNumber({ id: NEW_ID, name: input.name, number, provider: input.provider, agent_id: input.agent_id ?? null, isDefault: false, has_credentials: input.provider === "twilio" });
    numbers.push(created);
    return json({ data: created }, 201);
  });
  for (const row of initial) {
    fetch.on("PUT", `/api/phonenumber/${row.id}`, ({ body }) => {
      const changes = body as Partial<PhoneNumber>;
      if (changes.isDefault) for (const other of numbers) other.isDefault = other.id === row.id;
      const target = numbers.find((candidate) => candidate.id === row.id)!;
      Object.assign(target, { ...changes, isDefault: target.isDefault });
      return json({ data: target });
    });
    fetch.on("DELETE", `/api/phonenumber/${row.id}`, () => {
      numbers.splice(numbers.findIndex((candidate) => candidate.id === row.id), 1);
      return json({ data: { id: row.id } });
    });
  }
  return numbers;
}

const MAIN = makeNumber({ agent_id: AGENT_ID });
const BOOKINGS = makeNumber({ id: BOOKINGS_ID, name: "Bookings", number: "+442079460012", isDefault: false, agent_id: OTHER_AGENT_ID, provider: "twilio", has_credentials: true, is_sandbox: false, provider_number_id: "pn_1" });

async function openScreen(fetch: FetchFake, role: "org:admin" | "org:member" = "org:admin") {
  const rendered = renderConsole({ path: "/phone-numbers", fetch, session: signedInAs(role) });
  await findScreen("Phone Numbers");
  await screen.findByText("Main line");
  return rendered;
}

function row(name: string) {
  return screen.getByText(name).closest("tr") as HTMLElement;
}

async function pickProvider(user: ReturnType<typeof renderConsole>["user"], _dialog: HTMLElement, label: string) {
  await pickOption(user, "Provider", label);
}

beforeEach(() => {
  forgetPublicConfig();
});

describe("Phone Numbers", () => {
  it("lists each number with its reading form, E.164, provider, answering agent and the default badge", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN, BOOKINGS]);
    await openScreen(fetch);

    const main = row("Main line");
    expect(within(main).getByText("Default")).toBeInTheDocument();
    expect(within(main).getByText("Sandbox")).toBeInTheDocument();
    expect(within(main).getByText("+1 (415) 555-0142")).toBeInTheDocument();
    expect(within(main).getByText("Vapi")).toBeInTheDocument();
    await within(main).findByText("Support Agent");
    expect(within(main).getByRole("button", { name: "Copy E.164" })).toBeInTheDocument();

    const bookings = row("Bookings");
    expect(within(bookings).queryByText("Default")).toBeNull();
    expect(within(bookings).queryByText("Sandbox")).toBeNull();
    expect(within(bookings).getByText("Twilio")).toBeInTheDocument();
    expect(within(bookings).getByText("Bookings Agent")).toBeInTheDocument();
    expect(within(bookings).getByRole("button", { name: "Make default Bookings" })).toBeInTheDocument();
    expect(within(main).queryByRole("button", { name: /Make default/ })).toBeNull();
  });

  it("on a phone, shows each number under its name with its agent and its actions, in sight, not in columns off to the right", async () => {
    const restore = asPhone();
    try {
      const fetch = installFetchFake();
      serve(fetch, [MAIN, BOOKINGS]);
      await openScreen(fetch);
      expect(screen.getAllByRole("columnheader").map((header) => header.textContent)).not.toContain("Number");
      const [name] = within(row("Main line")).getAllByRole("cell");
      expect(within(name!).getByText("+1 (415) 555-0142")).toBeInTheDocument();
      expect(within(name!).getByRole("button", { name: "Copy E.164" })).toBeInTheDocument();
      // Whose calls it takes and what can be done with it, in the same cell: nothing to scroll sideways for.
      const [bookings] = within(row("Bookings")).getAllByRole("cell");
      expect(bookings).toHaveTextContent("Answered by: Bookings Agent");
      for (const action of ["Make default Bookings", "Edit Bookings", "Delete Bookings"]) expect(within(bookings!).getByRole("button", { name: action })).toBeInTheDocument();
      expect(within(row("Bookings")).getAllByRole("cell")).toHaveLength(1);
      expect(document.querySelector(".ant-table-content")?.getAttribute("style") ?? "").not.toMatch(/overflow-x: auto/);
    } finally {
      restore();
    }
  });

  it("says when the list fails, with the server's detail, and Retry asks again", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN]);
    const list = failingList(() => json({ data: [MAIN], total: 1, page: 1, limit: 20 }));
    fetch.on("GET", "/api/phonenumber/", list.respond);
    const { user } = renderConsole({ path: "/phone-numbers", fetch, session: signedInAs("org:admin") });
    // Nothing is known about the numbers, nor while the Retry is on its way: "No phone numbers yet" would be false.
    await retryFailedList(list, user, { title: "Phone numbers could not be loaded", empty: "No phone numbers yet", shown: () => screen.findByText("Main line") });
  });

  it("shows a call to action when there is no number", async () => {
    const fetch = installFetchFake();
    serve(fetch, []);
    const { user } = renderConsole({ path: "/phone-numbers", fetch });
    await findScreen("Phone Numbers");
    await screen.findByText("No phone numbers yet");
    const buttons = screen.getAllByRole("button", { name: "Add phone number" });
    await user.click(buttons[buttons.length - 1]!);
    await screen.findByRole("dialog", { name: "Add phone number" });
  });

  it("adds a number with the E.164 of the phone input, the provider and the answering agent", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN]);
    const { user } = await openScreen(fetch);

    await user.click(screen.getByRole("button", { name: /Add phone number/ }));
    const dialog = await screen.findByRole("dialog", { name: "Add phone number" });
    await user.type(within(dialog).getByLabelText("Name"), "Support line");
    await pickProvider(user, dialog, "Telnyx");
    await user.type(within(dialog).getByLabelText("Phone number"), "2125550187");
    await pickOption(user, "Answering agent", "Bookings Agent");
    await user.click(within(dialog).getByRole("button", { name: "Add number" }));

    await waitFor(() => expect(fetch.to("POST", "/api/phonenumber/")).toHaveLength(1));
    expect(fetch.to("POST", "/api/phonenumber/")[0]!.body).toEqual({ name: "Support line", provider: "telnyx", number: "+12125550187", agent_id: OTHER_AGENT_ID });
    await screen.findByText("Phone number added");
    await screen.findByText("Support line");
  });

  it("shows the server's reason in the modal when the number is a duplicate (409)", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN]);
    const { user } = await openScreen(fetch);

    await user.click(screen.getByRole("button", { name: /Add phone number/ }));
    const dialog = await screen.findByRole("dialog", { name: "Add phone number" });
    await user.type(within(dialog).getByLabelText("Name"), "Again");
    await user.type(within(dialog).getByLabelText("Phone number"), "4155550142");
    await user.click(within(dialog).getByRole("button", { name: "Add number" }));

    await within(dialog).findByText(/already has the number \+14155550142 \("Main line"\)/);
    expect(screen.getByRole("dialog", { name: "Add phone number" })).toBeInTheDocument();
  });

  it("shows the server's reason in the modal when the number is refused (400)", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN]);
    fetch.on("POST", "/api/phonenumber/", () => json({ detail: "number must be in E.164 form, e.g. +14155550123", code: "validation_error" }, 400));
    const { user } = await openScreen(fetch);

    await user.click(screen.getByRole("button", { name: /Add phone number/ }));
    const dialog = await screen.findByRole("dialog", { name: "Add phone number" });
    await user.type(within(dialog).getByLabelText("Name"), "Short");
    await user.type(within(dialog).getByLabelText("Phone number"), "41");
    await user.click(within(dialog).getByRole("button", { name: "Add number" }));

    await within(dialog).findByText("number must be in E.164 form, e.g. +14155550123");
    expect(fetch.to("POST", "/api/phonenumber/")[0]!.body).toMatchObject({ number: "+141" });
  });

  it("asks a Twilio number for the Account SID and Auth Token, and sends them as credentials", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN]);
    const { user } = await openScreen(fetch);

    await user.click(screen.getByRole("button", { name: /Add phone number/ }));
    const dialog = await screen.findByRole("dialog", { name: "Add phone number" });
    expect(within(dialog).queryByLabelText("Twilio Account SID")).toBeNull();
    await pickProvider(user, dialog, "Twilio");
    const sid = `AC${"a1".repeat(16)}`;
    await user.type(within(dialog).getByLabelText("Name"), "Imported");
    await user.type(within(dialog).getByLabelText("Phone number"), "3125550163");
    await user.type(within(dialog).getByLabelText("Twilio Account SID"), sid);
    const token = within(dialog).getByLabelText("Twilio Auth Token");
    expect(token).toHaveAttribute("type", "password");
    await user.type(token, "secret-token");
    await user.click(within(dialog).getByRole("button", { name: "Add number" }));

    await waitFor(() => expect(fetch.to("POST", "/api/phonenumber/")).toHaveLength(1));
    expect(fetch.to("POST", "/api/phonenumber/")[0]!.body).toMatchObject({
      provider: "twilio",
      number: "+13125550163",
      credentials: { twilio_account_sid: sid, twilio_auth_token: "secret-token" },
    });
  });

  it("says Twilio credentials are saved when editing a number that has some, without showing them", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN, BOOKINGS]);
    const { user } = await openScreen(fetch);

    await user.click(within(row("Bookings")).getByRole("button", { name: "Edit Bookings" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit phone number" });
    expect(within(dialog).getByText(/Credentials saved/)).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Twilio Auth Token")).toHaveValue("");
    await user.clear(within(dialog).getByLabelText("Name"));
    await user.type(within(dialog).getByLabelText("Name"), "UK bookings");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() => expect(fetch.to("PUT", `/api/phonenumber/${BOOKINGS_ID}`)).toHaveLength(1));
    expect(fetch.to("PUT", `/api/phonenumber/${BOOKINGS_ID}`)[0]!.body).toEqual({ name: "UK bookings", agent_id: OTHER_AGENT_ID });
  });

  it("takes an area code instead of a number for a vapi number in Vapi mode", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN], "vapi");
    const { user } = await openScreen(fetch);

    await user.click(screen.getByRole("button", { name: /Add phone number/ }));
    const dialog = await screen.findByRole("dialog", { name: "Add phone number" });
    const areaCode = await within(dialog).findByLabelText("Area code");
    expect(within(dialog).queryByLabelText("Phone number")).toBeNull();
    await user.type(within(dialog).getByLabelText("Name"), "Vapi line");
    await user.type(areaCode, "628");
    await user.click(within(dialog).getByRole("button", { name: "Add number" }));

    await waitFor(() => expect(fetch.to("POST", "/api/phonenumber/")).toHaveLength(1));
    expect(fetch.to("POST", "/api/phonenumber/")[0]!.body).toEqual({ name: "Vapi line", provider: "vapi", area_code: "628", agent_id: null });
  });

  it("makes a number the default with PUT {isDefault: true}", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN, BOOKINGS]);
    const { user } = await openScreen(fetch);

    await user.click(within(row("Bookings")).getByRole("button", { name: "Make default Bookings" }));

    await waitFor(() => expect(fetch.to("PUT", `/api/phonenumber/${BOOKINGS_ID}`)).toHaveLength(1));
    expect(fetch.to("PUT", `/api/phonenumber/${BOOKINGS_ID}`)[0]!.body).toEqual({ isDefault: true });
    expect((await screen.findByText("Default phone number changed")).closest(".ant-message")).not.toBeNull(); // page-level notice
    await waitFor(() => expect(within(row("Bookings")).getByText("Default")).toBeInTheDocument());
  });

  it("deletes a number after the admin confirms", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN, BOOKINGS]);
    const { user } = await openScreen(fetch);

    await user.click(within(row("Bookings")).getByRole("button", { name: "Delete Bookings" }));
    const confirm = await screen.findByRole("dialog", { name: "Delete this phone number?" });
    expect(fetch.to("DELETE", `/api/phonenumber/${BOOKINGS_ID}`)).toEqual([]);
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));

    await waitFor(() => expect(fetch.to("DELETE", `/api/phonenumber/${BOOKINGS_ID}`)).toHaveLength(1));
    await screen.findByText("Phone number deleted");
    await waitFor(() => expect(screen.queryByText("Bookings")).toBeNull());
  });

  it("gives a member no delete button", async () => {
    const fetch = installFetchFake();
    serve(fetch, [MAIN, BOOKINGS]);
    await openScreen(fetch, "org:member");

    expect(within(row("Bookings")).queryByRole("button", { name: /Delete/ })).toBeNull();
    expect(within(row("Bookings")).getByRole("button", { name: "Make default Bookings" })).toBeInTheDocument();
  });
});
