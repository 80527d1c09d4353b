// A phone-sized screen (390×844): below antd's md breakpoint the sidebar starts collapsed to an icon rail
// and expands over the screen like a drawer; no shell route (spec §2) scrolls sideways or has anything
// sticking out of the window (wide tables scroll inside themselves). On a desktop width it starts expanded.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { AGENT_PATH, inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
const SOME_ID = "4f9c2d1e-7a3b-4c5d-8e6f-0a1b2c3d4e5f";

/** Spec §2's routes inside the shell, with the heading each screen shows; ":id" of the agent is filled in. */
const ROUTES = [
  ["/dashboard", "Dashboard"],
  ["/orders", "Orders"],
  ["/call-logs", "Call Logs"],
  ["/phone-numbers", "Phone Numbers"],
  ["/agent/:agentID", "Edit Agent"],
  ["/campaigns", "Campaigns"],
  ["/campaigns/create", "Create Campaign"],
  [`/campaigns/edit/${SOME_ID}`, "Edit Campaign"],
  [`/campaigns/${SOME_ID}/calls`, "Campaign Calls"],
  ["/billing", "Billing"],
  ["/subscriptions", "Subscriptions"],
  ["/calendar", "Calendar"],
  ["/calendar-permission", "Calendar Permission"],
] as const;

interface Overflow {
  scrollWidth: number;
  innerWidth: number;
  /** Visible elements reaching past the window's left or right edge that no scrolling ancestor clips. */
  sticking: string[];
}

/**
 * What sticks out of the window sideways. Run in the page as a string: the test runner's transform names
 * functions with a helper (`__name`) that the page does not have.
 */
const MEASURE = `(() => {
  const width = window.innerWidth;
  const sticking = [];
  for (const element of document.body.querySelectorAll("*")) {
    const rect = element.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    if (rect.right <= width + 0.5 && rect.left >= -0.5) continue;
    const style = getComputedStyle(element);
    if (style.visibility === "hidden" || style.display === "none" || style.opacity === "0") continue;
    // Clipped by a scrolling (or hiding) ancestor that itself fits: e.g. a table's cells inside its scroll
    // box. (An ancestor that clips but sticks out itself is reported on its own.)
    let clipped = false;
    for (let parent = element.parentElement; parent && parent !== document.body && !clipped; parent = parent.parentElement) {
      if (!["hidden", "auto", "scroll", "clip"].includes(getComputedStyle(parent).overflowX)) continue;
      const box = parent.getBoundingClientRect();
      // A clipping box of no size shows nothing (e.g. visx's off-screen 0×0 svg that measures label widths).
      clipped = (box.right <= width + 0.5 && box.left >= -0.5) || box.width === 0 || box.height === 0;
    }
    if (clipped) continue;
    const classes = typeof element.className === "string" ? element.className.trim().split(/\\s+/).slice(0, 3).join(".") : "";
    const label = element.getAttribute("aria-label") || (element.textContent || "").trim().slice(0, 30);
    sticking.push("<" + element.tagName.toLowerCase() + (classes ? "." + classes : "") + "> " + JSON.stringify(label) + " " + Math.round(rect.left) + "→" + Math.round(rect.right));
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, sticking };
})()`;

function overflow(page: Page): Promise<Overflow> {
  return page.evaluate(MEASURE) as Promise<Overflow>;
}

/** The toggle says `expanded` (the console may still be rendering a navigation). */
async function waitExpanded(page: Page, expanded: boolean) {
  await page.waitForFunction(
    (want) => document.querySelector(".shell-header button")?.getAttribute("aria-expanded") === want,
    String(expanded),
    { timeout: 10_000 },
  );
}

const collapseButton = (page: Page) => page.getByRole("button", { name: /^(Collapse|Expand) sidebar$/ });

async function sidebarWidth(page: Page): Promise<number> {
  // The sider animates its width: wait until it has stopped.
  await page.waitForFunction(() => document.querySelector(".shell-sider")!.getAnimations().length === 0);
  const box = await page.locator(".shell-sider").boundingBox();
  assert.ok(box);
  return Math.round(box.width);
}

