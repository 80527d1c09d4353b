/**
 * The store adapters (server/orders/stores/), pure: each store's signature check and what its documented
 * payloads mean for our orders (abandoned, paid, cancelled or ignored, with the reason).
 */
import { describe, expect, it } from "vitest";
import { GENERIC_SIGNATURE_WINDOW_MS, STORE_DELIVERY_MAX_AGE_MS } from "../../contract/order-shared";
import * as generic from "../../server/orders/stores/generic";
import { base64Hmac, e164From } from "../../server/orders/stores/common";
import * as shopify from "../../server/orders/stores/shopify";
import type { AdapterResult, StoreEvent } from "../../server/orders/stores/types";
import * as woocommerce from "../../server/orders/stores/woocommerce";
import { genericCheckout, genericHeaders, shopifyCheckout, shopifyHeaders, shopifyOrder, wooHeaders, wooOrder } from "./store-fixtures";

const SECRET = "s3cr3t-for-the-shop-0123456789abcdef";
const NOW = Date.parse("2026-12-01T16:00:00Z");

const eventOf = (result: AdapterResult): StoreEvent => {
  if (!("event" in result)) throw new Error(`expected an event, got ${JSON.stringify(result)}`);
  return result.event;
};

describe("Shopify", () => {
  const payload = JSON.stringify(shopifyCheckout());
  const headers = (over: Record<string, string> = {}) => shopifyHeaders(payload, SECRET, "checkouts/create", { "x-shopify-triggered-at": new Date(NOW - 60_000).toISOString(), ...over });

  it("verifies the base64 HMAC of the raw body, once per X-Shopify-Webhook-Id, with the topic from X-Shopify-Topic", () => {
    const sent = headers({ "x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043" });
    expect(shopify.verify(sent, Buffer.from(payload), SECRET, NOW)).toMatchObject({ ok: true, deliveryIds: ["b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", expect.stringMatching(/^sha256:[0-9a-f]{64}$/)], topic: "checkouts/create" });
  });

  it("refuses a forged signature, another secret's, a changed body, a missing one, and stale or future trigger times", () => {
    const refused = (sent: Record<string, string | undefined>, raw = Buffer.from(payload)) => shopify.verify(sent, raw, SECRET, NOW);
    expect(refused(headers({ "x-shopify-hmac-sha256": base64Hmac(payload, "another-secret") }))).toMatchObject({ ok: false, status: 401 });
    expect(refused(headers(), Buffer.from(payload.replace('"417.99"', '"0.01"')))).toMatchObject({ ok: false, status: 401 });
    expect(refused(headers({ "x-shopify-hmac-sha256": "not base64!" }))).toMatchObject({ ok: false, status: 401 });
    expect(refused(headers({ "x-shopify-hmac-sha256": base64Hmac(payload, SECRET).slice(0, 20) }))).toMatchObject({ ok: false, status: 401 });
    expect(refused({ ...headers(), "x-shopify-hmac-sha256": undefined })).toMatchObject({ ok: false, status: 401 });
    expect(refused(headers({ "x-shopify-triggered-at": new Date(NOW - STORE_DELIVERY_MAX_AGE_MS - 1000).toISOString() }))).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/stale/) });
    expect(refused(headers({ "x-shopify-triggered-at": new Date(NOW + 10 * 60_000).toISOString() }))).toMatchObject({ ok: false, status: 401 });
    expect(refused(headers({ "x-shopify-triggered-at": "yesterday" }))).toMatchObject({ ok: false, status: 401 });
    // Signed but not JSON, or without a topic: the body is Shopify's, but not something we can read.
    expect(shopify.verify(shopifyHeaders("a=b", SECRET, "checkouts/create"), Buffer.from("a=b"), SECRET, Date.now())).toMatchObject({ ok: false, status: 400 });
    expect(refused({ ...headers(), "x-shopify-topic": undefined })).toMatchObject({ ok: false, status: 400 });
  });

  it("a delivery is processed once by its webhook id (else its event id) and by its body's hash; the body's own time is judged too", () => {
    const noWebhookId = { ...headers(), "x-shopify-webhook-id": undefined };
    const digest = shopify.verify(headers(), Buffer.from(payload), SECRET, NOW);
    if (!digest.ok) throw new Error(digest.reason);
    expect(shopify.verify({ ...noWebhookId, "x-shopify-event-id": "evt-1" }, Buffer.from(payload), SECRET, NOW)).toMatchObject({ deliveryIds: ["evt-1", digest.deliveryIds[1]] });
    expect(shopify.verify({ ...noWebhookId, "x-shopify-event-id": undefined }, Buffer.from(payload), SECRET, NOW)).toMatchObject({ deliveryIds: [digest.deliveryIds[1]] });
    // The trigger time is a header anyone on the way could change: a body whose latest change is over 48 hours old is stale.
    expect(shopify.verify(headers(), Buffer.from(payload), SECRET, Date.parse("2026-12-03T15:00:00Z"))).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/stale/) });
  });

  it("an open checkout is abandoned: token, name, updated_at, the recovery link, the customer's phone and the checkout's consent", () => {
    const event = eventOf(shopify.toStoreEvent("checkouts/create", shopifyCheckout()));
    expect(event).toEqual({
      kind: "abandoned",
      order: {
        externalId: "b1946ac92492d2347c6235b4d2611184",
        reference: "#981820079255243",
        customerName: "Bob Norman",
        customerNumber: "+16136120707",
        customerEmail: "bob.norman@mail.example.com",
        items: [
          { name: "IPod Nano - 8GB", quantity: 2, priceMinor: 19_900 },
          { name: "Silicone case", quantity: 1, priceMinor: 1_999 },
        ],
        totalMinor: 41_799,
        currency: "USD",
        checkoutUrl: "https://checkout.local/548380009/checkouts/b1946ac92492d2347c6235b4d2611184/recover?key=example-secret-token",
        abandonedAt: new Date("2026-12-01T14:52:00Z"),
        timezone: null,
        consent: { given: true, source: "Checkout checkbox: 'You may call me about this order'", at: new Date("2026-12-01T14:51:00Z") },
      },
    });
  });

  it("marketing consent is never consent to be called; a call_consent without source or time gets the checkout's", () => {
    const noConsent = shopifyCheckout({ note_attributes: [{ name: "newsletter", value: "yes" }], buyer_accepts_marketing: true, buyer_accepts_sms: true });
    expect(eventOf(shopify.toStoreEvent("checkouts/update", noConsent))).toMatchObject({ order: { consent: { given: false, source: null, at: null } } });
    for (const value of ["false", "no", "", "maybe"]) {
      expect(eventOf(shopify.toStoreEvent("checkouts/update", shopifyCheckout({ note_attributes: [{ name: "call_consent", value }] })))).toMatchObject({ order: { consent: { given: false } } });
    }
    const bare = shopifyCheckout({ note_attributes: [{ name: "call_consent", value: "Yes" }] });
    expect(eventOf(shopify.toStoreEvent("checkouts/update", bare))).toMatchObject({ order: { consent: { given: true, source: "Shopify checkout", at: new Date("2026-12-01T14:52:00Z") } } });
  });

  it("the phone: the customer's, else the checkout's, else billing, else shipping (a national number takes the address's country)", () => {
    const withPhones = (customer: string | null, own: string | null, billing: string | null, shipping: string | null) =>
      shopifyCheckout({
        customer: { ...(shopifyCheckout().customer as object), phone: customer },
        phone: own,
        billing_address: { ...(shopifyCheckout().billing_address as object), phone: billing, country_code: "CA" },
        shipping_address: { ...(shopifyCheckout().shipping_address as object), phone: shipping, country_code: "GB" },
      });
    const numberOf = (payload: Record<string, unknown>) => (eventOf(shopify.toStoreEvent("checkouts/create", payload)) as { order: { customerNumber: string } }).order.customerNumber;
    expect(numberOf(withPhones("+16135550101", "+16135550102", "+16135550103", "+447700900104"))).toBe("+16135550101");
    expect(numberOf(withPhones(null, "+16135550102", "+16135550103", null))).toBe("+16135550102");
    expect(numberOf(withPhones(null, null, "(613) 555-0103", null))).toBe("+16135550103");
    expect(numberOf(withPhones("", "not a number", null, "07700 900104"))).toBe("+447700900104");
    const none = shopify.toStoreEvent("checkouts/create", withPhones(null, null, null, null));
    expect(none).toEqual({ ignored: expect.stringMatching(/no usable phone number/) });
  });

  it("amounts are in the presentment currency, in integer minor units", () => {
    const yen = shopifyCheckout({ currency: "USD", presentment_currency: "JPY", total_price: "62500", line_items: [{ title: "Kettle", quantity: 1, price: "62500" }] });
    expect(eventOf(shopify.toStoreEvent("checkouts/create", yen))).toMatchObject({ order: { currency: "JPY", totalMinor: 62_500, items: [{ priceMinor: 62_500 }] } });
    expect(shopify.toStoreEvent("checkouts/create", shopifyCheckout({ total_price: "12.345" }))).toEqual({ ignored: expect.stringMatching(/total_price/) });
  });

  it("a completed checkout is paid (nobody is called about it)", () => {
    const event = eventOf(shopify.toStoreEvent("checkouts/update", shopifyCheckout({ completed_at: "2026-12-01T10:05:00-05:00" })));
    expect(event).toEqual({ kind: "paid", externalIds: ["b1946ac92492d2347c6235b4d2611184"], paidMinor: 41_799, currency: "USD", paidAt: new Date("2026-12-01T15:05:00Z") });
  });

  it("orders/create unpaid is an abandoned unpaid order under its checkout token (else order:<id>), with its name", () => {
    for (const status of ["pending", "authorized", "partially_paid"]) {
      const event = eventOf(shopify.toStoreEvent("orders/create", shopifyOrder({ financial_status: status })));
      expect(event).toMatchObject({
        kind: "abandoned",
        order: {
          externalId: "b1946ac92492d2347c6235b4d2611184",
          reference: "#1001",
          customerNumber: "+16136120707",
          totalMinor: 41_799,
          checkoutUrl: "https://jsmith.myshopify.com/548380009/orders/123456abcd/authenticate?key=abcdefg",
          abandonedAt: new Date("2026-12-01T15:30:00Z"),
          consent: { given: true, source: "Order form" },
          items: [{ name: "IPod Nano - 8GB", quantity: 2, priceMinor: 19_900 }, { name: "Silicone case", quantity: 1, priceMinor: 1_999 }],
        },
      });
    }
    const draft = eventOf(shopify.toStoreEvent("orders/create", shopifyOrder({ financial_status: "pending", checkout_token: null })));
    expect(draft).toMatchObject({ order: { externalId: "order:820982911946154" } });
  });

  it("orders/create paid and orders/paid are paid, naming the checkout token and the order", () => {
    for (const topic of ["orders/create", "orders/paid"]) {
      const event = eventOf(shopify.toStoreEvent(topic, shopifyOrder()));
      // No order is made from a paid event: a sale never seen unpaid is none of ours.
      expect(event).toEqual({ kind: "paid", externalIds: ["b1946ac92492d2347c6235b4d2611184", "order:820982911946154"], paidMinor: 41_799, currency: "USD", paidAt: new Date("2026-12-01T15:31:00Z") });
    }
    // An id past 2^53 is read from admin_graphql_api_id, digit for digit.
    const big = JSON.parse('{"id": 9820982911946154123, "admin_graphql_api_id": "gid://shopify/Order/9820982911946154123"}') as Record<string, unknown>;
    expect(eventOf(shopify.toStoreEvent("orders/paid", shopifyOrder(big)))).toMatchObject({ externalIds: ["b1946ac92492d2347c6235b4d2611184", "order:9820982911946154123"] });
  });

  it("a cancelled or voided order is cancelled; refunded ones and other topics are ignored with the reason", () => {
    expect(eventOf(shopify.toStoreEvent("orders/create", shopifyOrder({ financial_status: "voided", cancelled_at: "2026-12-01T11:00:00-05:00" })))).toEqual({
      kind: "cancelled",
      externalIds: ["b1946ac92492d2347c6235b4d2611184", "order:820982911946154"],
      at: new Date("2026-12-01T16:00:00Z"),
    });
    expect(shopify.toStoreEvent("orders/create", shopifyOrder({ financial_status: "refunded" }))).toEqual({ ignored: expect.stringMatching(/refunded/) });
    expect(shopify.toStoreEvent("products/update", { id: 1 })).toEqual({ ignored: expect.stringMatching(/products\/update/) });
    expect(shopify.toStoreEvent("checkouts/create", [1, 2])).toEqual({ ignored: expect.any(String) });
    expect(shopify.toStoreEvent("checkouts/create", shopifyCheckout({ token: null }))).toEqual({ ignored: expect.stringMatching(/token/) });
  });
});

