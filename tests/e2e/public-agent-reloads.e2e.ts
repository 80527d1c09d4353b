// A popular public agent page under reloads (issue 11, item 7): its profile used to be limited to 60
// requests a minute per address, and past that the page showed the spec §3 stand-in ('AI Agent' + the id's
// first 8 characters) instead of the real agent. Now the profile is cached and sized for a popular page,
// and the page asks again on a 429 instead: the agent keeps its own name and description.
import assert from "node:assert/strict";
import { test } from "node:test";
import { demoApi, inPage, productForThisFile } from "./harness";

const e2e = productForThisFile();
const api = demoApi(() => e2e.product.baseURL);

const NAME = "Reloaded Rita";
const DESCRIPTION = "Answers questions about the opening hours, however often the page is reloaded.";

test("a public agent page reloaded past the old limit of 60 a minute still shows the agent's own name", async () => {
  const created = await api<{ data: { id: string } }>("POST", "/agent/", { agent_name: NAME, description: DESCRIPTION, is_public: true });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const agentId = created.body.data.id;
  const standIn = `AI Agent ${agentId.slice(0, 8)}`;
  const pageUrl = `${e2e.product.baseURL}/public/agent/${agentId}`;

  // The page's own profile request, from this same address, well past 60 within the minute.
  const statuses = new Set<number>();
  for (let i = 0; i < 70; i++) {
    const response = await fetch(`${e2e.product.baseURL}/api/agent/${agentId}/public`);
    statuses.add(response.status);
    await response.arrayBuffer();
  }
  assert.deepEqual([...statuses], [200], "the public profile answers a popular page");

  await inPage(e2e.browser, "public agent reloads", async (page) => {
    await page.goto(pageUrl);
    for (let reload = 0; reload <= 10; reload++) {
      if (reload > 0) await page.reload();
      const heading = page.getByRole("heading", { level: 1 });
      await heading.waitFor({ timeout: 20_000 });
      assert.equal(await heading.textContent(), NAME, `reload ${reload}: the agent's own name, not the stand-in '${standIn}'`);
      await page.getByText(DESCRIPTION).waitFor();
    }
    assert.equal(await page.getByText(standIn).count(), 0);
  });
});
