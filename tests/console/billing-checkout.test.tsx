import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingText as text } from "../../src/components/billing/strings";
import { browserNavigation } from "../../src/components/billing/use-billing";
import { forgetPublicConfig, loadPublicConfig } from "../../src/config/public-config";
import { billingSummary, CHECKOUT_ID, checkout, TOP_UP_ID, topUp } from "./billing-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole } from "./test-utils";

const PAY = `/api/billing/sandbox/checkout/${CHECKOUT_ID}/pay`;

function serve(payAnswers: Array<{ status: "complete" | "declined" | "requires_action"; detail: string; redirect_url: string | null }>) {
  const fetch = installFetchFake();
  fetch.on("GET", "/api/billing/", () => json({ data: billingSummary() }));
  fetch.on("GET", `/api/billing/sandbox/checkout/${CHECKOUT_ID}`, () => json({ data: checkout() }));
  fetch.on("POST", PAY, () => json({ data: payAnswers.shift() }));
  fetch.on("POST", `/api/billing/sandbox/checkout/${CHECKOUT_ID}/cancel`, () => json({ data: checkout({ status: "expired" }) }));
  fetch.on("GET", `/api/billing/top-up/${TOP_UP_ID}`, () => json({ data: topUp({ status: "paid" }) }));
  return fetch;
}

describe("Billing: the sandbox checkout dialog", () => {
  it("shows the amount, description, Sandbox label and test cards; a card asking for authentication is confirmed, then the redirect is followed", async () => {
    const fetch = serve([
      { status: "requires_action", detail: "Your bank asks you to confirm this payment.", redirect_url: null },
      { status: "complete", detail: "Paid", redirect_url: `/billing?top_up=${TOP_UP_ID}` },
    ]);
    const { user, pathname } = renderConsole({ path: `/billing?checkout=${CHECKOUT_ID}`, fetch });
    await findScreen("Billing");
    const dialog = await findDialog(text.checkout.title);
    await within(dialog).findByText("Voice Agents credits");
    expect(within(dialog).getByText("$50.00")).toBeInTheDocument();
    expect(within(dialog).getByText("Sandbox")).toBeInTheDocument();
    expect(within(dialog).getByText(/Insufficient funds/)).toBeInTheDocument();

    await user.click(within(dialog).getByText(/Needs authentication/));
    await user.click(within(dialog).getByRole("button", { name: "Pay $50.00" }));
    await within(dialog).findByText("Your bank asks you to confirm this payment.");
    await user.click(within(dialog).getByRole("button", { name: text.checkout.confirmAuth }));

    await waitFor(() => expect(fetch.to("POST", PAY)).toHaveLength(2));
    expect(fetch.to("POST", PAY).map((request) => request.body)).toEqual([
      { card_number: "4000002760003184", authenticated: false },
      { card_number: "4000002760003184", authenticated: true },
    ]);
    await screen.findByText(text.topUp.paid("$50.00"));
    expect(pathname()).toBe("/billing");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("a declined card shows the detail and stays open; Cancel cancels the checkout and closes", async () => {
    const fetch = serve([{ status: "declined", detail: "Your card was declined.", redirect_url: null }]);
    const { user } = renderConsole({ path: `/billing?checkout=${CHECKOUT_ID}`, fetch });
    const dialog = await findDialog(text.checkout.title);
    await user.type(await within(dialog).findByLabelText(text.checkout.cardNumber), "4000 0000 0000 0002");
    await user.click(within(dialog).getByRole("button", { name: "Pay $50.00" }));
    await within(dialog).findByText("Your card was declined.");
    expect(fetch.to("POST", PAY)[0]!.body).toEqual({ card_number: "4000 0000 0000 0002", authenticated: false });

    await user.click(within(dialog).getByRole("button", { name: text.checkout.cancel }));
    await waitFor(() => expect(fetch.to("POST", `/api/billing/sandbox/checkout/${CHECKOUT_ID}/cancel`)).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("back from a checkout on the server's PUBLIC_URL while this page has another name of the server: the return stays in the console, signed in, not a page load on the other name", async () => {
    // The server says its one origin is 127.0.0.1 (GET /api/config, read at boot); this page is on localhost.
    const server = "http://127.0.0.1:3000";
    expect(window.location.origin).not.toBe(server);
    const fetch = serve([{ status: "complete", detail: "Paid", redirect_url: `${server}/billing?top_up=${TOP_UP_ID}` }]);
    fetch.on("GET", "/api/config", () =>
      json({ data: { authMode: "local", voiceMode: "sandbox", clerkPublishableKey: null, vapiPublicKey: null, vapiApiUrl: null, publicUrl: server } }),
    );
    await loadPublicConfig();
    const assign = vi.spyOn(browserNavigation, "assign").mockImplementation(() => undefined);
    const { user, pathname } = renderConsole({ path: `/billing?checkout=${CHECKOUT_ID}`, fetch });
    const dialog = await findDialog(text.checkout.title);
    await user.click(await within(dialog).findByText(/4242 4242 4242 4242/));
    await user.click(within(dialog).getByRole("button", { name: "Pay $50.00" }));
    await screen.findByText(text.topUp.paid("$50.00"));
    expect(pathname()).toBe("/billing");
    expect(assign).not.toHaveBeenCalled();
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  forgetPublicConfig();
});
