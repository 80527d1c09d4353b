// The campaign wizard's Contacts step with a CSV picked and previewed but not imported: Next and the
// stepper ask "Import … before going on?" (Import / Discard the file / Stay) instead of dropping the file,
// and the stepper does not tick Contacts while the file waits.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { Campaign } from "../../contract/campaign";
import { demoApi, inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();
const api = demoApi(() => e2e.product.baseURL);

const csv = (...rows: string[]) => Buffer.from(["Phone Number,Name,Time Zone,plan", ...rows, ""].join("\r\n"));
const LEADS = csv("+14155550100,Ann Lee,UTC,gold", "+14155550200,Bob Stone,UTC,silver", "+14155550300,Cleo Park,UTC,bronze");
const MORE = csv("+14155550400,Dan Roe,UTC,gold", "+14155550500,Eve Moss,UTC,gold");
const WITH_INVALID = csv("+14155550600,Fay Ng,UTC,gold", "12,Gus Oak,UTC,gold");

async function pickFirst(page: Page, label: string): Promise<void> {
  const item = page.locator(".ant-form-item").filter({ has: page.locator(`label:text-is("${label}")`) });
  await item.locator(".ant-select-selector").click();
  await page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option-active").first().waitFor();
  await page.keyboard.press("Enter");
  await item.locator(".ant-select-selection-item").waitFor();
}

const stepItem = (page: Page, title: string) => page.locator(".campaign-form__steps .ant-steps-item").filter({ hasText: title });
const dialog = (page: Page, title: string) => page.getByRole("dialog").filter({ hasText: title });
const step = (page: Page) => new URL(page.url()).searchParams.get("step");

async function contactsOf(id: string): Promise<number> {
  const answer = await api<{ data: Campaign }>("GET", `/campaign/${id}`);
  assert.equal(answer.status, 200);
  return answer.body.data.counts.total;
}

async function pick(page: Page, name: string, buffer: Buffer): Promise<void> {
  await page.locator('input[type="file"]').setInputFiles({ name, mimeType: "text/csv", buffer });
  await page.getByText(new RegExp(`^${name.replace(".", "\\.")}: \\d+ rows$`)).waitFor({ timeout: 20_000 });
}

test("Campaign wizard: a previewed CSV is imported, discarded or kept by the member's choice before leaving Contacts", async () => {
  await inPage(e2e.browser, "campaign-pending-file", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${e2e.product.baseURL}/campaigns/create`);
    await page.getByLabel("Name").fill("E2E pending file");
    await pickFirst(page, "Agent");
    await pickFirst(page, "Caller number");
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/\/campaigns\/edit\/[0-9a-f-]{36}/, { timeout: 20_000 });
    const id = /\/campaigns\/edit\/([0-9a-f-]{36})/.exec(page.url())![1]!;

    // Next with a previewed file asks, and Contacts stays the current step, not ticked as done.
    await pick(page, "leads.csv", LEADS);
    await page.getByRole("button", { name: "Next" }).click();
    const ask = dialog(page, "Import 3 contacts from leads.csv before going on?");
    await ask.waitFor({ timeout: 20_000 });
    assert.equal(step(page), "contacts");
    assert.match((await stepItem(page, "Contacts").getAttribute("class")) ?? "", /ant-steps-item-process/);
    assert.doesNotMatch((await stepItem(page, "Contacts").getAttribute("class")) ?? "", /ant-steps-item-finish/);

    // Stay: the file, its preview and its columns are still there; nothing was sent.
    await ask.getByRole("button", { name: "Stay" }).click();
    await ask.waitFor({ state: "hidden" });
    await page.getByText("Ann Lee").first().waitFor();
    assert.equal(step(page), "contacts");
    assert.equal(await contactsOf(id), 0);

    // A later step in the stepper asks the same; Import imports the file, then goes there.
    await stepItem(page, "Schedule").locator(".ant-steps-item-title").click();
    await ask.waitFor({ timeout: 20_000 });
    await ask.getByRole("button", { name: "Import 3 contacts" }).click();
    await page.getByRole("group", { name: "Window 1" }).waitFor({ timeout: 20_000 });
    assert.equal(step(page), "schedule");
    await page.getByText("Imported leads.csv: 3 added. The campaign now has 3 contacts.").waitFor({ timeout: 10_000 });
    assert.equal(await contactsOf(id), 3);
    assert.match((await stepItem(page, "Contacts").getAttribute("class")) ?? "", /ant-steps-item-finish/);

    // Discard the file: the wizard goes on without it.
    await page.getByRole("button", { name: "Back" }).click();
    await pick(page, "more.csv", MORE);
    await page.getByRole("button", { name: "Next" }).click();
    const askMore = dialog(page, "Import 2 contacts from more.csv before going on?");
    await askMore.getByRole("button", { name: "Discard the file" }).click();
    await page.getByRole("group", { name: "Window 1" }).waitFor({ timeout: 20_000 });
    assert.equal(step(page), "schedule");
    assert.equal(await contactsOf(id), 3);

    // An import that leaves a row to check keeps the member on the step, with the report.
    await page.getByRole("button", { name: "Back" }).click();
    await pick(page, "mixed.csv", WITH_INVALID);
    await page.getByRole("button", { name: "Next" }).click();
    await dialog(page, "Import 2 contacts from mixed.csv before going on?").getByRole("button", { name: "Import 2 contacts" }).click();
    const report = page.getByRole("region", { name: "Import report" });
    await report.getByText(/Imported with rows to check/).waitFor({ timeout: 20_000 });
    await report.getByRole("cell", { name: "12", exact: true }).waitFor();
    assert.equal(step(page), "contacts");
    assert.equal(await contactsOf(id), 4);

    // Read, it goes on with Next and asks nothing more.
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("group", { name: "Window 1" }).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByRole("dialog").count(), 0);
  });
});