test("at 390×844 the sidebar starts collapsed, expands over the screen and folds away after choosing; no shell route scrolls sideways", async () => {
  await inPage(
    e2e.browser,
    "mobile shell routes",
    async (page) => {
      await signIn(page, e2e.product.baseURL);
      await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
      await page.getByRole("main").getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });
      await page.locator('[data-kpi="calls"]').waitFor({ timeout: 20_000 });

      // Collapsed: the icon rail, the small logo, and most of the width for the screen.
      assert.equal(await collapseButton(page).getAttribute("aria-label"), "Expand sidebar");
      assert.equal(await collapseButton(page).getAttribute("aria-expanded"), "false");
      const rail = await sidebarWidth(page);
      assert.ok(rail <= 64, `the collapsed rail is narrow (${rail} px)`);
      assert.equal(Math.round((await page.locator(".shell-sider").getByRole("img", { name: "Voice Agents" }).boundingBox())!.width), 28);
      const main = page.getByRole("main");
      // Where the screen is and how wide: its height grows as the dashboard's charts arrive.
      const place = async () => {
        const box = (await main.boundingBox())!;
        return { x: box.x, y: box.y, width: box.width };
      };
      const mainBox = await place();
      assert.ok(mainBox.width >= PHONE.width - 64, `the screen keeps ${Math.round(mainBox.width)} px of ${PHONE.width}`);

      // Expanded, the sidebar lies over the screen (which does not move or shrink), with its labels.
      await collapseButton(page).click();
      assert.equal(await collapseButton(page).getAttribute("aria-expanded"), "true");
      assert.ok((await sidebarWidth(page)) > rail);
      assert.ok(await page.getByRole("navigation", { name: "Main navigation" }).getByText("Phone Numbers", { exact: true }).isVisible());
      assert.deepEqual(await place(), mainBox, "the screen stays where it was, under the sidebar");
      // Choosing an item goes there and folds the sidebar away.
      await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Calls", exact: true }).click();
      await page.waitForURL(/\/call-logs$/);
      await waitExpanded(page, false);
      // Tapping the dimmed screen beside it folds it away too.
      await collapseButton(page).click();
      await page.locator(".shell-mask").click({ position: { x: PHONE.width - 20, y: PHONE.height / 2 } });
      await waitExpanded(page, false);

      // The agent editor's path: the Agents item opens the organisation's agent.
      await page.getByRole("link", { name: "Agents", exact: true }).click();
      await page.waitForURL((url) => AGENT_PATH.test(url.pathname), { timeout: 20_000 });
      const agentPath = new URL(page.url()).pathname;

      const problems: string[] = [];
      for (const [route, heading] of ROUTES) {
        const path = route.replace("/agent/:agentID", agentPath);
        await page.goto(`${e2e.product.baseURL}${path}`);
        await page.getByRole("main").getByRole("heading", { level: 1, name: heading, exact: true }).waitFor({ timeout: 20_000 });
        await page.waitForLoadState("networkidle");
        if (route === "/call-logs") await page.getByRole("button", { name: /^Open call / }).first().waitFor({ timeout: 20_000 });
        if (route === "/phone-numbers") await page.getByRole("row").filter({ hasText: "Main line" }).waitFor({ timeout: 20_000 });
        assert.equal(await collapseButton(page).getAttribute("aria-expanded"), "false", `${route}: starts collapsed`);
        const found = await overflow(page);
        if (found.scrollWidth > found.innerWidth) problems.push(`${route}: the page is ${found.scrollWidth} px wide in a ${found.innerWidth} px window`);
        for (const element of found.sticking) problems.push(`${route}: ${element}`);
        if (route === "/call-logs") {
          // A call's drawer fits the window too.
          await page.getByRole("button", { name: /^Open call / }).first().click();
          await page.getByRole("dialog").getByRole("region", { name: "Transcript" }).waitFor({ timeout: 20_000 });
          await page.waitForFunction(() => document.querySelector(".ant-drawer-content-wrapper")?.getAnimations().length === 0);
          const drawer = await overflow(page);
          for (const element of drawer.sticking) problems.push(`${route} (call drawer): ${element}`);
        }
      }
      assert.deepEqual(problems, [], `nothing scrolls sideways or sticks out at ${PHONE.width} px`);
    },
    { viewport: PHONE },
  );
});

