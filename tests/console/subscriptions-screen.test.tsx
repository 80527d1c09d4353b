import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PLAN_LIMIT_LABELS, PLANS, SALES_EMAIL } from "../../contract/plans";
import { subscriptionText as text } from "../../src/components/subscriptions/strings";
import { browserNavigation } from "../../src/components/subscriptions/use-subscription";
import { leaveBillingScreenAlone, makeSubscription, serveSubscription } from "./subscriptions-fixtures";
import { asPhone, findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs, waitForPath } from "./test-utils";

async function open(options: Parameters<typeof serveSubscription>[1] & { role?: "org:admin" | "org:member"; path?: string } = {}) {
  const fetch = installFetchFake();
  const state = serveSubscription(fetch, options);
  const rendered = renderConsole({ path: options.path ?? "/subscriptions", fetch, session: signedInAs(options.role ?? "org:admin") });
  await findScreen("Subscriptions");
  return { ...rendered, state };
}

const table = () => screen.getByRole("heading", { level: 2, name: text.table.title }).closest(".ant-card") as HTMLElement;
const planRow = (name: string) => within(table()).getAllByRole("row").find((row) => within(row).queryByText(name, { selector: "strong, strong *" }) !== null) as HTMLElement;
const currentCard = () => screen.getByRole("heading", { level: 2, name: text.current.title }).closest(".ant-card") as HTMLElement;
const usageCard = () => screen.getByRole("heading", { level: 2, name: text.usage.title }).closest(".ant-card") as HTMLElement;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Subscriptions: the plan comparison", () => {
  it("shows every plan in order with its price and every limit, the current plan marked, and what choosing each one is", async () => {
    await open({ subscription: makeSubscription("starter") });
    await waitFor(() => expect(document.title).toBe("Subscriptions · Voice Agents"));
    const headers = (await within(await waitFor(table)).findAllByRole("columnheader")).map((cell) => cell.textContent);
    for (const label of Object.values(PLAN_LIMIT_LABELS)) expect(headers).toContain(label);

    const rows = within(table()).getAllByRole("row").slice(1);
    expect(rows.map((row) => within(row).getByText(/^(Free|Starter|Pro|Enterprise)$/).textContent)).toEqual(["Free", "Starter", "Pro", "Enterprise"]);

    expect(within(planRow("Free")).getByText("$0/month")).toBeInTheDocument();
    expect(within(planRow("Starter")).getByText("$49/month")).toBeInTheDocument();
    expect(within(planRow("Pro")).getByText("$199/month")).toBeInTheDocument();
    expect(within(planRow("Enterprise")).getByText("Custom")).toBeInTheDocument();
    // Each limit's figure, "Unlimited" for none.
    expect(within(planRow("Pro")).getByText("100,000")).toBeInTheDocument();
    expect(within(planRow("Pro")).getByText("365")).toBeInTheDocument();
    expect(within(planRow("Enterprise")).getAllByText("Unlimited")).toHaveLength(6);
    expect(within(planRow("Free")).getByText("14")).toBeInTheDocument();

    // The current plan: marked, and its button says so and does nothing.
    expect(planRow("Starter")).toHaveAttribute("aria-current", "true");
    expect(within(planRow("Starter")).getAllByText("Current plan").length).toBeGreaterThanOrEqual(1);
    expect(within(planRow("Starter")).getByRole("button", { name: "Current plan" })).toBeDisabled();
    expect(within(planRow("Free")).getByRole("button", { name: "Downgrade to Free" })).toBeEnabled();
    expect(within(planRow("Pro")).getByRole("button", { name: "Upgrade to Pro" })).toBeEnabled();
    const sales = within(planRow("Enterprise")).getByRole("link", { name: "Contact sales" });
    expect(sales.getAttribute("href")).toMatch(new RegExp(`^mailto:${SALES_EMAIL}`));
  });

  it("on a phone, shows each plan with its price, every limit and its button, in sight, not in a sideways scroll", async () => {
    const restore = asPhone();
    try {
      await open({ subscription: makeSubscription("starter") });
      const plans = await screen.findByRole("list", { name: text.table.title });
      const items = within(plans).getAllByRole("listitem");
      expect(items.map((item) => within(item).getByText(/^(Free|Starter|Pro|Enterprise)$/).textContent)).toEqual(["Free", "Starter", "Pro", "Enterprise"]);
      const pro = items[2]!;
      expect(within(pro).getByText("$199/month")).toBeInTheDocument();
      for (const label of Object.values(PLAN_LIMIT_LABELS)) expect(within(pro).getByText(label)).toBeInTheDocument();
      expect(within(pro).getByText("100,000")).toBeInTheDocument();
      expect(within(pro).getByRole("button", { name: "Upgrade to Pro" })).toBeEnabled();
      expect(within(items[0]!).getByRole("button", { name: "Downgrade to Free" })).toBeEnabled();
      expect(items[1]).toHaveAttribute("aria-current", "true");
      expect(within(table()).queryByRole("table")).toBeNull();
    } finally {
      restore();
    }
  });

  it("an over-limit downgrade's preview lists what is over the new plan, the price change and each limit's change", async () => {
    const { user, fetch } = await open({ subscription: makeSubscription("pro", { usage: { concurrent_calls: 2, agents: 12, phone_numbers: 3, campaign_contacts: 7_500, seats: 4 } }) });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Starter" }));
    const dialog = await findDialog("Change to Starter");
    await within(dialog).findByText("\u2212$150 a month");
    expect(fetch.to("GET", "/api/subscription/preview").at(-1)?.query.get("plan")).toBe("starter");
    const over = within(dialog).getByRole("list", { name: text.preview.overTitle });
    expect(within(over).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Agents: 12 in use, the new plan allows 10",
      "Contacts per campaign: 7,500 in use, the new plan allows 5,000",
    ]);
    // What each limit becomes (from → to).
    const agents = within(dialog).getByText("Agents", { selector: "td" }).closest("tr") as HTMLElement;
    expect(within(agents).getByText("50")).toBeInTheDocument();
    expect(within(agents).getByText("10")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(fetch.to("POST", "/api/subscription/change")).toHaveLength(0);
  });

  it("Confirm posts the plan and follows the answer's url to Stripe Checkout", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const { user, fetch } = await open({ subscription: makeSubscription("free"), changeUrl: "https://checkout.stripe.com/c/pay/cs_test_1" });
    await user.click(await screen.findByRole("button", { name: "Upgrade to Pro" }));
    const dialog = await findDialog("Change to Pro");
    await within(dialog).findByText("+$199 a month");
    expect(within(dialog).queryByRole("list", { name: text.preview.overTitle })).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://checkout.stripe.com/c/pay/cs_test_1"));
    expect(fetch.to("POST", "/api/subscription/change").map((request) => request.body)).toEqual([{ plan: "pro" }]);
  });

  it("the sandbox's checkout url is a console path: it opens Billing in the app", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const { user, pathname, fetch } = await open({ subscription: makeSubscription("free", { payments: "sandbox" }), changeUrl: "/billing?checkout=sbx_cs_1" });
    expect(within(await waitFor(currentCard)).getByText("Sandbox")).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: "Upgrade to Starter" }));
    const dialog = await findDialog("Change to Starter");
    await within(dialog).findByText("+$49 a month");
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await waitForPath(pathname, "/billing");
    expect(assign).not.toHaveBeenCalled();
    await leaveBillingScreenAlone(fetch);
  });

  it("a change applied at once shows the new plan", async () => {
    const { user, fetch } = await open({ subscription: makeSubscription("pro"), changeUrl: null });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Starter" }));
    const dialog = await findDialog("Change to Starter");
    await within(dialog).findByText("\u2212$150 a month");
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await waitFor(() => expect(screen.getByTestId("current-plan-name")).toHaveTextContent("Starter"));
    await screen.findByText("You are now on Starter");
    expect(within(planRow("Starter")).getByRole("button", { name: "Current plan" })).toBeDisabled();
    expect(fetch.to("POST", "/api/subscription/change").map((request) => request.body)).toEqual([{ plan: "starter" }]);
  });
});

