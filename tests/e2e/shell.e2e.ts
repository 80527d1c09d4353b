// The authenticated shell (spec §2): every sidebar item in order, with its tooltip, opens its screen;
// VIEW PLANS opens /subscriptions; the toggle collapses the sidebar (small logo, icons only) and expands it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Locator, Page, Route } from "playwright-core";
import { inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

/** Spec §2's table, in order: label, tooltip, the path it opens and the screen's heading. */
const SIDEBAR = [
  { label: "Dashboard", tooltip: "View your dashboard", path: /^\/dashboard$/, heading: "Dashboard" },
  { label: "Agents", tooltip: "Manage your agents", path: /^\/agent\/[0-9a-f-]{36}$/, heading: "Edit Agent" },
  { label: "Calls", tooltip: "View Call Logs", path: /^\/call-logs$/, heading: "Call Logs" },
  { label: "Phone Numbers", tooltip: "Manage phone numbers", path: /^\/phone-numbers$/, heading: "Phone Numbers" },
  { label: "Campaigns", tooltip: "Manage your campaigns", path: /^\/campaigns$/, heading: "Campaigns" },
  { label: "Calendar", tooltip: "Manage calendar and appointments", path: /^\/calendar$/, heading: "Calendar" },
  { label: "Billing", tooltip: "Manage billing and usage", path: /^\/billing$/, heading: "Billing" },
] as const;

const nav = (page: Page) => page.getByRole("navigation", { name: "Main navigation" });
const logo = (page: Page) => page.locator(".shell-sider").getByRole("img", { name: "Voice Agents" });
const sidebar = (page: Page) => page.locator(".shell-sider");

async function width(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  assert.ok(box, "the element is laid out");
  return Math.round(box.width);
}

/** The screen at `path` rendered its heading, and no error screen or error toast came up instead. */
async function assertScreen(page: Page, item: (typeof SIDEBAR)[number]) {
  await page.waitForURL((url) => item.path.test(url.pathname), { timeout: 20_000 });
  await page.getByRole("main").getByRole("heading", { level: 1, name: item.heading, exact: true }).waitFor({ timeout: 20_000 });
  assert.equal(await page.getByRole("main").getByRole("alert").count(), 0, `${item.label}: no error on the screen`);
  assert.equal(await page.locator(".ant-notification-notice-error").count(), 0, `${item.label}: no error toast`);
  // The item is the highlighted one, and only it.
  assert.equal(await nav(page).getByRole("link", { name: item.label, exact: true }).getAttribute("aria-current"), "page");
  assert.equal(await nav(page).locator('[aria-current="page"]').count(), 1);
}

test("every sidebar item, in the spec's order and with its tooltip, opens its screen; VIEW PLANS opens Subscriptions", async () => {
  await inPage(e2e.browser, "shell sidebar items", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });

    const labels = (await nav(page).getByRole("link").allTextContents()).map((text) => text.trim());
    assert.deepEqual(labels, SIDEBAR.map((item) => item.label));

    for (const item of SIDEBAR) {
      const link = nav(page).getByRole("link", { name: item.label, exact: true });
      // Hovered again if the tooltip has not come: on a loaded machine the screen still settling under the
      // pointer (the dashboard's cards and charts arriving) could move it off the link before antd's delay ran out.
      for (let attempt = 1; ; attempt++) {
        await link.hover();
        try {
          await page.getByRole("tooltip").filter({ hasText: item.tooltip }).waitFor({ timeout: 5_000 });
          break;
        } catch (error) {
          if (attempt >= 3) throw error;
          await page.mouse.move(0, 0);
        }
      }
      await link.click();
      await assertScreen(page, item);
    }

    // Unknown paths land on the dashboard.
    await page.goto(`${e2e.product.baseURL}/no-such-screen`);
    await assertScreen(page, SIDEBAR[0]);

    await page.getByRole("button", { name: "View plans" }).click();
    await page.waitForURL(/\/subscriptions$/);
    await page.getByRole("main").getByRole("heading", { level: 1, name: "Subscriptions" }).waitFor();
    assert.equal(await nav(page).locator('[aria-current="page"]').count(), 0, "no sidebar item is highlighted on Subscriptions");
  });
});

