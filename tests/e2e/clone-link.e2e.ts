// The private clone link (spec §2 /agent/private/:agentID, §4 "Shared agent", §8 "Clone"): the owner turns
// on "Anyone signed in with this link can copy this agent"; a person of another organisation opens the link
// signed out, is asked to log in, signs up, creates their organisation and lands on the copy of the agent
// there; the sharing organisation's agents are unchanged. Turned off, the link stops working.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { AGENT_PATH, createFirstOrganization, inPage, openAgentsAsDemo, productForThisFile, signIn, signUp } from "./harness";

const e2e = productForThisFile();

const SECOND = { name: "Grace Hopper", email: "grace.hopper@example.com", password: "cobol-compiler-59" };
const SECOND_ORG = "Hopper Labs";

/** The active organisation's agents, read through the API with the console's own short-lived bearer (/api/auth/token). */
async function agentNames(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const minted = (await (await fetch("/api/auth/token", { cache: "no-store" })).json()) as { data: { token: string } };
    const response = await fetch("/api/agent/?limit=100", { headers: { Authorization: `Bearer ${minted.data.token}` } });
    if (!response.ok) throw new Error(`GET /api/agent/ answered ${response.status}`);
    const body = (await response.json()) as { data: Array<{ agent_name: string }> };
    return body.data.map((agent) => agent.agent_name).sort();
  });
}

const agentId = (page: Page) => AGENT_PATH.exec(new URL(page.url()).pathname)?.[1];

test("a second organisation opens the private clone link, signs up, and gets its own copy of the agent", async () => {
  await inPage(e2e.browser, "clone link owner", async (owner) => {
    await openAgentsAsDemo(owner, e2e.product.baseURL);
    const sourceId = agentId(owner);
    const nameField = owner.getByLabel("Agent name", { exact: true });
    await nameField.waitFor({ timeout: 20_000 });
    const sourceName = await nameField.inputValue();
    const sourcePrompt = await owner.getByLabel("Prompt", { exact: true }).inputValue();
    assert.ok(sourceName, "the shared agent has a name");

    // Copying is off until the owner turns it on; then the share panel gives the link, with its key.
    assert.equal(await owner.getByLabel("Private clone link", { exact: true }).count(), 0);
    await owner.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" }).click();
    await owner.getByText("Anyone signed in with the private clone link can now copy this agent").first().waitFor({ timeout: 20_000 });
    const cloneLink = await owner.getByLabel("Private clone link", { exact: true }).inputValue();
    assert.match(cloneLink, new RegExp(`^${e2e.product.baseURL}/agent/private/${sourceId}\\?key=[A-Za-z0-9_-]{32}$`));
    const ownersAgents = await agentNames(owner);

    await inPage(e2e.browser, "clone link second organisation", async (page) => {
      // Signed out, the link asks to log in, and "Go to Login" signs in right there.
      await page.goto(cloneLink);
      await page.getByText("Login is required to access this agent").waitFor({ timeout: 20_000 });
      await page.getByRole("button", { name: "Go to Login" }).click();
      await signUp(page, SECOND);

      // A new person has no organisation yet: the copy needs one to land in. Hold the clone answer back 3 s
      // so that the 'Cloning Agent' state can be seen (800 ms was missed on a loaded 2-core machine).
      // (A URL predicate: the request carries the link's ?key=, which a glob ending in /clone does not match.)
      const cloneRequest = (url: URL) => /^\/api\/agent\/[^/]+\/clone$/.test(url.pathname);
      let held = 0;
      await page.route(cloneRequest, async (route) => {
        held++;
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await route.continue();
      });
      await createFirstOrganization(page, SECOND_ORG);
      await page.getByRole("status").filter({ hasText: "Cloning Agent" }).waitFor({ timeout: 20_000 });

      await page.getByText("Agent cloned successfully!").first().waitFor({ timeout: 20_000 });
      assert.equal(held, 1, "the clone request was held back once");
      await page.waitForURL((url) => AGENT_PATH.test(url.pathname) && !url.pathname.endsWith(sourceId!), { timeout: 20_000 });
      const cloneId = agentId(page);
      await page.getByLabel("Agent name", { exact: true }).waitFor({ timeout: 20_000 });
      assert.equal(await page.getByLabel("Agent name", { exact: true }).inputValue(), sourceName);
      assert.equal(await page.getByLabel("Prompt", { exact: true }).inputValue(), sourcePrompt);
      // In the person's own organisation, inside the shell.
      assert.equal(await page.getByRole("button", { name: "Switch organization" }).getAttribute("title"), SECOND_ORG);
      assert.deepEqual(await agentNames(page), [sourceName]);
      // A copy is not public, whatever the source was.
      assert.equal(await page.getByRole("switch", { name: "Public", exact: true }).getAttribute("aria-checked"), "false");

      // Opening the link again does not copy it twice: the copy already made is opened.
      await page.unroute(cloneRequest);
      await page.goto(cloneLink);
      await page.getByText("Agent is already in your account!").first().waitFor({ timeout: 20_000 });
      await page.waitForURL((url) => url.pathname === `/agent/${cloneId}`, { timeout: 20_000 });
      assert.deepEqual(await agentNames(page), [sourceName]);
    });

    // The sharing organisation's agents are as they were.
    assert.deepEqual(await agentNames(owner), ownersAgents);

    // Turned off, the link is revoked: opened again it shows the spec's card, and makes no copy.
    await owner.getByRole("switch", { name: "Anyone signed in with this link can copy this agent" }).click();
    await owner.getByText("Copying is off: the private clone link no longer works").first().waitFor({ timeout: 20_000 });
    await inPage(e2e.browser, "clone link after revocation", async (page) => {
      await signIn(page, e2e.product.baseURL, SECOND.email, SECOND.password);
      await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
      await page.goto(cloneLink);
      await page.getByText("Agent not found or access denied").waitFor({ timeout: 20_000 });
    });
    assert.deepEqual(await agentNames(owner), ownersAgents);
    await owner.reload();
    await owner.getByLabel("Agent name", { exact: true }).waitFor({ timeout: 20_000 });
    assert.equal(agentId(owner), sourceId);
    assert.equal(await owner.getByLabel("Agent name", { exact: true }).inputValue(), sourceName);
  });
});

test("a clone link to an agent that does not exist shows the error card with 'Go to Dashboard'", async () => {
  await inPage(e2e.browser, "clone link unknown agent", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${e2e.product.baseURL}/agent/private/00000000-0000-4000-8000-000000000000`);
    await page.getByText("Agent not found or access denied").waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Go to Dashboard" }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  });
});
