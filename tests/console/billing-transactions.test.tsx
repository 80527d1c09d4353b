import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Location } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingText as text } from "../../src/components/billing/strings";
import { ConsoleRoutes } from "../../src/routes";
import { AGENT_A, billingSummary, CALL_ID, ledgerEntry, TOP_UP_ID } from "./billing-fixtures";
import { failingList } from "./fetch-fake";
import { asPhone, ConsoleProviders, findScreen, installFetchFake, json, retryFailedList, signedInAs, type RecordedRequest } from "./test-utils";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** The ledger's own answer (`ledger`) replaces the two entries below. */
function open(path: string, role: "org:admin" | "org:member" = "org:admin", ledger?: (request: RecordedRequest) => Promise<Response>) {
  const fetch = installFetchFake();
  fetch.on("GET", "/api/billing/", () => json({ data: billingSummary() }));
  fetch.on("GET", "/api/agent/", () => json({ data: [{ id: AGENT_A, agent_name: "Front desk" }], total: 1, page: 1, limit: 100 }));
  fetch.on("GET", "/api/billing/ledger", () =>
    json({
      data: [
        ledgerEntry(),
        ledgerEntry({ id: "e0000000-0000-4000-8000-000000000002", amount_usd: 50, balance_after_usd: 62.08, kind: "top-up", call_id: null, agent_id: null, agent_name: null, description: "Top-up", top_up_id: TOP_UP_ID }),
      ],
      total: 120,
      page: 1,
      limit: 50,
    }),
  );
  if (ledger) fetch.on("GET", "/api/billing/ledger", ledger);
  let location: Location | null = null;
  const user = userEvent.setup();
  render(
    <ConsoleProviders session={signedInAs(role)} path={path} onLocation={(current) => (location = current)}>
      <ConsoleRoutes />
    </ConsoleProviders>,
  );
  return { fetch, user, search: () => new URLSearchParams(location?.search ?? "") };
}

