/**
 * What the /orders screen and the dashboard's orders card say. Kept here, not in src/config/strings.ts
 * (the public pages import that), so the words travel with the screen's own lazy chunk. The screen's
 * name stays in src/config/strings.ts (strings.screens.orders). Status and outcome labels are the
 * contract's (ORDER_STATUS_LABELS, ORDER_CALL_OUTCOME_LABELS), read from there, never copied.
 */
const plural = (count: number, one: string, many: string) => `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;

export const ordersText = {
  retry: "Retry",
  listFailed: "The orders could not be loaded",
  total: (count: number) => plural(count, "order", "orders"),

  header: {
    followUp: "Follow-up settings",
    integrations: "Store integrations",
    import: "Import CSV",
  },

  kpis: {
    label: "Order recovery figures",
    recoveryRate: "Recovery rate",
    recoveryRateHint: (recovered: number, called: number) => `${plural(recovered, "order", "orders")} recovered of ${called.toLocaleString("en-US")} called`,
    recoveredRevenue: "Recovered revenue",
    recoveredRevenueHint: "Paid after a follow-up call",
    called: "Orders called",
    calledHint: (orders: number) => `of ${plural(orders, "order", "orders")}`,
    timeToRecovery: "Average time to recovery",
    timeToRecoveryHint: "From abandoned to paid",
    none: "—",
    loadFailed: "The figures could not be loaded",
    /** A card's accessible name: its figure, then what a click shows. */
    cardLink: (label: string, value: string, action: string) => `${label} ${value} — ${action}`,
    showRecovered: "show the recovered orders",
    showCalled: "show the orders called",
  },

  filters: {
    label: "Filter orders",
    search: "Search orders",
    searchPlaceholder: "Customer, number, email or reference",
    status: "Status",
    dateRange: "Abandoned between",
    startDate: "Abandoned from",
    endDate: "to",
    clear: "Clear filters",
    called: "Called at least once",
    removeCalled: "Show orders whether called or not",
  },

  columns: {
    reference: "Order",
    customer: "Customer",
    items: "Items",
    total: "Total",
    abandoned: "Abandoned",
    status: "Status",
    attempts: "Calls",
    lastCall: "Last call",
    recovered: "Recovered",
  },
  noName: "No name",
  noItems: "No items",
  moreItems: (count: number) => `+${count} more`,
  openOrder: (reference: string) => `Open order ${reference}`,
  openCall: "Open call",
  openCallAt: (when: string) => `Open the call of ${when} in Call Logs`,
  notCalled: "Not called",

  empty: {
    title: "No orders yet",
    body:
      "Orders are abandoned checkouts and unpaid orders from your shop. They arrive by themselves from a connected store " +
      "(Shopify, WooCommerce or any store that can send a signed webhook), or from a CSV import. With the customer's consent " +
      "to be called, your purchase-completion agent phones each one and helps them finish the purchase.",
    memberHint: "Ask an admin of this organization to connect your store or import orders.",
    filtered: "No orders match these filters",
  },

  drawer: {
    title: (reference: string) => `Order ${reference}`,
    loading: "Loading the order",
    loadFailed: "The order could not be loaded",
    notFound: "This order no longer exists",
    close: "Close",
    customer: "Customer",
    number: "Number",
    email: "Email",
    timezone: "Customer's time zone",
    store: "Store",
    abandoned: "Abandoned",
    nextCall: "Next call",
    paid: "Paid",
    recoveredAmount: "Recovered",
    lastOutcome: "Customer said",
    callbackAt: "Call back at",
    consent: "Consent to be called",
    consentGiven: "Given",
    consentMissing: "Not given",
    consentSource: (source: string) => `Source: ${source}`,
    consentAt: (when: string) => `Given ${when}`,
    consentNoSource: "Source not recorded",
    consentMissingHint: "This order is never called automatically. Call now asks you to confirm that the customer agreed to be called.",
    items: "Items",
    itemName: "Item",
    itemQuantity: "Qty",
    itemPrice: "Unit price",
    itemTotal: "Total",
    total: "Order total",
    checkout: "Open the checkout link",
    checkoutHint: "The link the customer completes the purchase with",
    noCheckout: "No checkout link",
    sources: { shopify: "Shopify", woocommerce: "WooCommerce", generic: "Store webhook", csv: "CSV import", manual: "Added by hand" },
    timeline: "Timeline",
    callLink: "Transcript and recording",
    timelineEmpty: "Nothing has happened to this order yet.",
    timelineFailed: "The timeline could not be loaded",
    details: "Details",
    none: "—",
  },

  timelineKinds: {
    abandoned: "Abandoned",
    imported: "Imported",
    queued: "Queued",
    call: "Call",
    outcome: "Outcome",
    paid: "Paid",
    stopped: "Stopped",
    cancelled: "Cancelled",
    consent: "Consent",
    opted_out: "Opted out",
    declined: "Declined",
    unreachable: "Unreachable",
    reopened: "Reopened",
  },

  actions: {
    label: "Order actions",
    callNow: "Call now",
    stop: "Stop follow-up",
    markPaid: "Mark as paid",
    delete: "Delete",
    done: {
      call: "Call queued: it goes out as soon as a line is free",
      stop: "Follow-up stopped",
      paid: "Order marked as paid",
      delete: "Order deleted",
    },
    failed: {
      call: "The call could not be placed",
      stop: "The follow-up could not be stopped",
      paid: "The order could not be marked as paid",
      delete: "The order could not be deleted",
    },
    consentTitle: "Did the customer agree to be called?",
    consentBody: (name: string) =>
      `There is no record that ${name} agreed to be called about this order. An AI voice may call only with the customer's prior consent. ` +
      "Confirm only if the customer agreed: your confirmation is recorded with your name.",
    consentOk: "The customer agreed: call now",
    consentCancel: "Don't call",
    theCustomer: "the customer",
    paidTitle: "Mark this order as paid?",
    paidBody: (reference: string, amount: string) =>
      `Order ${reference} is recorded as paid ${amount} now, as the store's payment would be: it counts as recovered if a call reached the customer within the attribution window.`,
    paidOk: "Mark as paid",
    deleteTitle: "Delete this order?",
    deleteBody: (reference: string) => `Order ${reference} and its timeline are deleted. Its calls stay in Call Logs.`,
    deleteOk: "Delete order",
    keep: "Keep it",
  },

  card: {
    title: "Recovered revenue",
    all: "View orders",
    recovered: (recovered: number) => `${plural(recovered, "order", "orders")} recovered`,
    called: (called: number) => `${plural(called, "order", "orders")} called`,
    rate: "recovery rate",
    none: "No revenue recovered in this period",
  },
} as const;
