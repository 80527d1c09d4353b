import { SALES_EMAIL, SUBSCRIPTION_GRACE_DAYS } from "../../../contract/plans";

/**
 * What the /subscriptions screen and the dashboard's plan and wallet cards say (their own file, so
 * src/config/strings.ts stays the shell's and the public pages' chunk does not carry them). The
 * screen's title is strings.screens.subscriptions.
 */
export const subscriptionText = {
  checkoutReturn: {
    success: "Payment complete",
    successDetail: "Your new plan applies as soon as the payment provider confirms the subscription (usually within seconds).",
    cancelled: "Checkout cancelled: your plan has not changed and nothing was charged.",
  },
  loading: "Loading the subscription",
  loadFailed: "The subscription could not be loaded.",
  retry: "Try again",
  empty: "No subscription information yet.",
  emptyHint: "The organisation's plan shows here once the server has set up its billing account.",

  current: {
    title: "Current plan",
    sandbox: "Sandbox",
    sandboxHint: "Payments are simulated: no card is charged.",
    perMonth: (price: string) => `${price} a month`,
    custom: "Custom pricing",
    renews: (date: string) => `Renews on ${date}`,
    manageBilling: "Manage billing",
    portalFailed: "The billing portal could not be opened",
  },

  statuses: {
    active: "Active",
    trialing: "Trial",
    past_due: "Past due",
    canceled: "Canceled",
  } as Record<string, string>,
  cancelsAt: (date: string) => `Cancels on ${date}`,
  cancelsAtEnd: "Cancels at the end of the period",
  pastDue: (date: string | null) =>
    date
      ? `The last payment failed. The plan stays until ${date}, then the organisation falls back to Free. Update the card in Manage billing.`
      : `The last payment failed. The plan stays for ${SUBSCRIPTION_GRACE_DAYS} days, then the organisation falls back to Free. Update the card in Manage billing.`,

  usage: {
    title: "Usage",
    unlimited: "Unlimited",
    of: (used: string, allowed: string) => `${used} of ${allowed}`,
    barLabel: (limit: string) => `${limit} used`,
    retention: (days: string) => `${days} days`,
    over: (limit: string) => `Over the limit: new ${limit} are refused until you are under it.`,
    overTitle: "Over the plan's limits",
  },

  table: {
    title: "Compare plans",
    plan: "Plan",
    price: "Price",
    perMonth: (price: string) => `${price}/month`,
    custom: "Custom",
    action: "",
    unlimited: "Unlimited",
    currentTag: "Current plan",
  },

  actions: {
    upgrade: "Upgrade",
    switch: "Switch",
    downgrade: "Downgrade",
    contactSales: "Contact sales",
    current: "Current plan",
    choose: (action: string, plan: string) => `${action} to ${plan}`,
    membersCannot: "Only an admin can change the plan.",
    membersCannotBilling: "Only an admin can manage billing.",
  },
  salesMailto: (plan: string) => `mailto:${SALES_EMAIL}?subject=${encodeURIComponent(`${plan} plan`)}`,

  preview: {
    title: (plan: string) => `Change to ${plan}`,
    loading: "Working out what changes",
    loadFailed: "What this change does could not be worked out.",
    price: "Price",
    priceChange: (change: string) => `${change} a month`,
    priceCustom: "Custom pricing: sales will quote it.",
    priceSame: "No change in price",
    limit: "Limit",
    from: "Now",
    to: "After",
    overTitle: "Over the new plan's limits",
    overIntro: "These stay as they are, but nothing new of these kinds can be added until you are under the limit:",
    overItem: (limit: string, usage: string, allowed: string) => `${limit}: ${usage} in use, the new plan allows ${allowed}`,
    contactSales: "This plan is arranged with sales.",
    // The call history the retention sweep deletes under the new plan (GET /subscription/preview's `retention`).
    retention: {
      title: "Call history will be deleted",
      noneTitle: "No call history will be deleted",
      calls: (calls: string, days: string) => `Transcripts and recordings of ${calls} older than ${days} days will be deleted.`,
      whenSweep: (every: string, next: string | null) =>
        `The retention sweep deletes them within ${every} of the change${next ? ` (it runs next at ${next})` : ""}. Summaries, outcomes and costs are kept.`,
      atPeriodEnd: (calls: string, days: string, date: string | null, cutoff: string) =>
        `Transcripts and recordings of calls older than ${days} days will be deleted when the plan changes ${date ? `on ${date}` : "at the end of the billing period"}: ${calls} placed before ${cutoff} so far.`,
      kept: "Summaries, outcomes and costs are kept.",
      none: (days: string) => `No transcripts or recordings will be deleted: no call older than ${days} days still has them.`,
    },
    confirm: "Confirm",
    cancel: "Cancel",
    changed: (plan: string) => `You are now on ${plan}`,
    changeFailed: "The plan could not be changed",
    redirecting: "Opening checkout…",
  },

  portal: {
    title: "Billing portal (sandbox)",
    intro: "With Stripe connected, this opens Stripe's customer portal, where an admin would:",
    items: ["update or replace the card on file", "see and download invoices and receipts", "change the billing email and address", "cancel the subscription"],
    billingLink: "Open Billing",
    close: "Close",
  },

  dashboard: {
    plan: {
      title: "Plan usage",
      viewPlans: "View plans",
    },
    wallet: {
      monthToDate: (amount: string) => `${amount} spent this month`,
      autoReloadOn: "Auto-reload on",
      autoReloadOff: "Auto-reload off",
      low: "Low balance: add credits so calls keep going.",
      addCredits: "Add credits",
    },
  },
} as const;
