/**
 * Store webhook payloads shaped like the stores' own documented examples (Shopify's checkouts/create and
 * orders/create webhook examples, WooCommerce's REST v3 order), trimmed of nothing our adapters read and
 * keeping many fields they do not, and the headers each store signs its deliveries with.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { DEFAULT_CAMPAIGN_RETRY } from "../../contract/campaign";
import type { Integration } from "../../contract/order";
import type { Db } from "../../server/db/client";
import { campaigns, orderFollowUps } from "../../server/db/schema";
import { FOLLOW_UP_KIND } from "../../server/orders/follow-up";
import { base64Hmac } from "../../server/orders/stores/common";
import { signedHeaders } from "../../server/webhooks/signature";

type Json = Record<string, unknown>;

const address = (over: Json = {}): Json => ({
  first_name: "Bob",
  address1: "Chestnut Street 92",
  phone: "+1(502)-459-2181",
  city: "Louisville",
  zip: "40202",
  province: "Kentucky",
  country: "United States",
  last_name: "Norman",
  address2: "",
  company: null,
  latitude: 45.41634,
  longitude: -75.6868,
  name: "Bob Norman",
  country_code: "US",
  province_code: "KY",
  ...over,
});

const customer = (over: Json = {}): Json => ({
  id: 207119551,
  email: "bob.norman@mail.example.com",
  accepts_marketing: true,
  created_at: "2026-11-20T14:11:38-05:00",
  updated_at: "2026-11-30T14:11:38-05:00",
  first_name: "Bob",
  last_name: "Norman",
  orders_count: 1,
  state: "disabled",
  total_spent: "199.65",
  last_order_id: 450789469,
  note: null,
  verified_email: true,
  multipass_identifier: null,
  tax_exempt: false,
  tags: "Léon, Noël",
  currency: "USD",
  phone: "+16136120707",
  accepts_marketing_updated_at: "2026-11-20T14:11:38-05:00",
  marketing_opt_in_level: "single_opt_in",
  email_marketing_consent: { state: "subscribed", opt_in_level: "single_opt_in", consent_updated_at: "2026-11-20T14:11:38-05:00" },
  sms_marketing_consent: { state: "subscribed", opt_in_level: "single_opt_in", consent_updated_at: "2026-11-20T14:11:38-05:00", consent_collected_from: "OTHER" },
  admin_graphql_api_id: "gid://shopify/Customer/207119551",
  default_address: address({ id: 207119551, customer_id: 207119551, default: true }),
  ...over,
});

/** Shopify's checkouts/create (and checkouts/update) webhook body, as in its webhook example. */
export function shopifyCheckout(over: Json = {}): Json {
  return {
    id: 981820079255243,
    token: "b1946ac92492d2347c6235b4d2611184",
    cart_token: "eeafa272cebfd4b22385bc4b645e762c",
    email: "bob.norman@mail.example.com",
    gateway: null,
    buyer_accepts_marketing: true,
    buyer_accepts_sms: true,
    sms_marketing_phone: "+16136120707",
    created_at: "2026-12-01T09:40:00-05:00",
    updated_at: "2026-12-01T09:52:00-05:00",
    landing_site: null,
    note: null,
    note_attributes: [
      { name: "gift_wrap", value: "no" },
      { name: "call_consent", value: "true" },
      { name: "call_consent_source", value: "Checkout checkbox: 'You may call me about this order'" },
      { name: "call_consent_at", value: "2026-12-01T14:51:00Z" },
    ],
    referring_site: null,
    shipping_lines: [],
    taxes_included: false,
    total_weight: 400,
    currency: "USD",
    completed_at: null,
    closed_at: null,
    user_id: null,
    location_id: null,
    source_identifier: null,
    source_url: null,
    device_id: null,
    phone: null,
    customer_locale: "en",
    line_items: [
      {
        applied_discounts: [],
        discount_allocations: [],
        key: "0a80b8bd1e8b0d32e1b7f0a5b6d6d8ff",
        destination_location_id: 1059,
        fulfillment_service: "manual",
        gift_card: false,
        grams: 200,
        origin_location_id: 1059,
        presentment_title: "IPod Nano - 8GB",
        presentment_variant_title: "green",
        product_id: 632910392,
        properties: null,
        quantity: 2,
        requires_shipping: true,
        sku: "IPOD2008GREEN",
        tax_lines: [],
        taxable: true,
        title: "IPod Nano - 8GB",
        variant_id: 39072856,
        variant_title: "green",
        variant_price: "199.00",
        vendor: "Apple",
        user_id: null,
        unit_price_measurement: { measured_type: null, quantity_value: null, quantity_unit: null, reference_value: null, reference_unit: null },
        rank: null,
        compare_at_price: null,
        line_price: "398.00",
        price: "199.00",
      },
      {
        applied_discounts: [],
        discount_allocations: [],
        key: "1b91c9ce2f9c1e43f2c8a1b6c7e7e9aa",
        fulfillment_service: "manual",
        gift_card: false,
        grams: 0,
        product_id: 921728736,
        quantity: 1,
        requires_shipping: false,
        sku: "CASE-BLUE",
        taxable: true,
        title: "Silicone case",
        variant_id: 457924702,
        variant_title: "blue",
        vendor: "Acme",
        line_price: "19.99",
        price: "19.99",
      },
    ],
    name: "#981820079255243",
    source: null,
    abandoned_checkout_url: "https://checkout.local/548380009/checkouts/b1946ac92492d2347c6235b4d2611184/recover?key=example-secret-token",
    discount_codes: [],
    tax_lines: [],
    source_name: "web",
    presentment_currency: "USD",
    total_discounts: "0.00",
    total_line_items_price: "417.99",
    total_price: "417.99",
    total_tax: "0.00",
    subtotal_price: "417.99",
    total_duties: null,
    reservation_token: null,
    billing_address: address(),
    shipping_address: address(),
    customer: customer(),
    ...over,
  };
}

