/**
 * Billing's zod-free constants (issue 15), shared by the server, the console and the tests.
 * Money on the wire is USD numbers with at most 6 decimals (the server keeps integer micro-dollars; a
 * console sums micro-dollars, never floats).
 */

export const billingPaths = {
  billing: "/billing/",
  ledger: "/billing/ledger",
  ledgerExport: "/billing/ledger/export",
  usage: "/billing/usage",
  topUp: "/billing/top-up",
  topUpById: "/billing/top-up/:id",
  topUpRefund: "/billing/top-up/:id/refund",
  autoReload: "/billing/auto-reload",
  autoReloadConfirm: "/billing/auto-reload/confirm",
  spendCaps: "/billing/spend-caps",
  documents: "/billing/documents",
  documentById: "/billing/documents/:id",
  card: "/billing/card",
  portal: "/billing/portal",
  /** The sandbox payment provider's checkout (what Stripe's hosted page is in Stripe mode). */
  sandboxCheckout: "/billing/sandbox/checkout/:id",
  sandboxCheckoutPay: "/billing/sandbox/checkout/:id/pay",
  sandboxCheckoutCancel: "/billing/sandbox/checkout/:id/cancel",
  stripeWebhook: "/webhooks/stripe",
} as const;

export const subscriptionPaths = {
  subscription: "/subscription/",
  plans: "/subscription/plans",
  preview: "/subscription/preview",
  change: "/subscription/change",
  portal: "/subscription/portal",
} as const;

/** Top-up presets (USD) the console offers, and the bounds of a custom amount. */
export const TOP_UP_PRESETS_USD = [10, 25, 50, 100] as const;
export const TOP_UP_MIN_USD = 5;
export const TOP_UP_MAX_USD = 5_000;

/** Auto-reload bounds (USD). */
export const AUTO_RELOAD_MIN_AMOUNT_USD = 10;
export const AUTO_RELOAD_MAX_AMOUNT_USD = 5_000;
export const AUTO_RELOAD_MAX_THRESHOLD_USD = 5_000;
/** Off-session failures in a row that switch auto-reload off. */
export const AUTO_RELOAD_MAX_FAILURES = 3;

/** Spend caps: at most this many, and a limit from 1 cent up to this (USD). */
export const SPEND_CAPS_MAX = 50;
export const SPEND_CAP_MAX_USD = 1_000_000;

/** The balance (USD) under which the console shows the low-balance banner (when auto-reload is off). */
export const LOW_BALANCE_USD = 5;

/** Ledger page size (the console's Transactions tab) and its largest. */
export const LEDGER_PAGE_SIZE = 50;
export const LEDGER_MAX_PAGE_SIZE = 200;
/** Longest usage range, in days. */
export const USAGE_MAX_DAYS = 366;
export const USAGE_DEFAULT_DAYS = 30;

export const TOP_UP_STATUSES = ["pending", "paid", "expired", "failed"] as const;
export type TopUpStatus = (typeof TOP_UP_STATUSES)[number];
export const TOP_UP_KINDS = ["checkout", "auto_reload"] as const;
export type TopUpKind = (typeof TOP_UP_KINDS)[number];

export const AUTO_RELOAD_STATUSES = ["ok", "needs_action", "disabled"] as const;
export type AutoReloadStatus = (typeof AUTO_RELOAD_STATUSES)[number];

export const SPEND_CAP_SCOPES = ["organization", "agent"] as const;
export type SpendCapScope = (typeof SPEND_CAP_SCOPES)[number];
export const SPEND_CAP_PERIODS = ["day", "month"] as const;
export type SpendCapPeriod = (typeof SPEND_CAP_PERIODS)[number];

/** Usage by cost component, from Vapi's costBreakdown: transport, stt, llm, tts, vapi; the rest is other. */
export const USAGE_COMPONENTS = ["transport", "speech_to_text", "llm", "text_to_speech", "platform", "other"] as const;
export type UsageComponent = (typeof USAGE_COMPONENTS)[number];
export const USAGE_COMPONENT_LABELS: Record<UsageComponent, string> = {
  transport: "Transport",
  speech_to_text: "Speech-to-text",
  llm: "LLM",
  text_to_speech: "Text-to-speech",
  platform: "Platform",
  other: "Other",
};

export const BILLING_DOCUMENT_KINDS = ["receipt", "invoice"] as const;
export type BillingDocumentKind = (typeof BILLING_DOCUMENT_KINDS)[number];

/** Banners GET /billing/ raises (alerts[].code). */
export const BILLING_ALERT_CODES = ["low_balance", "reload_needs_action", "reload_disabled", "reload_failed", "past_due"] as const;
export type BillingAlertCode = (typeof BILLING_ALERT_CODES)[number];

export const PAYMENT_MODES = ["sandbox", "stripe"] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

/** The label on everything the sandbox payment provider makes. */
export const SANDBOX_LABEL = "Sandbox";

/**
 * The sandbox's test cards, which behave like Stripe's cards of the same numbers
 * (https://docs.stripe.com/testing): the checkout dialog lists them.
 */
export const SANDBOX_TEST_CARDS = [
  { number: "4242424242424242", label: "Succeeds", outcome: "succeeds" },
  { number: "4000000000000002", label: "Declined", outcome: "declined" },
  { number: "4000000000009995", label: "Insufficient funds", outcome: "insufficient_funds" },
  { number: "4000002760003184", label: "Needs authentication (asks again for every off-session charge)", outcome: "authentication_required" },
] as const;
export type SandboxCardOutcome = (typeof SANDBOX_TEST_CARDS)[number]["outcome"];
