import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StrictMode } from "react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  PUBLIC_AGENT_DEFAULT_DESCRIPTION,
  PUBLIC_AGENT_DEFAULT_GREETING,
  publicAgentFallbackName,
} from "../../contract/agent";
import {
  buildLocalAgent,
  buildPublicCallPayload,
  phoneNumberConfigFromPid,
  publicCallFailureMessage,
  withPlus,
} from "../../src/components/public/public-agent-logic";
import { PublicHttpError } from "../../src/components/public/public-api";
import { capPhoneDigits, PhoneField, type PhoneValue } from "../../src/components/public/phone-field";
import { filterCountries } from "../../src/components/public/country-picker";
import { CUSTOMER_NAME_MAX_LENGTH } from "../../contract/call";
import { RECIPIENT_NAME_MAX_LENGTH } from "../../src/components/public/call-details-modal";
import { RootRoutes } from "../../src/root-routes";
import { installFetchFake, json, type FetchFake } from "./fetch-fake";
import { parseCountry, defaultCountries } from "react-international-phone";

const AGENT_ID = "3f2a9c1b-5d4e-4f60-8a7b-9c0d1e2f3a4b";
const PROFILE_PATH = `/api/agent/${AGENT_ID}/public`;
const PROFILE = {
  id: AGENT_ID,
  name: "Ava from Acme",
  description: "Ava books tables and answers questions about opening hours.",
  firstMessage: "Hello! How can I help you today?",
  endCallMessage: "Thank you for calling. Have a great day!",
};

const WALLET = "Your wallet balance is too low to make calls. Please top up your account to continue using the service.";
const TOOLS = "Agent configuration error: Some tools are missing or invalid. Please contact support.";
const BAD_REQUEST = "Invalid request. Please check the agent configuration.";
const NOT_FOUND = "Agent not found or not accessible.";
const SERVER = "Server error. Please try again later.";
const NOT_CONNECTED = "Call Not Connected";

function renderPage(path = `/public/agent/${AGENT_ID}?pid=pn_123`, fetch: FetchFake = installFetchFake().on("GET", PROFILE_PATH, () => json({ data: PROFILE }))) {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={[path]}>
      <RootRoutes />
    </MemoryRouter>,
  );
  return { user, fetch };
}

async function openModal(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole("button", { name: "Start Call" }, { timeout: 10_000 }));
  const dialog = await screen.findByRole("dialog", { name: "Confirm Call Details" });
  const form = within(dialog);
  return {
    dialog,
    name: form.getByLabelText("Recipient Name") as HTMLInputElement,
    phone: form.getByLabelText("Phone Number") as HTMLInputElement,
    submit: form.getByRole("button", { name: "Start Call" }),
    cancel: form.getByRole("button", { name: "Cancel" }),
    form,
  };
}

async function fillAndSubmit(user: ReturnType<typeof userEvent.setup>, name = "Ada Lovelace", digits = "4155550123") {
  const modal = await openModal(user);
  await user.type(modal.name, name);
  await user.type(modal.phone, digits);
  await user.click(modal.submit);
  return modal;
}

// The page remembers the last profile it got in sessionStorage: every test starts without one.
beforeEach(() => sessionStorage.clear());

/** A 429 as the server's rate limiter answers it. */
const tooMany = (retryAfter = "1") =>
  new Response(JSON.stringify({ detail: "Rate limit exceeded, retry in 1 second", code: "rate_limited" }), {
    status: 429,
    headers: { "Content-Type": "application/json", "Retry-After": retryAfter },
  });

