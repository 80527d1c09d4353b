import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ORDER_STATUS_LABELS, ORDER_STATUSES } from "../../contract/order-shared";
import { CALL_ID, makeOrder, OTHER_ORDER_ID, queriesTo, serveOrders, THIRD_ORDER_ID } from "./orders-fixtures";
import { failingList } from "./fetch-fake";
import { asPhone, findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs } from "./test-utils";

const RECOVERED = makeOrder();
const CALLING = makeOrder({
  id: OTHER_ORDER_ID,
  reference: "#1043",
  customer_name: "Grace Hopper",
  customer_number: "+14155550102",
  items: [
    { name: "Desk lamp", quantity: 1, price: 49 },
    { name: "Bulb", quantity: 4, price: 3.5 },
    { name: "Cable", quantity: 1, price: 9.99 },
  ],
  total: 72.99,
  status: "calling",
  status_detail: "A retry may go from 11:00.",
  attempts: 2,
  next_call_at: "2026-03-05T11:00:00.000Z",
  recovered_amount: 0,
  paid_at: null,
  call_outcome: null,
});
const EURO_NO_CONSENT = makeOrder({
  id: THIRD_ORDER_ID,
  reference: "#1044",
  customer_name: null,
  customer_number: "+442079460000",
  currency: "EUR",
  total: 1234.5,
  items: [],
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

const row = (reference: string) => screen.getByRole("button", { name: `Open order ${reference}` }).closest("tr") as HTMLElement;

async function openList({ role = "org:admin", orders = [RECOVERED, CALLING, EURO_NO_CONSENT], path = "/orders" }: { role?: "org:admin" | "org:member"; orders?: ReturnType<typeof makeOrder>[]; path?: string } = {}) {
  const fetch = installFetchFake();
  const state = serveOrders(fetch, { orders });
  const rendered = renderConsole({ path, fetch, session: signedInAs(role) });
  await findScreen("Orders");
  if (orders.length > 0) await screen.findByRole("button", { name: `Open order ${orders[0]!.reference}` });
  return { ...rendered, state };
}

describe("the orders list", () => {
  it("shows each order's customer, items, total, status, calls, last call and recovered amount", async () => {
    await openList();
    const recovered = row("#1042");
    expect(within(recovered).getByText("Ada Lovelace")).toBeInTheDocument();
    expect(within(recovered).getByText("+1 (415) 555-0100")).toBeInTheDocument();
    expect(within(recovered).getByText("2 × Blue mug, 1 × Tote bag")).toBeInTheDocument();
    expect(within(recovered).getByText("$60.90", { selector: ".orders__money:not(.orders__money--recovered)" })).toBeInTheDocument();
    expect(within(recovered).getByText("Recovered")).toBeInTheDocument();
    // Times read in the browser's zone; the element carries the instant.
    expect(recovered.querySelector("time")).toHaveAttribute("datetime", "2026-03-05T09:00:00.000Z");
    const lastCall = within(recovered).getByRole("link", { name: /^Open the call of .* in Call Logs$/ });
    expect(lastCall).toHaveAttribute("href", `/call-logs?call=${CALL_ID}`);
    expect(recovered.querySelector(".orders__money--recovered")).toHaveTextContent("$60.90");

    const calling = row("#1043");
    expect(within(calling).getByText("Calling")).toBeInTheDocument();
    expect(within(calling).getByText("1 × Desk lamp, 4 × Bulb")).toBeInTheDocument();
    expect(within(calling).getByText("+1 more")).toBeInTheDocument();
    expect(within(calling).getByText("2")).toBeInTheDocument();

    const euro = row("#1044");
    expect(within(euro).getByText("No name")).toBeInTheDocument();
    expect(within(euro).getByText("No items")).toBeInTheDocument();
    expect(within(euro).getByText("€1,234.50")).toBeInTheDocument();
    expect(within(euro).getByText("No consent")).toBeInTheDocument();
    expect(within(euro).getByText("Not called")).toBeInTheDocument();
    expect(screen.getByText("3 orders")).toBeInTheDocument();
  });

  it("on a phone, shows each order's status under its reference, in sight, not in a column off to the right", async () => {
    const restore = asPhone();
    try {
      await openList();
      expect(screen.getAllByRole("columnheader").map((header) => header.textContent)).not.toContain("Status");
      expect(within(within(row("#1042")).getAllByRole("cell")[0]!).getByText("Recovered")).toBeInTheDocument();
      expect(within(within(row("#1043")).getAllByRole("cell")[0]!).getByText("Calling")).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it("names every status in words a person reads", async () => {
    const orders = ORDER_STATUSES.map((status, index) =>
      makeOrder({ id: `0b6f3c52-1e7a-4c1d-9a51-6f0c2d9e8b${String(index).padStart(2, "0")}`, reference: `#${2000 + index}`, status, status_detail: null }),
    );
    await openList({ orders });
    for (const [index, status] of ORDER_STATUSES.entries()) {
      expect(within(row(`#${2000 + index}`)).getByText(ORDER_STATUS_LABELS[status])).toBeInTheDocument();
    }
    expect(screen.getByText("Paid without a call")).toBeInTheDocument();
    expect(screen.queryByText("paid_without_call")).toBeNull();
  });

  it("shows the KPI cards for the same days as the list", async () => {
    const { fetch } = await openList({
      path: "/orders?filters[0][field]=startDate&filters[0][operator]=gte&filters[0][value]=2026-03-01&filters[1][field]=endDate&filters[1][operator]=lte&filters[1][value]=2026-03-31",
    });
    const figures = await screen.findByRole("region", { name: "Order recovery figures" });
    // Each card is a button that shows the orders behind its figure; its name says the figure and what it shows.
    const card = (name: string) => within(figures).getByRole("button", { name: new RegExp(`^${name} `) });
    expect(card("Recovery rate")).toHaveAccessibleName("Recovery rate 37.5% — show the recovered orders");
    expect(card("Recovery rate")).toHaveTextContent("3 orders recovered of 8 called");
    expect(card("Recovered revenue")).toHaveTextContent("$182.70");
    expect(card("Recovered revenue")).toHaveTextContent("€49.00");
    expect(card("Recovered revenue")).toHaveAccessibleName("Recovered revenue $182.70, €49.00 — show the recovered orders");
    expect(card("Orders called")).toHaveTextContent(/8\s*of 12 orders/);
    expect(card("Orders called")).toHaveAccessibleName("Orders called 8 — show the orders called");
    expect(card("Average time to recovery")).toHaveTextContent("2 h 20 min");
    expect(queriesTo(fetch, "GET", "/api/order/stats")[0]).toEqual({ startDate: "2026-03-01", endDate: "2026-03-31" });
    expect(queriesTo(fetch, "GET", "/api/order/")[0]).toEqual({ page: "1", limit: "20", startDate: "2026-03-01", endDate: "2026-03-31" });
  });

  it("a KPI card shows the orders behind its figure: the same days, the other filters dropped; the called filter shows and can be removed", async () => {
    const { user, fetch, search } = await openList({
      path: "/orders?filters[0][field]=startDate&filters[0][operator]=gte&filters[0][value]=2026-03-01&filters[1][field]=endDate&filters[1][operator]=lte&filters[1][value]=2026-03-31&filters[2][field]=search&filters[2][operator]=contains&filters[2][value]=ada",
    });
    const days = { startDate: "2026-03-01", endDate: "2026-03-31" };
    await user.click(await screen.findByRole("button", { name: /^Orders called / }));
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", ...days, called: "true" }));
    expect(search()).toMatch(/\[field\]=called&filters\[\d\]\[operator\]=eq&filters\[\d\]\[value\]=true/);
    expect(screen.getByRole("searchbox", { name: "Search orders" })).toHaveValue("");
    expect(screen.getByText("Called at least once")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: /^Recovery rate / }));
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", ...days, status: "recovered" }));
    expect(screen.queryByText("Called at least once")).toBeNull();

    await user.click(screen.getByRole("button", { name: /^Orders called / }));
    await screen.findByText("Called at least once");
    await user.click(screen.getByLabelText("Show orders whether called or not"));
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", ...days }));
    expect(screen.queryByText("Called at least once")).toBeNull();
  });

  it("reads several statuses from the URL and sends them comma-separated", async () => {
    const { user, fetch } = await openList({
      orders: [CALLING, RECOVERED, EURO_NO_CONSENT],
      path: "/orders?filters[0][field]=status&filters[0][operator]=in&filters[0][value][0]=calling&filters[0][value][1]=no_consent",
    });
    expect(queriesTo(fetch, "GET", "/api/order/")[0]).toEqual({ page: "1", limit: "20", status: "calling,no_consent" });
    await screen.findByRole("button", { name: "Open order #1044" });
    expect(screen.queryByRole("button", { name: "Open order #1042" })).toBeNull();
    // The picker holds both (its tags collapse to fit; the open list marks them chosen).
    await user.click(screen.getByRole("combobox", { name: "Status" }));
    for (const label of ["Calling", "No consent"]) expect((await screen.findAllByTitle(label)).at(-1)).toHaveAttribute("aria-selected", "true");
    expect((await screen.findAllByTitle("Recovered")).at(-1)).toHaveAttribute("aria-selected", "false");
  });

  it("filters by status and searches, writing both to the URL and the request", async () => {
    const { user, fetch } = await openList();
    await user.click(screen.getByRole("combobox", { name: "Status" }));
    await user.click((await screen.findAllByTitle("Recovered")).at(-1)!);
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", status: "recovered" }));
    await user.click((await screen.findAllByTitle("Calling")).at(-1)!);
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", status: "recovered,calling" }));
    await user.keyboard("{Escape}");

    await user.type(screen.getByRole("searchbox", { name: "Search orders" }), "grace");
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", status: "recovered,calling", search: "grace" }));
    await screen.findByRole("button", { name: "Open order #1043" });
    await waitFor(() => expect(screen.queryByRole("button", { name: "Open order #1042" })).toBeNull());
  });

  it("pages on the server: 20 a page, the total, and page 2 in the request and the URL", async () => {
    const many = Array.from({ length: 25 }, (_, index) =>
      makeOrder({ id: `00000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`, reference: `#${2000 + index}` }),
    );
    const { user, fetch, search } = await openList({ orders: many });
    expect(screen.getAllByRole("button", { name: /^Open order #/ })).toHaveLength(20);
    expect(screen.getByText("25 orders")).toBeInTheDocument();
    await user.click(within(screen.getByTitle("Next Page")).getByRole("button"));
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "2", limit: "20" }));
    await screen.findByRole("button", { name: "Open order #2024" });
    await waitFor(() => expect(screen.getAllByRole("button", { name: /^Open order #/ })).toHaveLength(5));
    expect(search()).toContain("currentPage=2");
  });

  it("sends a picked date range as YYYY-MM-DD to the list and the figures, and keeps it in the URL", async () => {
    const { user, fetch, search } = await openList();
    await user.click(screen.getByPlaceholderText("Abandoned from"));
    await user.type(screen.getByPlaceholderText("Abandoned from"), "2026-03-05{Enter}");
    await user.type(screen.getByPlaceholderText("to"), "2026-03-09{Enter}");
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/").at(-1)).toEqual({ page: "1", limit: "20", startDate: "2026-03-05", endDate: "2026-03-09" }));
    await waitFor(() => expect(queriesTo(fetch, "GET", "/api/order/stats").at(-1)).toEqual({ startDate: "2026-03-05", endDate: "2026-03-09" }));
    expect(search()).toContain("[field]=startDate&filters[0][operator]=gte&filters[0][value]=2026-03-05");
  });

  it("says when no order matches, and Clear filters shows them all again", async () => {
    const { user } = await openList();
    await user.type(screen.getByRole("searchbox", { name: "Search orders" }), "nobody at all");
    await screen.findByText("No orders match these filters");
    expect(screen.queryByText("No orders yet")).toBeNull();
    await user.click(screen.getAllByRole("button", { name: "Clear filters" }).at(-1)!);
    await screen.findByRole("button", { name: "Open order #1042" });
  });

  it("shows admins the follow-up settings, store integrations and import; members see none of them", async () => {
    await openList();
    expect(screen.getByRole("button", { name: /Follow-up settings/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Store integrations/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Import CSV/ })).toBeInTheDocument();
  });

  it("hides the admin buttons from a member", async () => {
    await openList({ role: "org:member" });
    // The permission answer has arrived once the table is drawn; give it a beat all the same.
    await waitFor(() => expect(screen.getByText("3 orders")).toBeInTheDocument());
    expect(screen.queryByRole("button", { name: /Follow-up settings/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /Store integrations/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /Import CSV/ })).toBeNull();
  });

  it("explains where orders come from when there is none, with the ways in for admins", async () => {
    await openList({ orders: [] });
    await screen.findByText("No orders yet");
    expect(screen.getByText(/arrive by themselves from a connected store/)).toBeInTheDocument();
    expect(screen.getByText(/or from a CSV import/)).toBeInTheDocument();
    // The header's and the empty state's.
    expect(screen.getAllByRole("button", { name: /Store integrations/ })).toHaveLength(2);
    expect(screen.getAllByRole("button", { name: /Import CSV/ })).toHaveLength(2);
  });

  it("tells a member with no orders to ask an admin", async () => {
    await openList({ role: "org:member", orders: [] });
    await screen.findByText("No orders yet");
    expect(screen.getByText("Ask an admin of this organization to connect your store or import orders.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Store integrations/ })).toBeNull();
  });

  it("says when the list fails, with the server's detail, and Retry asks again", async () => {
    const fetch = installFetchFake();
    serveOrders(fetch, { orders: [RECOVERED] });
    const list = failingList(() => json({ data: [RECOVERED], total: 1, page: 1, limit: 20 }));
    fetch.on("GET", "/api/order/", list.respond);
    const { user } = renderConsole({ path: "/orders", fetch });
    // Nothing is known about the orders, nor while the Retry is on its way: "No orders yet" would be false.
    await retryFailedList(list, user, { title: "The orders could not be loaded", empty: "No orders yet", shown: () => screen.findByRole("button", { name: "Open order #1042" }) });
  });

  it("shows a loading state until the orders arrive", async () => {
    const fetch = installFetchFake();
    serveOrders(fetch, { orders: [RECOVERED] });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    fetch.on("GET", "/api/order/", async () => {
      await held;
      return json({ data: [RECOVERED], total: 1, page: 1, limit: 20 });
    });
    renderConsole({ path: "/orders", fetch });
    await findScreen("Orders");
    await waitFor(() => expect(document.querySelector(".ant-spin-spinning")).not.toBeNull());
    release();
    await screen.findByRole("button", { name: "Open order #1042" });
  });

  it("asks again every few seconds while an order is being called, and stops once none is", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { state, fetch } = await openList({ orders: [RECOVERED, CALLING] });
      const asked = () => fetch.to("GET", "/api/order/").length;
      const before = asked();
      await vi.advanceTimersByTimeAsync(5_000);
      await waitFor(() => expect(asked()).toBe(before + 1));
      expect(fetch.to("GET", "/api/order/stats").length).toBeGreaterThan(1);

      state.orders = state.orders.map((order) => (order.id === OTHER_ORDER_ID ? { ...order, status: "declined", next_call_at: null } : order));
      await vi.advanceTimersByTimeAsync(5_000);
      await within(row("#1043")).findByText("Declined");
      const settled = asked();
      await vi.advanceTimersByTimeAsync(30_000);
      expect(asked()).toBe(settled);
    } finally {
      vi.useRealTimers();
    }
  });

  it("opens an order's drawer from its row, keeping it in the URL", async () => {
    const { user } = await openList();
    await user.click(within(row("#1043")).getByText("Grace Hopper"));
    await screen.findByText("Order #1043");
    await screen.findByRole("region", { name: "Timeline" });
  });
});