/** Shopify's orders/create (and orders/paid) webhook body, as in its webhook example. */
export function shopifyOrder(over: Json = {}): Json {
  return {
    id: 820982911946154,
    admin_graphql_api_id: "gid://shopify/Order/820982911946154",
    app_id: null,
    browser_ip: "216.191.105.146",
    buyer_accepts_marketing: true,
    cancel_reason: null,
    cancelled_at: null,
    cart_token: "eeafa272cebfd4b22385bc4b645e762c",
    checkout_id: 901414060,
    checkout_token: "b1946ac92492d2347c6235b4d2611184",
    client_details: { accept_language: null, browser_height: null, browser_ip: "216.191.105.146", browser_width: null, session_hash: null, user_agent: null },
    closed_at: null,
    confirmation_number: "ABC123XYZ",
    confirmed: true,
    contact_email: "bob.norman@mail.example.com",
    created_at: "2026-12-01T10:30:00-05:00",
    currency: "USD",
    current_subtotal_price: "417.99",
    current_total_price: "417.99",
    customer_locale: "en",
    email: "bob.norman@mail.example.com",
    estimated_taxes: false,
    financial_status: "paid",
    fulfillment_status: null,
    landing_site: "http://www.example.com?source=abc",
    name: "#1001",
    note: null,
    note_attributes: [
      { name: "call_consent", value: "yes" },
      { name: "call_consent_source", value: "Order form" },
    ],
    number: 1,
    order_number: 1001,
    order_status_url: "https://jsmith.myshopify.com/548380009/orders/123456abcd/authenticate?key=abcdefg",
    payment_gateway_names: ["visa", "bogus"],
    phone: "+557734881234",
    presentment_currency: "USD",
    processed_at: "2026-12-01T10:31:00-05:00",
    reference: "fhwdgads",
    source_name: "web",
    subtotal_price: "417.99",
    tags: "",
    test: false,
    token: "123456abcd",
    total_price: "417.99",
    total_price_set: { shop_money: { amount: "417.99", currency_code: "USD" }, presentment_money: { amount: "417.99", currency_code: "USD" } },
    total_tax: "0.00",
    updated_at: "2026-12-01T10:31:00-05:00",
    user_id: null,
    billing_address: address(),
    customer: customer(),
    line_items: [
      {
        id: 466157049,
        admin_graphql_api_id: "gid://shopify/LineItem/466157049",
        fulfillable_quantity: 2,
        gift_card: false,
        grams: 200,
        name: "IPod Nano - 8GB - green",
        price: "199.00",
        price_set: { shop_money: { amount: "199.00", currency_code: "USD" }, presentment_money: { amount: "199.00", currency_code: "USD" } },
        product_exists: true,
        product_id: 632910392,
        properties: [],
        quantity: 2,
        requires_shipping: true,
        sku: "IPOD2008GREEN",
        taxable: true,
        title: "IPod Nano - 8GB",
        total_discount: "0.00",
        variant_id: 39072856,
        variant_title: "green",
        vendor: null,
      },
      {
        id: 518995019,
        name: "Silicone case - blue",
        price: "19.99",
        price_set: { shop_money: { amount: "19.99", currency_code: "USD" }, presentment_money: { amount: "19.99", currency_code: "USD" } },
        quantity: 1,
        title: "Silicone case",
        variant_title: "blue",
      },
    ],
    shipping_address: address(),
    shipping_lines: [],
    ...over,
  };
}