describe("/public/agent/:agentID: loading and landing", () => {
  it("shows a loading screen, then the agent's name, description and a Start Call button", async () => {
    let answer!: (response: Response) => void;
    const fetch = installFetchFake().on("GET", PROFILE_PATH, () => new Promise<Response>((resolve) => (answer = resolve)));
    renderPage(undefined, fetch);

    await screen.findByText("Loading agent", {}, { timeout: 10_000 });
    expect(screen.queryByRole("button", { name: "Start Call" })).toBeNull();
    await waitFor(() => expect(answer).toBeTypeOf("function"));
    answer(json({ data: PROFILE }));

    await screen.findByRole("heading", { level: 1, name: PROFILE.name });
    expect(screen.getByText(PROFILE.description)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
    await waitFor(() => expect(document.title).toBe("Ava from Acme · Voice Agents"));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("a busy server (429) never turns a real agent into the stand-in: it keeps loading, asks again after Retry-After, and shows the agent's own name", async () => {
    let answers = 0;
    const fetch = installFetchFake().on("GET", PROFILE_PATH, () => (++answers <= 2 ? tooMany("1") : json({ data: PROFILE })));
    renderPage(undefined, fetch);

    await screen.findByText("Loading agent", {}, { timeout: 10_000 });
    await waitFor(() => expect(answers).toBeGreaterThanOrEqual(1));
    expect(screen.queryByRole("heading", { level: 1 })).toBeNull();
    await screen.findByRole("heading", { level: 1, name: PROFILE.name }, { timeout: 10_000 });
    expect(screen.getByText(PROFILE.description)).toBeInTheDocument();
    expect(screen.queryByText("AI Agent 3f2a9c1b")).toBeNull();
    expect(fetch.to("GET", PROFILE_PATH)).toHaveLength(3);
  }, 15_000);

  it.each([
    ["a 429", () => tooMany("30")],
    ["a network failure", () => Promise.reject(new TypeError("Failed to fetch"))],
    ["a 500", () => json({ detail: "boom", code: "internal" }, 500)],
  ])("after %s a reload shows the profile this tab got before, at once", async (_, respond) => {
    renderPage();
    await screen.findByRole("heading", { level: 1, name: PROFILE.name }, { timeout: 10_000 });
    cleanup();

    const fetch = installFetchFake().on("GET", PROFILE_PATH, respond);
    renderPage(undefined, fetch);
    await screen.findByRole("heading", { level: 1, name: PROFILE.name }, { timeout: 10_000 });
    expect(fetch.to("GET", PROFILE_PATH)).toHaveLength(1);
  });

  it("a 404 forgets the remembered profile: the agent is no longer public, so the stand-in is shown", async () => {
    renderPage();
    await screen.findByRole("heading", { level: 1, name: PROFILE.name }, { timeout: 10_000 });
    cleanup();

    renderPage(undefined, installFetchFake().on("GET", PROFILE_PATH, () => json({ detail: "Agent not found or not accessible.", code: "not_found" }, 404)));
    await screen.findByRole("heading", { level: 1, name: "AI Agent 3f2a9c1b" }, { timeout: 10_000 });
    cleanup();
    renderPage(undefined, installFetchFake().on("GET", PROFILE_PATH, () => json({ detail: "boom", code: "internal" }, 500)));
    await screen.findByRole("heading", { level: 1, name: "AI Agent 3f2a9c1b" }, { timeout: 10_000 });
  });

  it.each([
    ["a 404", () => json({ detail: "Agent not found", code: "not_found" }, 404)],
    ["a 400 (not an agent id)", () => json({ detail: "id: the agent id must be a UUID", code: "validation_error" }, 400)],
    ["a network failure, with nothing remembered", () => Promise.reject(new TypeError("Failed to fetch"))],
    ["a 500, with nothing remembered", () => json({ detail: "boom", code: "internal" }, 500)],
  ])("after %s it builds the agent locally: 'AI Agent' + the id's first 8 characters, the default description", async (_, respond) => {
    renderPage(undefined, installFetchFake().on("GET", PROFILE_PATH, respond));

    await screen.findByRole("heading", { level: 1, name: "AI Agent 3f2a9c1b" }, { timeout: 10_000 });
    expect(screen.getByText("Connect with our AI assistant")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });

  it("fills a blank name or description from the same defaults", async () => {
    renderPage(undefined, installFetchFake().on("GET", PROFILE_PATH, () => json({ data: { ...PROFILE, name: "", description: " " } })));
    await screen.findByRole("heading", { level: 1, name: "AI Agent 3f2a9c1b" }, { timeout: 10_000 });
    expect(screen.getByText("Connect with our AI assistant")).toBeInTheDocument();
  });

  it("shows the profile's text as text, never as markup", async () => {
    renderPage(
      undefined,
      installFetchFake().on("GET", PROFILE_PATH, () => json({ data: { ...PROFILE, description: "<img src=x onerror=alert(1)>" } })),
    );
    await screen.findByText("<img src=x onerror=alert(1)>", {}, { timeout: 10_000 });
    expect(document.querySelector("img[onerror]")).toBeNull();
  });
});

describe("/public/agent/:agentID: the 'Confirm Call Details' modal", () => {
  it("opens from Start Call with a required name and phone (country US, '+1' prefilled), Cancel and Start Call; Cancel closes it", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    expect(modal.name).toBeRequired();
    expect(modal.phone).toBeRequired();
    expect(modal.phone.value).toBe("+1 ");
    expect(modal.form.getByRole("button", { name: "Country: United States (+1)" })).toBeInTheDocument();
    expect(modal.form.getByRole("button", { name: "Country: United States (+1)" }).querySelector("img")).toHaveAttribute("src", "/flags/us.svg");
    expect(modal.name).toHaveFocus();
    expect(modal.submit).toBeDisabled();

    await user.click(modal.cancel);
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("says nothing about the fields before any input: not in StrictMode (effects run twice), not when focus leaves by itself", async () => {
    const user = userEvent.setup();
    installFetchFake().on("GET", PROFILE_PATH, () => json({ data: PROFILE }));
    render(
      <StrictMode>
        <MemoryRouter initialEntries={[`/public/agent/${AGENT_ID}?pid=pn_123`]}>
          <RootRoutes />
        </MemoryRouter>
      </StrictMode>,
    );
    const modal = await openModal(user);
    expect(modal.name).toHaveFocus();
    // The page moved focus into the name, not the visitor: losing it again (another window, another tab) is no input.
    act(() => modal.name.blur());
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(modal.form.queryByText("Please enter Recipient Name")).toBeNull();
    expect(modal.form.queryByText("Please enter Phone Number")).toBeNull();
    expect(modal.name).not.toHaveAttribute("aria-invalid");
    expect(modal.form.queryByRole("alert")).toBeNull();
  });

  it("disables Start Call while the name is blank or the phone is empty", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    await user.type(modal.phone, "4155550123");
    expect(modal.submit).toBeDisabled(); // no name
    await user.type(modal.name, "   ");
    expect(modal.submit).toBeDisabled(); // a blank name is no name
    await user.clear(modal.name);
    await user.type(modal.name, "Ada");
    expect(modal.submit).toBeEnabled();
    await user.clear(modal.phone);
    expect(modal.submit).toBeDisabled(); // no phone
  });

  it("says 'Please enter Recipient Name' and 'Please enter Phone Number' under the fields once touched", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    await user.click(modal.name);
    await user.tab(); // leaves the name blank
    await modal.form.findByText("Please enter Recipient Name");
    expect(modal.name).toHaveAttribute("aria-invalid", "true");

    await user.type(modal.phone, "41");
    await user.clear(modal.phone);
    await modal.form.findByText("Please enter Phone Number");

    await user.type(modal.name, "Ada");
    expect(modal.form.queryByText("Please enter Recipient Name")).toBeNull();
  });

  it("checks again on submit (e.g. Enter): empty phone, blank name; no request is sent", async () => {
    const { user, fetch } = renderPage();
    const modal = await openModal(user);

    fireEvent.submit(modal.submit.closest("form")!);
    await modal.form.findByText("Please enter Phone Number");
    expect(modal.form.getByText("Please enter Recipient Name")).toBeInTheDocument();
    expect(fetch.to("POST", "/api/call/public")).toEqual([]);
  });

  it("says 'Phone number configuration is missing' without ?pid= and sends nothing", async () => {
    const { user, fetch } = renderPage(`/public/agent/${AGENT_ID}`);
    await fillAndSubmit(user);

    expect(await screen.findByRole("alert")).toHaveTextContent("Phone number configuration is missing");
    expect(fetch.to("POST", "/api/call/public")).toEqual([]);
    expect(screen.getByRole("dialog", { name: "Confirm Call Details" })).toBeInTheDocument();
  });

  it("sends exactly the spec's payload, shows 'Calling...' (disabled, spinner) while busy, then 'Agent is Calling' and closes", async () => {
    let answer!: (response: Response) => void;
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => new Promise<Response>((resolve) => (answer = resolve)));
    const { user } = renderPage(undefined, fetch);
    const modal = await fillAndSubmit(user, "  Ada Lovelace ");

    const busy = await modal.form.findByRole("button", { name: "Calling..." });
    expect(busy).toBeDisabled();
    expect(busy).toHaveAttribute("aria-busy", "true");
    expect(busy.querySelector(".pub-spinner")).not.toBeNull();
    expect(modal.cancel).toBeDisabled();
    expect(modal.name).toBeDisabled();

    const [request] = fetch.to("POST", "/api/call/public");
    expect(request!.body).toEqual({
      assistantId: AGENT_ID,
      assistantOverrides: { variableValues: { name: "Ada Lovelace" } },
      customer: { number: "+14155550123" },
      phoneNumberId: "pn_123",
    });
    expect(request!.headers.get("Content-Type")).toBe("application/json");
    expect(request!.headers.get("Authorization")).toBeNull();

    answer(json({ data: { id: "call_1", status: "queued" } }, 201));
    expect(await screen.findByRole("status", { name: "" })).toHaveTextContent("Agent is Calling");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });

  it("accepts a 200 answer as success too", async () => {
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => json({ data: { id: "call_2", status: "queued" } }, 200));
    const { user } = renderPage(undefined, fetch);
    await fillAndSubmit(user);
    await screen.findByText("Agent is Calling");
  });

  it.each([
    [403, { detail: "The wallet balance is too low", code: "wallet_low" }, WALLET],
    [400, { detail: "model.toolIds[0] does not exist", code: "bad_request" }, TOOLS],
    [400, { detail: "Unknown toolId abc", code: "bad_request" }, TOOLS],
    [400, { detail: "A Tool could not be found", code: "bad_request" }, TOOLS],
    [400, { detail: "customer.number must be E.164", code: "bad_request" }, BAD_REQUEST],
    [400, null, BAD_REQUEST],
    [404, { detail: "Agent not found", code: "not_found" }, NOT_FOUND],
    [500, { detail: "Internal error", code: "internal" }, SERVER],
    [429, { detail: "Too many requests", code: "rate_limited" }, NOT_CONNECTED],
    [502, null, NOT_CONNECTED],
    [401, { detail: "no", code: "unauthorized" }, NOT_CONNECTED],
  ])("a %i answer (%j) shows '%s', keeps the modal open and lets the visitor try again", async (status, body, text) => {
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => (body ? json(body, status) : new Response("oops", { status })));
    const { user } = renderPage(undefined, fetch);
    const modal = await fillAndSubmit(user);

    expect(await screen.findByRole("alert")).toHaveTextContent(text);
    expect(screen.getByRole("dialog", { name: "Confirm Call Details" })).toBeInTheDocument();
    await waitFor(() => expect(modal.form.getByRole("button", { name: "Start Call" })).toBeEnabled());
  });

  it("a network failure shows 'Call Not Connected'", async () => {
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => Promise.reject(new TypeError("Failed to fetch")));
    const { user } = renderPage(undefined, fetch);
    await fillAndSubmit(user);
    expect(await screen.findByRole("alert")).toHaveTextContent(NOT_CONNECTED);
  });

  it("toasts close after 5 s, and can be dismissed", async () => {
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => json({ detail: "x", code: "internal" }, 500));
    const { user } = renderPage(undefined, fetch);
    const modal = await openModal(user);
    await user.type(modal.name, "Ada");
    await user.type(modal.phone, "4155550123");

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    fireEvent.click(modal.submit);
    // Wait without moving the faked clock (vi.waitFor would advance it).
    for (let i = 0; i < 500 && !screen.queryByRole("alert"); i++) {
      await act(() => new Promise<void>((resolve) => setImmediate(resolve)));
    }
    expect(screen.getByRole("alert")).toHaveTextContent(SERVER);
    act(() => vi.advanceTimersByTime(4999));
    expect(screen.getByRole("alert")).toHaveTextContent(SERVER);
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByRole("alert")).toBeNull();
    vi.useRealTimers();

    await user.click(modal.form.getByRole("button", { name: "Start Call" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(SERVER);
    await user.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("the phone number field", () => {
  it("after clearing it, the default country's dial code comes back: 4155550100 is +1 415 555 0100, sent as +14155550100", async () => {
    const fetch = installFetchFake()
      .on("GET", PROFILE_PATH, () => json({ data: PROFILE }))
      .on("POST", "/api/call/public", () => json({ data: { id: "call_1", status: "queued" } }, 201));
    const { user } = renderPage(undefined, fetch);
    const modal = await openModal(user);
    await user.type(modal.name, "Ada");

    await user.type(modal.phone, "2125550199");
    await user.clear(modal.phone);
    expect(modal.phone.value).toBe("+1 ");
    expect(modal.form.getByRole("button", { name: "Country: United States (+1)" })).toBeInTheDocument();
    expect(modal.submit).toBeDisabled(); // the dial code alone is empty
    await user.type(modal.phone, "4155550100");
    expect(modal.phone.value).toBe("+1 (415) 555-0100");
    expect(modal.form.getByRole("button", { name: "Country: United States (+1)" })).toBeInTheDocument();

    await user.click(modal.submit);
    await waitFor(() => expect(fetch.to("POST", "/api/call/public")).toHaveLength(1));
    expect(fetch.to("POST", "/api/call/public")[0]!.body).toMatchObject({ customer: { number: "+14155550100" } });
  });

  it("after clearing it, the country picked from the list comes back, not the default", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);
    await user.click(modal.form.getByRole("button", { name: "Country: United States (+1)" }));
    await user.type(modal.form.getByRole("combobox", { name: "Search countries" }), "united kingdom");
    await user.click(await modal.form.findByRole("option", { name: /United Kingdom/ }));

    await user.type(modal.phone, "2071234567");
    await user.clear(modal.phone);
    expect(modal.phone.value).toBe("+44 ");
    await user.type(modal.phone, "2071234567");
    expect(modal.phone.value).toBe("+44 2071 234567");
  });

  it("a whole international number typed over the selection sets the country from its dial code", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    await user.tripleClick(modal.phone);
    await user.keyboard("+442071234567");
    expect(modal.phone.value).toBe("+44 2071 234567");
    expect(modal.form.getByRole("button", { name: "Country: United Kingdom (+44)" })).toBeInTheDocument();
  });

  it("stops at 15 digits in all", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    // Albania (+355) has no mask in the library: at most 12 more digits.
    await user.tripleClick(modal.phone);
    await user.keyboard("+35512345678901234567");
    expect(modal.phone.value.replace(/\D/g, "")).toBe("355123456789012");
    expect(modal.phone.value.startsWith("+")).toBe(true);
  });

  it("allows longer numbers only when long numbers are enabled", async () => {
    const user = userEvent.setup();
    const values: PhoneValue[] = [];
    const { unmount } = render(<PhoneField id="phone" onChange={(value) => values.push(value)} allowLongNumbers />);
    const input = screen.getByRole("textbox") as HTMLInputElement;
    await user.tripleClick(input);
    await user.keyboard("+35512345678901234567");
    expect(values.at(-1)!.phone).toBe("+35512345678901234567");
    unmount();

    expect(capPhoneDigits("+35512345678901234567")).toBe("+355123456789012");
    expect(capPhoneDigits("35512345678901234567", true)).toBe("+35512345678901234567");
    expect(capPhoneDigits("")).toBe("");
  });

  it("picks a country from a searchable list; the search filters 250 ms after typing", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);

    await user.click(modal.form.getByRole("button", { name: "Country: United States (+1)" }));
    const search = modal.form.getByRole("combobox", { name: "Search countries" });
    expect(search).toHaveFocus();
    const list = modal.form.getByRole("listbox", { name: "Countries" });
    expect(within(list).getAllByRole("option").length).toBeGreaterThan(200);
    expect(within(list).getByRole("option", { name: /United States/ })).toHaveAttribute("aria-selected", "true");

    vi.useFakeTimers();
    fireEvent.change(search, { target: { value: "germ" } });
    act(() => vi.advanceTimersByTime(249));
    expect(within(list).getAllByRole("option").length).toBeGreaterThan(200);
    act(() => vi.advanceTimersByTime(1));
    expect(within(list).getAllByRole("option").map((option) => option.textContent)).toEqual(["Germany+49"]);
    vi.useRealTimers();

    fireEvent.keyDown(search, { key: "Enter" });
    expect(modal.form.getByRole("button", { name: "Country: Germany (+49)" })).toBeInTheDocument();
    expect(modal.form.queryByRole("listbox")).toBeNull();
    expect(modal.phone.value).toBe("+49 ");
  });

  it("Escape closes the country list without closing the modal", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);
    await user.click(modal.form.getByRole("button", { name: "Country: United States (+1)" }));
    await user.keyboard("{Escape}");
    expect(modal.form.queryByRole("listbox")).toBeNull();
    expect(screen.getByRole("dialog", { name: "Confirm Call Details" })).toBeInTheDocument();
  });

  it("searches by name (accents ignored), ISO code and dial code", () => {
    const countries = defaultCountries.map(parseCountry);
    expect(filterCountries(countries, "cote").map((c) => c.iso2)).toContain("ci");
    expect(filterCountries(countries, "DE").map((c) => c.iso2)).toContain("de");
    expect(filterCountries(countries, "+44").map((c) => c.iso2)).toEqual(["gb"]);
    expect(filterCountries(countries, "").length).toBe(countries.length);
  });
});

