// Moving between screens while the next screen's code downloads (spec §2: lazily loaded screens show a
// full-area loader). react-router runs every navigation in a React transition, which keeps what is on
// screen until the next screen is ready: without a boundary of its own per screen, the previous screen
// stayed, with no sign that anything was happening, for as long as the download took.
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { findScreen, renderConsole, waitForPath } from "./test-utils";

/** The code of two screens, held until a test lets it arrive (or fail), as a slow connection would. */
const chunks = vi.hoisted(() => {
  function gate() {
    let open!: () => void;
    let fail!: (error: Error) => void;
    const arrived = new Promise<void>((resolve, reject) => {
      open = resolve;
      fail = reject;
    });
    return { arrived, open, fail, asked: 0 };
  }
  return { billing: gate(), phoneNumbers: gate() };
});

vi.mock("../../src/routes/billing", async (importOriginal) => {
  chunks.billing.asked += 1;
  await chunks.billing.arrived;
  return importOriginal();
});

vi.mock("../../src/routes/phone-numbers/list", async (importOriginal) => {
  chunks.phoneNumbers.asked += 1;
  await chunks.phoneNumbers.arrived;
  return importOriginal();
});

const main = () => screen.getByRole("main");
const nav = () => screen.getByRole("navigation", { name: "Main navigation" });

describe("moving to a screen whose code is still loading", () => {
  it("shows the full-area loader in place of the previous screen, the sidebar usable, then the screen", async () => {
    const { user, pathname } = renderConsole();
    await findScreen("Dashboard");

    await user.click(within(nav()).getByRole("link", { name: "Billing" }));
    await waitForPath(pathname, "/billing");
    await waitFor(() => expect(chunks.billing.asked).toBe(1));

    // The loader, named after the screen, fills the content area; the dashboard is gone from it.
    const loader = await within(main()).findByRole("status", { name: "Loading Billing" });
    expect(loader).toHaveTextContent("Loading Billing");
    expect(within(main()).queryByRole("heading", { level: 1, name: "Dashboard" })).toBeNull();
    // The shell stays: the header's toggle and the sidebar, with Billing highlighted.
    expect(screen.getByRole("button", { name: "Collapse sidebar" })).toBeInTheDocument();
    expect(within(nav()).getByRole("link", { name: "Billing" })).toHaveAttribute("aria-current", "page");

    // The code arrives: the screen replaces the loader.
    chunks.billing.open();
    await findScreen("Billing");
    expect(within(main()).queryByRole("status", { name: "Loading Billing" })).toBeNull();
  });

  it("leaves the sidebar usable while it loads: another item opens its screen at once", async () => {
    const { user, pathname } = renderConsole();
    await findScreen("Dashboard");

    await user.click(within(nav()).getByRole("link", { name: "Phone Numbers" }));
    await within(main()).findByRole("status", { name: "Loading Phone Numbers" });

    await user.click(within(nav()).getByRole("link", { name: "Dashboard" }));
    await waitForPath(pathname, "/dashboard");
    await findScreen("Dashboard");
    expect(within(main()).queryByRole("status", { name: "Loading Phone Numbers" })).toBeNull();
    expect(within(nav()).getByRole("link", { name: "Dashboard" })).toHaveAttribute("aria-current", "page");
  });

  it("when the code cannot be fetched, the loader gives way to the screen's load error with Try again", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { user } = renderConsole();
    await findScreen("Dashboard");

    await user.click(within(nav()).getByRole("link", { name: "Phone Numbers" }));
    await within(main()).findByRole("status", { name: "Loading Phone Numbers" });

    chunks.phoneNumbers.fail(new TypeError("Failed to fetch dynamically imported module: /assets/list-abc123.js"));
    // lazyRetry tries twice more (0.4 s and 1.5 s later) before it gives up.
    const alert = await within(main()).findByRole("alert", {}, { timeout: 5_000 });
    expect(alert).toHaveTextContent("This screen could not load.");
    expect(within(alert).getByRole("button", { name: "Try again" })).toBeInTheDocument();
    expect(within(main()).queryByRole("status", { name: "Loading Phone Numbers" })).toBeNull();
    expect(nav()).toBeInTheDocument();
    errors.mockRestore();
  });
});