describe("Billing: Transactions", () => {
  it("lists the ledger 50 a page with signed amounts, balance after, and a link to the call's drawer", async () => {
    const { fetch } = open("/billing?tab=transactions");
    await findScreen("Billing");
    await screen.findByText("Call to +15550100");
    expect(screen.getByText("−$0.42")).toBeInTheDocument();
    expect(screen.getByText("+$50.00")).toBeInTheDocument();
    expect(screen.getByText("$62.08")).toBeInTheDocument();
    expect(screen.getByText(text.transactions.total(120))).toBeInTheDocument();
    expect(screen.getByRole("link", { name: `${text.transactions.openCall} ${CALL_ID}` })).toHaveAttribute("href", `/call-logs?call=${CALL_ID}`);
    const request = fetch.to("GET", "/api/billing/ledger")[0]!;
    expect(request.query.get("page")).toBe("1");
    expect(request.query.get("limit")).toBe("50");
  });

  it("on a phone, shows each amount under its date, in sight, not in a column off to the right", async () => {
    const restore = asPhone();
    try {
      open("/billing?tab=transactions");
      await findScreen("Billing");
      const description = await screen.findByText("Call to +15550100");
      expect(screen.getAllByRole("columnheader").map((header) => header.textContent)).not.toContain("Amount");
      const [date] = within(description.closest("tr")!).getAllByRole("cell");
      expect(within(date!).getByText("−$0.42")).toBeInTheDocument();
      const [topUpDate] = within(screen.getByText("$62.08").closest("tr")!).getAllByRole("cell");
      expect(within(topUpDate!).getByText("+$50.00")).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it("claims no transactions while the ledger fails or is asked again, and Retry shows them once they load", async () => {
    const list = failingList(() => json({ data: [ledgerEntry()], total: 1, page: 1, limit: 50 }));
    const { user } = open("/billing?tab=transactions", "org:admin", list.respond);
    await retryFailedList(list, user, { title: text.transactions.loadFailed, empty: text.transactions.empty, retry: text.retry, shown: () => screen.findByText("Call to +15550100") });
  });

  it("pages through Refine's table: page 2 is asked for and written to the URL; a filter goes back to page 1", async () => {
    const { fetch, user, search } = open("/billing?tab=transactions");
    await findScreen("Billing");
    await screen.findByText("Call to +15550100");
    await user.click(screen.getByRole("listitem", { name: "2" }));
    await waitFor(() => expect(search().get("page")).toBe("2"));
    await waitFor(() => expect(fetch.to("GET", "/api/billing/ledger").at(-1)!.query.get("page")).toBe("2"));
    await user.click(screen.getByRole("combobox", { name: text.transactions.kind }));
    await user.click(await screen.findByTitle("Top-up"));
    await waitFor(() => expect(search().get("kind")).toBe("top-up"));
    expect(search().get("page")).toBeNull();
    await waitFor(() => expect(Object.fromEntries(fetch.to("GET", "/api/billing/ledger").at(-1)!.query)).toMatchObject({ page: "1", kind: "top-up" }));
  });

  it("filters from the URL go to the request; changing them writes the URL and asks again", async () => {
    const { fetch, user, search } = open(`/billing?tab=transactions&from=2026-03-01&to=2026-03-31&agent=${AGENT_A}&min=1`);
    await findScreen("Billing");
    await screen.findByText("Call to +15550100");
    const first = fetch.to("GET", "/api/billing/ledger")[0]!;
    expect(Object.fromEntries(first.query)).toEqual({ page: "1", limit: "50", startDate: "2026-03-01", endDate: "2026-03-31", agentId: AGENT_A, minAmount: "1" });

    await user.click(screen.getByRole("combobox", { name: text.transactions.kind }));
    await user.click(await screen.findByTitle("Top-up"));
    await waitFor(() => expect(search().get("kind")).toBe("top-up"));
    await user.type(screen.getByRole("searchbox", { name: text.transactions.search }), "refund{Enter}");
    await waitFor(() => expect(search().get("q")).toBe("refund"));
    await waitFor(() => expect(fetch.to("GET", "/api/billing/ledger").at(-1)!.query.get("q")).toBe("refund"));
    const last = fetch.to("GET", "/api/billing/ledger").at(-1)!;
    expect(last.query.get("kind")).toBe("top-up");
    expect(last.query.get("startDate")).toBe("2026-03-01");
    expect(search().get("tab")).toBe("transactions");
  });

  it("exports CSV with the same filters and the bearer token", async () => {
    const createObjectURL = vi.fn((_blob: Blob) => "blob:ledger");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const { fetch, user } = open("/billing?tab=transactions&kind=call&q=desk");
    fetch.on("GET", "/api/billing/ledger/export", () => new Response("id,amount_usd\n1,-0.42\n", { headers: { "Content-Type": "text/csv" } }));
    await findScreen("Billing");
    await screen.findByText("Call to +15550100");
    await user.click(screen.getByRole("button", { name: text.transactions.export }));
    await waitFor(() => expect(fetch.to("GET", "/api/billing/ledger/export")).toHaveLength(1));
    const request = fetch.to("GET", "/api/billing/ledger/export")[0]!;
    expect(Object.fromEntries(request.query)).toEqual({ kind: "call", q: "desk" });
    expect(request.headers.get("Authorization")).toBe("Bearer token-1");
    await waitFor(() => expect(createObjectURL).toHaveBeenCalled());
  });

  it("a member sees the refund button disabled with the reason", async () => {
    open("/billing?tab=transactions", "org:member");
    await findScreen("Billing");
    await screen.findByText("Call to +15550100");
    const refund = screen.getByRole("button", { name: text.transactions.refund });
    expect(refund).toBeDisabled();
    expect(refund.closest(".billing-disabled-wrap")).toHaveAttribute("aria-label", text.adminOnly);
  });

  it("an admin refunds a top-up", async () => {
    const { fetch, user } = open("/billing?tab=transactions");
    fetch.on("POST", `/api/billing/top-up/${TOP_UP_ID}/refund`, () => json({ data: {} }));
    await screen.findByText("Call to +15550100");
    await user.click(screen.getByRole("button", { name: text.transactions.refund }));
    const confirm = await screen.findByRole("tooltip");
    await user.click(within(confirm).getByRole("button", { name: "OK" }));
    await waitFor(() => expect(fetch.to("POST", `/api/billing/top-up/${TOP_UP_ID}/refund`)).toHaveLength(1));
  });
});
