// Billing end to end on the embedded sandbox (issue 15): an admin tops up $25 through the sandbox's checkout
// dialog and sees the balance and the ledger entry; sets a daily spend cap; a public call that would pass it is
// refused with the server's exact sentence; and the plan is upgraded through the sandbox's subscription checkout.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { BillingSummary, LedgerEntry } from "../../contract/billing";
import type { Agent } from "../../contract/agent";
import type { PhoneNumber } from "../../contract/phone-number";
import type { Subscription } from "../../contract/subscription";
import { demoApi, inPage, productForThisFile, signIn } from "./harness";

// DEFAULT_PLAN free: the demo organisation is then on Starter (a Sandbox subscription), so it can upgrade.
const e2e = productForThisFile({ SANDBOX_CALL_SECONDS: "2", DEFAULT_PLAN: "free" });
const api = demoApi(() => e2e.product.baseURL);

const cents = (usd: number) => Math.round(usd * 100);

test("Billing: a $25 sandbox top-up, its ledger entry, a daily cap that refuses a call with its sentence, and a plan upgrade", async () => {
  await inPage(e2e.browser, "billing", async (page) => {
    await page.setViewportSize({ width: 1440, height: 1000 });
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });

    const before = (await api<{ data: BillingSummary }>("GET", "/billing/")).body.data;
    assert.equal(before.payments, "sandbox");

    // Add credits: the $25 preset, then the sandbox's checkout dialog with the card that succeeds.
    await page.goto(`${e2e.product.baseURL}/billing`);
    await page.getByRole("radio", { name: "$25.00" }).check({ timeout: 20_000 });
    await page.getByRole("button", { name: "Add $25.00" }).click();
    const dialog = page.getByRole("dialog").filter({ hasText: "Sandbox checkout" });
    await dialog.waitFor({ timeout: 20_000 });
    await dialog.getByRole("button", { name: /4242 4242 4242 4242/ }).click();
    await dialog.getByRole("button", { name: "Pay $25.00" }).click();
    await page.getByText("$25.00 was added to your balance.").waitFor({ timeout: 30_000 });

    const after = (await api<{ data: BillingSummary }>("GET", "/billing/")).body.data;
    assert.equal(cents(after.balance_usd) - cents(before.balance_usd), 2500, "the balance moved by exactly $25, once");
    const ledger = (await api<{ data: LedgerEntry[] }>("GET", "/billing/ledger?kind=top-up&limit=1")).body.data;
    assert.equal(ledger[0]?.amount_usd, 25);
    assert.equal(cents(ledger[0]!.balance_after_usd), cents(after.balance_usd));

    // The Transactions tab shows the entry with the balance after it.
    await page.getByRole("tab", { name: "Transactions" }).click();
    const row = page.locator(".ant-table-row").filter({ hasText: "Top-up" }).first();
    await row.waitFor({ timeout: 20_000 });
    assert.match((await row.textContent()) ?? "", /\+\$25\.00/);

    // A daily cap for the organisation, set in the Overview's editor: one cent, so the next call passes it.
    await page.getByRole("tab", { name: "Overview" }).click();
    await page.getByRole("button", { name: "Edit caps" }).click();
    await page.getByRole("button", { name: "Add a cap" }).click();
    await page.getByLabel("Per", { exact: true }).last().click({ force: true });
    await page.locator(".ant-select-item-option").filter({ hasText: /^Day$/ }).click();
    const limit = page.getByLabel("Limit (USD)").last();
    await limit.fill("0.01");
    const savedCaps = page.waitForResponse((response) => response.url().endsWith("/api/billing/spend-caps") && response.request().method() === "PUT");
    await page.getByRole("button", { name: "Save caps" }).click();
    const capsAnswer = await savedCaps;
    assert.equal(capsAnswer.status(), 200, await capsAnswer.text());
    const caps = (await api<{ data: BillingSummary }>("GET", "/billing/")).body.data.spend_caps;
    assert.equal(caps.length, 1);
    assert.deepEqual([caps[0]!.scope, caps[0]!.period, caps[0]!.limit_usd], ["organization", "day", 0.01]);

    // A public agent's call is refused: 403 spend_cap_reached, and the visitor reads the server's sentence.
    const agents = (await api<{ data: Agent[] }>("GET", "/agent/?limit=100")).body.data;
    const agent = agents[0]!;
    if (!agent.is_public) assert.equal((await api("PUT", `/agent/${agent.id}`, { is_public: true })).status, 200);
    const numbers = (await api<{ data: PhoneNumber[] }>("GET", "/phonenumber/?limit=100")).body.data;
    const number = numbers.find((candidate) => candidate.isDefault) ?? numbers[0]!;
    await inPage(e2e.browser, "billing visitor", async (visitor) => {
      await visitor.goto(`${e2e.product.baseURL}/public/agent/${agent.id}?pid=${number.id}`);
      await visitor.getByRole("button", { name: "Start Call" }).click({ timeout: 20_000 });
      const details = visitor.getByRole("dialog", { name: "Confirm Call Details" });
      await details.getByLabel("Recipient Name").fill("Capped Caller");
      await details.getByLabel("Phone Number").pressSequentially("4155557700");
      const placed = visitor.waitForResponse((response) => response.url().endsWith("/api/call/public") && response.request().method() === "POST");
      await details.getByRole("button", { name: "Start Call" }).click();
      const answer = await placed;
      assert.equal(answer.status(), 403);
      const body = (await answer.json()) as { detail: string; code: string };
      assert.equal(body.code, "spend_cap_reached");
      assert.match(body.detail, /daily spend cap of \$0\.01/);
      await visitor.getByText(body.detail, { exact: true }).first().waitFor({ timeout: 10_000 });
    });

    // Upgrade: Pro from the comparison table, its preview, then the sandbox's subscription checkout.
    const plan = (await api<{ data: Subscription }>("GET", "/subscription/")).body.data;
    assert.notEqual(plan.plan.id, "pro");
    await page.goto(`${e2e.product.baseURL}/subscriptions`);
    await page.getByRole("button", { name: "Upgrade to Pro" }).click({ timeout: 20_000 });
    // The preview names what changes; Confirm goes to the sandbox's subscription checkout (the demo has no paid subscription at the provider yet).
    await page.getByRole("dialog").getByText(/Pro/).first().waitFor();
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    const checkout = page.getByRole("dialog").filter({ hasText: "Sandbox checkout" });
    await checkout.waitFor({ timeout: 20_000 });
    await checkout.getByRole("button", { name: /4242 4242 4242 4242/ }).click();
    await checkout.getByRole("button", { name: /^Pay / }).click();
    await page.waitForURL(/\/subscriptions\?subscription=success/, { timeout: 20_000 });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = (await api<{ data: Subscription }>("GET", "/subscription/")).body.data;
      if (now.plan.id === "pro") break;
      if (Date.now() > deadline) assert.fail(`the plan is still ${now.plan.id} 30 s after paying`);
      await page.waitForTimeout(500);
    }
    await page.goto(`${e2e.product.baseURL}/subscriptions`);
    await page.locator('[aria-current="true"]').filter({ hasText: "Pro" }).first().waitFor({ timeout: 20_000 });
  });
});
