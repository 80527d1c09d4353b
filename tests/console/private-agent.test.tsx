import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID, renderConsoleStrict, serveAgents } from "./agents-fixtures";
import { FakeSession, findScreen, installFetchFake, json, waitForPath, type FetchFake } from "./test-utils";

/** The shared agent, in another organisation. */
const SHARED_ID = "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b";
const CLONE_PATH = `/api/agent/${SHARED_ID}/clone`;
/** The private link's key: the owner's consent to cloning, carried from the page's URL to the request. */
const CLONE_KEY = "k3y_Of-The-Link_0123456789abcdefgh";

/** The editor the clone page leads to, with both agents the answers may name. */
function serveEditor(fetch: FetchFake) {
  serveAgents(fetch, [makeAgent(), makeAgent({ id: OTHER_AGENT_ID, agent_name: "My earlier copy" })]);
}

function openLink(fetch: FetchFake, session = new FakeSession()) {
  // StrictMode, as main.tsx mounts the console: the effect runs twice, the clone happens once.
  return renderConsoleStrict({ path: `/agent/private/${SHARED_ID}?key=${CLONE_KEY}`, fetch, session });
}

describe("a shared private agent link", () => {
  it("asks a signed-out visitor to log in, and Go to Login shows the sign-in screen here", async () => {
    const fetch = installFetchFake();
    const { user, pathname } = openLink(fetch, new FakeSession({ status: "signedOut", user: null }));

    await screen.findByText("Login is required to access this agent");
    await user.click(screen.getByRole("button", { name: "Go to Login" }));
    await screen.findByLabelText("Email");
    expect(pathname()).toBe(`/agent/private/${SHARED_ID}`);
    expect(fetch.requests).toEqual([]);
  });

  it("shows a loading state until the session is known, then 'Cloning Agent' while the copy is made", async () => {
    let answer: (response: Response) => void = () => undefined;
    const fetch = installFetchFake().on("GET", CLONE_PATH, () => new Promise<Response>((resolve) => (answer = resolve)));
    serveEditor(fetch);
    const session = new FakeSession({ status: "loading", user: null });
    const { pathname } = openLink(fetch, session);

    expect(await screen.findByRole("status")).toHaveTextContent("Loading");
    expect(fetch.to("GET", CLONE_PATH)).toEqual([]);

    act(() => session.update({ status: "signedIn", user: { id: "user_ada", name: "Ada", email: "ada@example.com" } }));
    await screen.findByRole("heading", { name: "Cloning Agent" });

    answer(json({ data: makeAgent() }));
    await waitForPath(pathname, `/agent/${AGENT_ID}`);
    expect(fetch.to("GET", CLONE_PATH)).toHaveLength(1);
  });

  it("clones once, says 'Agent cloned successfully!' and opens the new agent", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () => json({ data: makeAgent() }));
    serveEditor(fetch);
    const { pathname } = openLink(fetch);

    await screen.findByText("Agent cloned successfully!");
    await waitForPath(pathname, `/agent/${AGENT_ID}`);
    await findScreen("Edit Agent");
    expect(fetch.to("GET", CLONE_PATH)).toHaveLength(1);
    expect(fetch.to("GET", CLONE_PATH)[0]?.headers.get("authorization")).toBe("Bearer token-1");
    expect(fetch.to("GET", CLONE_PATH)[0]?.query.get("key")).toBe(CLONE_KEY);
  });

  it("on 409 says 'Agent is already in your account!' and opens the agent the answer names", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () =>
      json({ detail: "This agent is already in your organization.", code: "conflict", data: { id: OTHER_AGENT_ID } }, 409),
    );
    serveEditor(fetch);
    const { pathname } = openLink(fetch);

    await screen.findByText("Agent is already in your account!");
    await waitForPath(pathname, `/agent/${OTHER_AGENT_ID}`);
    await screen.findByDisplayValue("My earlier copy");
  });

  it("on 404 shows the card 'Agent not found or access denied' with Go to Dashboard", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () =>
      json({ detail: "No agent with this id.", code: "not_found" }, 404),
    );
    const { user, pathname } = openLink(fetch);

    await screen.findByText("Agent not found or access denied");
    expect(pathname()).toBe(`/agent/private/${SHARED_ID}`);
    await user.click(screen.getByRole("button", { name: "Go to Dashboard" }));
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
  });

  it.each([400, 403, 502])("on another failure (%i) says 'Failed to clone agent' and goes to /agent/{agentID}", async (status) => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () => json({ detail: "No.", code: "refused" }, status));
    // The shared agent is not in this organisation: its editor says so.
    fetch.on("GET", `/api/agent/${SHARED_ID}`, () => json({ detail: "No agent with this id.", code: "not_found" }, 404));
    serveEditor(fetch);
    const { pathname } = openLink(fetch);

    await screen.findByText("Failed to clone agent");
    await waitForPath(pathname, `/agent/${SHARED_ID}`);
    expect(fetch.to("GET", CLONE_PATH)).toHaveLength(1);
  });

  it("on 401 says 'Authentication required'", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () =>
      json({ detail: "Sign in again.", code: "unauthorized" }, 401),
    );
    const { pathname } = openLink(fetch);

    await screen.findByText("Authentication required");
    expect(screen.getByRole("button", { name: "Go to Dashboard" })).toBeInTheDocument();
    expect(pathname()).toBe(`/agent/private/${SHARED_ID}`);
  });

  it("on 500 says 'Server error. Please try again later.'", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () => new Response("", { status: 500 }));
    openLink(fetch);
    await screen.findByText("Server error. Please try again later.");
  });

  it("when the server cannot be reached says 'Server error. Please try again later.'", async () => {
    const fetch = installFetchFake().on("GET", CLONE_PATH, () => Promise.reject(new TypeError("Failed to fetch")));
    openLink(fetch);
    await screen.findByText("Server error. Please try again later.");
    expect(fetch.to("GET", CLONE_PATH)).toHaveLength(1);
  });
});
