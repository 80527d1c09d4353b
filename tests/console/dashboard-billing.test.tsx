import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeDashboard, serveDashboard } from "./dashboard-fixtures";
import { makeSubscription, serveSubscription } from "./subscriptions-fixtures";
import { findScreen, installFetchFake, renderConsole, waitForPath } from "./test-utils";

type Dashboard = ReturnType<typeof makeDashboard>;

async function openDashboard(dashboard: Dashboard) {
  const fetch = serveDashboard(installFetchFake(), { answer: () => dashboard });
  serveSubscription(fetch, { subscription: makeSubscription("free") });
  const rendered = renderConsole({ path: "/dashboard", fetch });
  await findScreen("Dashboard");
  await screen.findByRole("link", { name: /^Calls / });
  return rendered;
}

const PLAN: NonNullable<Dashboard["plan"]> = {
  id: "free",
  name: "Free",
  status: "past_due",
  usage: [
    { limit: "concurrent_calls", used: 0, allowed: 1 },
    { limit: "agents", used: 3, allowed: 2 },
    { limit: "phone_numbers", used: 1, allowed: 1 },
    { limit: "campaign_contacts", used: 20, allowed: 50 },
    { limit: "seats", used: 2, allowed: null },
    { limit: "retention_days", used: 0, allowed: 14 },
  ],
};

describe("the dashboard's wallet card", () => {
  it("shows the balance, what is available after holds, this month's spend, auto-reload, a low-balance warning and Add credits", async () => {
    await openDashboard(
      makeDashboard({ wallet: { balance: 3.5, held: 0.4, available: 3.1, month_to_date: 61.25, auto_reload_enabled: false, low_balance: true } }),
    );
    const card = screen.getByRole("group", { name: "Wallet" });
    expect(within(card).getByText("$3.50")).toBeInTheDocument();
    expect(within(card).getByText("$3.10 available")).toBeInTheDocument();
    expect(within(card).getByText("$61.25 spent this month")).toBeInTheDocument();
    expect(within(card).getByText("Auto-reload off")).toBeInTheDocument();
    expect(within(card).getByRole("status")).toHaveTextContent("Low balance: add credits so calls keep going.");
    // To the billing screen (built beside this card: not followed here).
    expect(within(card).getByRole("link", { name: "Add credits" })).toHaveAttribute("href", "/billing");
  });

  it("without the issue-15 fields (an older server) shows the balance alone, and no warning when the balance is not low", async () => {
    await openDashboard(makeDashboard({ wallet: { balance: 42.5, held: 0, available: 42.5, auto_reload_enabled: true, low_balance: false } }));
    const card = screen.getByRole("group", { name: "Wallet" });
    expect(within(card).getByText("$42.50")).toBeInTheDocument();
    expect(within(card).getByText("Auto-reload on")).toBeInTheDocument();
    expect(within(card).queryByText(/spent this month/)).toBeNull();
    expect(within(card).queryByRole("status")).toBeNull();
  });
});

describe("the dashboard's plan-usage card", () => {
  it("shows the plan and its status, a bar per limit from plan.usage (over a limit in red), and View plans", async () => {
    const { user, pathname } = await openDashboard(makeDashboard({ plan: PLAN }));
    const card = screen.getByRole("region", { name: "Plan usage" });
    expect(within(card).getByText("Free")).toBeInTheDocument();
    expect(within(card).getByText("Past due")).toBeInTheDocument();
    expect(within(card).getAllByRole("progressbar").map((bar) => bar.getAttribute("aria-label"))).toEqual([
      "Concurrent calls used",
      "Agents used",
      "Phone numbers used",
      "Contacts per campaign used",
    ]);
    const agents = within(card).getByRole("progressbar", { name: "Agents used" });
    expect(agents).toHaveAttribute("aria-valuetext", "3 of 2");
    expect(agents.closest("li")).toHaveAttribute("data-over", "true");
    expect(within(card).getByText("Over the limit: new agents are refused until you are under it.")).toBeInTheDocument();
    expect(within(card).getByRole("progressbar", { name: "Contacts per campaign used" })).toHaveAttribute("aria-valuenow", "40");
    expect(within(card).getByText("2 · Unlimited")).toBeInTheDocument();
    expect(within(card).getByText("14 days")).toBeInTheDocument();
    await user.click(within(card).getByRole("link", { name: "View plans" }));
    await waitForPath(pathname, "/subscriptions");
    await findScreen("Subscriptions");
  });

  it("is not shown when the server leaves plan out", async () => {
    await openDashboard(makeDashboard());
    expect(screen.queryByRole("region", { name: "Plan usage" })).toBeNull();
  });
});
