import type { BillingSummary, LedgerEntry, SandboxCheckout, TopUp, Usage } from "../../contract/billing";
import { USAGE_COMPONENTS } from "../../contract/billing-shared";

export const TOP_UP_ID = "b0000000-0000-4000-8000-000000000001";
export const CHECKOUT_ID = "cs_sandbox_123";
export const AGENT_A = "a0000000-0000-4000-8000-00000000000a";
export const CALL_ID = "c0000000-0000-4000-8000-0000000000c1";

/** GET /billing/ for an organisation on the sandbox with $12.50, auto-reload off and no card. */
export function billingSummary(overrides: Partial<BillingSummary> = {}): BillingSummary {
  return {
    balance_usd: 12.5,
    available_usd: 11.25,
    month_to_date_usd: 3.4,
    auto_reload: {
      enabled: false,
      amount_usd: 25,
      threshold_usd: 5,
      monthly_cap_usd: null,
      status: "disabled",
      failures: 0,
      last_error: null,
      reloaded_this_month_usd: 0,
      in_flight: false,
    },
    spend_caps: [],
    card: null,
    held_usd: 1.25,
    currency: "USD",
    time_zone: "UTC",
    payments: "sandbox",
    alerts: [],
    pending_top_up_id: null,
    ...overrides,
  };
}

export function topUp(overrides: Partial<TopUp> = {}): TopUp {
  return {
    id: TOP_UP_ID,
    amount_usd: 50,
    status: "pending",
    created_at: "2026-03-10T10:00:00.000Z",
    kind: "checkout",
    paid_at: null,
    failure_message: null,
    failure_code: null,
    refunded_usd: 0,
    receipt_url: null,
    sandbox: true,
    ...overrides,
  };
}

export function checkout(overrides: Partial<SandboxCheckout> = {}): SandboxCheckout {
  return {
    id: CHECKOUT_ID,
    mode: "payment",
    amount_usd: 50,
    description: "Voice Agents credits",
    plan: null,
    status: "open",
    save_card: true,
    success_url: `/billing?top_up=${TOP_UP_ID}`,
    cancel_url: "/billing",
    sandbox: true,
    ...overrides,
  };
}

export function ledgerEntry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: "e0000000-0000-4000-8000-000000000001",
    amount_usd: -0.42,
    balance_after_usd: 12.08,
    kind: "call",
    call_id: CALL_ID,
    created_at: "2026-03-10T10:00:00.000Z",
    description: "Call to +15550100",
    agent_id: AGENT_A,
    agent_name: "Front desk",
    top_up_id: null,
    ...overrides,
  };
}

const zeroComponents = () => Object.fromEntries(USAGE_COMPONENTS.map((component) => [component, 0])) as Usage["totals"]["components"];

export function usage(): Usage {
  const day = (date: string, cost: number) => ({
    date,
    cost_usd: cost,
    calls: cost > 0 ? 2 : 0,
    seconds: cost > 0 ? 300 : 0,
    minutes: cost > 0 ? 5 : 0,
    avg_cost_per_minute_usd: cost > 0 ? cost / 5 : null,
    components: cost > 0 ? { ...zeroComponents(), transport: cost / 2, llm: cost / 4, text_to_speech: cost / 4 } : zeroComponents(),
  });
  const days = [day("2026-03-01", 1), day("2026-03-02", 0), day("2026-03-03", 2)];
  return {
    time_zone: "UTC",
    start_date: "2026-03-01",
    end_date: "2026-03-03",
    totals: { cost_usd: 3, calls: 4, seconds: 600, minutes: 10, avg_cost_per_minute_usd: 0.3, components: { ...zeroComponents(), transport: 1.5, llm: 0.75, text_to_speech: 0.75 } },
    days,
    agents: [{ agent_id: AGENT_A, agent_name: "Front desk", cost_usd: 3, calls: 4, seconds: 600, minutes: 10, avg_cost_per_minute_usd: 0.3, components: { ...zeroComponents(), transport: 1.5, llm: 0.75, text_to_speech: 0.75 } }],
  };
}
