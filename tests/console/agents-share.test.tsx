import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Agent } from "../../contract/agent";
import type { PhoneNumber } from "../../contract/phone-number";
import { SharePanel } from "../../src/components/agents/share-panel";
import { forgetPublicConfig, loadPublicConfig } from "../../src/config/public-config";
import { AGENT_ID, makeAgent, serveAgents } from "./agents-fixtures";
import { makeNumber } from "./phone-numbers-fixtures";
import { ConsoleProviders, FakeSession, installFetchFake, json, type FetchFake } from "./test-utils";

const PUT_PATH = `/api/agent/${AGENT_ID}`;

const DEFAULT_NUMBER = makeNumber({ id: "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", name: "Front desk", number: "+14155550123" });

/** The share panel's own requests: the default phone number (or 404) and the organisation's web-call links (none). */
function serveSharing(fetch: FetchFake, defaultNumber: PhoneNumber | null = DEFAULT_NUMBER) {
  fetch
    .on("GET", "/api/phonenumber/default", () =>
      defaultNumber ? json({ data: defaultNumber }) : json({ detail: "No default phone number yet", code: "not_found" }, 404),
    )
    .on("GET", "/api/webcall/", () => json({ data: [], total: 0, page: 1, limit: 100 }));
}

/**
 * The panel alone: the editor takes seconds to render in jsdom (and mounts SharePanel as it is).
 */
function renderPanel({ agent = makeAgent(), defaultNumber }: { agent?: Agent; defaultNumber?: PhoneNumber | null } = {}) {
  const fetch = installFetchFake();
  serveAgents(fetch, [agent]);
  serveSharing(fetch, defaultNumber);
  const user = userEvent.setup();
  render(
    <ConsoleProviders session={new FakeSession()} path={`/agent/${agent.id}`}>
      <SharePanel agent={agent} />
    </ConsoleProviders>,
  );
  return { user, fetch };
}

function stubClipboard(writeText = vi.fn(async (_text: string) => undefined)) {
  // After user-event's setup, which puts its own clipboard in place.
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  return writeText;
}