test("at 390 px a row of each list shows what a person needs to pick it and act on it, without scrolling sideways", async () => {
  await inPage(
    e2e.browser,
    "phone rows",
    async (page) => {
      await signIn(page, e2e.product.baseURL);
      await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
      const problems: string[] = [];
      /** The element is shown whole inside the window's width (not in a sideways scroll, not cut off). */
      const inSight = async (what: string, locator: ReturnType<Page["locator"]>) => {
        await locator.waitFor({ timeout: 20_000 });
        const box = await locator.boundingBox();
        if (!box || box.x < 0 || box.x + box.width > PHONE.width + 0.5) problems.push(`${what}: at ${box ? `${Math.round(box.x)}–${Math.round(box.x + box.width)}` : "no box"} px of ${PHONE.width}`);
      };
      const noSidewaysScroll = async (route: string) => {
        const wide = await page.locator(".ant-table-content, .ant-table-body").evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth + 1).length);
        if (wide > 0) problems.push(`${route}: a table scrolls sideways`);
      };

      await page.goto(`${e2e.product.baseURL}/phone-numbers`);
      const line = page.getByRole("row").filter({ hasText: "Main line" });
      await inSight("Phone Numbers: Main line's number", line.getByText(/^\+\d/).first());
      await inSight("Phone Numbers: Edit", line.getByRole("button", { name: /^Edit / }));
      await noSidewaysScroll("/phone-numbers");

      await page.goto(`${e2e.product.baseURL}/campaigns`);
      const campaign = page.getByRole("row").filter({ has: page.getByRole("progressbar") }).first();
      await inSight("Campaigns: progress", campaign.getByRole("progressbar"));
      await inSight("Campaigns: the first action", campaign.getByRole("button").first());
      await noSidewaysScroll("/campaigns");

      await page.goto(`${e2e.product.baseURL}/call-logs`);
      const call = page.locator(".call-logs__row").first();
      await inSight("Call Logs: whose call", call.locator(".call-logs__row-facts > *").first());
      await inSight("Call Logs: agent, duration and cost", call.locator(".call-logs__row-facts > *").nth(1));
      await inSight("Call Logs: status", call.locator(".call-logs__row-status"));
      await noSidewaysScroll("/call-logs");

      await page.goto(`${e2e.product.baseURL}/subscriptions`);
      const plans = page.getByRole("list", { name: "Compare plans" });
      await inSight("Subscriptions: a plan's limits", plans.getByRole("listitem").last().locator("dl"));
      await inSight("Subscriptions: a plan's button", plans.getByRole("listitem").last().getByRole("button").or(plans.getByRole("listitem").last().getByRole("link")).first());
      await noSidewaysScroll("/subscriptions");

      assert.deepEqual(problems, [], "each row's facts and actions are in sight at 390 px");
    },
    { viewport: PHONE },
  );
});

test("at a desktop width (1440 px) the sidebar starts expanded and the screen sits beside it", async () => {
  await inPage(
    e2e.browser,
    "desktop shell expanded",
    async (page) => {
      await signIn(page, e2e.product.baseURL);
      await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
      await page.getByRole("main").getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });
      assert.equal(await collapseButton(page).getAttribute("aria-label"), "Collapse sidebar");
      assert.equal(await collapseButton(page).getAttribute("aria-expanded"), "true");
      assert.equal(Math.round((await page.locator(".shell-sider").getByRole("img", { name: "Voice Agents" }).boundingBox())!.width), 170);
      const sider = await sidebarWidth(page);
      const main = (await page.getByRole("main").boundingBox())!;
      assert.ok(main.x >= sider, "the screen is beside the sidebar, not under it");
      assert.equal(await page.locator(".shell-mask").count(), 0);
      // Moving between screens keeps it expanded.
      await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Calls", exact: true }).click();
      await page.waitForURL(/\/call-logs$/);
      assert.equal(await collapseButton(page).getAttribute("aria-expanded"), "true");
      const found = await overflow(page);
      assert.ok(found.scrollWidth <= found.innerWidth, `Call Logs fits ${found.innerWidth} px`);

      // The agent editor shows its own Upload file button, not the browser's file control behind it.
      await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Agents", exact: true }).click();
      await page.getByRole("button", { name: "Upload file" }).waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('input[type="file"]').isVisible(), false, "the native file input stays hidden");

      // Call Logs' filter bar is one row, even with a filter set (so "Clear filters" shows too).
      await page.goto(`${e2e.product.baseURL}/call-logs?filters[0][field]=status&filters[0][operator]=eq&filters[0][value]=ended`);
      await page.getByRole("button", { name: "Clear filters" }).waitFor({ timeout: 20_000 });
      const bar = page.getByRole("search", { name: "Call filters" });
      const tops = await bar.locator(".call-logs__filter-row:not([hidden]) > *").evaluateAll((elements) =>
        elements.map((element) => Math.round(element.getBoundingClientRect().top)),
      );
      assert.ok(tops.length >= 6, `search, dates, agent, status, More filters, Clear filters (${tops.length})`);
      assert.equal(new Set(tops).size, 1, `one row at ${DESKTOP.width} px (tops ${tops.join(", ")})`);
    },
    { viewport: DESKTOP },
  );
});