test("the toggle collapses the sidebar to the 28 px logo and icons only, the items still work, and it expands again", async () => {
  await inPage(e2e.browser, "shell collapse", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });

    // It starts expanded: the full logo, 170 px wide, and the labels.
    const collapse = page.getByRole("button", { name: "Collapse sidebar" });
    assert.equal(await collapse.getAttribute("aria-expanded"), "true");
    assert.equal(await width(logo(page)), 170);
    const expandedWidth = await width(sidebar(page));
    for (const item of SIDEBAR) assert.ok(await nav(page).getByText(item.label, { exact: true }).isVisible(), `${item.label} shows its label`);
    assert.ok(await page.getByRole("button", { name: "View plans" }).getByText("VIEW PLANS").isVisible());
    assert.ok(await page.getByRole("button", { name: "Switch organization" }).getByText("Demo Organisation").isVisible());

    await collapse.click();
    const expand = page.getByRole("button", { name: "Expand sidebar" });
    assert.equal(await expand.getAttribute("aria-expanded"), "false");
    await page.waitForFunction(() => {
      const img = document.querySelector(".shell-sider img");
      return img instanceof HTMLImageElement && Math.round(img.getBoundingClientRect().width) === 28;
    });
    // The sider animates its width: wait until it has narrowed and stopped moving.
    await page.waitForFunction((before) => {
      const sider = document.querySelector(".shell-sider")!;
      return Math.round(sider.getBoundingClientRect().width) < before && sider.getAnimations().length === 0;
    }, expandedWidth);
    const collapsedWidth = await width(sidebar(page));
    assert.ok(collapsedWidth < expandedWidth, `the sidebar narrows (${expandedWidth} → ${collapsedWidth} px)`);
    assert.equal(await width(logo(page)), 28);
    for (const item of SIDEBAR) {
      assert.equal(await nav(page).getByText(item.label, { exact: true }).count(), 0, `${item.label}: no label when collapsed`);
      // Icons only, but each link keeps its name.
      assert.ok(await nav(page).getByRole("link", { name: item.label, exact: true }).isVisible());
    }
    // In the sidebar (the dashboard's plan card has its own "View plans" link).
    assert.equal(await sidebar(page).getByText("VIEW PLANS").count(), 0, "VIEW PLANS hides its label");
    assert.equal(await page.getByRole("button", { name: "Switch organization" }).getByText("Demo Organisation").count(), 0);

    // Collapsed, the items still lead to their screens and the tooltip still names them.
    const calls = nav(page).getByRole("link", { name: "Calls", exact: true });
    await calls.hover();
    await page.getByRole("tooltip").filter({ hasText: "View Call Logs" }).waitFor({ timeout: 5_000 });
    await calls.click();
    await assertScreen(page, SIDEBAR[2]);
    assert.ok(await expand.isVisible(), "moving between screens keeps the sidebar collapsed");

    await expand.click();
    await page.waitForFunction(() => {
      const img = document.querySelector(".shell-sider img");
      return img instanceof HTMLImageElement && Math.round(img.getBoundingClientRect().width) === 170;
    });
    await page.waitForFunction((before) => Math.round(document.querySelector(".shell-sider")!.getBoundingClientRect().width) === before, expandedWidth);
    assert.equal(await page.getByRole("button", { name: "Collapse sidebar" }).getAttribute("aria-expanded"), "true");
    for (const item of SIDEBAR) assert.ok(await nav(page).getByText(item.label, { exact: true }).isVisible(), `${item.label} shows its label again`);
    assert.ok(await sidebar(page).getByText("VIEW PLANS").isVisible());
  });
});

test("a screen whose code cannot be fetched says so beside the sidebar, and Try again loads it once the network is back", async () => {
  await inPage(e2e.browser, "shell screen load error", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });

    // The connection drops for scripts not loaded yet (Phone Numbers has not been opened in this page).
    let refused = 0;
    const refuse = (route: Route) => {
      refused += 1;
      return route.abort("internetdisconnected");
    };
    const scripts = (url: URL) => url.pathname.startsWith("/assets/") && url.pathname.endsWith(".js");
    await page.route(scripts, refuse);
    await nav(page).getByRole("link", { name: "Phone Numbers", exact: true }).click();
    await page.waitForURL(/\/phone-numbers$/);
    const alert = page.getByRole("main").getByRole("alert");
    await alert.getByText("This screen could not load.").waitFor({ timeout: 20_000 });
    assert.ok(refused >= 3, `the screen's code was asked for three times (${refused} refused requests)`);
    assert.ok(await nav(page).isVisible(), "the sidebar stays");
    assert.ok(await alert.getByRole("button", { name: "Reload page" }).isVisible());

    // Back online: Try again imports the screen's code again, without reloading the page.
    await page.unroute(scripts, refuse);
    await page.evaluate(() => ((window as { stillTheSamePage?: boolean }).stillTheSamePage = true));
    await alert.getByRole("button", { name: "Try again" }).click();
    await assertScreen(page, SIDEBAR[3]);
    assert.equal(await page.evaluate(() => (window as { stillTheSamePage?: boolean }).stillTheSamePage), true, "no reload");
  });
});

test("when the app's own scripts cannot be fetched, the page says so with Reload page instead of staying blank", async () => {
  await inPage(e2e.browser, "shell app scripts refused", async (page) => {
    const scripts = (url: URL) => url.pathname.startsWith("/assets/") && url.pathname.endsWith(".js");
    const refuse = (route: Route) => route.abort("internetdisconnected");
    await page.route(scripts, refuse);
    await page.goto(`${e2e.product.baseURL}/`);
    const alert = page.getByRole("alert");
    const heading = alert.getByRole("heading", { name: "This page could not load." });
    await heading.waitFor({ timeout: 20_000 });
    assert.ok(await alert.getByText(/Check your connection, then reload the page\./).isVisible());
    // In sight without scrolling (the app's root fills the viewport: a message after it would be below).
    const box = await heading.boundingBox();
    const viewport = page.viewportSize()!;
    assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `the message is in the viewport (${JSON.stringify(box)})`);

    // Back online: Reload page brings the app (the sign-in screen), and the message is gone.
    await page.unroute(scripts, refuse);
    await alert.getByRole("button", { name: "Reload page" }).click();
    await page.getByLabel("Email").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByText("This page could not load.").count(), 0);
  });
});