describe("sharing an agent", () => {
  it("shows the public link with the default number's pid and, while copying is on, the private clone link with its key, each with a copy button", async () => {
    const { user } = renderPanel({ agent: makeAgent({ clone_enabled: true, clone_key: "key-of-the-link" }) });
    const writeText = stubClipboard();

    const publicLink = `${window.location.origin}/public/agent/${AGENT_ID}?pid=${DEFAULT_NUMBER.id}`;
    const cloneLink = `${window.location.origin}/agent/private/${AGENT_ID}?key=key-of-the-link`;
    expect(screen.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" })).toBeChecked();
    await waitFor(() => expect(screen.getByLabelText("Public link")).toHaveValue(publicLink));
    expect(screen.getByText("Visitors are called from Front desk (+14155550123), your default number.")).toBeInTheDocument();
    expect(screen.getByLabelText("Private clone link")).toHaveValue(cloneLink);
    expect(screen.getByRole("heading", { name: "Web-call links" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Copy public link" }));
    expect(writeText).toHaveBeenLastCalledWith(publicLink);
    await screen.findByText("Link copied");

    await user.click(screen.getByRole("button", { name: "Copy private clone link" }));
    expect(writeText).toHaveBeenLastCalledWith(cloneLink);
  });

  it("the links are on the server's PUBLIC_URL (GET /api/config), not on the name this browser reached the server by", async () => {
    const server = "https://voice.example.test";
    const fetch = installFetchFake();
    fetch.on("GET", "/api/config", () =>
      json({ data: { authMode: "local", voiceMode: "sandbox", clerkPublishableKey: null, vapiPublicKey: null, vapiApiUrl: null, publicUrl: server } }),
    );
    await loadPublicConfig();
    renderPanel({ agent: makeAgent({ clone_enabled: true, clone_key: "key-of-the-link" }) });
    await waitFor(() => expect(screen.getByLabelText("Public link")).toHaveValue(`${server}/public/agent/${AGENT_ID}?pid=${DEFAULT_NUMBER.id}`));
    expect(screen.getByLabelText("Private clone link")).toHaveValue(`${server}/agent/private/${AGENT_ID}?key=key-of-the-link`);
  });

  it("leaves pid out and says how to get one while the organisation has no default number", async () => {
    const { user, fetch } = renderPanel({ defaultNumber: null });
    const writeText = stubClipboard();

    const hint = await screen.findByRole("link", { name: "Add a phone number to let visitors be called" });
    expect(hint).toHaveAttribute("href", "/phone-numbers");
    const publicLink = `${window.location.origin}/public/agent/${AGENT_ID}`;
    expect(screen.getByLabelText("Public link")).toHaveValue(publicLink);
    expect(fetch.to("GET", "/api/phonenumber/default")).toHaveLength(1); // a 404 is an answer: no retry

    await user.click(screen.getByRole("button", { name: "Copy public link" }));
    expect(writeText).toHaveBeenLastCalledWith(publicLink);
    // No error toast for the 404: only the copy's.
    await screen.findByText("Link copied");
    expect(document.querySelector(".ant-notification-notice-error")).toBeNull();
  });

  it("says so when the browser refuses to copy", async () => {
    const { user } = renderPanel();
    stubClipboard(vi.fn(async () => Promise.reject(new Error("denied"))));

    await user.click(screen.getByRole("button", { name: "Copy public link" }));
    await screen.findByText("The link could not be copied");
  });

  it("makes the agent public at once with PUT is_public, and private again", async () => {
    const { user, fetch } = renderPanel();

    const toggle = screen.getByRole("switch", { name: "Public" });
    expect(toggle).not.toBeChecked();
    expect(screen.getByText("Turn on Public so that the public link works.")).toBeInTheDocument();

    await user.click(toggle);
    expect((await screen.findByText("The agent is now public")).closest(".ant-message")).not.toBeNull(); // page-level notice
    await waitFor(() => expect(screen.getByRole("switch", { name: "Public" })).toBeChecked());
    expect(screen.getByText("Anyone with the public link can call this agent.")).toBeInTheDocument();

    await user.click(screen.getByRole("switch", { name: "Public" }));
    await screen.findByText("The agent is now private");
    expect(fetch.to("PUT", PUT_PATH).map((request) => request.body)).toEqual([{ is_public: true }, { is_public: false }]);
  });

  it("copying is off by default: no clone link until the owner turns it on; turning it off takes the link away", async () => {
    const { user, fetch } = renderPanel();
    let key = "first-key";
    fetch.on("PUT", PUT_PATH, (request) => {
      const on = (request.body as { clone_enabled: boolean }).clone_enabled;
      return json({ data: makeAgent({ clone_enabled: on, clone_key: on ? key : null }) });
    });

    const consent = screen.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" });
    expect(consent).not.toBeChecked();
    expect(screen.queryByLabelText("Private clone link")).toBeNull();
    expect(screen.getByText(/Off: nobody can copy this agent/)).toBeInTheDocument();

    await user.click(consent);
    expect((await screen.findByText("Anyone signed in with the private clone link can now copy this agent")).closest(".ant-message")).not.toBeNull(); // page-level notice
    await waitFor(() => expect(screen.getByLabelText("Private clone link")).toHaveValue(`${window.location.origin}/agent/private/${AGENT_ID}?key=first-key`));

    await user.click(screen.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" }));
    await screen.findByText("Copying is off: the private clone link no longer works");
    await waitFor(() => expect(screen.queryByLabelText("Private clone link")).toBeNull());

    // On again: the server made a new key, and the link shows it.
    key = "second-key";
    await user.click(screen.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" }));
    await waitFor(() => expect(screen.getByLabelText("Private clone link")).toHaveValue(`${window.location.origin}/agent/private/${AGENT_ID}?key=second-key`));
    expect(fetch.to("PUT", PUT_PATH).map((request) => request.body)).toEqual([{ clone_enabled: true }, { clone_enabled: false }, { clone_enabled: true }]);
  });

  it("keeps the switch as it was when the server refuses", async () => {
    const { user, fetch } = renderPanel();
    fetch.on("PUT", PUT_PATH, () => json({ detail: "Your role may not change sharing.", code: "forbidden" }, 403));

    await user.click(screen.getByRole("switch", { name: "Public" }));
    await screen.findByText("Your role may not change sharing.");
    expect(screen.getByRole("switch", { name: "Public" })).not.toBeChecked();
  });
});

afterEach(() => forgetPublicConfig());
