import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeDashboard, makeDashboardCampaign, serveDashboard } from "./dashboard-fixtures";
import { findScreen, installFetchFake, renderConsole, waitForPath } from "./test-utils";

async function openDashboard(dashboard: ReturnType<typeof makeDashboard>) {
  const fetch = serveDashboard(installFetchFake(), { answer: () => dashboard });
  const rendered = renderConsole({ path: "/dashboard", fetch });
  await findScreen("Dashboard");
  await screen.findByRole("link", { name: /^Calls / });
  return rendered;
}

describe("the dashboard's campaigns card", () => {
  it("shows the running campaigns with their progress and next window, each a way to its calls", async () => {
    const inThreeHours = new Date(Date.now() + 3 * 3_600_000 + 600_000).toISOString();
    const { user, pathname } = await openDashboard(
      makeDashboard({
        campaigns: {
          running: 2,
          items: [
            makeDashboardCampaign(),
            makeDashboardCampaign({ id: "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f61", name: "<i>Winback</i>", status: "scheduled", progress: 0, counts: { ...makeDashboardCampaign().counts, total: 50, queued: 50, answered: 0, busy: 0, no_answer: 0, voicemail: 0, failed: 0, in_progress: 0 }, next_window_at: inThreeHours }),
          ],
        },
      }),
    );
    const card = screen.getByRole("region", { name: "Campaigns" });
    expect(within(card).getByText("2 running")).toBeInTheDocument();
    const spring = within(card).getByRole("link", { name: "Open Spring renewals" }).closest("li")!;
    expect(within(spring).getByText("Running")).toBeInTheDocument();
    expect(within(spring).getByRole("progressbar", { name: "Progress of Spring renewals" })).toHaveAttribute("aria-valuenow", "44");
    expect(within(spring).getByText("44% · 88 of 200 done")).toBeInTheDocument();
    // Running and scheduled campaigns have no pause line.
    expect(within(card).queryByText(/^Paused/)).toBeNull();

    // A name is text, never markup.
    const winback = within(card).getByRole("link", { name: "Open <i>Winback</i>" }).closest("li")!;
    expect(within(winback).getByText("Scheduled")).toBeInTheDocument();
    expect(within(winback).getByText("opens in 3 hours")).toHaveAttribute("datetime", inThreeHours);

    await user.click(within(card).getByRole("link", { name: "Open Spring renewals" }));
    await waitForPath(pathname, "/campaigns/c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f60/calls");
  });

  it("says why a paused campaign stopped, on the card itself", async () => {
    const reason = "Too many calls failed in a row (8 of the last 10): check the agent and the caller number, then resume.";
    await openDashboard(
      makeDashboard({
        campaigns: {
          running: 0,
          items: [
            makeDashboardCampaign({ status: "paused", pause_code: "circuit_breaker", pause_reason: reason }),
            makeDashboardCampaign({ id: "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f62", name: "<b>Old list</b>", status: "paused", pause_code: "wallet", pause_reason: null }),
          ],
        },
      }),
    );
    const card = screen.getByRole("region", { name: "Campaigns" });
    const spring = within(card).getByRole("link", { name: "Open Spring renewals" }).closest("li")!;
    expect(within(spring).getByText("Paused")).toBeInTheDocument();
    expect(within(spring).getByText(reason)).toBeInTheDocument();
    // Without its sentence, the cause's own words.
    const old = within(card).getByRole("link", { name: "Open <b>Old list</b>" }).closest("li")!;
    expect(within(old).getByText("Paused: the wallet balance is too low")).toBeInTheDocument();
  });

  it("with none running, offers to create one", async () => {
    const { user, pathname } = await openDashboard(makeDashboard());
    const card = screen.getByRole("region", { name: "Campaigns" });
    expect(within(card).getByText("No campaign is running.")).toBeInTheDocument();
    await user.click(within(card).getByRole("link", { name: "Create campaign" }));
    await waitForPath(pathname, "/campaigns/create");
  });

  it("is not shown when the server leaves campaigns out", async () => {
    const { campaigns: _left, ...withoutCampaigns } = makeDashboard();
    await openDashboard(withoutCampaigns);
    expect(screen.queryByRole("region", { name: /^Campaigns/ })).toBeNull();
  });
});
