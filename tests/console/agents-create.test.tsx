import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_CONFIG } from "../../contract/agent";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID, serveAgents } from "./agents-fixtures";
import { installFetchFake, json, renderConsole, waitForPath, type FetchFake } from "./test-utils";

const TEMPLATES = [
  { key: "purchase-completion", name: "Purchase completion", description: "Calls customers who left a cart." },
  { key: "appointment-setter", name: "Appointment setter", description: "Books appointments in your calendar." },
  { key: "customer-support", name: "Customer support", description: "Answers questions about your product." },
].map((template) => ({ ...template, config: DEFAULT_AGENT_CONFIG }));

async function openNewAgentDialog(fetch: FetchFake) {
  const view = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });
  await screen.findByDisplayValue("Purchase Completion Agent");
  await view.user.click(screen.getByRole("button", { name: "New agent" }));
  const dialog = await screen.findByRole("dialog", { name: "New agent" });
  await within(dialog).findByRole("radio", { name: /Appointment setter/ });
  return { ...view, dialog };
}

describe("a new agent", () => {
  it("is made from the chosen template with the given name, and opens", async () => {
    const fetch = installFetchFake();
    const created = makeAgent({ id: OTHER_AGENT_ID, agent_name: "Dental bookings" });
    const stored = serveAgents(fetch, [makeAgent(), created]);
    stored.delete(OTHER_AGENT_ID);
    fetch
      .on("GET", "/api/agent/templates", () => json({ data: TEMPLATES }))
      .on("POST", "/api/agent/template", () => {
        stored.set(created.id, created);
        return json({ data: created }, 201);
      });
    const { user, dialog, pathname } = await openNewAgentDialog(fetch);

    expect(within(dialog).getByText("Books appointments in your calendar.")).toBeInTheDocument();
    expect(within(dialog).getByRole("radio", { name: /Blank agent/ })).toBeInTheDocument();
    await user.click(within(dialog).getByRole("radio", { name: /Appointment setter/ }));
    await user.type(within(dialog).getByLabelText("Name"), "Dental bookings");
    await user.click(within(dialog).getByRole("button", { name: "Create agent" }));

    await screen.findByText("Agent created");
    await waitForPath(pathname, `/agent/${OTHER_AGENT_ID}`);
    await screen.findByDisplayValue("Dental bookings");
    expect(fetch.to("POST", "/api/agent/template").map((request) => request.body)).toEqual([
      { template: "appointment-setter", agent_name: "Dental bookings" },
    ]);
  });

  it("leaves the name to the template when none is typed, and starts blank with POST /agent/", async () => {
    const fetch = installFetchFake();
    const created = makeAgent({ id: OTHER_AGENT_ID });
    const stored = serveAgents(fetch, [makeAgent(), created]);
    stored.delete(OTHER_AGENT_ID);
    fetch
      .on("GET", "/api/agent/templates", () => json({ data: TEMPLATES }))
      .on("POST", "/api/agent/", () => {
        stored.set(created.id, created);
        return json({ data: created }, 201);
      });
    const { user, dialog, pathname } = await openNewAgentDialog(fetch);

    await user.click(within(dialog).getByRole("radio", { name: /Blank agent/ }));
    expect(within(dialog).getByLabelText("Name")).toHaveAttribute(
      "placeholder",
      'Leave empty to call it "Purchase Completion Agent"',
    );
    await user.click(within(dialog).getByRole("button", { name: "Create agent" }));

    await waitForPath(pathname, `/agent/${OTHER_AGENT_ID}`);
    expect(fetch.to("POST", "/api/agent/").map((request) => request.body)).toEqual([{}]);
  });

  it("shows the server's detail when the agent cannot be made, and keeps the dialog open", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent()]);
    fetch
      .on("GET", "/api/agent/templates", () => json({ data: TEMPLATES }))
      .on("POST", "/api/agent/template", () =>
        json({ detail: "Your plan allows 3 agents; delete one or upgrade.", code: "limit_reached" }, 403),
      );
    const { user, dialog, pathname } = await openNewAgentDialog(fetch);

    await user.click(within(dialog).getByRole("button", { name: "Create agent" }));

    await screen.findByText("Your plan allows 3 agents; delete one or upgrade.");
    expect(screen.getByText("The agent could not be created")).toBeInTheDocument();
    expect(screen.getByRole("dialog", { name: "New agent" })).toBeInTheDocument();
    expect(pathname()).toBe(`/agent/${AGENT_ID}`);
    await waitFor(() =>
      expect(fetch.to("POST", "/api/agent/template").map((request) => request.body)).toEqual([
        { template: "purchase-completion" },
      ]),
    );
  });

  it("offers the server's blank template as 'Blank agent'", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent()]);
    const blank = { key: "blank", name: "Purchase Completion Agent", description: "Only the defaults.", config: DEFAULT_AGENT_CONFIG };
    fetch.on("GET", "/api/agent/templates", () => json({ data: [...TEMPLATES, blank] }));
    const { dialog } = await openNewAgentDialog(fetch);

    expect(within(dialog).getAllByRole("radio")).toHaveLength(4);
    expect(within(dialog).getByRole("radio", { name: /Blank agent/ })).toBeInTheDocument();
  });
});
