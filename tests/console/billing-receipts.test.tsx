import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { BillingDocument } from "../../contract/billing";
import { billingText as text } from "../../src/components/billing/strings";
import { AGENT_A, billingSummary, TOP_UP_ID } from "./billing-fixtures";
import { failingList } from "./fetch-fake";
import { findScreen, installFetchFake, json, retryFailedList, renderConsole, signedInAs } from "./test-utils";

const DOC_ID = "d0000000-0000-4000-8000-000000000001";

function document_(overrides: Partial<BillingDocument> = {}): BillingDocument {
  return {
    id: DOC_ID,
    kind: "receipt",
    number: "SBX-0001",
    amount_usd: 50,
    description: "Credits top-up",
    created_at: "2026-03-10T10:00:00.000Z",
    url: `/billing/documents/${DOC_ID}`,
    top_up_id: TOP_UP_ID,
    sandbox: true,
    ...overrides,
  };
}

describe("Billing: Receipts", () => {
  it("lists the documents with links: the sandbox's printable page in the console, Stripe's hosted page outside", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary() }));
    fetch.on("GET", "/api/billing/documents", () =>
      json({ data: [document_(), document_({ id: "d0000000-0000-4000-8000-000000000002", number: "INV-7", kind: "invoice", sandbox: false, url: "https://pay.stripe.com/receipts/x" })], total: 2, page: 1, limit: 100 }),
    );
    fetch.on("GET", `/api/billing/documents/${DOC_ID}`, () =>
      json({ data: { ...document_(), organization_name: "Acme Calls", lines: [{ description: "Voice Agents credits", amount_usd: 50 }] } }),
    );
    const print = vi.spyOn(window, "print").mockImplementation(() => undefined);
    const { user, pathname } = renderConsole({ path: "/billing?tab=receipts", fetch });
    await findScreen("Billing");
    await screen.findByText("SBX-0001");
    expect(screen.getByRole("link", { name: `${text.receipts.open} INV-7` })).toHaveAttribute("href", "https://pay.stripe.com/receipts/x");
    await user.click(screen.getByRole("link", { name: `${text.receipts.open} SBX-0001` }));
    await waitFor(() => expect(pathname()).toBe(`/billing/documents/${DOC_ID}`));
    await screen.findByText("Voice Agents credits");
    expect(screen.getAllByText("Acme Calls").length).toBeGreaterThan(1);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Receipt SBX-0001");
    expect(within(screen.getByRole("heading", { level: 1 })).getByText("Sandbox")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: text.document.print }));
    expect(print).toHaveBeenCalled();
  });

  it("says when there are none yet", async () => {
    const fetch = installFetchFake();
    fetch.on("GET", "/api/billing/documents", () => json({ data: [], total: 0, page: 1, limit: 100 }));
    renderConsole({ path: "/billing?tab=receipts", fetch });
    await screen.findByText(text.receipts.empty);
  });

  it("claims none while the list fails or is asked again, and Retry shows them once they load", async () => {
    const fetch = installFetchFake();
    const list = failingList(() => json({ data: [document_()], total: 1, page: 1, limit: 100 }));
    fetch.on("GET", "/api/billing/documents", list.respond);
    const { user } = renderConsole({ path: "/billing?tab=receipts", fetch });
    await retryFailedList(list, user, { title: text.receipts.loadFailed, empty: text.receipts.empty, retry: text.retry, shown: () => screen.findByText("SBX-0001") });
  });
});

describe("Billing: spend caps", () => {
  it("shows each cap's progress and saves the edited list", async () => {
    const fetch = installFetchFake();
    const cap = {
      id: "f0000000-0000-4000-8000-000000000001",
      scope: "organization" as const,
      agent_id: null,
      agent_name: null,
      period: "month" as const,
      limit_usd: 100,
      spent_usd: 40,
      remaining_usd: 60,
      progress: 0.4,
      reached: false,
      resets_at: "2026-04-01T00:00:00.000Z",
    };
    fetch.on("GET", "/api/billing/", () => json({ data: billingSummary({ spend_caps: [cap] }) }));
    fetch.on("GET", "/api/agent/", () => json({ data: [{ id: AGENT_A, agent_name: "Front desk" }], total: 1, page: 1, limit: 100 }));
    fetch.on("PUT", "/api/billing/spend-caps", () => json({ data: [cap] }));
    const { user } = renderConsole({ path: "/billing", fetch, session: signedInAs("org:admin") });
    await findScreen("Billing");
    await screen.findByText(/\$40\.00 of \$100\.00/);
    await user.click(screen.getByRole("button", { name: text.caps.edit }));
    await user.click(await screen.findByRole("button", { name: text.caps.add }));
    const limits = screen.getAllByRole("spinbutton", { name: text.caps.limit });
    await user.type(limits[1]!, "20");
    await user.click(screen.getByRole("button", { name: text.caps.save }));
    await waitFor(() => expect(fetch.to("PUT", "/api/billing/spend-caps")).toHaveLength(1));
    expect(fetch.to("PUT", "/api/billing/spend-caps")[0]!.body).toEqual({
      caps: [
        { scope: "organization", period: "month", limit_usd: 100 },
        { scope: "organization", period: "month", limit_usd: 20 },
      ],
    });
  });
});