describe("WooCommerce", () => {
  const payload = JSON.stringify(wooOrder());
  const now = Date.parse("2026-12-01T17:00:00Z");

  it("verifies X-WC-Webhook-Signature once per delivery id, and refuses forged, changed and stale deliveries", () => {
    const sent = wooHeaders(payload, SECRET, "order.created", { "x-wc-webhook-delivery-id": "d41d8cd98f00b204e9800998ecf8427e" });
    expect(woocommerce.verify(sent, Buffer.from(payload), SECRET, now)).toMatchObject({ ok: true, deliveryIds: ["d41d8cd98f00b204e9800998ecf8427e", expect.stringMatching(/^sha256:/)], topic: "order.created" });
    expect(woocommerce.verify({ ...sent, "x-wc-webhook-signature": base64Hmac(payload, "other") }, Buffer.from(payload), SECRET, now)).toMatchObject({ ok: false, status: 401 });
    expect(woocommerce.verify(sent, Buffer.from(payload.replace("29.35", "0.35")), SECRET, now)).toMatchObject({ ok: false, status: 401 });
    expect(woocommerce.verify(sent, Buffer.from(payload), SECRET, now + STORE_DELIVERY_MAX_AGE_MS)).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/stale/) });
    expect(woocommerce.verify({ ...sent, "x-wc-webhook-delivery-id": undefined }, Buffer.from(payload), SECRET, now)).toMatchObject({ ok: false, status: 400 });
  });

  it("recognises the ping WooCommerce sends when a webhook is saved", () => {
    expect(woocommerce.isPing({ "content-type": "application/x-www-form-urlencoded" }, Buffer.from("webhook_id=12"))).toBe(true);
    expect(woocommerce.isPing({ "x-wc-webhook-topic": "order.created" }, Buffer.from("webhook_id=12"))).toBe(false);
    expect(woocommerce.isPing({}, Buffer.from(payload))).toBe(false);
  });

  it("pending, failed and on-hold orders are abandoned: order:<id>, #number, payment_url, the billing phone with its country, meta_data consent", () => {
    for (const status of ["pending", "failed", "on-hold"]) {
      expect(eventOf(woocommerce.toStoreEvent("order.created", wooOrder({ status })))).toEqual({
        kind: "abandoned",
        order: {
          externalId: "order:727",
          reference: "#727",
          customerName: "John Doe",
          customerNumber: "+14155550142",
          customerEmail: "john.doe@example.com",
          items: [
            { name: "Woo Single #1", quantity: 2, priceMinor: 300 },
            { name: "Ship Your Idea &ndash; Color: Black, Size: M Test", quantity: 1, priceMinor: 1_200 },
          ],
          totalMinor: 2_935,
          currency: "USD",
          checkoutUrl: "https://example.com/checkout/order-pay/727/?pay_for_order=true&key=wc_order_58d2d042d1d",
          abandonedAt: new Date("2026-12-01T16:28:02Z"),
          timezone: null,
          consent: { given: true, source: "Checkout checkbox", at: new Date("2026-12-01T16:27:40Z") },
        },
      });
    }
  });

  it("a price with more decimals than the currency falls back to the line's subtotal ÷ quantity; marketing meta is not consent", () => {
    const order = wooOrder({
      line_items: [{ name: "Tea", quantity: 3, subtotal: "10.00", total: "10.00", price: 3.3333333 }],
      meta_data: [{ key: "_wc_marketing_consent", value: "yes" }, { key: "_call_consent", value: "on" }],
    });
    expect(eventOf(woocommerce.toStoreEvent("order.updated", order))).toMatchObject({
      order: { items: [{ name: "Tea", quantity: 3, priceMinor: 333 }], consent: { given: true, source: "WooCommerce checkout" } },
    });
    expect(eventOf(woocommerce.toStoreEvent("order.updated", wooOrder({ meta_data: [{ key: "_wc_marketing_consent", value: "yes" }] })))).toMatchObject({ order: { consent: { given: false } } });
  });

  it("processing and completed are paid; cancelled is cancelled; refunded and other topics are ignored", () => {
    for (const status of ["processing", "completed"]) {
      expect(eventOf(woocommerce.toStoreEvent("order.updated", wooOrder({ status, date_paid_gmt: "2026-12-01T16:40:00" })))).toEqual({
        kind: "paid",
        externalIds: ["order:727"],
        paidMinor: 2_935,
        currency: "USD",
        paidAt: new Date("2026-12-01T16:40:00Z"),
      });
    }
    expect(eventOf(woocommerce.toStoreEvent("order.updated", wooOrder({ status: "cancelled" })))).toEqual({ kind: "cancelled", externalIds: ["order:727"], at: new Date("2026-12-01T16:28:09Z") });
    expect(woocommerce.toStoreEvent("order.updated", wooOrder({ status: "refunded" }))).toEqual({ ignored: expect.stringMatching(/refunded/) });
    expect(woocommerce.toStoreEvent("product.created", { id: 1 })).toEqual({ ignored: expect.stringMatching(/product.created/) });
    expect(woocommerce.toStoreEvent("order.created", wooOrder({ billing: { phone: "" }, shipping: {} }))).toEqual({ ignored: expect.stringMatching(/no usable phone/) });
  });
});

