// Organisations from the switcher at the foot of the sidebar (spec §2, §8): create one (it becomes active,
// with its own empty data), switch back, invite a member by email; the invited person opens the
// invitation link (local accounts send no email), signs up with that email and lands in the inviting
// organisation, and can leave it again.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { inPage, productForThisFile, signIn, signUp } from "./harness";

const e2e = productForThisFile();

const DEMO_ORG = "Demo Organisation";
const NEW_ORG = "E2E Field Team";
const INVITED = { name: "Mary Jackson", email: "mary.jackson@example.com", password: "wind-tunnel-1958" };

const switcher = (page: Page) => page.getByRole("button", { name: "Switch organization" });

/** The active organisation's name, as the switcher shows it (its title holds the name when collapsed too). */
async function waitForActive(page: Page, name: string) {
  await page.waitForFunction(
    (expected) => document.querySelector('[aria-label="Switch organization"]')?.getAttribute("title") === expected,
    name,
    { timeout: 20_000 },
  );
}

async function openSwitcherMenu(page: Page) {
  await switcher(page).click();
  const menu = page.getByRole("menu");
  await menu.waitFor();
  return menu;
}

async function phoneNumbersScreen(page: Page) {
  await page.getByRole("link", { name: "Phone Numbers", exact: true }).click();
  await page.waitForURL(/\/phone-numbers$/);
  await page.getByRole("heading", { level: 1, name: "Phone Numbers" }).waitFor();
}

test("create an organisation from the switcher, switch back, invite a member; the invited email signs up from the link into the inviting organisation, and can leave it", async () => {
  let invitationLink = "";
  await inPage(e2e.browser, "organizations admin", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await waitForActive(page, DEMO_ORG);
    assert.ok(await switcher(page).getByText(DEMO_ORG).isVisible(), "expanded, the switcher shows the organisation's name");

    // Create: the dialog, then the new organisation is active and the console is on /dashboard.
    await phoneNumbersScreen(page);
    let menu = await openSwitcherMenu(page);
    await menu.getByRole("menuitem", { name: "Create organization" }).click();
    const create = page.getByRole("dialog", { name: "Create organization" });
    await create.getByLabel("Name", { exact: true }).fill(NEW_ORG);
    await create.getByRole("button", { name: "Create organization" }).click();
    await create.waitFor({ state: "hidden" });
    await waitForActive(page, NEW_ORG);
    await page.waitForURL(/\/dashboard$/);
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();

    // Its data is its own: no phone numbers yet.
    await phoneNumbersScreen(page);
    await page.getByText("No phone numbers yet").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByRole("row").filter({ hasText: "Main line" }).count(), 0);

    // Both organisations are listed, the new one marked active.
    menu = await openSwitcherMenu(page);
    const newItem = menu.getByRole("menuitem", { name: NEW_ORG });
    assert.equal(await newItem.getByRole("img", { name: "Active organization" }).count(), 1);
    assert.equal(await menu.getByRole("menuitem", { name: DEMO_ORG }).getByRole("img", { name: "Active organization" }).count(), 0);
    // Its only admin may not leave it (better-auth would refuse): not offered, and the hover says why.
    const leave = menu.getByRole("menuitem", { name: "Leave organization" });
    assert.equal(await leave.getAttribute("aria-disabled"), "true");
    await leave.getByText("Leave organization").hover();
    await page.getByRole("tooltip").filter({ hasText: `You are the only admin of ${NEW_ORG}.` }).waitFor({ timeout: 5_000 });
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });

    // Switch back while collapsed: the console stays on the current screen (spec §2), now with the demo's numbers.
    await page.getByRole("button", { name: "Collapse sidebar" }).click();
    menu = await openSwitcherMenu(page);
    await menu.getByRole("menuitem", { name: DEMO_ORG }).click();
    await waitForActive(page, DEMO_ORG);
    await page.getByRole("row").filter({ hasText: "Main line" }).waitFor({ timeout: 20_000 });
    assert.match(new URL(page.url()).pathname, /^\/phone-numbers$/);
    await page.getByRole("button", { name: "Expand sidebar" }).click();

    // Invite a member to the demo organisation.
    menu = await openSwitcherMenu(page);
    await menu.getByRole("menuitem", { name: "Invite member" }).click();
    const invite = page.getByRole("dialog", { name: "Invite member" });
    await invite.getByLabel("Email", { exact: true }).fill(INVITED.email);
    // The role defaults to org:member (spec §9).
    await invite.getByText("Member (org:member)").waitFor();
    const sent = page.waitForResponse((response) => /\/api\/organization\/[^/]+\/invite$/.test(response.url()));
    await invite.getByRole("button", { name: "Send invitation" }).click();
    const answer = await sent;
    assert.equal(answer.status(), 200, await answer.text());
    assert.deepEqual(answer.request().postDataJSON(), { email_address: INVITED.email, role: "org:member" });
    await page.getByText("Invitation sent successfully!").first().waitFor();
    // Local accounts send no email: the dialog gives the invitation link to hand over.
    const shared = page.getByRole("dialog", { name: "Share the invitation link" });
    await shared.getByText(`Send this link to ${INVITED.email}.`, { exact: false }).waitFor();
    invitationLink = ((await shared.locator("code").textContent()) ?? "").trim();
    assert.match(invitationLink, new RegExp(`^${e2e.product.baseURL}/invitation/[^/?#]+$`));
    await shared.getByRole("button", { name: "Done" }).click();
    await shared.waitFor({ state: "hidden" });
  });

  await inPage(e2e.browser, "organizations invited member", async (page) => {
    // Signed out, the link shows the sign-in screen in place; the invited email signs up there.
    await page.goto(invitationLink);
    await signUp(page, INVITED);
    await page.getByText(`You joined ${DEMO_ORG}.`).first().waitFor({ timeout: 20_000 });
    // No "Create your organization": the invitation made the person a member, in the inviting organisation.
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });
    await waitForActive(page, DEMO_ORG);
    await page.getByRole("button", { name: "Account menu" }).getByText(INVITED.name).waitFor();

    // The demo organisation's data, seen as a member: only that organisation, and no invite action.
    await phoneNumbersScreen(page);
    await page.getByRole("row").filter({ hasText: "Main line" }).waitFor({ timeout: 20_000 });
    const menu = await openSwitcherMenu(page);
    assert.deepEqual(
      (await menu.getByRole("menuitem").allTextContents()).map((text) => text.trim()),
      [DEMO_ORG, "Create organization", "Leave organization"],
    );

    // Leaving the only organisation: back to /dashboard, which asks for an organisation first.
    await menu.getByRole("menuitem", { name: "Leave organization" }).click();
    const confirm = page.getByRole("dialog", { name: "Leave this organization?" });
    await confirm.getByText(`You will lose access to ${DEMO_ORG}`).waitFor();
    await confirm.getByRole("button", { name: "Leave", exact: true }).click();
    await page.getByRole("heading", { name: "Create your organization" }).waitFor({ timeout: 20_000 });
    await page.waitForURL(/\/dashboard$/);
  });
});