/** WooCommerce's order webhook body (REST API v3 order), as in its REST documentation's example. */
export function wooOrder(over: Json = {}): Json {
  return {
    id: 727,
    parent_id: 0,
    number: "727",
    order_key: "wc_order_58d2d042d1d",
    created_via: "checkout",
    version: "9.4.2",
    status: "pending",
    currency: "USD",
    date_created: "2026-12-01T11:28:02",
    date_created_gmt: "2026-12-01T16:28:02",
    date_modified: "2026-12-01T11:28:09",
    date_modified_gmt: "2026-12-01T16:28:09",
    discount_total: "0.00",
    discount_tax: "0.00",
    shipping_total: "10.00",
    shipping_tax: "0.00",
    cart_tax: "1.35",
    total: "29.35",
    total_tax: "1.35",
    prices_include_tax: false,
    customer_id: 0,
    customer_ip_address: "",
    customer_user_agent: "",
    customer_note: "",
    billing: {
      first_name: "John",
      last_name: "Doe",
      company: "",
      address_1: "969 Market",
      address_2: "",
      city: "San Francisco",
      state: "CA",
      postcode: "94103",
      country: "US",
      email: "john.doe@example.com",
      phone: "(415) 555-0142",
    },
    shipping: { first_name: "John", last_name: "Doe", company: "", address_1: "969 Market", address_2: "", city: "San Francisco", state: "CA", postcode: "94103", country: "US", phone: "" },
    payment_method: "bacs",
    payment_method_title: "Direct Bank Transfer",
    transaction_id: "",
    date_paid: null,
    date_paid_gmt: null,
    date_completed: null,
    date_completed_gmt: null,
    cart_hash: "",
    meta_data: [
      { id: 13106, key: "_download_permissions_granted", value: "yes" },
      { id: 13109, key: "call_consent", value: "yes" },
      { id: 13110, key: "call_consent_source", value: "Checkout checkbox" },
      { id: 13111, key: "call_consent_at", value: "2026-12-01T16:27:40Z" },
      { id: 13112, key: "_wc_marketing_consent", value: "yes" },
    ],
    line_items: [
      {
        id: 315,
        name: "Woo Single #1",
        product_id: 93,
        variation_id: 0,
        quantity: 2,
        tax_class: "",
        subtotal: "6.00",
        subtotal_tax: "0.45",
        total: "6.00",
        total_tax: "0.45",
        taxes: [{ id: 75, total: "0.45", subtotal: "0.45" }],
        meta_data: [],
        sku: "",
        price: 3,
      },
      {
        id: 316,
        name: "Ship Your Idea &ndash; Color: Black, Size: M Test",
        product_id: 22,
        variation_id: 23,
        quantity: 1,
        tax_class: "",
        subtotal: "12.00",
        subtotal_tax: "0.90",
        total: "12.00",
        total_tax: "0.90",
        taxes: [{ id: 75, total: "0.9", subtotal: "0.9" }],
        meta_data: [{ id: 2095, key: "pa_color", value: "black" }],
        sku: "Bar3",
        price: 12,
      },
    ],
    tax_lines: [],
    shipping_lines: [{ id: 317, method_title: "Flat Rate", method_id: "flat_rate", total: "10.00", total_tax: "0.00", taxes: [], meta_data: [] }],
    fee_lines: [],
    coupon_lines: [],
    refunds: [],
    payment_url: "https://example.com/checkout/order-pay/727/?pay_for_order=true&key=wc_order_58d2d042d1d",
    is_editable: true,
    needs_payment: true,
    needs_processing: true,
    currency_symbol: "$",
    _links: { self: [{ href: "https://example.com/wp-json/wc/v3/orders/727" }], collection: [{ href: "https://example.com/wp-json/wc/v3/orders" }] },
    ...over,
  };
}

