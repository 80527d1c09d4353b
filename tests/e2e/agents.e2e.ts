import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

const AGENT_PATH = /\/agent\/[0-9a-f-]{36}$/;
const PROMPT = "You book dental check-ups. Ask for the patient's name, then offer the first free morning slot.";

/** Picks an option of the antd select labelled `label`. */
async function pick(page: Page, label: string, option: string) {
  // The select's box, not its inner input (the shown value lies over the input).
  await page.locator(".ant-select").filter({ has: page.getByRole("combobox", { name: label, exact: true }) }).click();
  await page.locator(".ant-select-item-option").filter({ hasText: option }).first().click();
}

test("Agents opens the default agent; an agent made from a template keeps its new voice and prompt after a reload", async () => {
  await inPage(e2e.browser, "agents editor", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });

    // A fresh organisation has no agent: Agents makes the first from the default template and opens it.
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await page.waitForURL(AGENT_PATH, { timeout: 20_000 });
    await page.getByRole("heading", { name: "Edit Agent" }).waitFor();
    await page.getByLabel("Agent name", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Agent name", { exact: true }).inputValue(), "Purchase Completion Agent");
    const firstAgent = page.url();

    await page.getByRole("button", { name: "New agent" }).click();
    const dialog = page.getByRole("dialog", { name: "New agent" });
    await dialog.getByRole("radio", { name: /Appointment Setter/ }).click();
    await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("E2E bookings");
    await dialog.getByRole("button", { name: "Create agent" }).click();
    await page.getByText("Agent created").first().waitFor();
    await page.waitForURL((url) => AGENT_PATH.test(url.pathname) && url.href !== firstAgent, { timeout: 20_000 });
    await page.getByLabel("Agent name", { exact: true }).and(page.locator('[value="E2E bookings"]')).waitFor();
    const createdAgent = page.url();

    await pick(page, "Voice", "Luna");
    await page.getByLabel("Prompt", { exact: true }).fill(PROMPT);
    const agentPath = new URL(createdAgent).pathname;
    const saved = page.waitForResponse((response) => response.request().method() === "PUT" && response.url().endsWith(agentPath));
    await page.getByRole("button", { name: "Save", exact: true }).click();
    assert.equal((await saved).status(), 200);
    await page.getByText("Agent saved").first().waitFor();

    await page.reload();
    await page.getByLabel("Agent name", { exact: true }).waitFor({ timeout: 20_000 });
    assert.equal(page.url(), createdAgent);
    assert.equal(await page.getByLabel("Agent name", { exact: true }).inputValue(), "E2E bookings");
    assert.equal(await page.getByLabel("Prompt", { exact: true }).inputValue(), PROMPT);
    const voice = page.locator(".ant-select").filter({ has: page.getByRole("combobox", { name: "Voice", exact: true }) });
    // The saved voice id comes back at once; its label appears when the voice catalogue has loaded.
    await voice.locator(".ant-select-selection-item", { hasText: /^Luna/ }).waitFor({ timeout: 20_000 });

    // Agents now opens the agent edited last.
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await page.waitForURL(createdAgent);
  });
});