describe("generic", () => {
  const event = genericCheckout({ created_at: "2026-12-01T10:00:00Z" });
  const raw = JSON.stringify(event);

  it("is signed like the Vapi webhook: x-signature over {x-timestamp}.{body}, within the window; no bearer", () => {
    expect(generic.GENERIC_WINDOW_MATCHES_VAPI).toBe(true);
    expect(generic.verify(genericHeaders(raw, SECRET, NOW), Buffer.from(raw), SECRET, NOW)).toEqual({ ok: true, deliveryIds: [event.id], topic: "checkout.abandoned", payload: event });
    expect(generic.verify(genericHeaders(raw, "other", NOW), Buffer.from(raw), SECRET, NOW)).toMatchObject({ ok: false, status: 401 });
    expect(generic.verify(genericHeaders(raw, SECRET, NOW - GENERIC_SIGNATURE_WINDOW_MS - 1000), Buffer.from(raw), SECRET, NOW)).toMatchObject({ ok: false, status: 401 });
    expect(generic.verify({ authorization: `Bearer ${SECRET}` }, Buffer.from(raw), SECRET, NOW)).toMatchObject({ ok: false, status: 401 });
    const noId = JSON.stringify({ ...event, id: undefined });
    expect(generic.verify(genericHeaders(noId, SECRET, NOW), Buffer.from(noId), SECRET, NOW)).toMatchObject({ ok: false, status: 400 });
  });

  it("checkout.abandoned, order.paid and order.cancelled", () => {
    expect(eventOf(generic.toStoreEvent("checkout.abandoned", event))).toEqual({
      kind: "abandoned",
      order: {
        externalId: "chk_7731",
        reference: "#1042",
        customerName: "Ada Lovelace",
        customerNumber: "+14155550100",
        customerEmail: "ada@example.com",
        items: [{ name: "Blue mug", quantity: 2, priceMinor: 1_250 }],
        totalMinor: 2_500,
        currency: "USD",
        checkoutUrl: "https://shop.example/checkout/recover/chk_7731",
        abandonedAt: new Date("2026-12-01T10:00:00Z"),
        timezone: null,
        consent: { given: true, source: "Checkout checkbox", at: new Date("2026-12-01T09:58:00Z") },
      },
    });
    const paid = { id: "evt_2", event: "order.paid", created_at: "2026-12-01T11:00:00Z", order: { id: "ord_9", checkout_id: "chk_7731", paid_amount: 25, currency: "usd" } };
    expect(eventOf(generic.toStoreEvent("order.paid", paid))).toEqual({ kind: "paid", externalIds: ["chk_7731", "ord_9"], paidMinor: 2_500, currency: "USD", paidAt: new Date("2026-12-01T11:00:00Z") });
    const cancelled = { id: "evt_3", event: "order.cancelled", created_at: "2026-12-01T11:00:00Z", order: { id: "chk_7731", cancelled_at: "2026-12-01T10:30:00Z" } };
    expect(eventOf(generic.toStoreEvent("order.cancelled", cancelled))).toEqual({ kind: "cancelled", externalIds: ["chk_7731"], at: new Date("2026-12-01T10:30:00Z") });
  });

  it("a body that breaks the format is invalid, naming the field", () => {
    const broken: Array<[unknown, RegExp]> = [
      [{ ...event, event: "order.shipped" }, /event must be one of/],
      [{ ...event, order: { ...event.order as object, total: "12.345" } }, /order\.total has more decimals than USD/],
      [{ ...event, order: { ...event.order as object, customer: { name: "No phone" } } }, /order\.customer\.phone is required/],
      [{ ...event, order: { ...event.order as object, customer: { phone: "0415 555 0100" } } }, /E\.164/],
      [{ ...event, order: { ...event.order as object, colour: "blue" } }, /colour/],
      [{ ...event, created_at: "yesterday" }, /created_at/],
      ["not an object", /body|expected/i],
    ];
    for (const [payload, reason] of broken) expect(generic.toStoreEvent("x", payload)).toEqual({ invalid: expect.stringMatching(reason) });
  });
});

describe("phone numbers from stores", () => {
  it("keeps E.164, reads 00 as +, gives national numbers their address's country code", () => {
    expect(e164From("+1 (502) 459-2181", null)).toBe("+15024592181");
    expect(e164From("0049 30 1234567", null)).toBe("+49301234567");
    expect(e164From("1-502-459-2181", "US")).toBe("+15024592181");
    expect(e164From("030 1234567", "DE")).toBe("+49301234567");
    expect(e164From("06 1234 5678", "IT")).toBe("+390612345678");
    expect(e164From("030 1234567", "ZZ")).toBeNull();
    expect(e164From("call me", "US")).toBeNull();
  });
});
