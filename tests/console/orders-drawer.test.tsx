import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CALL_ID, makeOrder, ORDER_ID, serveOrders } from "./orders-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs } from "./test-utils";

const DECLINED = makeOrder({
  status: "declined",
  status_detail: "The customer said no on the call.",
  recovered_amount: 0,
  paid_at: null,
  call_outcome: "declined",
});
const NO_CONSENT = makeOrder({
  status: "no_consent",
  status_detail: null,
  call_consent: { given: false, source: null, at: null },
  attempts: 0,
  last_call_id: null,
  last_call_at: null,
  recovered_amount: 0,
  paid_at: null,
  call_outcome: null,
});

async function openDrawer({ order = makeOrder(), role = "org:admin" as "org:admin" | "org:member" } = {}) {
  const fetch = installFetchFake();
  const state = serveOrders(fetch, { orders: [order] });
  const rendered = renderConsole({ path: `/orders?order=${ORDER_ID}`, fetch, session: signedInAs(role) });
  await findScreen("Orders");
  await screen.findByText(`Order ${order.reference}`);
  const drawer = screen.getByText(`Order ${order.reference}`).closest(".ant-drawer-content") as HTMLElement;
  await within(drawer).findByRole("region", { name: "Details" });
  return { ...rendered, state, drawer };
}

const actionButtons = (drawer: HTMLElement) =>
  within(within(drawer).getByRole("group", { name: "Order actions" }))
    .getAllByRole("button")
    .map((button) => button.textContent?.trim());

