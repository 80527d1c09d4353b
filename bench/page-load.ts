// Load time of the public agent page in headless Chromium with the CPU slowed 4× (CDP
// Emulation.setCPUThrottlingRate, rate 4), for `npm run bench`. Budget from issue 6: interactive
// within 1.5 s on localhost.
//
// "Interactive", concretely: the time from navigation start (performance.timeOrigin) until the agent's
// Start Call button is in the page, visible (non-zero box, not hidden) and enabled, the frame showing
// it has been painted, and the main thread has come back free to handle input. It is recorded inside
// the page (not when the harness next polls): a MutationObserver installed before any of the page's
// own scripts run notes when React commits the button ("rendered"), then a task queued from the next
// requestAnimationFrame runs once that frame is done ("interactive"; if the first contentful paint is
// later still, that paint, since the button is text and cannot have been on screen before it). Then the harness clicks the
// button and waits for the 'Confirm Call Details' dialog: a load only counts if the page accepts that
// input, and the click-to-dialog time is printed too.
// Each load is a new browser context (empty HTTP cache, no service worker, no storage), on a real
// public agent of the demo organisation. Also read from the Performance API: DOMContentLoaded, load,
// first contentful paint, largest contentful paint.
import type { Browser } from "playwright-core";
import { DEMO, type Product } from "../tests/e2e/harness";

export const INTERACTIVE_BUDGET_MS = 1500;
export const CPU_SLOWDOWN = 4;

export interface PageLoad {
  rendered: number;
  interactive: number;
  clickToDialog: number;
  domContentLoaded: number;
  load: number;
  fcp: number;
  lcp: number;
}

export interface PageLoadResult {
  path: string;
  loads: PageLoad[];
  median: PageLoad;
}

/** Runs in the page before its scripts: records when Start Call first is visible and enabled in the
 * DOM (React committed it), and when the frame showing it has been painted and the thread is free. */
const OBSERVER = `(() => {
  const found = () => {
    for (const button of document.querySelectorAll("button")) {
      if (button.disabled || button.textContent.trim() !== "Start Call") continue;
      const box = button.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && getComputedStyle(button).visibility !== "hidden") return true;
    }
    return false;
  };
  const observer = new MutationObserver(() => {
    if (window.__benchRenderedAt === undefined && found()) {
      window.__benchRenderedAt = performance.now();
      observer.disconnect();
      // After the next frame is painted (the callback of a task queued from requestAnimationFrame runs
      // once that frame is done): the button is on screen and the main thread is free for a click.
      requestAnimationFrame(() => setTimeout(() => (window.__benchInteractiveAt = performance.now()), 0));
    }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
})();`;

async function demoBearer(baseURL: string): Promise<string> {
  const signIn = await fetch(`${baseURL}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseURL },
    body: JSON.stringify({ email: DEMO.email, password: DEMO.password }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
  // The console's bearer: a short-lived token minted from the session cookie.
  const minted = await fetch(`${baseURL}/api/auth/token`, { headers: { Cookie: cookies } });
  if (minted.status !== 200) throw new Error(`GET /api/auth/token: ${minted.status} ${await minted.text()}`);
  return ((await minted.json()) as { data: { token: string } }).data.token;
}

/** A public agent in the demo organisation, made through the API as a person would. */
export async function createPublicAgent(baseURL: string): Promise<string> {
  const token = await demoBearer(baseURL);
  const response = await fetch(`${baseURL}/api/agent/`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ agent_name: "Bench public agent", description: "Measured by npm run bench.", is_public: true }),
  });
  if (response.status !== 201) throw new Error(`create agent: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function loadOnce(browser: Browser, url: string): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(OBSERVER);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.goto(url, { waitUntil: "commit" });
    await page.waitForFunction(() => (window as unknown as { __benchInteractiveAt?: number }).__benchInteractiveAt !== undefined, null, { timeout: 30_000, polling: 50 });
    const clicked = await page.evaluate(() => performance.now());
    await page.getByRole("button", { name: "Start Call" }).click({ timeout: 10_000 });
    await page.getByRole("dialog", { name: "Confirm Call Details" }).waitFor({ timeout: 10_000 });
    const dialogAt = await page.evaluate(() => performance.now());
    await page.waitForLoadState("load");
    const figures = await page.evaluate(
      () =>
        new Promise<Omit<PageLoad, "clickToDialog">>((resolve) => {
          const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
          const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
          let lcp = NaN;
          // LCP is only given to an observer; buffered: the entries already recorded.
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) lcp = entry.startTime;
          }).observe({ type: "largest-contentful-paint", buffered: true });
          setTimeout(
            () =>
              resolve({
                rendered: (window as unknown as { __benchRenderedAt: number }).__benchRenderedAt,
                interactive: (window as unknown as { __benchInteractiveAt: number }).__benchInteractiveAt,
                domContentLoaded: navigation?.domContentLoadedEventEnd ?? NaN,
                load: navigation?.loadEventEnd ?? NaN,
                fcp,
                lcp,
              }),
            50,
          );
        }),
    );
    // The button is text: if the first contentful paint came after the frame above was done, that paint
    // is the earliest it was on screen.
    const interactive = Math.max(figures.interactive, Number.isNaN(figures.fcp) ? 0 : figures.fcp);
    return { ...figures, interactive, clickToDialog: dialogAt - clicked };
  } finally {
    await context.close();
  }
}

/** `runs` cold loads of the public agent page (one unmeasured load first, to warm the server). */
export async function measurePublicPageLoad(product: Product, browser: Browser, runs: number): Promise<PageLoadResult> {
  const agentId = await createPublicAgent(product.baseURL);
  const path = `/public/agent/${agentId}`;
  const url = `${product.baseURL}${path}`;
  await loadOnce(browser, url);
  const loads: PageLoad[] = [];
  for (let i = 0; i < runs; i++) loads.push(await loadOnce(browser, url));
  const pick = (key: keyof PageLoad) => median(loads.map((load) => load[key]));
  return {
    path,
    loads,
    median: {
      rendered: pick("rendered"),
      interactive: pick("interactive"),
      clickToDialog: pick("clickToDialog"),
      domContentLoaded: pick("domContentLoaded"),
      load: pick("load"),
      fcp: pick("fcp"),
      lcp: pick("lcp"),
    },
  };
}
