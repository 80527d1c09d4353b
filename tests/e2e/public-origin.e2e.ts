// One origin for browsers (issue 31, item 7): the product as `npm start` runs it on a fresh clone, PUBLIC_URL unset
// (so http://localhost:PORT) while it listens on 127.0.0.1. A member who opens http://127.0.0.1:PORT, as the start
// log's "listening on 127.0.0.1:PORT" invites, signs in, tops up through the sandbox checkout and comes back to
// Billing signed in, with the money added. Before, the checkout sent them back to localhost, where they had no
// session: the sign-in screen instead of their balance.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inPage, productForThisFile, signIn } from "./harness";

// PUBLIC_URL empty counts as unset: the server's own default, as on a fresh clone.
const e2e = productForThisFile({ PUBLIC_URL: "" });

test("a member who opened http://127.0.0.1:PORT comes back from the sandbox top-up checkout signed in, on the server's one origin", async () => {
  await inPage(e2e.browser, "public origin top-up", async (page) => {
    const port = new URL(e2e.product.baseURL).port;
    const origin = `http://localhost:${port}`;
    assert.equal(e2e.product.baseURL, `http://127.0.0.1:${port}`);

    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });

    await page.getByRole("link", { name: "Billing", exact: true }).click();
    await page.getByRole("radio", { name: "$25.00" }).check({ timeout: 20_000 });
    await page.getByRole("button", { name: "Add $25.00" }).click();
    const checkout = page.getByRole("dialog").filter({ hasText: "Sandbox checkout" });
    await checkout.waitFor({ timeout: 20_000 });
    await checkout.getByRole("button", { name: /4242 4242 4242 4242/ }).click();
    await checkout.getByRole("button", { name: "Pay $25.00" }).click();

    // Back on Billing, signed in: the result of the top-up, not the sign-in screen.
    await page.getByText("$25.00 was added to your balance.").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole("button", { name: "Sign in" }).count(), 0);
    // On the server's one origin (the first page load on 127.0.0.1 was sent there), where the checkout returns.
    assert.equal(new URL(page.url()).origin, origin);
    assert.equal(new URL(page.url()).pathname, "/billing");

    // The redirect URI an admin is told to register with Google is on the same origin.
    await page.goto(`${e2e.product.baseURL}/calendar-permission`);
    const redirectUri = page.getByRole("textbox", { name: "Redirect URI" });
    await redirectUri.waitFor({ timeout: 20_000 });
    assert.equal(await redirectUri.inputValue(), `${origin}/calendar-permission`);
    assert.equal(new URL(page.url()).origin, origin);
  });
});