/** The headers Shopify sends with a delivery of `body` signed with `secret`. */
export function shopifyHeaders(body: string, secret: string, topic: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-shopify-topic": topic,
    "x-shopify-hmac-sha256": base64Hmac(body, secret),
    "x-shopify-shop-domain": "demo-shop.myshopify.com",
    "x-shopify-api-version": "2026-10",
    "x-shopify-webhook-id": randomUUID(),
    "x-shopify-event-id": randomUUID(),
    "x-shopify-triggered-at": new Date().toISOString(),
    ...over,
  };
}

/** The headers WooCommerce sends with a delivery of `body` signed with `secret`. */
export function wooHeaders(body: string, secret: string, topic: string, over: Record<string, string> = {}): Record<string, string> {
  const [resource, event] = topic.split(".");
  return {
    "content-type": "application/json",
    "user-agent": "WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
    "x-wc-webhook-source": "https://example.com/",
    "x-wc-webhook-topic": topic,
    "x-wc-webhook-resource": resource ?? "order",
    "x-wc-webhook-event": event ?? "created",
    "x-wc-webhook-signature": base64Hmac(body, secret),
    "x-wc-webhook-id": "12",
    "x-wc-webhook-delivery-id": randomUUID().replace(/-/g, ""),
    ...over,
  };
}

/** A generic-endpoint event (contract/store-webhook.ts). */
export function genericCheckout(over: Json = {}, order: Json = {}): Json {
  return {
    id: `evt_${randomUUID()}`,
    event: "checkout.abandoned",
    created_at: new Date().toISOString(),
    order: {
      id: "chk_7731",
      reference: "#1042",
      customer: { name: "Ada Lovelace", phone: "+14155550100", email: "ada@example.com" },
      items: [{ name: "Blue mug", quantity: 2, price: "12.50" }],
      total: "25.00",
      currency: "USD",
      checkout_url: "https://shop.example/checkout/recover/chk_7731",
      call_consent: { given: true, source: "Checkout checkbox", at: "2026-12-01T09:58:00Z" },
      ...order,
    },
    ...over,
  };
}

/** The generic endpoint's headers for `body` (x-timestamp, x-signature) signed with `secret`. */
export const genericHeaders = (body: string, secret: string, now = Date.now()): Record<string, string> => signedHeaders(secret, body, now);

export const STORE_WEBHOOK_PATHS = {
  shopify: (id: string) => `/api/webhooks/shopify/${id}`,
  woocommerce: (id: string) => `/api/webhooks/woocommerce/${id}`,
  generic: (id: string) => `/api/webhooks/store/${id}`,
} as const;

/** Posts `body` (text, sent byte for byte) to a store webhook with `headers`. */
export function postStoreWebhook(app: FastifyInstance, url: string, body: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return app.inject({ method: "POST", url, headers, payload: body });
}

/** Creates an integration through the API as `adminToken`; answers it with its secret. */
export async function createIntegration(app: FastifyInstance, adminToken: string, body: Record<string, unknown>): Promise<Integration & { secret: string }> {
  const response = await app.inject({ method: "POST", url: "/api/integration/", headers: { authorization: `Bearer ${adminToken}` }, payload: body });
  if (response.statusCode !== 201) throw new Error(`integration: ${response.statusCode} ${response.body}`);
  return (response.json() as { data: Integration & { secret: string } }).data;
}

/**
 * The organisation's follow-up switched on, as its settings would leave it (a running campaign of kind
 * order_follow_up, windows around the clock, and its order_follow_ups row), without an agent or number:
 * orders get queued, and nothing dials (the tests' apps run no dialler).
 */
export async function enableFollowUp(db: Db, orgId: string, over: { delayMinutes?: number; integrationId?: string | null } = {}): Promise<string> {
  const campaignId = randomUUID();
  await db.insert(campaigns).values({
    id: campaignId,
    orgId,
    name: "Order follow-up",
    kind: FOLLOW_UP_KIND,
    status: "running",
    schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "00:00", end: "24:00" }], fallback_timezone: "America/New_York" },
    retry: { ...DEFAULT_CAMPAIGN_RETRY, on: [...DEFAULT_CAMPAIGN_RETRY.on] },
    maxConcurrency: 1,
    startedAt: new Date(),
  });
  await db.insert(orderFollowUps).values({ campaignId, orgId, integrationId: over.integrationId ?? null, enabled: true, delayMinutes: over.delayMinutes ?? 30 });
  return campaignId;
}
