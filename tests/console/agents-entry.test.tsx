import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DEFAULT_TEMPLATE_KEY } from "../../contract/agent";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID, renderConsoleStrict, selectedOption, serveAgents } from "./agents-fixtures";
import { findScreen, installFetchFake, json, renderConsole, waitForPath } from "./test-utils";

describe("the sidebar's Agents item", () => {
  it("opens the most recently edited agent (the first of GET /agent/)", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent({ id: OTHER_AGENT_ID, agent_name: "Support line" }), makeAgent()]);
    const { user, pathname } = renderConsole({ fetch });
    await findScreen("Dashboard");

    await user.click(screen.getByRole("link", { name: "Agents" }));

    await waitForPath(pathname, `/agent/${OTHER_AGENT_ID}`);
    await screen.findByDisplayValue("Support line");
    expect(screen.getByRole("link", { name: "Agents" })).toHaveAttribute("aria-current", "page");
    expect(fetch.to("POST", "/api/agent/template")).toEqual([]);
  });

  it("gives an organisation with no agent its first one from the default template, once", async () => {
    const fetch = installFetchFake();
    const created = makeAgent();
    const stored = serveAgents(fetch, [created]);
    stored.clear();
    fetch.on("POST", "/api/agent/template", () => {
      stored.set(created.id, created);
      return json({ data: created }, 201);
    });
    // StrictMode runs the effect twice, as in development: still one agent.
    const { pathname } = renderConsoleStrict({ path: "/agent/new", fetch });

    await waitForPath(pathname, `/agent/${AGENT_ID}`);
    await screen.findByDisplayValue("Purchase Completion Agent");
    expect(fetch.to("POST", "/api/agent/template").map((request) => request.body)).toEqual([
      { template: DEFAULT_TEMPLATE_KEY },
    ]);
  });

  it("says 'Failed to fetch agents' and shows an empty list when the list fails, creating nothing", async () => {
    const fetch = installFetchFake().on("GET", "/api/agent/", () =>
      json({ detail: "The database is not reachable.", code: "internal" }, 500),
    );
    renderConsole({ path: "/agent/new", fetch });

    // A 5xx is retried once before it counts as failed.
    await screen.findByText("Failed to fetch agents", undefined, { timeout: 15_000 });
    await screen.findByText("No agents to show");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
    expect(fetch.to("POST", "/api/agent/template")).toEqual([]);
  });

  it("keeps the open agent in the switcher when the list fails", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent()]);
    fetch.on("GET", "/api/agent/", () => new Response("", { status: 503 }));
    const { user } = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });

    // A 5xx is retried once before it counts as failed.
    await screen.findByText("Failed to fetch agents", undefined, { timeout: 15_000 });
    await screen.findByDisplayValue("Purchase Completion Agent");
    expect(selectedOption("Agent")).toBe("Purchase Completion Agent");
    await user.click(screen.getByRole("combobox", { name: "Agent" }));
    const listbox = await screen.findByRole("listbox");
    expect(within(listbox).getAllByRole("option")).toHaveLength(1);
  });

  it("switches to another agent from the switcher", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent(), makeAgent({ id: OTHER_AGENT_ID, agent_name: "Support line" })]);
    const { user, pathname } = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });
    await screen.findByDisplayValue("Purchase Completion Agent");

    await user.click(screen.getByRole("combobox", { name: "Agent" }));
    await user.click(await screen.findByTitle("Support line"));

    await waitForPath(pathname, `/agent/${OTHER_AGENT_ID}`);
    await screen.findByDisplayValue("Support line");
  });
});
