// Issue 16's acceptance: a Shopify store connected in the console sends a signed abandoned checkout, the
// order is called by the sandbox and turns recovered when the store's paid event arrives.
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { FollowUpSettings, Order } from "../../contract/order";
import { WEEKDAYS } from "../../contract/campaign-shared";
import { demoApi, inPage, productForThisFile, signIn } from "./harness";

// Short sandbox calls and a quick dialler, so the follow-up call is placed and ends within the test.
const e2e = productForThisFile({ SANDBOX_CALL_SECONDS: "2", DIALLER_INTERVAL_MS: "250" });
const api = demoApi(() => e2e.product.baseURL);

// A toll-free number has no time zone of its own, so the follow-up's fallback zone applies; it ends in 00,
// which the sandbox answers (the customer agrees to complete the purchase).
const CUSTOMER_PHONE = "+18005550100";
const TOTAL = "59.90";

/** A zone where it is now between 09:00 and 20:00, so the widest window (08:00–21:00) is open with room to spare. */
function daytimeZone(now = new Date()): string {
  const zones = ["UTC", "Europe/London", "Europe/Berlin", "Asia/Dubai", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Auckland", "Pacific/Honolulu", "America/Los_Angeles", "America/New_York", "America/Sao_Paulo"];
  const hourIn = (zone: string) => Number(new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", hourCycle: "h23" }).format(now));
  const zone = zones.find((candidate) => hourIn(candidate) >= 9 && hourIn(candidate) < 20);
  assert.ok(zone, "some zone has daytime now");
  return zone;
}

/** A body shaped like Shopify's documented checkouts/create example, its consent in note_attributes. */
function shopifyCheckout(token: string, name: string, now: string) {
  const address = { first_name: "Ada", last_name: "Lovelace", address1: "Chestnut Street 92", city: "Louisville", zip: "40202", province: "Kentucky", country: "United States", country_code: "US", phone: CUSTOMER_PHONE };
  return {
    id: Date.now(),
    token,
    cart_token: randomUUID().replace(/-/g, ""),
    email: "ada@example.com",
    gateway: null,
    buyer_accepts_marketing: false,
    created_at: now,
    updated_at: now,
    note: null,
    note_attributes: [
      { name: "call_consent", value: "true" },
      { name: "call_consent_source", value: "Checkout checkbox: 'You may call me about this order'" },
    ],
    taxes_included: false,
    currency: "USD",
    presentment_currency: "USD",
    completed_at: null,
    closed_at: null,
    phone: null,
    customer_locale: "en",
    line_items: [
      { key: randomUUID(), product_id: 632910392, variant_id: 39072856, title: "Blue mug", variant_title: "blue", quantity: 2, price: "12.00", line_price: "24.00", sku: "MUG-BLUE", requires_shipping: true, taxable: true, gift_card: false },
      { key: randomUUID(), product_id: 921728736, variant_id: 457924702, title: "Tote bag", variant_title: null, quantity: 1, price: "35.90", line_price: "35.90", sku: "TOTE", requires_shipping: true, taxable: true, gift_card: false },
    ],
    name,
    source_name: "web",
    abandoned_checkout_url: `https://e2e-shop.myshopify.com/checkouts/${token}/recover?key=e2e`,
    discount_codes: [],
    tax_lines: [],
    total_discounts: "0.00",
    total_line_items_price: TOTAL,
    total_price: TOTAL,
    total_tax: "0.00",
    subtotal_price: TOTAL,
    billing_address: address,
    shipping_address: address,
    customer: { id: 207119551, email: "ada@example.com", accepts_marketing: false, first_name: "Ada", last_name: "Lovelace", phone: CUSTOMER_PHONE, currency: "USD", created_at: now, updated_at: now },
  };
}

/** Shopify's orders/paid for the order the checkout became. */
function shopifyOrderPaid(token: string, now: string) {
  const id = Date.now();
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    checkout_token: token,
    name: "#1001",
    order_number: 1001,
    email: "ada@example.com",
    financial_status: "paid",
    currency: "USD",
    presentment_currency: "USD",
    created_at: now,
    processed_at: now,
    updated_at: now,
    total_price: TOTAL,
    total_price_set: { shop_money: { amount: TOTAL, currency_code: "USD" }, presentment_money: { amount: TOTAL, currency_code: "USD" } },
    note_attributes: [{ name: "call_consent", value: "true" }],
    customer: { id: 207119551, first_name: "Ada", last_name: "Lovelace", phone: CUSTOMER_PHONE },
    line_items: [],
  };
}

/** Posts `payload` as Shopify does: base64 HMAC-SHA256 of the raw body with the shop's key, a webhook id, the topic. */
async function deliverAsShopify(webhookUrl: string, secret: string, topic: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const response = await fetch(webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-shopify-topic": topic,
      "x-shopify-hmac-sha256": createHmac("sha256", secret).update(body).digest("base64"),
      "x-shopify-webhook-id": randomUUID(),
      "x-shopify-shop-domain": "e2e-shop.myshopify.com",
      "x-shopify-api-version": "2026-10",
      "x-shopify-triggered-at": new Date().toISOString(),
    },
    body,
  });
  const answer = (await response.json()) as { data?: { result: string; detail: string | null; order_id: string | null }; detail?: string };
  assert.equal(response.status, 200, `${topic}: ${JSON.stringify(answer)}`);
  assert.equal(answer.data?.result, "applied", `${topic}: ${JSON.stringify(answer)}`);
  return answer.data!;
}

