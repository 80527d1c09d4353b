import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AGENT_ID, serveAgents } from "./agents-fixtures";
import { CAMPAIGN_ID, serveCampaigns } from "./campaigns-fixtures";
import { asPhone, findScreen, installFetchFake, json, renderConsole, waitForPath } from "./test-utils";

const SIDEBAR = [
  ["Dashboard", "View your dashboard", "/dashboard"],
  ["Agents", "Manage your agents", "/agent/new"],
  ["Calls", "View Call Logs", "/call-logs"],
  ["Phone Numbers", "Manage phone numbers", "/phone-numbers"],
  ["Campaigns", "Manage your campaigns", "/campaigns"],
  ["Calendar", "Manage calendar and appointments", "/calendar"],
  ["Billing", "Manage billing and usage", "/billing"],
] as const;

function sidebarLinks() {
  return within(screen.getByRole("navigation", { name: "Main navigation" })).getAllByRole("link");
}

describe("the shell's sidebar", () => {
  it("lists the seven items in the spec's order, with their labels and destinations", async () => {
    renderConsole();
    await findScreen("Dashboard");

    const links = sidebarLinks();
    expect(links.map((link) => link.textContent)).toEqual(SIDEBAR.map(([label]) => label));
    expect(links.map((link) => link.getAttribute("href"))).toEqual(SIDEBAR.map(([, , to]) => to));
  });

  it.each(SIDEBAR)("shows the tooltip of %s on hover", async (label, tooltip) => {
    const { user } = renderConsole();
    await findScreen("Dashboard");

    await user.hover(screen.getByRole("link", { name: label }));

    expect(await screen.findByRole("tooltip")).toHaveTextContent(tooltip);
  });

  it("highlights the item of the current screen, Agents on any /agent/* path", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch);
    serveCampaigns(fetch, { campaigns: [] });
    const { user } = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });
    await findScreen("Edit Agent");
    await screen.findByDisplayValue("Purchase Completion Agent");
    expect(screen.getByRole("link", { name: "Agents" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Dashboard" })).not.toHaveAttribute("aria-current");

    await user.click(screen.getByRole("link", { name: "Campaigns" }));
    await findScreen("Campaigns");
    expect(screen.getByRole("link", { name: "Campaigns" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Agents" })).not.toHaveAttribute("aria-current");
  });

  it("keeps Campaigns highlighted on a campaign's calls", async () => {
    const fetch = installFetchFake();
    serveCampaigns(fetch);
    renderConsole({ path: `/campaigns/${CAMPAIGN_ID}/calls`, fetch });
    await findScreen("Campaign Calls");
    await screen.findByRole("heading", { level: 2, name: "Spring renewals" });
    expect(screen.getByRole("link", { name: "Campaigns" })).toHaveAttribute("aria-current", "page");
  });

  it("starts expanded and collapses to the small logo and icons only", async () => {
    const { user } = renderConsole();
    await findScreen("Dashboard");

    expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("width", "170");
    expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("src", "/logo-full.svg");
    expect(screen.getByText("VIEW PLANS")).toBeVisible();
    expect(screen.getByText("Phone Numbers")).toBeVisible();
    expect(screen.getByText("Ada Lovelace")).toBeVisible();

    await user.click(screen.getByRole("button", { name: "Collapse sidebar" }));

    expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("width", "28");
    expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("src", "/logo-mark.svg");
    expect(screen.queryByText("VIEW PLANS")).not.toBeInTheDocument();
    expect(screen.queryByText("Phone Numbers")).not.toBeInTheDocument();
    expect(screen.queryByText("Ada Lovelace")).not.toBeInTheDocument();
    // Icons only: the items are still there, named by their labels for screen readers.
    expect(sidebarLinks()).toHaveLength(7);
    expect(screen.getByRole("link", { name: "Phone Numbers" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "View plans" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Expand sidebar" }));
    expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("width", "170");
    expect(screen.getByText("VIEW PLANS")).toBeVisible();
  });

  it("on a phone (below antd's md breakpoint) starts collapsed; expanded, choosing an item folds it away", async () => {
    const restore = asPhone();
    try {
      const { user, pathname } = renderConsole();
      await findScreen("Dashboard");
      expect(screen.getByRole("button", { name: "Expand sidebar" })).toHaveAttribute("aria-expanded", "false");
      expect(screen.getByRole("img", { name: "Voice Agents" })).toHaveAttribute("width", "28");

      await user.click(screen.getByRole("button", { name: "Expand sidebar" }));
      expect(screen.getByText("Billing")).toBeVisible();
      await user.click(screen.getByRole("link", { name: "Billing" }));
      await waitForPath(pathname, "/billing");
      await findScreen("Billing");
      await waitFor(() => expect(screen.getByRole("button", { name: "Expand sidebar" })).toHaveAttribute("aria-expanded", "false"));
    } finally {
      restore();
    }
  });

  it("still shows the tooltip when collapsed", async () => {
    const { user } = renderConsole();
    await findScreen("Dashboard");
    await user.click(screen.getByRole("button", { name: "Collapse sidebar" }));

    await user.hover(screen.getByRole("link", { name: "Billing" }));

    expect(await screen.findByRole("tooltip")).toHaveTextContent("Manage billing and usage");
  });

  it("VIEW PLANS opens the subscriptions, expanded or collapsed", async () => {
    const { user, pathname } = renderConsole();
    await findScreen("Dashboard");

    await user.click(screen.getByRole("button", { name: "View plans" }));
    await findScreen("Subscriptions");
    expect(pathname()).toBe("/subscriptions");

    await user.click(screen.getByRole("link", { name: "Dashboard" }));
    await findScreen("Dashboard");
    await user.click(screen.getByRole("button", { name: "Collapse sidebar" }));
    await user.click(screen.getByRole("button", { name: "View plans" }));
    await waitForPath(pathname, "/subscriptions");
  });
});

describe("the screens inside the shell", () => {
  it("/dashboard asks for its figures and the organisation's zone, and shows an empty organisation its first step", async () => {
    const { fetch, pathname } = renderConsole({ path: "/dashboard" });
    await findScreen("Dashboard");
    await screen.findByRole("link", { name: "Create your first agent" });
    expect(pathname()).toBe("/dashboard");
    await waitFor(() => expect(document.title).toBe("Dashboard · Voice Agents"));
    expect(fetch.requests.map((request) => `${request.method} ${request.url}`).sort()).toEqual(["GET /api/dashboard/", "GET /api/organization/settings"]);
  });

  it("/orders asks for its orders and its figures", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/order/", () => json({ data: [], total: 0, page: 1, limit: 20 }));
    fetch.on("GET", "/api/order/stats", () =>
      json({ data: { orders: 0, called: 0, recovered: 0, recovery_rate: null, recovered_revenue: [], average_time_to_recovery_seconds: null, by_status: {} } }),
    );
    const { pathname } = renderConsole({ path: "/orders", fetch });
    await findScreen("Orders");
    await screen.findByText("No orders yet");
    expect(pathname()).toBe("/orders");
    await waitFor(() => expect(document.title).toBe("Orders · Voice Agents"));
    expect(fetch.requests.map((request) => `${request.method} ${request.url}`).sort()).toEqual(["GET /api/order/?page=1&limit=20", "GET /api/order/stats"]);
  });
});
