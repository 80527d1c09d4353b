import { render, screen, waitFor, within } from "@testing-library/react";
import type { Location } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CalendarConnection } from "../../contract/calendar";
import { calendarPermissionText as text } from "../../src/components/calendar-permission/strings";
import { browserNavigation } from "../../src/components/calendar-permission/use-calendar-permission";
import { forgetPublicConfig } from "../../src/config/public-config";
import { ConsoleRoutes } from "../../src/routes";
import { ConsoleProviders, findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs, type FetchFake } from "./test-utils";

const CONNECTION_ID = "c0000000-0000-4000-8000-000000000001";
const FEED_URL = "http://localhost:3000/api/calendar/feed/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde.ics";
const NEW_FEED_URL = "http://localhost:3000/api/calendar/feed/ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210-_edcba.ics";
const CONSENT_URL = "https://accounts.google.com/o/oauth2/v2/auth?client_id=x&state=s";
/** The server's PUBLIC_URL as GET /api/config says it: another origin than the page's (jsdom's localhost). */
const SERVER_PUBLIC_URL = "http://voice.example.test:8080";

function connection(overrides: Partial<CalendarConnection> = {}): CalendarConnection {
  return {
    id: CONNECTION_ID,
    provider: "google",
    account_email: "owner@example.com",
    calendar: "primary",
    status: "connected",
    last_error: null,
    connected_at: "2026-03-02T10:00:00.000Z",
    ...overrides,
  };
}

/** The calendar-permission API as the server answers it; `state.connections` changes as the fake is used. */
function serve(fetch: FetchFake, options: { configured?: boolean; connections?: CalendarConnection[] } = {}) {
  const state = { connections: options.connections ?? [], feedUrl: FEED_URL };
  fetch.on("GET", "/api/config", () =>
    json({ data: { authMode: "local", voiceMode: "sandbox", clerkPublishableKey: null, vapiPublicKey: null, vapiApiUrl: null, publicUrl: SERVER_PUBLIC_URL } }),
  );
  fetch.on("GET", "/api/calendar/connections", () => json({ data: state.connections, google_configured: options.configured ?? true }));
  fetch.on("GET", "/api/calendar/feed", () => json({ data: { url: state.feedUrl } }));
  fetch.on("POST", "/api/calendar/google/connect", () => json({ data: { url: CONSENT_URL } }));
  fetch.on("POST", "/api/calendar/google/callback", () => {
    state.connections = [connection()];
    return json({ data: connection() });
  });
  fetch.on("DELETE", `/api/calendar/connections/${CONNECTION_ID}`, () => {
    state.connections = [];
    return json({ data: { id: CONNECTION_ID, revoked: true, revoke_error: null } });
  });
  fetch.on("POST", "/api/calendar/feed/rotate", () => {
    state.feedUrl = NEW_FEED_URL;
    return json({ data: { url: NEW_FEED_URL } });
  });
  return state;
}

async function open(options: { role?: "org:admin" | "org:member"; path?: string; configured?: boolean; connections?: CalendarConnection[] } = {}) {
  const fetch = installFetchFake();
  const state = serve(fetch, options);
  const rendered = renderConsole({ path: options.path ?? "/calendar-permission", fetch, session: signedInAs(options.role ?? "org:admin") });
  await findScreen("Calendar Permission");
  return { ...rendered, state };
}

const googleCard = () => screen.getByRole("heading", { level: 2, name: text.google.title }).closest(".ant-card") as HTMLElement;
const feedCard = () => screen.getByRole("heading", { level: 2, name: text.feed.title }).closest(".ant-card") as HTMLElement;

afterEach(() => {
  vi.restoreAllMocks();
  // Each test is a fresh page load: GET /api/config is asked again.
  forgetPublicConfig();
});

