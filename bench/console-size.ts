// `npm run bench:console`: the JavaScript a browser downloads for the signed-in shell and for each
// public page, measured in Chromium against the built product, cold cache. Budgets from issue 6
// (gzip): signed-in shell ≤ 450 KB, each public page ≤ 180 KB. `npm run bench` reuses measureConsoleJs.
//
// Which scripts: every script response Chromium receives from navigation until the page has rendered
// and the network is idle (the entry, its static imports, and the chunks the route loads lazily to
// render). How big: each of those URLs fetched again from the same server with `Accept-Encoding: gzip`
// (the figure the budget is in), and with `br` (what Chromium is actually sent: the build writes .br
// and .gz beside each asset), counting the bytes on the wire. Files too small to have been compressed
// by the build are sent as they are, and counted so.
import { request } from "node:http";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { DEMO, launchBrowser, startProduct, type Product } from "../tests/e2e/harness";

export const CONSOLE_BUDGETS_KB = { shell: 450, public: 180 } as const;

export interface ConsoleJsRow {
  /** What was loaded, e.g. "signed-in shell (/dashboard)". */
  page: string;
  files: number;
  gzipKb: number;
  brKb: number;
  budgetKb: number;
}

/** Bytes on the wire for one URL with this Accept-Encoding (the body as sent, not decoded). */
function wireBytes(url: string, encoding: string): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request(url, { headers: { "accept-encoding": encoding } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => (res.statusCode === 200 ? ok(bytes) : fail(new Error(`${url}: ${res.statusCode}`))));
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end();
  });
}

/** The script URLs the page loads while `go` runs and until the network is idle. */
async function scriptsLoaded(page: Page, go: () => Promise<void>): Promise<string[]> {
  const client = await page.context().newCDPSession(page);
  await client.send("Network.enable");
  const urls = new Set<string>();
  client.on("Network.responseReceived", (event) => {
    if (event.type === "Script") urls.add(event.response.url);
  });
  await go();
  await page.waitForLoadState("networkidle");
  await client.detach();
  return [...urls];
}

async function sizeOf(urls: string[]): Promise<{ files: number; gzipKb: number; brKb: number }> {
  let gzip = 0;
  let br = 0;
  for (const url of urls) {
    gzip += await wireBytes(url, "gzip");
    br += await wireBytes(url, "br");
  }
  return { files: urls.length, gzipKb: gzip / 1024, brKb: br / 1024 };
}

/**
 * Measures the shell (signed in as the demo user, then a cold load of /dashboard in a new context with
 * the same cookies) and each public page (a fresh context each) on a running product.
 */
export async function measureConsoleJs(product: Product, browser: Browser): Promise<ConsoleJsRow[]> {
  const rows: ConsoleJsRow[] = [];
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // Sign in first (its JS is not the shell's), then measure a cold load of the signed-in shell.
    await page.goto(`${product.baseURL}/`);
    await page.getByLabel("Email").fill(DEMO.email);
    await page.getByLabel("Password").fill(DEMO.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/);
    // A new context with the same cookies: signed in, but nothing in the HTTP cache.
    const signedIn = await browser.newContext({ storageState: await context.storageState() });
    try {
      const shellPage = await signedIn.newPage();
      const urls = await scriptsLoaded(shellPage, async () => {
        await shellPage.goto(`${product.baseURL}/dashboard`);
        await shellPage.getByRole("heading", { name: "Dashboard" }).waitFor();
      });
      rows.push({ page: "signed-in shell (/dashboard)", ...(await sizeOf(urls)), budgetKb: CONSOLE_BUDGETS_KB.shell });
    } finally {
      await signedIn.close();
    }
  } finally {
    await context.close();
  }

  const publicPages = [
    { path: "/public/agent/00000000-0000-4000-8000-000000000000", label: "public agent page (/public/agent/…)" },
    { path: "/web-call/demo", label: "web-call page (/web-call/…)" },
  ];
  for (const { path, label } of publicPages) {
    const fresh = await browser.newContext();
    try {
      const page = await fresh.newPage();
      const urls = await scriptsLoaded(page, async () => {
        await page.goto(`${product.baseURL}${path}`);
        await page.getByRole("heading", { level: 1 }).waitFor({ timeout: 20_000 });
      });
      rows.push({ page: label, ...(await sizeOf(urls)), budgetKb: CONSOLE_BUDGETS_KB.public });
    } finally {
      await fresh.close();
    }
  }
  return rows;
}

// Run when executed directly (`npm run bench:console`), not when imported by bench/index.ts.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const product = await startProduct();
  const browser = await launchBrowser();
  let rows: ConsoleJsRow[];
  try {
    rows = await measureConsoleJs(product, browser);
  } finally {
    await browser.close();
    await product.stop();
  }
  console.log("\nConsole JavaScript, cold cache (KB on the wire; budget on gzip)");
  console.log("page".padEnd(40), "files".padStart(6), "gzip KB".padStart(9), "br KB".padStart(8), "budget".padStart(8), "  verdict");
  for (const row of rows) {
    const verdict = row.gzipKb <= row.budgetKb ? "ok" : "MISSED";
    console.log(row.page.padEnd(40), String(row.files).padStart(6), row.gzipKb.toFixed(1).padStart(9), row.brKb.toFixed(1).padStart(8), String(row.budgetKb).padStart(8), " ", verdict);
  }
}
