import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingText as text } from "../../src/components/billing/strings";
import { browserNavigation, TOP_UP_POLL_MS } from "../../src/components/billing/use-billing";
import { billingSummary, CHECKOUT_ID, checkout, TOP_UP_ID, topUp } from "./billing-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs } from "./test-utils";

afterEach(() => {
  vi.restoreAllMocks();
});

function card(title: string) {
  return screen.getByText(title, { selector: ".ant-card-head-title" }).closest(".ant-card") as HTMLElement;
}

describe("Billing: Overview", () => {
  it("shows the balance figures and the Sandbox label", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary() }));
    renderConsole({ path: "/billing", fetch });
    await findScreen("Billing");
    await screen.findByText("$12.50");
    expect(screen.getByText("$11.25")).toBeInTheDocument();
    expect(screen.getByText("$3.40")).toBeInTheDocument();
    expect(screen.getAllByText("Sandbox").length).toBeGreaterThan(0);
    await waitFor(() => expect(document.title).toBe("Billing · Voice Agents"));
  });

  it("adds credits: posts the amount picked, opens the sandbox checkout in place, pays, and shows the result", async () => {
    const fetch = installFetchFake();
    let paid = false;
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ balance_usd: paid ? 62.5 : 12.5 }) }));
    fetch.on("POST", "/api/billing/top-up", () => json({ data: { top_up_id: TOP_UP_ID, url: `/billing?checkout=${CHECKOUT_ID}` } }, 201));
    fetch.on("GET", `/api/billing/sandbox/checkout/${CHECKOUT_ID}`, () => json({ data: checkout() }));
    fetch.on("POST", `/api/billing/sandbox/checkout/${CHECKOUT_ID}/pay`, () => {
      paid = true;
      return json({ data: { status: "complete", detail: "Paid", redirect_url: `http://localhost:3000/billing?top_up=${TOP_UP_ID}` } });
    });
    fetch.on("GET", `/api/billing/top-up/${TOP_UP_ID}`, () => json({ data: topUp({ status: paid ? "paid" : "pending" }) }));
    const { user, fetch: _ } = renderConsole({ path: "/billing", fetch });
    void _;
    await findScreen("Billing");

    const topUpCard = await waitFor(() => card(text.topUp.title));
    await user.click(within(topUpCard).getByText("$50.00"));
    await user.click(within(topUpCard).getByRole("button", { name: "Add $50.00" }));

    await waitFor(() => expect(fetch.to("POST", "/api/billing/top-up")).toHaveLength(1));
    expect(fetch.to("POST", "/api/billing/top-up")[0]!.body).toEqual({ amount_usd: 50, save_card: true });

    const dialog = await findDialog(text.checkout.title);
    await user.click(await within(dialog).findByText(/Succeeds/));
    expect(within(dialog).getByLabelText(text.checkout.cardNumber)).toHaveValue("4242424242424242");
    await user.click(within(dialog).getByRole("button", { name: "Pay $50.00" }));

    expect(fetch.to("POST", `/api/billing/sandbox/checkout/${CHECKOUT_ID}/pay`)[0]!.body).toEqual({ card_number: "4242424242424242", authenticated: false });
    await screen.findByText(text.topUp.paid("$50.00"));
    await screen.findByText(text.topUp.newBalance("$62.50"));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("a custom amount out of bounds cannot be sent; Stripe's checkout URL is a full page load", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ payments: "stripe" }) }));
    fetch.on("POST", "/api/billing/top-up", () => json({ data: { top_up_id: TOP_UP_ID, url: "https://checkout.stripe.com/c/pay/cs_test_1" } }, 201));
    const { user } = renderConsole({ path: "/billing", fetch });
    await findScreen("Billing");
    const topUpCard = await waitFor(() => card(text.topUp.title));
    await user.click(within(topUpCard).getByText(text.topUp.custom));
    const input = within(topUpCard).getByRole("spinbutton");
    await user.type(input, "4");
    await within(topUpCard).findByText(text.topUp.outOfRange("$5.00", "$5,000.00"));
    expect(within(topUpCard).getByRole("button", { name: text.topUp.submitNone })).toBeDisabled();
    await user.clear(input);
    await user.type(input, "12.5");
    await user.click(within(topUpCard).getByText(text.topUp.saveCard));
    await user.click(within(topUpCard).getByRole("button", { name: "Add $12.50" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://checkout.stripe.com/c/pay/cs_test_1"));
    expect(fetch.to("POST", "/api/billing/top-up")[0]!.body).toEqual({ amount_usd: 12.5, save_card: false });
  });

  it("back from the checkout: asks for the top-up again while it is pending, then shows it paid and the refreshed balance", async () => {
    TOP_UP_POLL_MS.value = 50;
    const fetch = installFetchFake();
    let asked = 0;
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ balance_usd: asked >= 3 ? 62.5 : 12.5 }) }));
    fetch.on("GET", `/api/billing/top-up/${TOP_UP_ID}`, () => {
      asked += 1;
      return json({ data: topUp({ status: asked >= 3 ? "paid" : "pending" }) });
    });
    try {
      renderConsole({ path: `/billing?top_up=${TOP_UP_ID}`, fetch });
      await screen.findByText(text.topUp.pending);
      await screen.findByText(text.topUp.paid("$50.00"));
      await screen.findByText(text.topUp.newBalance("$62.50"));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(asked).toBe(3);
    } finally {
      TOP_UP_POLL_MS.value = 2_000;
    }
  });

  it("a declined top-up coming back says so", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary() }));
    fetch.on("GET", `/api/billing/top-up/${TOP_UP_ID}`, () => json({ data: topUp({ status: "failed", failure_message: "Your card was declined." }) }));
    renderConsole({ path: `/billing?top_up=${TOP_UP_ID}`, fetch });
    await screen.findByText(text.topUp.failedResult);
    expect(screen.getByText("Your card was declined.")).toBeInTheDocument();
  });

  it("a member sees every figure, and the buttons that move money disabled with the reason", async () => {
    const fetch = installFetchFake();
    fetch.on(
      "GET",
      "/api/billing/",
      () =>
        json({
          data: billingSummary({
            card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034, sandbox: true },
            alerts: [{ code: "reload_needs_action", detail: "Your bank asks you to confirm the card." }],
          }),
        }),
    );
    const { user } = renderConsole({ path: "/billing", fetch, session: signedInAs("org:member") });
    await findScreen("Billing");
    await screen.findByText("$12.50");
    expect(screen.getByText(/4242/, { selector: "strong" })).toBeInTheDocument();

    const names = [text.topUp.submit("$25.00"), text.autoReload.save, text.caps.edit, text.card.remove, text.card.portal, text.alerts.confirmCard];
    for (const name of names) {
      const button = await screen.findByRole("button", { name: new RegExp(name.replace(/[$.()]/g, "\\$&")) });
      expect(button, name).toBeDisabled();
      expect(button.closest(".billing-disabled-wrap"), name).toHaveAttribute("aria-label", text.adminOnly);
    }
    await user.hover(screen.getByRole("button", { name: /Manage in portal/ }).closest(".billing-disabled-wrap")!);
    expect(await screen.findByRole("tooltip")).toHaveTextContent(text.adminOnly);
    expect(fetch.to("POST", "/api/billing/portal")).toHaveLength(0);
  });

  it("an admin saves auto-reload and confirms the card from the banner", async () => {
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ alerts: [{ code: "reload_needs_action", detail: "Confirm the card." }] }) }));
    fetch.on("PUT", "/api/billing/auto-reload", () => json({ data: billingSummary().auto_reload }));
    fetch.on("POST", "/api/billing/auto-reload/confirm", () => json({ data: { url: "https://checkout.stripe.com/setup/1" } }));
    const { user } = renderConsole({ path: "/billing", fetch });
    await findScreen("Billing");
    const reload = await waitFor(() => card(text.autoReload.title));
    await user.click(within(reload).getByRole("switch"));
    await user.click(within(reload).getByRole("button", { name: text.autoReload.save }));
    await waitFor(() => expect(fetch.to("PUT", "/api/billing/auto-reload")).toHaveLength(1));
    expect(fetch.to("PUT", "/api/billing/auto-reload")[0]!.body).toEqual({ enabled: true, amount_usd: 25, threshold_usd: 5, monthly_cap_usd: null });
    await user.click(screen.getByRole("button", { name: text.alerts.confirmCard }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://checkout.stripe.com/setup/1"));
  });

  it("says so when the summary fails, and retries", async () => {
    const fetch = installFetchFake();
    let fail = true;
    fetch.on("GET", "/api/billing/", () => (fail ? json({ detail: "Billing is down", code: "internal_error" }, 500) : json({ data: billingSummary() })));
    const { user } = renderConsole({ path: "/billing", fetch });
    await screen.findByText(text.loadFailed);
    expect(screen.getByText("Billing is down")).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole("button", { name: text.retry }));
    await screen.findByText("$12.50");
  });
});
