import assert from "node:assert/strict";
import { test } from "node:test";
import { inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

test("Phone Numbers: the demo's numbers are listed; a new number is added, made the default and deleted", async () => {
  await inPage(e2e.browser, "phone numbers", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });

    await page.getByRole("link", { name: "Phone Numbers", exact: true }).click();
    await page.waitForURL(/\/phone-numbers$/);
    await page.getByRole("heading", { level: 1, name: "Phone Numbers" }).waitFor();
    // The demo organisation's seeded numbers: the default first.
    const mainLine = page.getByRole("row").filter({ hasText: "Main line" });
    await mainLine.getByText("Default", { exact: true }).waitFor();

    await page.getByRole("button", { name: "Add phone number" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add phone number" });
    await dialog.getByLabel("Name", { exact: true }).fill("E2E line");
    await dialog.getByLabel("Phone number", { exact: true }).click();
    await dialog.getByLabel("Phone number", { exact: true }).pressSequentially("2025550199");
    const created = page.waitForResponse((response) => response.request().method() === "POST" && response.url().endsWith("/api/phonenumber/"));
    await dialog.getByRole("button", { name: "Add number" }).click();
    const createdResponse = await created;
    assert.equal(createdResponse.status(), 201);
    assert.equal(((await createdResponse.json()) as { data: { number: string } }).data.number, "+12025550199");
    await page.getByText("Phone number added").first().waitFor();

    const row = page.getByRole("row").filter({ hasText: "E2E line" });
    await row.getByText("+1 (202) 555-0199").waitFor();
    await row.getByRole("button", { name: "Make default E2E line" }).click();
    await page.getByText("Default phone number changed").first().waitFor();
    await row.getByText("Default", { exact: true }).waitFor();
    await mainLine.getByRole("button", { name: "Make default Main line" }).waitFor();

    await row.getByRole("button", { name: "Delete E2E line" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this phone number?" });
    await confirm.getByRole("button", { name: "Delete" }).click();
    await page.getByText("Phone number deleted").first().waitFor();
    await row.waitFor({ state: "detached" });
    // The deleted default handed over to the oldest remaining number.
    await mainLine.getByText("Default", { exact: true }).waitFor();
  });
});
