import assert from "node:assert/strict";
import { test } from "node:test";
import { inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

test("start-up prints the demo account it created", () => {
  assert.match(e2e.product.output(), /demo@example\.com/);
  assert.match(e2e.product.output(), /demo-password/);
});

test("the demo account signs in and lands on /dashboard inside the shell", async () => {
  await inPage(e2e.browser, "demo sign-in", async (page) => {
    await signIn(page, e2e.product.baseURL);
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
  await inPage(e2e.browser, "wrong password", async (page) => {
    await signIn(page, e2e.product.baseURL, "demo@example.com", "not-the-password");
    await page.getByRole("alert").waitFor({ timeout: 10_000 });
    assert.ok(await page.getByRole("button", { name: "Sign in" }).isVisible());
  });
});
