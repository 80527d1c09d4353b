import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { inPage, launchBrowser, signIn, startProduct, type Product } from "./harness";

let product: Product;
let browser: Browser;

before(async () => {
  product = await startProduct();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await product?.stop();
});

test("start-up prints the demo account it created", () => {
  assert.match(product.output(), /demo@example\.com/);
  assert.match(product.output(), /demo-password/);
});

test("the demo account signs in and lands on /dashboard inside the shell", async () => {
  await inPage(browser, "demo sign-in", async (page) => {
    await signIn(page, product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.getByRole("heading", { name: "Dashboard" }).waitFor({ timeout: 20_000 });
    for (const label of ["Dashboard", "Agents", "Calls", "Phone Numbers", "Campaigns", "Calendar", "Billing"]) {
      assert.ok(await page.getByRole("link", { name: label, exact: true }).isVisible(), `sidebar item ${label} is visible`);
    }
    await page.getByRole("link", { name: "Calls", exact: true }).click();
    await page.waitForURL(/\/call-logs$/);
    await page.getByRole("heading", { name: "Call Logs" }).waitFor();
  });
});

test("a wrong password is refused with a readable message and stays on the sign-in screen", async () => {
  await inPage(browser, "wrong password", async (page) => {
    await signIn(page, product.baseURL, "demo@example.com", "not-the-password");
    await page.getByRole("alert").waitFor({ timeout: 10_000 });
    assert.ok(await page.getByRole("button", { name: "Sign in" }).isVisible());
  });
});