describe("the public call rules", () => {
  it("builds the payload exactly, with 'Sir' for a blank name and '+' added when missing", () => {
    expect(buildPublicCallPayload({ agentId: "a1", recipientName: "  ", phone: "14155550123", phoneNumberId: "p1" })).toEqual({
      assistantId: "a1",
      assistantOverrides: { variableValues: { name: "Sir" } },
      customer: { number: "+14155550123" },
      phoneNumberId: "p1",
    });
    expect(withPlus("+4420")).toBe("+4420");
    expect(withPlus("4420")).toBe("+4420");
  });

  it("builds the phone-number configuration from pid with provider 'vapi'", () => {
    expect(phoneNumberConfigFromPid("pn_1")).toEqual({ id: "pn_1", provider: "vapi" });
    expect(phoneNumberConfigFromPid(null)).toBeNull();
    expect(phoneNumberConfigFromPid(" ")).toBeNull();
  });

  it("maps each failure to the spec's sentence", () => {
    const http = (status: number, detail: string | null = null) => new PublicHttpError(status, detail, null);
    expect(publicCallFailureMessage(http(403))).toBe(WALLET);
    expect(publicCallFailureMessage(new PublicHttpError(403, "Wallet too low.", "insufficient_balance"))).toBe(WALLET);
    // A spend cap or a plan limit: the server's own sentence (which cap, when it resets).
    const cap = "This call would pass the organisation's daily spend cap of $5.00 ($5.00 spent today). It resets at midnight (UTC), in 3 h.";
    expect(publicCallFailureMessage(new PublicHttpError(403, cap, "spend_cap_reached"))).toBe(cap);
    expect(publicCallFailureMessage(new PublicHttpError(403, "Your Free plan allows 1 concurrent call.", "plan_limit_reached"))).toBe("Your Free plan allows 1 concurrent call.");
    expect(publicCallFailureMessage(http(400, "toolId missing"))).toBe(TOOLS);
    expect(publicCallFailureMessage(http(400, "bad number"))).toBe(BAD_REQUEST);
    expect(publicCallFailureMessage(http(404))).toBe(NOT_FOUND);
    expect(publicCallFailureMessage(http(500))).toBe(SERVER);
    expect(publicCallFailureMessage(http(429))).toBe(NOT_CONNECTED);
    expect(publicCallFailureMessage(new TypeError("Failed to fetch"))).toBe(NOT_CONNECTED);
  });

  it("caps the recipient name at the length the server keeps", async () => {
    expect(RECIPIENT_NAME_MAX_LENGTH).toBe(CUSTOMER_NAME_MAX_LENGTH);
    const { user } = renderPage();
    const modal = await openModal(user);
    expect(modal.name).toHaveAttribute("maxLength", String(CUSTOMER_NAME_MAX_LENGTH));
  });

  it("builds the local agent from the same defaults the contract names", () => {
    expect(buildLocalAgent(AGENT_ID)).toEqual({
      id: AGENT_ID,
      name: publicAgentFallbackName(AGENT_ID),
      description: PUBLIC_AGENT_DEFAULT_DESCRIPTION,
      firstMessage: PUBLIC_AGENT_DEFAULT_GREETING,
      endCallMessage: "Thank you for calling. Have a great day!",
    });
  });
});

describe("typing into the prefilled phone field", () => {
  it("types after the dial code even when focus put the caret first", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);
    act(() => {
      modal.phone.focus();
      modal.phone.setSelectionRange(0, 0);
      modal.phone.dispatchEvent(new FocusEvent("focusin", { bubbles: true }));
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(modal.phone.selectionStart).toBe(modal.phone.value.length);
    await user.keyboard("4155550123");
    expect(modal.phone.value).toBe("+1 (415) 555-0123");
  });

  it("types after the dial code even when the caret moved into it after focus (first keystroke)", async () => {
    const { user } = renderPage();
    const modal = await openModal(user);
    await user.click(modal.phone);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Something (the library, a click) leaves the caret between '+' and the dial code.
    act(() => modal.phone.setSelectionRange(1, 1));
    await user.keyboard("4155550123");
    expect(modal.phone.value).toBe("+1 (415) 555-0123");
  });
});