describe("Calendar Permission: Google Calendar", () => {
  it("an admin with nothing connected sees what connecting does and a Connect button that goes to Google's consent page", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const { user, fetch } = await open();
    await waitFor(() => expect(document.title).toBe("Calendar Permission · Voice Agents"));
    await within(googleCard()).findByText(text.google.notConnected);
    await user.click(within(googleCard()).getByRole("button", { name: text.google.connect }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT_URL));
    expect(fetch.to("POST", "/api/calendar/google/connect")).toHaveLength(1);
  });

  it("back from Google with code and state: posts them once, says so, shows the account, and takes them out of the address", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    let location: Location | null = null;
    render(
      <ConsoleProviders session={signedInAs("org:admin")} path="/calendar-permission?state=st4te&code=4%2Fc0de&scope=x" onLocation={(current) => (location = current)}>
        <ConsoleRoutes />
      </ConsoleProviders>,
    );
    await screen.findByText("Google Calendar connected: owner@example.com");
    expect(fetch.to("POST", "/api/calendar/google/callback").map((request) => request.body)).toEqual([{ code: "4/c0de", state: "st4te" }]);
    const card = googleCard();
    await within(card).findByText("owner@example.com");
    expect(within(card).getByText(text.google.statusConnected)).toBeInTheDocument();
    expect(within(card).getByText(text.google.primaryCalendar)).toBeInTheDocument();
    expect(location).toMatchObject({ pathname: "/calendar-permission", search: "" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetch.to("POST", "/api/calendar/google/callback")).toHaveLength(1);
  });

  it("a refused return shows the server's reason with a way to try again", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    fetch.on("POST", "/api/calendar/google/callback", () =>
      json({ detail: "This Google sign-in took longer than 10 minutes and has expired: start again with Connect Google Calendar.", code: "bad_request" }, 400),
    );
    renderConsole({ path: "/calendar-permission?code=c&state=s", fetch, session: signedInAs("org:admin") });
    const alert = (await screen.findByText(/took longer than 10 minutes/)).closest(".ant-alert") as HTMLElement;
    expect(within(alert).getByText(text.google.connectFailed)).toBeInTheDocument();
    expect(within(alert).getByRole("button", { name: text.retry })).toBeInTheDocument();
  });

  it("access refused on Google's page says so and posts nothing", async () => {
    const { fetch } = await open({ path: "/calendar-permission?error=access_denied&state=s" });
    await screen.findByText(text.google.deniedAtGoogle);
    expect(fetch.to("POST", "/api/calendar/google/callback")).toEqual([]);
  });

  it("a connection Google stopped accepting shows the problem and Reconnect", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const message = "Google no longer accepts this calendar permission (it was revoked or has expired): reconnect Google Calendar.";
    const { user } = await open({ connections: [connection({ status: "error", last_error: message })] });
    const card = googleCard();
    await within(card).findByText(message);
    expect(within(card).getByText(text.google.statusError)).toBeInTheDocument();
    await user.click(within(card).getByRole("button", { name: text.google.reconnect }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT_URL));
  });

  it("a passing problem on a working connection is shown as a warning", async () => {
    await open({ connections: [connection({ last_error: "Could not read busy times from Google Calendar: Google did not answer." })] });
    await within(googleCard()).findByText("Could not read busy times from Google Calendar: Google did not answer.");
    expect(within(googleCard()).getByText(text.google.warningTitle)).toBeInTheDocument();
  });

  it("Disconnect asks first, then deletes the connection and says so", async () => {
    const { user, fetch } = await open({ connections: [connection()] });
    await user.click(await within(googleCard()).findByRole("button", { name: text.google.disconnect }));
    const dialog = await findDialog(text.google.disconnectConfirmTitle);
    expect(within(dialog).getByText(text.google.disconnectConfirmBody)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: text.google.disconnect }));
    await screen.findByText(text.google.disconnected);
    expect(fetch.to("DELETE", `/api/calendar/connections/${CONNECTION_ID}`)).toHaveLength(1);
    await within(googleCard()).findByText(text.google.notConnected);
  });

  it("a disconnect Google did not confirm says where to remove the access", async () => {
    const { user, fetch } = await open({ connections: [connection()] });
    fetch.on("DELETE", `/api/calendar/connections/${CONNECTION_ID}`, () => json({ data: { id: CONNECTION_ID, revoked: false, revoke_error: "Google did not answer." } }));
    await user.click(await within(googleCard()).findByRole("button", { name: text.google.disconnect }));
    await user.click(within(await findDialog(text.google.disconnectConfirmTitle)).getByRole("button", { name: text.google.disconnect }));
    await screen.findByText(text.google.disconnectedNotRevoked);
    expect(screen.getByText(/Google did not answer\. Remove the access in the Google account/)).toBeInTheDocument();
  });

  it("without Google keys on the server, an admin reads how to set it up: the two variables, the redirect URI on the server's PUBLIC_URL (not this browser's origin), the scopes; no Connect", async () => {
    // The browser reached the server by another name than PUBLIC_URL: Google must be given the server's address.
    expect(window.location.origin).not.toBe(SERVER_PUBLIC_URL);
    await open({ configured: false });
    const card = googleCard();
    await within(card).findByText(text.google.notConfiguredTitle);
    expect(within(card).getByText(/GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/)).toBeInTheDocument();
    await waitFor(() => expect(within(card).getByLabelText(text.google.redirectUri)).toHaveValue(`${SERVER_PUBLIC_URL}/calendar-permission`));
    expect(within(card).getByText(/calendar\.freebusy/)).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: text.google.connect })).toBeNull();
  });

  it("without Google keys on the server, a member reads one sentence asking an admin, and none of the operator's set-up", async () => {
    await open({ role: "org:member", configured: false });
    const card = googleCard();
    await within(card).findByText(text.google.notConfiguredTitle);
    expect(within(card).getByText(text.google.notConfiguredMember)).toBeInTheDocument();
    expect(card).not.toHaveTextContent(/GOOGLE_CLIENT_ID|PUBLIC_URL|restart|environment|redirect URI|Google Cloud Console/i);
    expect(within(card).queryByLabelText(text.google.redirectUri)).toBeNull();
    expect(within(card).queryByRole("list")).toBeNull();
    expect(within(card).queryByText(text.membersReadOnly)).toBeNull();
    expect(within(card).queryByRole("button", { name: text.google.connect })).toBeNull();
  });

  it("the connections failing to load say so, and Try again loads them", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    fetch.on("GET", "/api/calendar/connections", () => json({ detail: "Something went wrong on our side. Please try again.", code: "internal_error" }, 500));
    const { user } = renderConsole({ path: "/calendar-permission", fetch, session: signedInAs("org:admin") });
    await screen.findByText(text.google.loadFailed);
    fetch.on("GET", "/api/calendar/connections", () => json({ data: [connection()], google_configured: true }));
    await user.click(within(googleCard()).getByRole("button", { name: text.retry }));
    await within(googleCard()).findByText("owner@example.com");
  });

  it("members see the connection read-only, with a note, and are never shown the feed's address", async () => {
    const { fetch } = await open({ role: "org:member", connections: [connection()] });
    const card = googleCard();
    await within(card).findByText("owner@example.com");
    expect(within(card).getByText(text.membersReadOnly)).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: text.google.disconnect })).toBeNull();
    expect(within(card).queryByRole("button", { name: text.google.reconnect })).toBeNull();
    await within(feedCard()).findByText(text.feed.membersAskAdmin);
    expect(fetch.to("GET", "/api/calendar/feed")).toEqual([]);
  });
});

