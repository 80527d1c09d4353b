// Moving between screens on a slow connection (spec §2: lazily loaded screens show a full-area loader).
// The next screen's code is held in the network, as a slow connection holds it: the content area must show
// the loader, named after the screen, instead of leaving the previous screen up with no sign of progress;
// the sidebar and header stay usable; once the code arrives the screen replaces the loader.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page, Route } from "playwright-core";
import { inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

const nav = (page: Page) => page.getByRole("navigation", { name: "Main navigation" });
const scripts = (url: URL) => url.pathname.startsWith("/assets/") && url.pathname.endsWith(".js");

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`at ${viewport.width} px, a sidebar item whose screen's code is still downloading shows the loader in the content area, then the screen`, async () => {
    await inPage(
      e2e.browser,
      `screen loading ${viewport.width}`,
      async (page) => {
        await signIn(page, e2e.product.baseURL);
        await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
        const main = page.getByRole("main");
        await main.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });
        // Everything the dashboard asks for has arrived: what is asked for from here on is the next screen's.
        await page.waitForLoadState("networkidle");

        // The connection crawls: every script asked for from now on (Call Logs' code and what it imports) is held.
        const held: Route[] = [];
        let holding = true;
        const hold = (route: Route) => (holding ? void held.push(route) : route.continue());
        await page.route(scripts, hold);

        // Narrow, the sidebar is an icon rail: the link keeps its label as its name.
        await nav(page).getByRole("link", { name: "Calls", exact: true }).click();
        await page.waitForURL(/\/call-logs$/);
        const loader = main.getByRole("status", { name: "Loading Call Logs" });
        await loader.waitFor({ state: "visible", timeout: 5_000 });
        assert.ok(held.length > 0, "the screen's code was asked for and is held");
        assert.equal(await main.getByRole("heading", { level: 1, name: "Dashboard" }).count(), 0, "the dashboard is no longer shown");
        assert.equal(await nav(page).getByRole("link", { name: "Calls", exact: true }).getAttribute("aria-current"), "page");

        // It stays while the code is held, and the header's toggle still works.
        await page.waitForTimeout(1_500);
        assert.ok(await loader.isVisible(), "the loader stays while the code is held");
        const toggle = page.getByRole("button", { name: /^(Collapse|Expand) sidebar$/ });
        const expanded = await toggle.getAttribute("aria-expanded");
        await toggle.click();
        await page.waitForFunction((was) => {
          const button = document.querySelector(".shell-header button[aria-expanded]");
          return button !== null && button.getAttribute("aria-expanded") !== was;
        }, expanded);
        assert.ok(await loader.isVisible(), "the loader is still there after using the toggle");

        // The code arrives: the screen replaces the loader.
        holding = false;
        for (const route of held.splice(0)) await route.continue();
        await main.getByRole("heading", { level: 1, name: "Call Logs" }).waitFor({ timeout: 20_000 });
        assert.equal(await loader.count(), 0, "the loader is gone");
        assert.equal(await main.getByRole("alert").count(), 0, "no error on the screen");
      },
      { viewport },
    );
  });
}
