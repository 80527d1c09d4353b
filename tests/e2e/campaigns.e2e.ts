import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { Campaign, CampaignContact } from "../../contract/campaign";
import { demoApi, inPage, productForThisFile, signIn } from "./harness";

// Short sandbox calls and a quick dialler, so the campaign runs its course within the test. A short lease
// too: a call whose end never arrives (a webhook lost on a loaded machine) is asked about within the test.
const e2e = productForThisFile({ SANDBOX_CALL_SECONDS: "3", DIALLER_INTERVAL_MS: "250", DIALLER_LEASE_SECONDS: "15" });
const api = demoApi(() => e2e.product.baseURL);

// Every number ends in 00: the sandbox answers it (…01 busy, …02 no answer, …03 voicemail).
const CSV = ["Phone Number,Name,Time Zone,plan", "+14155550100,Ann Lee,UTC,gold", "+14155550200,Bob Stone,UTC,silver", "+14155550300,Cleo Park,UTC,bronze", ""].join("\r\n");

/** Opens an antd Select by its form item's label and picks its first option. */
async function pickFirst(page: Page, label: string): Promise<void> {
  const item = page.locator(".ant-form-item").filter({ has: page.locator(`label:text-is("${label}")`) });
  await item.locator(".ant-select-selector").click();
  // The open list's first option is the active one: Enter picks it (the other Select's list may still be closing).
  await page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option-active").first().waitFor();
  await page.keyboard.press("Enter");
  await item.locator(".ant-select-selection-item").waitFor();
}

async function campaign(id: string): Promise<Campaign> {
  const answer = await api<{ data: Campaign }>("GET", `/campaign/${id}`);
  assert.equal(answer.status, 200);
  return answer.body.data;
}

/** What a failure needs to be understood: the campaign's counts, contacts, history and the server's last words. */
async function diagnosis(id: string): Promise<string> {
  const [current, contacts, events] = await Promise.all([
    campaign(id),
    api<{ data: CampaignContact[] }>("GET", `/campaign/${id}/contacts`),
    api<{ data: Array<{ at: string; kind: string; detail: string }> }>("GET", `/campaign/${id}/events`),
  ]);
  return [
    `status ${current.status} (${current.pause_reason ?? "no pause reason"}), counts ${JSON.stringify(current.counts)}`,
    ...contacts.body.data.map((contact) => `contact ${contact.name}: ${contact.status}, ${contact.attempts} attempt(s), last call ${contact.last_call_id}`),
    ...events.body.data.map((event) => `event ${event.at} ${event.kind}: ${event.detail}`),
    `server output (last 4,000 characters):\n${e2e.product.output().slice(-4000)}`,
  ].join("\n");
}

async function waitForStatus(id: string, wanted: Campaign["status"], timeoutMs = 60_000): Promise<Campaign> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await campaign(id);
    if (current.status === wanted) return current;
    if (Date.now() > deadline) throw new Error(`campaign ${id} is ${current.status}, not ${wanted}, after ${timeoutMs} ms:\n${await diagnosis(id)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test("Campaigns: a campaign made from a CSV is started, paused, resumed and completes in the sandbox", async () => {
  await inPage(e2e.browser, "campaigns", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${e2e.product.baseURL}/campaigns/create`);

    // Basics: the draft is created, then its contacts.
    await page.getByLabel("Name").fill("E2E follow-up");
    await pickFirst(page, "Agent");
    await pickFirst(page, "Caller number");
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/\/campaigns\/edit\/[0-9a-f-]{36}/, { timeout: 20_000 });
    const id = /\/campaigns\/edit\/([0-9a-f-]{36})/.exec(page.url())![1]!;

    // Contacts: the CSV is read in the browser, previewed, its columns guessed, and imported.
    await page.locator('input[type="file"]').setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
    await page.getByText("Ann Lee").first().waitFor();
    await page.getByRole("button", { name: "Import 3 contacts" }).click();
    await page.getByText("The campaign now has 3 contacts.").waitFor({ timeout: 20_000 });

    // Schedule: around the clock, so the test does not depend on the hour it runs at.
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("button", { name: "Around the clock" }).click();
    await page.getByRole("button", { name: "Next" }).click(); // Calling
    await page.getByRole("button", { name: "Next" }).click(); // Review
    await page.getByRole("button", { name: "Save and start" }).click();
    await page.waitForURL(new RegExp(`/campaigns/${id}/calls$`), { timeout: 20_000 });

    const started = await campaign(id);
    assert.ok(["running", "completed"].includes(started.status), `started: ${started.status}`);
    assert.equal(started.counts.total, 3);

    // Pause while it runs (one call at a time, 3 s each: it cannot have finished yet).
    await page.getByRole("button", { name: /^Pause/ }).first().click();
    await waitForStatus(id, "paused", 20_000);
    await page.locator(".ant-tag", { hasText: "Paused" }).first().waitFor({ timeout: 20_000 });

    await page.getByRole("button", { name: /^Resume/ }).first().click();
    // The toast says whether the resume went through (a refusal carries the server's sentence).
    const toast = page.locator(".ant-notification-notice, .ant-message-notice").filter({ hasText: /Campaign resumed|could not be resumed/ }).first();
    await toast.waitFor({ timeout: 20_000 });
    assert.match(await toast.innerText(), /Campaign resumed/);
    const done = await waitForStatus(id, "completed", 90_000);
    await page.locator(".ant-tag", { hasText: "Completed" }).first().waitFor({ timeout: 20_000 });
    assert.equal(done.counts.answered, 3, JSON.stringify(done.counts));
    assert.equal(done.counts.queued + done.counts.in_progress, 0);

    // Each contact was called once, and its call is in Call Logs under the campaign.
    const contacts = await api<{ data: CampaignContact[] }>("GET", `/campaign/${id}/contacts`);
    assert.deepEqual(
      contacts.body.data.map((contact) => [contact.name, contact.status, contact.attempts, contact.variables.plan]),
      [
        ["Ann Lee", "answered", 1, "gold"],
        ["Bob Stone", "answered", 1, "silver"],
        ["Cleo Park", "answered", 1, "bronze"],
      ],
    );
    const calls = await api<{ total: number }>("GET", `/call/?campaignId=${id}`);
    assert.equal(calls.body.total, 3);

    // The history names the pause and the resume.
    await page.getByText("History").first().waitFor();
    const events = await api<{ data: Array<{ kind: string }> }>("GET", `/campaign/${id}/events`);
    const kinds = events.body.data.map((event) => event.kind);
    for (const kind of ["started", "paused", "resumed", "completed"]) assert.ok(kinds.includes(kind), `history has ${kind}: ${kinds.join(", ")}`);
  });
});