describe("Calendar Permission: the ICS feed", () => {
  it("shows the secret address with Copy, the warning, and how to subscribe in Google, Apple and Outlook", async () => {
    const { user } = await open();
    // After user-event's setup, which puts its own clipboard in place.
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const card = feedCard();
    expect(await within(card).findByLabelText(text.feed.address)).toHaveValue(FEED_URL);
    expect(within(card).getByText(text.feed.secret)).toBeInTheDocument();
    for (const step of text.feed.howToSteps) expect(within(card).getByText(step.app, { exact: false })).toBeInTheDocument();
    await user.click(within(card).getByRole("button", { name: text.feed.copy }));
    expect(writeText).toHaveBeenCalledWith(FEED_URL);
    await screen.findByText(text.feed.copied);
  });

  it("Replace address asks first (the old one stops working), then shows the new one", async () => {
    const { user, fetch } = await open();
    const card = feedCard();
    await within(card).findByLabelText(text.feed.address);
    await user.click(within(card).getByRole("button", { name: text.feed.rotate }));
    const dialog = await findDialog(text.feed.rotateConfirmTitle);
    expect(within(dialog).getByText(text.feed.rotateConfirmBody)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: text.feed.rotateOk }));
    await waitFor(() => expect(within(card).getByLabelText(text.feed.address)).toHaveValue(NEW_FEED_URL));
    expect(fetch.to("POST", "/api/calendar/feed/rotate")).toHaveLength(1);
    await screen.findByText(text.feed.rotated);
  });

  it("cancelling the replacement changes nothing", async () => {
    const { user, fetch } = await open();
    const card = feedCard();
    await within(card).findByLabelText(text.feed.address);
    await user.click(within(card).getByRole("button", { name: text.feed.rotate }));
    await user.click(within(await findDialog(text.feed.rotateConfirmTitle)).getByRole("button", { name: text.google.cancel }));
    expect(fetch.to("POST", "/api/calendar/feed/rotate")).toEqual([]);
    expect(within(card).getByLabelText(text.feed.address)).toHaveValue(FEED_URL);
  });

  it("the address failing to load says so with Try again", async () => {
    const fetch = installFetchFake();
    serve(fetch);
    fetch.on("GET", "/api/calendar/feed", () => json({ detail: "Something went wrong on our side. Please try again.", code: "internal_error" }, 500));
    const { user } = renderConsole({ path: "/calendar-permission", fetch, session: signedInAs("org:admin") });
    await screen.findByText(text.feed.loadFailed);
    fetch.on("GET", "/api/calendar/feed", () => json({ data: { url: FEED_URL } }));
    await user.click(within(feedCard()).getByRole("button", { name: text.retry }));
    expect(await within(feedCard()).findByLabelText(text.feed.address)).toHaveValue(FEED_URL);
  });
});