async function waitForOrder(id: string, ready: (order: Order) => boolean, what: string, timeoutMs = 30_000): Promise<Order> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api<{ data: Order }>("GET", `/order/${id}`);
    assert.equal(answer.status, 200);
    if (ready(answer.body.data)) return answer.body.data;
    if (Date.now() > deadline) throw new Error(`order ${id} is not ${what} after ${timeoutMs} ms: ${JSON.stringify(answer.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Reloads /orders until the order's row shows `text` (the list has no live updates to rely on). */
async function waitForRow(page: Page, reference: string, text: string | RegExp, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = page.locator("tr", { hasText: reference }).first();
    if (await row.filter({ hasText: text }).count()) return row;
    if (Date.now() > deadline) throw new Error(`/orders shows no row for ${reference} with ${String(text)}`);
    await page.reload();
    await row.waitFor({ timeout: 15_000 }).catch(() => undefined);
  }
}

test("Orders: a Shopify store connected in the console sends an abandoned checkout that is called and recovered", async () => {
  // Follow-up on, no delay, every day 08:00–21:00, with a fallback zone where it is daytime now.
  const zone = daytimeZone();
  const saved = await api<{ data: FollowUpSettings }>("PUT", "/order/follow-up", {
    enabled: true,
    delay_minutes: 0,
    schedule: { windows: [{ days: [...WEEKDAYS], start: "08:00", end: "21:00" }], fallback_timezone: zone },
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.data.state, "running");

  await inPage(e2e.browser, "orders", async (page) => {
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${e2e.product.baseURL}/orders`);

    // Connect a Shopify store through the integrations drawer; its secret is shown once.
    await page.getByRole("button", { name: "Store integrations" }).click();
    const drawer = page.locator(".ant-drawer-content").filter({ hasText: "Connect a store" });
    await drawer.getByLabel("Name", { exact: true }).fill("E2E Shopify");
    await drawer.getByRole("button", { name: "Connect", exact: true }).click();
    const dialog = page.getByRole("dialog").filter({ hasText: "You will not see this secret again" });
    await dialog.waitFor({ timeout: 20_000 });
    const webhookUrl = await dialog.getByRole("textbox", { name: "Webhook URL", exact: true }).inputValue();
    const secret = await dialog.getByRole("textbox", { name: "Secret", exact: true }).inputValue();
    assert.match(webhookUrl, /\/api\/webhooks\/shopify\/[0-9a-f-]{36}$/);
    assert.ok(secret.length >= 32, "a generated secret");
    await dialog.getByRole("button", { name: "I have copied them" }).click();
    await dialog.waitFor({ state: "hidden" });
    await drawer.getByText("E2E Shopify").waitFor();

    // The shop sends a checkout with consent to be called.
    const token = randomUUID().replace(/-/g, "");
    const reference = `#E2E${Date.now() % 1_000_000}`;
    const abandoned = await deliverAsShopify(webhookUrl, secret, "checkouts/create", shopifyCheckout(token, reference, new Date().toISOString()));
    const orderId = abandoned.order_id!;
    assert.ok(orderId, "the checkout became an order");

    // Called: status calling, then a call linked to it (the sandbox answers …00 and the customer agrees).
    await waitForOrder(orderId, (order) => order.status === "calling", "calling");
    const called = await waitForOrder(orderId, (order) => order.last_call_id !== null && order.call_outcome === "completed", "called with an outcome");
    assert.equal(called.call_consent.given, true);
    assert.deepEqual(called.timezones, [zone]);

    // The list shows it, calling.
    await page.goto(`${e2e.product.baseURL}/orders`);
    await waitForRow(page, reference, "Calling");

    // The shop's paid event for the same checkout: recovered, with the amount paid.
    await deliverAsShopify(webhookUrl, secret, "orders/paid", shopifyOrderPaid(token, new Date().toISOString()));
    const recovered = await waitForOrder(orderId, (order) => order.status === "recovered", "recovered", 10_000);
    assert.equal(recovered.recovered_amount, 59.9);
    const row = await waitForRow(page, reference, "Recovered");
    await row.filter({ hasText: "$59.90" }).waitFor({ timeout: 5_000 });
  });
});
