import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeDashboard, serveDashboard } from "./dashboard-fixtures";
import { serveOrders } from "./orders-fixtures";
import { findScreen, installFetchFake, renderConsole, waitForPath } from "./test-utils";

async function openDashboard(dashboard: ReturnType<typeof makeDashboard>) {
  const fetch = serveDashboard(installFetchFake(), { answer: () => dashboard });
  serveOrders(fetch);
  const rendered = renderConsole({ path: "/dashboard", fetch });
  await findScreen("Dashboard");
  await screen.findByRole("link", { name: /^Calls / });
  return rendered;
}

describe("the dashboard's recovered-revenue card", () => {
  it("shows the revenue recovered per currency, orders recovered and called, and the recovery rate, with the way to /orders", async () => {
    const { user, pathname } = await openDashboard(
      makeDashboard({
        orders: {
          recovered: 3,
          called: 8,
          recovery_rate: 0.375,
          recovered_revenue: [
            { currency: "USD", amount: 182.7 },
            { currency: "JPY", amount: 1200 },
          ],
        },
      }),
    );
    const card = screen.getByRole("region", { name: "Recovered revenue" });
    expect(within(card).getByText("$182.70")).toBeInTheDocument();
    expect(within(card).getByText("¥1,200")).toBeInTheDocument();
    expect(within(card).getByText("3 orders recovered")).toBeInTheDocument();
    expect(within(card).getByText("8 orders called")).toBeInTheDocument();
    expect(within(card).getByText("37.5%")).toBeInTheDocument();
    expect(within(card).getByText("recovery rate", { exact: false })).toBeInTheDocument();

    await user.click(within(card).getByRole("link", { name: "View orders" }));
    await waitForPath(pathname, "/orders");
    await findScreen("Orders");
  });

  it("says when nothing was recovered, and shows a rate of — when no order was called", async () => {
    await openDashboard(makeDashboard({ orders: { recovered: 0, called: 0, recovery_rate: null, recovered_revenue: [] } }));
    const card = screen.getByRole("region", { name: "Recovered revenue" });
    expect(within(card).getByText("No revenue recovered in this period")).toBeInTheDocument();
    expect(within(card).getByText("0 orders called")).toBeInTheDocument();
    expect(within(card).getByText("—")).toBeInTheDocument();
  });

  it("has no card when the answer carries no orders", async () => {
    await openDashboard(makeDashboard());
    expect(screen.queryByRole("region", { name: "Recovered revenue" })).toBeNull();
  });
});