describe("Subscriptions: the current plan", () => {
  it("shows a past-due plan's grace end, the usage against each limit, and over a limit says new ones are blocked", async () => {
    await open({
      subscription: makeSubscription("free", {
        status: "past_due",
        past_due_since: "2026-11-20T00:00:00.000Z",
        grace_ends_at: "2026-11-27T00:00:00.000Z",
        usage: { concurrent_calls: 0, agents: 3, phone_numbers: 1, campaign_contacts: 10, seats: 1 },
        over_limits: [{ limit: "agents", usage: 3, allowed: 2 }],
      }),
    });
    const card = await waitFor(currentCard);
    expect(within(card).getByText("Free")).toBeInTheDocument();
    expect(within(card).getByText("Past due")).toBeInTheDocument();
    expect(within(card).getByText(/The plan stays until 27 Nov 2026, then the organisation falls back to Free/)).toBeInTheDocument();
    expect(within(card).queryByText("Sandbox")).toBeNull();

    const usage = usageCard();
    const agents = within(usage).getByRole("progressbar", { name: "Agents used" });
    expect(agents).toHaveAttribute("aria-valuetext", "3 of 2");
    expect(agents.closest("li")).toHaveAttribute("data-over", "true");
    expect(within(usage).getByText("Over the limit: new agents are refused until you are under it.")).toBeInTheDocument();
    expect(within(usage).getByRole("progressbar", { name: "Phone numbers used" })).toHaveAttribute("aria-valuenow", "100");
    expect(within(usage).getByRole("progressbar", { name: "Phone numbers used" }).closest("li")).not.toHaveAttribute("data-over");
    expect(within(usage).getByText("14 days")).toBeInTheDocument();
  });

  it("an unlimited plan's usage reads Unlimited; a plan cancelling says when", async () => {
    await open({ subscription: makeSubscription("enterprise", { cancel_at_period_end: true }) });
    const usage = await waitFor(usageCard);
    expect(within(usage).getByText("3 · Unlimited")).toBeInTheDocument();
    expect(within(usage).queryAllByRole("progressbar")).toHaveLength(0);
    expect(within(currentCard()).getByText("Cancels on 20 Dec 2026")).toBeInTheDocument();
  });

  it("Manage billing opens Stripe's portal", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const { user, fetch } = await open();
    await user.click(await screen.findByRole("button", { name: "Manage billing" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://billing.stripe.com/p/session/test_1"));
    expect(fetch.to("POST", "/api/subscription/portal")).toHaveLength(1);
  });

  it("the sandbox's portal is a small dialog saying what the portal manages, with a way to Billing", async () => {
    const { user, pathname, fetch } = await open({ subscription: makeSubscription("starter", { payments: "sandbox" }), portalUrl: "/subscriptions?portal=sandbox" });
    await user.click(await screen.findByRole("button", { name: "Manage billing" }));
    const dialog = await findDialog(text.portal.title);
    expect(within(dialog).getByText("see and download invoices and receipts")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("link", { name: "Open Billing" }));
    await waitForPath(pathname, "/billing");
    await leaveBillingScreenAlone(fetch);
  });

  it("says when the subscription could not be loaded, with the server's detail, and tries again", async () => {
    const { user, state, fetch } = await open({ fail: true });
    await screen.findByText(text.loadFailed);
    expect(screen.getByText("The billing service is not answering.")).toBeInTheDocument();
    state.failing = false;
    const before = fetch.to("GET", "/api/subscription/").length;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(currentCard);
    expect(fetch.to("GET", "/api/subscription/").length).toBeGreaterThan(before);
  });
});

describe("Subscriptions with nothing to show", () => {
  it("says so while the server has no subscription for the organisation yet", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/subscription/", () => json({ data: null }));
    renderConsole({ path: "/subscriptions", fetch });
    await findScreen("Subscriptions");
    await screen.findByText(text.empty);
    expect(screen.queryByRole("heading", { level: 2, name: text.table.title })).toBeNull();
  });
});

describe("Subscriptions for a member", () => {
  it("shows everything, but the buttons that change the plan are disabled and say why", async () => {
    const { user, fetch } = await open({ role: "org:member", subscription: makeSubscription("starter") });
    const upgrade = await screen.findByRole("button", { name: "Upgrade to Pro" });
    await waitFor(() => expect(upgrade).toBeDisabled());
    expect(screen.getByRole("button", { name: "Downgrade to Free" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Manage billing" })).toBeDisabled();
    // Enterprise is a mail to sales, which anyone may send.
    expect(within(planRow("Enterprise")).getByRole("link", { name: "Contact sales" })).toBeInTheDocument();
    await user.hover(upgrade.parentElement!);
    await screen.findByText(text.actions.membersCannot);
    await user.hover(screen.getByRole("button", { name: "Manage billing" }).parentElement!);
    await screen.findByText(text.actions.membersCannotBilling);
    await user.click(upgrade);
    expect(fetch.to("GET", "/api/subscription/preview")).toHaveLength(0);
    expect(fetch.to("POST", "/api/subscription/change")).toHaveLength(0);
    expect(PLANS.starter.name).toBe("Starter");
  });
});

describe("Subscriptions: back from Checkout", () => {
  it("after paying, says the payment is complete; closing the note drops it from the URL", async () => {
    const { user, pathname } = await open({ subscription: makeSubscription("pro"), path: "/subscriptions?subscription=success" });
    await screen.findByText(text.checkoutReturn.success);
    expect(screen.getByText(text.checkoutReturn.successDetail)).toBeInTheDocument();
    await user.click(screen.getByText(text.checkoutReturn.success).closest(".ant-alert")!.querySelector(".ant-alert-close-icon") as HTMLElement);
    await waitFor(() => expect(screen.queryByText(text.checkoutReturn.success)).toBeNull());
    expect(pathname()).toBe("/subscriptions");
  });

  it("after cancelling, says nothing changed", async () => {
    await open({ subscription: makeSubscription("starter"), path: "/subscriptions?subscription=cancelled" });
    await screen.findByText(text.checkoutReturn.cancelled);
  });
});
