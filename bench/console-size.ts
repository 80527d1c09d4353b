// `npm run bench:console`: the JavaScript a browser downloads (compressed, as sent) for the signed-in
// shell and for each public page, measured in Chromium against the built product. Budgets from issue 6.
import type { Page } from "playwright-core";
import { DEMO, launchBrowser, startProduct } from "../tests/e2e/harness";

const BUDGETS_KB = { shell: 450, public: 180 };

async function measure(page: Page, go: () => Promise<void>) {
  const sizes = new Map<string, number>();
  const client = await page.context().newCDPSession(page);
  await client.send("Network.enable");
  const urls = new Map<string, string>();
  client.on("Network.responseReceived", (event) => {
    if (event.type === "Script") urls.set(event.requestId, event.response.url);
  });
  client.on("Network.loadingFinished", (event) => {
    const url = urls.get(event.requestId);
    if (url) sizes.set(url, event.encodedDataLength);
  });
  await go();
  await page.waitForLoadState("networkidle");
  await client.detach();
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  return { files: sizes.size, kb: total / 1024 };
}

const product = await startProduct();
const browser = await launchBrowser();
const rows: { page: string; files: number; kb: number; budget: number }[] = [];
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Sign in first (its JS is not the shell's), then measure a cold load of the signed-in shell.
  await page.goto(`${product.baseURL}/`);
  await page.getByLabel("Email").fill(DEMO.email);
  await page.getByLabel("Password").fill(DEMO.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard$/);
  // A new context with the same cookies: signed in, but nothing in the HTTP cache.
  const signedIn = await browser.newContext({ storageState: await context.storageState() });
  const shellPage = await signedIn.newPage();
  const shell = await measure(shellPage, async () => {
    await shellPage.goto(`${product.baseURL}/dashboard`);
    await shellPage.getByRole("heading", { name: "Dashboard" }).waitFor();
  });
  rows.push({ page: "signed-in shell (/dashboard)", ...shell, budget: BUDGETS_KB.shell });

  for (const path of ["/public/agent/00000000-0000-4000-8000-000000000000", "/web-call/demo"]) {
    const fresh = await (await browser.newContext()).newPage();
    const result = await measure(fresh, async () => {
      await fresh.goto(`${product.baseURL}${path}`);
    });
    rows.push({ page: `public page (${path.split("/").slice(0, 2).join("/")}/…)`, ...result, budget: BUDGETS_KB.public });
  }
} finally {
  await browser.close();
  await product.stop();
}

console.log("\nConsole JavaScript as sent (compressed), cold cache");
console.log("page".padEnd(40), "files".padStart(6), "KB".padStart(9), "budget".padStart(8), "  verdict");
for (const row of rows) {
  const verdict = row.kb <= row.budget ? "within budget" : "OVER BUDGET";
  console.log(row.page.padEnd(40), String(row.files).padStart(6), row.kb.toFixed(1).padStart(9), String(row.budget).padStart(8), " ", verdict);
}
