import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { startFakeGoogle, type FakeGoogle } from "../server/fakes/google";
import { inPage, launchBrowser, signIn, startProduct, type Product } from "./harness";

// The product with Google Calendar pointed at the local stand-in (its consent page approves at once
// and sends the browser back to PUBLIC_URL/calendar-permission with a code and the state).
let google: FakeGoogle;
let product: Product;
let browser: Browser;
before(async () => {
  google = await startFakeGoogle();
  product = await startProduct(google.env);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await product?.stop();
  await google?.close();
});

test("Calendar Permission: connecting Google goes to Google's page and back, shows the account, and disconnects; the ICS feed's address opens the feed and is replaced", async () => {
  await inPage(browser, "calendar permission", async (page) => {
    await signIn(page, product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${product.baseURL}/calendar-permission`);
    await page.getByRole("heading", { level: 1, name: "Calendar Permission" }).waitFor({ timeout: 20_000 });

    await page.getByRole("button", { name: "Connect Google Calendar" }).click();
    // Google's page (the stand-in) sends the browser back here; the page finishes the flow and cleans its address.
    await page.getByText("Google Calendar connected: owner@example.com").first().waitFor({ timeout: 20_000 });
    await page.waitForURL((url) => url.pathname === "/calendar-permission" && url.search === "");
    await page.getByText("Connected", { exact: true }).waitFor();
    const exchange = google.requests.find((request) => request.path === "/token" && request.form?.grant_type === "authorization_code");
    assert.ok(exchange?.form?.code_verifier, "the code was exchanged with its PKCE verifier");
    assert.equal(exchange.form.redirect_uri, `${product.baseURL}/calendar-permission`);

    await page.getByRole("button", { name: "Disconnect" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
    await page.getByText("Google Calendar disconnected").first().waitFor();
    await page.getByRole("button", { name: "Connect Google Calendar" }).waitFor();
    assert.equal(google.revoked.length, 1);

    const address = page.getByRole("textbox", { name: "Feed address" });
    await address.waitFor();
    const url = await address.inputValue();
    assert.match(url, new RegExp(`^${product.baseURL}/api/calendar/feed/[A-Za-z0-9_-]{43}\\.ics$`));
    const feed = await page.request.get(url);
    assert.equal(feed.status(), 200);
    assert.equal(feed.headers()["content-type"], "text/calendar; charset=utf-8");
    assert.match(await feed.text(), /^BEGIN:VCALENDAR\r\n[\s\S]*X-WR-CALNAME:[^\r\n]+ appointments\r\n[\s\S]*END:VCALENDAR/);

    await page.getByRole("button", { name: "Replace address" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Replace" }).click();
    await page.getByText("New feed address made: the old one no longer works").first().waitFor();
    const replaced = await address.inputValue();
    assert.notEqual(replaced, url);
    assert.equal((await page.request.get(url)).status(), 404);
    assert.equal((await page.request.get(replaced)).status(), 200);
  });
});