describe("an order's drawer", () => {
  it("shows the customer, consent, items, total, the checkout link and the store", async () => {
    const { drawer } = await openDrawer();
    const details = within(drawer).getByRole("region", { name: "Details" });
    expect(within(details).getByText("Ada Lovelace")).toBeInTheDocument();
    expect(within(details).getByRole("link", { name: "+1 (415) 555-0100" })).toHaveAttribute("href", "tel:+14155550100");
    expect(within(details).getByText("ada@example.com")).toBeInTheDocument();
    expect(within(details).getByText("Given")).toBeInTheDocument();
    expect(within(details).getByText("Source: Checkout checkbox")).toBeInTheDocument();
    expect(within(details).getByText(/^Given .*2026/)).toBeInTheDocument();
    expect(within(details).getByText("Demo store · Store webhook")).toBeInTheDocument();
    expect(within(details).getByText("Will complete the purchase")).toBeInTheDocument();

    const checkout = within(details).getByRole("link", { name: /Open the checkout link/ });
    expect(checkout).toHaveAttribute("href", "https://shop.example/checkout/recover/chk_7731");
    expect(checkout).toHaveAttribute("target", "_blank");
    expect(checkout.getAttribute("rel")).toContain("noopener");

    const items = within(drawer).getByRole("region", { name: "Items" });
    const mug = within(items).getByText("Blue mug").closest("tr") as HTMLElement;
    expect(within(mug).getByText("$12.50")).toBeInTheDocument();
    expect(within(mug).getByText("$25.00")).toBeInTheDocument();
    expect(within(items).getByText("Order total")).toBeInTheDocument();
    expect(within(items).getByText("$60.90")).toBeInTheDocument();
  });

  it("says plainly when there is no consent to be called", async () => {
    const { drawer } = await openDrawer({ order: NO_CONSENT });
    const details = within(drawer).getByRole("region", { name: "Details" });
    expect(within(details).getByText("Not given")).toBeInTheDocument();
    expect(within(details).getByText(/never called automatically/)).toBeInTheDocument();
    expect(within(drawer).getByText("No consent")).toBeInTheDocument();
  });

  it("shows the timeline, oldest first, each call a link to it in Call Logs", async () => {
    const { drawer } = await openDrawer();
    const timeline = within(drawer).getByRole("region", { name: "Timeline" });
    await within(timeline).findByText("Checkout abandoned at Demo store.");
    const kinds = within(timeline)
      .getAllByText(/^(Abandoned|Queued|Call|Outcome|Paid)$/)
      .map((element) => element.textContent);
    expect(kinds).toEqual(["Abandoned", "Queued", "Call", "Outcome", "Paid"]);
    expect(within(timeline).getByText("Call ended: answered (2 min 10 s).")).toBeInTheDocument();
    // The call's entry links to it (its transcript and recording); its outcome does not repeat the link.
    const calls = within(timeline).getAllByRole("link", { name: /in Call Logs$/ });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveAttribute("href", `/call-logs?call=${CALL_ID}`);
    expect(calls[0]).toHaveTextContent("Transcript and recording");
  });

  it("renders what a customer or store typed as text, never as markup", async () => {
    const { drawer } = await openDrawer({ order: makeOrder({ customer_name: "<img src=x onerror=alert(1)>Eve", items: [{ name: "<b>Mug</b>", quantity: 1, price: 1 }] }) });
    expect(within(drawer).getByText("<img src=x onerror=alert(1)>Eve")).toBeInTheDocument();
    expect(within(drawer).getByText("<b>Mug</b>")).toBeInTheDocument();
    expect(drawer.querySelector("img[src=x]")).toBeNull();
  });

  it("Call now queues the call and says so", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: DECLINED });
    await user.click(within(drawer).getByRole("button", { name: /Call now/ }));
    await screen.findByText("Call queued: it goes out as soon as a line is free");
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/call`)).toHaveLength(1);
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/call`)[0]!.body).toBeUndefined();
    await within(drawer).findByText("Calling");
  });

  it("shows the server's sentence when Call now is refused outside calling hours", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: DECLINED });
    fetch.on("POST", `/api/order/${ORDER_ID}/call`, () =>
      json({ detail: "Outside the customer's calling hours: the call may go from Mon 9 Mar, 09:00 (America/Los_Angeles).", code: "outside_calling_hours", next_call_at: "2026-03-09T16:00:00.000Z" }, 409),
    );
    await user.click(within(drawer).getByRole("button", { name: /Call now/ }));
    const alert = await within(drawer).findByRole("alert");
    expect(alert).toHaveTextContent("The call could not be placed");
    expect(alert).toHaveTextContent("Outside the customer's calling hours: the call may go from Mon 9 Mar, 09:00 (America/Los_Angeles).");
    expect(within(drawer).getByText("Declined", { selector: ".ant-tag" })).toBeInTheDocument();
  });

  it("asks the member to confirm consent before calling an order without it, and records the confirmation", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: NO_CONSENT });
    await user.click(within(drawer).getByRole("button", { name: /Call now/ }));
    let dialog = await findDialog("Did the customer agree to be called?");
    expect(within(dialog).getByText(/no record that Ada Lovelace agreed to be called/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Don't call" }));
    await waitFor(() => expect(screen.queryByText("Did the customer agree to be called?")).toBeNull());
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/call`)).toEqual([]);

    await user.click(within(drawer).getByRole("button", { name: /Call now/ }));
    dialog = await findDialog("Did the customer agree to be called?");
    await user.click(within(dialog).getByRole("button", { name: "The customer agreed: call now" }));
    await screen.findByText("Call queued: it goes out as soon as a line is free");
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/call`).map((request) => request.body)).toEqual([{ confirm_consent: true }]);
  });

  it("asks for the confirmation when the server answers consent_required, then sends it", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: DECLINED });
    fetch.on("POST", `/api/order/${ORDER_ID}/call`, (request) =>
      (request.body as { confirm_consent?: boolean } | undefined)?.confirm_consent
        ? json({ data: { ...DECLINED, status: "calling" } }, 202)
        : json({ detail: "The customer's consent to be called is not on record: confirm it first.", code: "consent_required", status: "declined" }, 409),
    );
    await user.click(within(drawer).getByRole("button", { name: /Call now/ }));
    const dialog = await findDialog("Did the customer agree to be called?");
    await user.click(within(dialog).getByRole("button", { name: "The customer agreed: call now" }));
    await screen.findByText("Call queued: it goes out as soon as a line is free");
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/call`).map((request) => request.body)).toEqual([undefined, { confirm_consent: true }]);
    expect(within(drawer).queryByRole("alert")).toBeNull();
  });

  it("Stop follow-up cancels an order being followed up", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: makeOrder({ status: "open", next_call_at: "2026-03-05T09:30:00.000Z", recovered_amount: 0, paid_at: null, call_outcome: null }) });
    await user.click(within(drawer).getByRole("button", { name: /Stop follow-up/ }));
    await screen.findByText("Follow-up stopped");
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/stop`)).toHaveLength(1);
    await within(drawer).findByText("Stopped by Ada Lovelace");
  });

  it("gives a member Call now and Stop, but not Mark as paid or Delete", async () => {
    const { drawer } = await openDrawer({ role: "org:member", order: makeOrder({ status: "open", next_call_at: null, recovered_amount: 0, paid_at: null, call_outcome: null }) });
    await waitFor(() => expect(actionButtons(drawer)).toEqual(["Call now", "Stop follow-up"]));
  });

  it("gives an admin Mark as paid and Delete too", async () => {
    const { drawer } = await openDrawer({ order: makeOrder({ status: "open", next_call_at: null, recovered_amount: 0, paid_at: null, call_outcome: null }) });
    await waitFor(() => expect(actionButtons(drawer)).toEqual(["Call now", "Stop follow-up", "Mark as paid", "Delete"]));
  });

  it("offers no call, stop or payment on a recovered order", async () => {
    const { drawer } = await openDrawer();
    await waitFor(() => expect(actionButtons(drawer)).toEqual(["Delete"]));
  });

  it("Mark as paid asks first, then posts", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: DECLINED });
    await user.click(within(drawer).getByRole("button", { name: /Mark as paid/ }));
    const dialog = await findDialog("Mark this order as paid?");
    expect(within(dialog).getByText(/Order #1042 is recorded as paid \$60\.90/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Mark as paid" }));
    await screen.findByText("Order marked as paid");
    expect(fetch.to("POST", `/api/order/${ORDER_ID}/paid`)).toHaveLength(1);
  });

  it("Delete asks first; deleting closes the drawer and the row goes", async () => {
    const { user, fetch, drawer } = await openDrawer({ order: DECLINED });
    await user.click(within(drawer).getByRole("button", { name: /Delete/ }));
    let dialog = await findDialog("Delete this order?");
    await user.click(within(dialog).getByRole("button", { name: "Keep it" }));
    expect(fetch.to("DELETE", `/api/order/${ORDER_ID}`)).toEqual([]);

    await user.click(within(drawer).getByRole("button", { name: /Delete/ }));
    dialog = await findDialog("Delete this order?");
    expect(within(dialog).getByText("Order #1042 and its timeline are deleted. Its calls stay in Call Logs.")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Delete order" }));
    await screen.findByText("Order deleted");
    expect(fetch.to("DELETE", `/api/order/${ORDER_ID}`)).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Open order #1042" })).toBeNull());
    await screen.findByText("No orders yet");
  });

  it("says so when the order no longer exists", async () => {
    const fetch = installFetchFake();
    serveOrders(fetch, { orders: [] });
    fetch.on("GET", `/api/order/${ORDER_ID}`, () => json({ detail: "Order not found.", code: "not_found" }, 404));
    fetch.on("GET", `/api/order/${ORDER_ID}/timeline`, () => json({ detail: "Order not found.", code: "not_found" }, 404));
    renderConsole({ path: `/orders?order=${ORDER_ID}`, fetch });
    await screen.findByText("This order no longer exists");
  });
});
