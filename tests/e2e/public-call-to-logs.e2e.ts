// From the console to a stranger's phone and back: an agent made from a template is made public with the
// editor's switch, an anonymous visitor opens the share panel's public link and asks to be called, and
// the finished sandbox call shows up in Call Logs, where it opens with its transcript.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { AGENT_PATH, inPage, openAgentsAsDemo, productForThisFile } from "./harness";

// Sandbox calls last 2 s instead of a realistic length.
const e2e = productForThisFile({ SANDBOX_CALL_SECONDS: "2" });

const AGENT_NAME = "E2E front desk";
const VISITOR = { name: "Dorothy Vaughan", digits: "4155557700", e164: "+14155557700" };

/** The Call Logs row of the visitor's call, once its status is 'ended' (the list is reloaded until then). */
async function endedCallRow(page: Page) {
  const row = page.locator(".ant-table-row").filter({ hasText: VISITOR.name });
  const deadline = Date.now() + 30_000;
  for (;;) {
    await row.first().waitFor({ timeout: 20_000 });
    const status = (await row.first().locator(".ant-tag").filter({ hasText: /^(queued|ringing|in-progress|forwarding|ended)$/ }).textContent())?.trim();
    if (status === "ended") return row.first();
    if (Date.now() > deadline) assert.fail(`the call is still '${status}' in Call Logs after 30 s`);
    await page.waitForTimeout(1_000);
    await page.reload();
  }
}

test("an agent made public in the editor is called from its public link, and the ended call opens from Call Logs", async () => {
  await inPage(e2e.browser, "public call console", async (page) => {
    await openAgentsAsDemo(page, e2e.product.baseURL);

    // A new agent from a template.
    const before = page.url();
    await page.getByRole("button", { name: "New agent" }).click();
    const dialog = page.getByRole("dialog", { name: "New agent" });
    await dialog.getByRole("radio", { name: /Appointment Setter/ }).click();
    await dialog.getByRole("textbox", { name: "Name", exact: true }).fill(AGENT_NAME);
    await dialog.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL((url) => AGENT_PATH.test(url.pathname) && url.href !== before, { timeout: 20_000 });
    await page.getByLabel("Agent name", { exact: true }).and(page.locator(`[value="${AGENT_NAME}"]`)).waitFor();
    const agentId = new URL(page.url()).pathname.split("/").pop()!;

    // Made public with the share panel's switch: saved at once.
    const publicSwitch = page.getByRole("switch", { name: "Public", exact: true });
    assert.equal(await publicSwitch.getAttribute("aria-checked"), "false", "a new agent is private");
    await page.getByText("Turn on Public so that the public link works.").waitFor();
    const saved = page.waitForResponse((response) => response.request().method() === "PUT" && response.url().endsWith(`/api/agent/${agentId}`));
    await publicSwitch.click();
    const savedAnswer = await saved;
    assert.equal(savedAnswer.status(), 200, await savedAnswer.text());
    assert.deepEqual(savedAnswer.request().postDataJSON(), { is_public: true });
    await page.getByText("The agent is now public").first().waitFor();
    assert.equal(await publicSwitch.getAttribute("aria-checked"), "true");
    await page.getByText("Anyone with the public link can call this agent.").waitFor();

    // The public link names the default number the visitor is called from.
    await page.getByText("Visitors are called from Main line").waitFor({ timeout: 20_000 });
    const publicLink = await page.getByLabel("Public link", { exact: true }).inputValue();
    assert.match(publicLink, new RegExp(`^${e2e.product.baseURL}/public/agent/${agentId}\\?pid=[0-9a-f-]{36}$`));

    await inPage(e2e.browser, "public call visitor", async (visitor) => {
      await visitor.goto(publicLink);
      await visitor.getByRole("heading", { level: 1, name: AGENT_NAME }).waitFor({ timeout: 20_000 });
      await visitor.getByRole("button", { name: "Start Call" }).click();
      const details = visitor.getByRole("dialog", { name: "Confirm Call Details" });
      await details.getByLabel("Recipient Name").fill(VISITOR.name);
      // The sandbox answers a number ending in 00.
      await details.getByLabel("Phone Number").pressSequentially(VISITOR.digits);
      const placed = visitor.waitForResponse((response) => response.url().endsWith("/api/call/public") && response.request().method() === "POST");
      await details.getByRole("button", { name: "Start Call" }).click();
      const answer = await placed;
      assert.equal(answer.status(), 201, await answer.text());
      assert.equal((answer.request().postDataJSON() as { customer: { number: string } }).customer.number, VISITOR.e164);
      await visitor.getByText("Agent is Calling").waitFor();
      await details.waitFor({ state: "detached" });
    });

    // Back in the console: the call is in Call Logs.
    await page.getByRole("link", { name: "Calls", exact: true }).click();
    await page.waitForURL(/\/call-logs/);
    await page.getByRole("heading", { level: 1, name: "Call Logs" }).waitFor();
    await page.getByRole("searchbox", { name: "Search calls" }).fill(VISITOR.name);
    await page.waitForURL((url) => [...url.searchParams.values()].some((value) => value.includes(VISITOR.name)), { timeout: 20_000 });
    const row = await endedCallRow(page);
    assert.equal(await page.locator(".ant-table-row").filter({ hasText: VISITOR.name }).count(), 1, "one call to the visitor");
    await row.getByText(AGENT_NAME, { exact: true }).waitFor();
    await row.getByText(VISITOR.e164, { exact: true }).waitFor();

    await row.getByRole("button", { name: /^Open call / }).click();
    const drawer = page.getByRole("dialog");
    const transcript = drawer.getByRole("list", { name: "Transcript" });
    await transcript.getByRole("listitem").first().waitFor({ timeout: 20_000 });
    assert.ok((await transcript.getByRole("listitem").count()) >= 2, "the transcript has both sides");
    await drawer.getByText(`${VISITOR.name} · ${VISITOR.e164}`).waitFor();
    await page.waitForURL((url) => Boolean(url.searchParams.get("call")));
  });
});
